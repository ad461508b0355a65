/* L1 data replacement policy by name, from access sequences within single
 * sets (issue 8, part 3).  In the default run (with --only: with --geometry): it needs the geometry
 * probe's ways W and its set index, modulo over S sets or a recovered XOR
 * hash (set_lines.h turns either into the lines of one set).  (The
 * whole-cache class of probe_replacement.c, in the default report, needs
 * neither.)
 *
 * In set t the lines A0..A(W-1) and the new line B are W + 1 lines that
 * the index puts in set t: under modulo t, t + S, ..., t + W S; under an
 * XOR index t's line of pivot bits XORed with the null space of the masks
 * (lines x and x XOR d with M d = 0 share a set), so they may lie far
 * apart; every set sampled has its own label.  Each test runs one
 * sequence in many sets (sets are
 * independent, so every set is one sample), then times A0..A(W-1) in each
 * set.  Exactly one line was evicted (the set was full, one line came
 * in), so the first miss in a set names the victim; lines after it may
 * miss only because its refill evicted them.  The tests:
 *   fill:     A0..A(W-1), B.              LRU, FIFO, PLRU: A0.
 *   hit A0:   A0..A(W-1), A0, B.          LRU A1, FIFO A0, PLRU A(W/2).
 *   reversed: A0..A(W-1), A(W-1)..A0, B.  LRU A(W-1), FIFO A0, PLRU: its tree.
 * The predictions come from the models in analysis/policy_sets.c.  A
 * deterministic policy names the same victim in every sample; random and
 * Fermi's weighted random draw a victim whatever the history, so their
 * victims pool over the tests and their spread over the lines tells them
 * apart (uniform, or one line 3:1). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "confidence.h"
#include "geometry.h"
#include "set_lines.h"

/* Samples (sets) per test: 96 give 288 victims in all, enough to tell
 * Fermi's 3 / (W + 2) from random's 1 / W up to 16 ways (a gap of at
 * least 6 standard deviations at 16 ways) and to make a deterministic
 * fit that random could mimic less likely than 1e-30. */
#define POLICY_SET_SAMPLES 96u
/* A deterministic model fits when at most this share of the samples
 * named another victim: a timer outlier before the real victim makes a
 * false first miss (the H100's outlier rate is about 1e-3 per load, W
 * loads per sample). */
#define POLICY_SET_STRAY 0.1
/* Significance of the uniform and Fermi fits and of a deterministic claim
 * (random mimicking it): one run makes about four such tests. */
#define POLICY_SET_ALPHA 1e-3
#define POLICY_SET_TESTS 3u

static const char *const test_names[POLICY_SET_TESTS] = {"fill", "hit A0", "reversed"};

/* The untimed part of test `k` in one set, as line ids (0..W-1 the fill
 * lines, W the new one); returns its length. */
static uint32_t test_ids(uint32_t k, uint32_t ways, uint32_t *ids)
{
    uint32_t n = 0;
    for (uint32_t j = 0; j < ways; j++)
        ids[n++] = j;
    if (k == 1)
        ids[n++] = 0;
    if (k == 2)
        for (uint32_t j = ways; j-- > 0;)
            ids[n++] = j;
    ids[n++] = ways;
    return n;
}

/* Runs test k in `sets` sets per experiment (set t's lines A0..A(W-1), B:
 * set_line[t * (W + 1) ..]), `runs` experiments (new random draws each:
 * order_seed), and tallies the victims. */
static mt_err run_test(mt_probe_ctx *c, uint32_t k, uint32_t ways, const uint32_t *set_line,
                       uint32_t sets, uint32_t runs, uint32_t ln, mt_policy_sets_test *out)
{
    uint32_t ids[3 * MT_POLICY_SETS_MAX_WAYS + 2];
    uint32_t per_set = test_ids(k, ways, ids);
    uint32_t len = sets * (per_set + ways);
    uint32_t *seq = malloc((size_t)len * sizeof *seq);
    mt_experiment *e = calloc(runs, sizeof *e);
    mt_result *r = calloc(runs, sizeof *r);
    mt_err err = MT_OK;
    if (!seq || !e || !r) {
        err = mt_fail(c->ei, MT_ERR_NOMEM, "out of memory");
        goto out;
    }
    uint32_t n = 0, top = 0;
    for (uint32_t t = 0; t < sets; t++) /* every set's sequence, then every set's timing */
        for (uint32_t i = 0; i < per_set; i++)
            seq[n++] = set_line[t * (ways + 1) + ids[i]];
    for (uint32_t t = 0; t < sets; t++)
        for (uint32_t j = 0; j < ways; j++)
            seq[n++] = set_line[t * (ways + 1) + j];
    for (uint32_t i = 0; i < n; i++)
        top = seq[i] > top ? seq[i] : top;
    /* One element per line, element x at line x of the buffer. */
    uint64_t fp = ((uint64_t)top + 1) * ln;
    for (uint32_t i = 0; i < runs; i++) {
        e[i] = mt_exp_chase(MT_PATH_GLOBAL_CA, fp, ln, 0, sets * ways, MT_MODE_FINE);
        e[i].kind = MT_KIND_SEQUENCE;
        e[i].u.seq = (mt_sequence){.index = seq, .n = len, .untimed = len - sets * ways};
        e[i].order_seed = i;
    }
    if ((err = mt_run(c, e, runs, r)) != MT_OK)
        goto out;
    double thr = c->cs[MT_CACHE_L1D].hit_threshold;
    for (uint32_t i = 0; i < runs; i++) {
        for (uint32_t t = 0; t < sets && (t + 1) * ways <= r[i].n[0]; t++) {
            uint32_t j = 0;
            while (j < ways && (double)r[i].cycles[0][t * ways + j] - c->overhead_fine <= thr)
                j++;
            if (j < ways)
                out->victim[j]++;
            else
                out->no_miss++;
        }
    }
    mt_results_free(r, runs);
out:
    free(seq);
    free(e);
    free(r);
    return err;
}

/* "A3 90/96 [A3 A0 A2]": the most frequent victim, its count, and the
 * LRU, FIFO and PLRU predictions ("-": none). */
static void describe_test(const mt_policy_sets_test *t, uint32_t ways, char *buf, size_t cap)
{
    uint32_t top = 0;
    uint64_t n = t->no_miss;
    for (uint32_t j = 0; j < ways; j++) {
        n += t->victim[j];
        if (t->victim[j] > t->victim[top])
            top = j;
    }
    char pred[MT_MODEL_COUNT][8];
    for (int m = 0; m < MT_MODEL_COUNT; m++)
        snprintf(pred[m], sizeof pred[m], t->predicted[m] < 0 ? "-" : "A%d", t->predicted[m]);
    snprintf(buf, cap, "A%u %llu/%llu [%s %s %s]", top, (unsigned long long)t->victim[top],
             (unsigned long long)n, pred[MT_MODEL_LRU], pred[MT_MODEL_FIFO], pred[MT_MODEL_PLRU]);
}

static mt_finding not_tested(const char *why)
{
    mt_finding f = mt_find_value(0, "", MT_SRC_MEASURED, "per-set sequences", 0, "not tested: %s",
                                 why);
    f.kind = MT_FIND_NONE;
    return f;
}

static mt_err run_policy(mt_probe_ctx *c)
{
    const mt_finding *line = mt_get(c, "l1d", "line");
    const mt_cache_state *cs = &c->cs[MT_CACHE_L1D];
    mt_finding f;
    char why[240] = "";
    mt_set_index ix;
    bool indexed = mt_set_index_of(c, "l1d", MT_PATH_GLOBAL_CA, &ix, why, sizeof why);
    uint32_t ways = indexed ? ix.ways : 0, ln = ix.line;
    uint64_t sets = indexed ? ix.sets : 0;
    /* A copy: mt_set may move the finding the pointer reads. */
    const double line_conf = line->confidence;
    /* The longest test's sequence in one set: fill, W hits, B, W timed. */
    uint32_t per_set = 3 * ways + 1;
    uint32_t sets_per_run = sets < POLICY_SET_SAMPLES ? (uint32_t)sets : POLICY_SET_SAMPLES;
    if (indexed && c->dev.max_sequence && sets_per_run > c->dev.max_sequence / per_set)
        sets_per_run = c->dev.max_sequence / per_set;
    if (indexed && sets_per_run > c->dev.max_fine_loads / ways)
        sets_per_run = c->dev.max_fine_loads / ways;
    if (!indexed)
        ; /* why says why */
    else if (!cs->hit_known)
        snprintf(why, sizeof why, "no L1 hit threshold");
    else if (!mt_backend_supports(c->be, MT_KIND_SEQUENCE))
        snprintf(why, sizeof why, "the backend runs no access sequences");
    else if (ways > MT_POLICY_SETS_MAX_WAYS)
        snprintf(why, sizeof why, "%u ways: the models stop at %u", ways, MT_POLICY_SETS_MAX_WAYS);
    else if (sets_per_run == 0)
        snprintf(why, sizeof why, "one set's %u-entry sequence exceeds the backend's limits",
                 per_set);
    /* Set t's lines A0..A(W-1), B, for the sets sampled (labels 0, 1, ...:
     * each a set of its own); a direct-mapped cache needs none. */
    uint32_t *set_line = NULL;
    if (!why[0] && ways > 1) {
        set_line = malloc((size_t)sets_per_run * (ways + 1) * sizeof *set_line);
        if (!set_line)
            return mt_fail(c->ei, MT_ERR_NOMEM, "out of memory");
        for (uint32_t t = 0; t < sets_per_run && !why[0]; t++)
            if (!mt_set_lines(&ix, t, ways + 1, set_line + (size_t)t * (ways + 1)))
                snprintf(why, sizeof why, "%u lines of set %u do not lie within the %llu lines "
                         "the %s index is known for", ways + 1, t,
                         (unsigned long long)ix.lines_known, ix.xor_index ? "XOR" : "modulo");
    }
    uint32_t top_line = 0;
    for (size_t i = 0; set_line && i < (size_t)sets_per_run * (ways + 1); i++)
        top_line = set_line[i] > top_line ? set_line[i] : top_line;
    if (why[0]) {
        free(set_line);
        f = not_tested(why);
        mt_set(c, "l1d", "policy", &f);
        return MT_OK;
    }
    mt_note_threshold(c, "POLICY_SET_SAMPLES", POLICY_SET_SAMPLES,
                      "policy: sets (samples) per per-set sequence test");
    mt_note_threshold(c, "POLICY_SET_STRAY", POLICY_SET_STRAY,
                      "policy: most samples off a deterministic model's victim for it to fit");
    mt_note_threshold(c, "POLICY_SET_ALPHA", POLICY_SET_ALPHA,
                      "policy: significance of the random, Fermi and deterministic fits");
    if (ways == 1) {
        f = mt_find_value(0, "", MT_SRC_MEASURED, "per-set sequences", line_conf,
                          "geometry: 1 way, %llu sets: every line has one place",
                          (unsigned long long)sets);
        f.kind = MT_FIND_TEXT;
        snprintf(f.text, sizeof f.text, "direct-mapped (1 way): no replacement choice");
        mt_set(c, "l1d", "policy", &f);
        return MT_OK;
    }
    uint32_t runs = (POLICY_SET_SAMPLES + sets_per_run - 1) / sets_per_run;
    mt_progress(c, "L1 policy: %u per-set tests, %u sets x %u runs, %u ways", POLICY_SET_TESTS,
                sets_per_run, runs, ways);
    mt_policy_sets_test tests[POLICY_SET_TESTS];
    memset(tests, 0, sizeof tests);
    for (uint32_t k = 0; k < POLICY_SET_TESTS; k++) {
        uint32_t ids[3 * MT_POLICY_SETS_MAX_WAYS + 2];
        uint32_t n = test_ids(k, ways, ids);
        for (int m = 0; m < MT_MODEL_COUNT; m++)
            tests[k].predicted[m] = mt_policy_predict_victim((mt_policy_model)m, ways, ids, n);
        mt_err err = run_test(c, k, ways, set_line, sets_per_run, runs, ln, &tests[k]);
        if (err != MT_OK) {
            free(set_line);
            return err;
        }
    }
    free(set_line);
    const mt_policy_sets_obs obs = {ways, POLICY_SET_TESTS, tests};
    const mt_policy_sets_limits lim = {POLICY_SET_STRAY, POLICY_SET_ALPHA};
    mt_policy_sets_verdict v = mt_classify_policy_sets(&obs, &lim);

    /* The evidence: per test, the most frequent victim against each
     * model's prediction. */
    char table[3][56];
    for (uint32_t k = 0; k < POLICY_SET_TESTS; k++)
        describe_test(&tests[k], ways, table[k], sizeof table[k]);
    mt_finding ev = mt_find_value(0, "", MT_SRC_MEASURED, "per-set sequences", MT_CONF_POLICY,
                                  "per test: most frequent victim (first miss timing A0..A%u), "
                                  "samples, [LRU FIFO PLRU] predictions; %u ways x %llu sets",
                                  ways - 1, ways, (unsigned long long)sets);
    if (ix.xor_index)
        mt_finding_append_note(&ev, "XOR index: a set's lines differ by vectors the masks map "
                               "to 0; lines up to %u (%llu KiB of buffer)", top_line,
                               ((unsigned long long)top_line + 1) * ln / 1024);
    ev.kind = MT_FIND_TEXT;
    snprintf(ev.text, sizeof ev.text, "%s: %.50s; %s: %.50s; %s: %.50s", test_names[0], table[0],
             test_names[1], table[1], test_names[2], table[2]);
    mt_set(c, "l1d", "policy_evidence", &ev);

    /* The sequences stand on the geometry: a policy is no surer than the
     * ways, sets and index that placed its lines in one set. */
    double conf = ix.confidence < MT_CONF_POLICY ? ix.confidence : MT_CONF_POLICY;
    char text[192];
    switch (v.cls) {
    case MT_SETS_DETERMINISTIC:
        if ((v.fits & (1u << MT_MODEL_LRU)) && (v.fits & (1u << MT_MODEL_PLRU)))
            snprintf(text, sizeof text, "LRU (tree pseudo-LRU is the same at %u ways)", ways);
        else if (v.fits & (1u << MT_MODEL_LRU))
            snprintf(text, sizeof text, "LRU");
        else if (v.fits & (1u << MT_MODEL_FIFO))
            snprintf(text, sizeof text, "FIFO");
        else
            snprintf(text, sizeof text, "tree pseudo-LRU");
        break;
    case MT_SETS_RANDOM:
        snprintf(text, sizeof text, "not LRU/FIFO/PLRU, consistent with random (victims spread "
                 "evenly, most frequent A%d %.0f%%)", v.top_line, 100 * v.top_share);
        break;
    case MT_SETS_FERMI:
        snprintf(text, sizeof text, "Fermi-like weighted random: A%d's way evicted %.0f%% of the "
                 "time (Fermi's 3:1 weights: %.0f%%)", v.top_line, 100 * v.top_share,
                 100 * 3.0 / (ways + 2.0));
        break;
    case MT_SETS_RANDOM_OR_FERMI:
        snprintf(text, sizeof text, "not LRU/FIFO/PLRU: random or Fermi-like, not told apart "
                 "(most frequent victim A%d %.0f%%)", v.top_line, 100 * v.top_share);
        break;
    case MT_SETS_NONE_OF_THESE:
    default:
        conf = MT_CONF_INCONSISTENT;
        snprintf(text, sizeof text, "none of LRU, FIFO, PLRU, random, Fermi: most frequent "
                 "victim A%d %.0f%%, %.0f%% of sets without a miss", v.top_line,
                 100 * v.top_share, 100 * v.no_miss_share);
        break;
    }
    f = mt_find_value(0, "", MT_SRC_MEASURED, "per-set sequences", conf,
                      "%llu samples over 3 tests (evidence: l1d policy_evidence); LRU %.0f%%, "
                      "FIFO %.0f%%, PLRU %.0f%% of samples on their predicted victim; stray <= "
                      "%.0f%%", (unsigned long long)v.samples, 100 * v.match_share[MT_MODEL_LRU],
                      100 * v.match_share[MT_MODEL_FIFO], 100 * v.match_share[MT_MODEL_PLRU],
                      100 * POLICY_SET_STRAY);
    f.kind = MT_FIND_TEXT;
    snprintf(f.text, sizeof f.text, "%s", text);
    if (v.cls == MT_SETS_DETERMINISTIC && v.p_other >= POLICY_SET_ALPHA)
        mt_finding_doubt(&f, MT_CONF_INCONSISTENT, "random or Fermi matches this with p=%.2g",
                         v.p_other);
    else if (v.cls == MT_SETS_RANDOM || v.cls == MT_SETS_FERMI || v.cls == MT_SETS_RANDOM_OR_FERMI)
        mt_finding_append_note(&f, "uniform fit p=%.2g, Fermi fit p=%.2g (alpha %g)", v.p_uniform,
                               v.p_fermi, POLICY_SET_ALPHA);
    if (conf < MT_CONF_TRUSTED && v.cls != MT_SETS_NONE_OF_THESE)
        mt_finding_append_note(&f, "confidence capped at l1d.%s's (%.2f): the lines of a set "
                               "come from that geometry", ix.weakest, ix.confidence);
    mt_set(c, "l1d", "policy", &f);
    return MT_OK;
}

static const mt_finding_decl policy_provides[] = {
    {"l1d.policy", "replacement policy (per-set tests)"},
    {"l1d.policy_evidence", "replacement evidence (victim, samples, [LRU FIFO PLRU])"},
    {NULL},
};
static const char *const policy_requires[] = {"l1d.ways", "l1d.sets", "l1d.index",
                                              "l1d.index_masks", "l1d.line", NULL};
const mt_probe_desc mt_probe_policy = {
    .name = "policy",
    .summary = "L1 data replacement policy by name (LRU, FIFO, tree PLRU, random, Fermi) from "
               "sequences within single sets",
    .rank = 96, .provides = policy_provides, .requires = policy_requires, .run = run_policy,
    /* Part of the default run like the geometry it stands on (it issues
     * no experiment where the geometry gives no set index); with --only, when
     * --geometry asks. */
    .requested = mt_geometry_requested,
};

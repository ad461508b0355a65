/* L1 data cache replacement: does the cache keep what was used recently
 * (LRU, tree pseudo-LRU), evict in insertion order (FIFO), or evict without
 * order (random and the like)?  The first probe of the cache-geometry issue,
 * and the first user of explicit access sequences (MT_KIND_SEQUENCE): an
 * element is visited more than once, which no pointer chain can express.
 *
 * N = size / line lines fill the cache exactly (the measured capacity).
 * Three sequences, each starting cold:
 *   recency:   fill 0..N-1, touch again 0..R-1 (the oldest R), bring in R
 *              new lines, then time 0..R-1.  LRU keeps the touched lines
 *              (the new lines evict lines never touched again); FIFO evicts
 *              the oldest inserted, i.e. exactly the touched ones.
 *   untouched: the recency sequence without the touch (the control): the
 *              timed lines are the oldest of their sets, so every ordered
 *              policy evicts them IF the new lines land in their sets.
 *              Recency is claimed only when the touch saved the lines
 *              (fewer misses than here, Fisher test): under a hashed index
 *              the new lines may go to other sets, and a direct-mapped
 *              cache keeps what the new lines do not displace, touched or
 *              not, which without the control read as "recency".
 *   ordering:  fill 0..N-1, bring in N/2 new lines, then time the youngest
 *              R lines (N-R..N-1).  LRU and FIFO both evict the oldest
 *              half and keep these; a policy without order evicts some,
 *              and so does tree pseudo-LRU with many ways (class below).
 * R = N / 8.  The miss shares decide, with the thresholds below; between
 * them the policy is reported as not classified.  An ordered class (recency
 * or insertion order) must also be one that a policy without order would
 * show only with probability below POLICY_ALPHA (mt_classify_policy): when
 * one run of the sequences cannot say so (few lines, or Fermi's policy with 2-3
 * ways evicting the oldest line most of the time), they are repeated and
 * the counts pooled; still short of that, the class is flagged.  Without the
 * set count a direct-mapped cache cannot be told from FIFO: the finding
 * says "insertion order (FIFO, or direct-mapped)"; with --geometry and a
 * modulo index, probe_policy.c names the policy from single sets. */
#include <stdio.h>
#include <stdlib.h>

#include "confidence.h"
#include "probe_internal.h"

/* A miss share at most this low is "the lines were kept": uneven set use
 * (hashed indices) can evict a few kept lines under LRU too. */
#define POLICY_KEPT_SHARE 0.2
/* A miss share at least this high is "the lines were evicted": FIFO evicts
 * nearly all touched lines; random replacement rarely half of them. */
#define POLICY_EVICTED_SHARE 0.6
#define POLICY_REFRESH_DIVISOR 8u /* R = N / 8: few enough to stay the minority of every set */
#define POLICY_MIN_PROBES 8u      /* below 8 timed loads one miss moves a share by > 12% */
/* Policies without order in the documented models (random, Fermi's 3:1
 * weights), whatever the ways: the ordering test's youngest line, which
 * receives (W-1)/2 or more new lines in its set, is evicted with probability
 * at least 1/5 (3 ways, Fermi, a non-preferred way: 1/5 for one new line;
 * 2 ways give 1/4, more ways more new lines, tending to 1 - e^-1/2). */
#define POLICY_UNORDERED_MIN_YOUNG_EVICT 0.2
/* ... and the recency test's oldest line, one new line in its set, at most
 * 3/4 (2 ways, Fermi, the preferred way holding it: 3 / (3 + 1)). */
#define POLICY_UNORDERED_MAX_OLDEST_EVICT 0.75
/* An ordered class needs the chance that an unordered policy mimics it
 * below this (one such test per run: a false class about once in 1000). */
#define POLICY_ALPHA 1e-3
/* Sets of sequences run in all when one set leaves the class open: with
 * R >= 8 timed loads each, 8 sets give >= 64 per test, where 0.8^64 is
 * 6e-7: a clean ordered cache passes even with a few stray misses. */
#define POLICY_REPEATS 8u
/* Recency needs the touched lines to miss less often than the untouched
 * ones with one-sided Fisher p below this: 8 of 8 untouched missed against
 * none touched is 1/C(16,8) = 8e-5, so one clean set of R >= 8 loads
 * decides; one test per run, a false "the touch mattered" once in 1000. */
#define POLICY_TOUCH_ALPHA 1e-3
#define POLICY_TESTS 3u /* recency, untouched, ordering */

/* Runs `sets` repeats of the POLICY_TESTS sequences (repeat k has
 * order_seed first + k: a sequence ignores it, so the addresses stay the
 * same while a random policy draws anew) and adds each test's counts. */
static mt_err run_sets(mt_probe_ctx *c, const mt_experiment *tests, uint32_t first,
                       uint32_t sets, double thr, mt_miss_count *counts)
{
    size_t n = POLICY_TESTS * (size_t)sets;
    mt_experiment *e = calloc(n, sizeof *e);
    mt_result *r = calloc(n, sizeof *r);
    mt_err err = MT_OK;
    if (!e || !r) {
        err = mt_fail(c->ei, MT_ERR_NOMEM, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        e[i] = tests[i % POLICY_TESTS];
        e[i].order_seed = first + (uint32_t)(i / POLICY_TESTS);
    }
    if ((err = mt_run(c, e, n, r)) != MT_OK)
        goto out;
    for (size_t i = 0; i < n; i++)
        mt_count_misses(c, &r[i], thr, &counts[i % POLICY_TESTS]);
    mt_results_free(r, n);
out:
    free(e);
    free(r);
    return err;
}

static mt_experiment sequence(uint64_t footprint, uint32_t line, const uint32_t *idx, uint32_t n,
                              uint32_t untimed)
{
    mt_experiment e = mt_exp_chase(MT_PATH_GLOBAL_CA, footprint, line, 0, n - untimed, MT_MODE_FINE);
    e.kind = MT_KIND_SEQUENCE;
    e.u.seq = (mt_sequence){.index = idx, .n = n, .untimed = untimed};
    return e;
}

static mt_err replacement(mt_probe_ctx *c)
{
    const mt_finding *size = mt_get(c, "l1d", "size"), *line = mt_get(c, "l1d", "line");
    const mt_cache_state *s = &c->cs[MT_CACHE_L1D];
    if (size->kind == MT_FIND_ABSENT)
        return MT_OK; /* global loads are not cached: no cache, no policy */
    if (size->kind != MT_FIND_VALUE || line->kind != MT_FIND_VALUE || !s->hit_known) {
        /* Nothing to fill exactly.  Said so in the finding: "not
         * measured" with the reason is not compared between GPUs, where
         * a finding missing without one would flag this GPU as different
         * (one of the two H200s: its L1 size a range at 0.40). */
        const mt_finding *why = size->kind != MT_FIND_VALUE ? size : line;
        const char *name = size->kind != MT_FIND_VALUE ? "size" : "line";
        mt_finding f = {.kind = MT_FIND_NONE, .source = MT_SRC_MEASURED};
        snprintf(f.method, sizeof f.method, "access sequences");
        if (why->kind != MT_FIND_VALUE)
            snprintf(f.note, sizeof f.note,
                     "not measured: its prerequisite l1d.%s is not one value (a %s at confidence "
                     "%.2f), so there is no exact number of lines to fill",
                     name, why->kind == MT_FIND_RANGE ? "range"
                           : why->kind == MT_FIND_LOWER_BOUND ? "bound" : "category",
                     why->confidence);
        else
            snprintf(f.note, sizeof f.note,
                     "not measured: the L1's hit latency is not known, so hits cannot be told "
                     "from misses");
        mt_set(c, "l1d", "replacement", &f);
        return MT_OK;
    }
    mt_note_threshold(c, "POLICY_KEPT_SHARE", POLICY_KEPT_SHARE,
                      "replacement: at most this miss share means the lines were kept");
    mt_note_threshold(c, "POLICY_EVICTED_SHARE", POLICY_EVICTED_SHARE,
                      "replacement: at least this miss share means the lines were evicted");
    mt_note_threshold(c, "POLICY_MIN_PROBES", POLICY_MIN_PROBES,
                      "replacement: fewest timed loads per test (one miss moves a share by 1/8)");
    mt_note_threshold(c, "POLICY_UNORDERED_MIN_YOUNG_EVICT", POLICY_UNORDERED_MIN_YOUNG_EVICT,
                      "replacement: least eviction chance of a youngest line under random/Fermi");
    mt_note_threshold(c, "POLICY_UNORDERED_MAX_OLDEST_EVICT", POLICY_UNORDERED_MAX_OLDEST_EVICT,
                      "replacement: most eviction chance of an oldest line under random/Fermi");
    mt_note_threshold(c, "POLICY_ALPHA", POLICY_ALPHA,
                      "replacement: an ordered class needs random's chance to mimic it below this");
    mt_note_threshold(c, "POLICY_REPEATS", POLICY_REPEATS,
                      "replacement: sequence sets pooled when one set leaves the class open");
    mt_note_threshold(c, "POLICY_TOUCH_ALPHA", POLICY_TOUCH_ALPHA,
                      "replacement: recency needs touched lines to miss less than untouched (p)");
    uint32_t ln = (uint32_t)line->value;
    uint32_t n = (uint32_t)(size->value / ln), r = n / POLICY_REFRESH_DIVISOR;
    uint32_t len_a = n + 3 * r, len_b = n + n / 2 + r, len_u = n + 2 * r;
    mt_finding f;
    char why[160] = "";
    if (r < POLICY_MIN_PROBES)
        snprintf(why, sizeof why, "not tested: %u lines give fewer than %u lines to time", n,
                 POLICY_MIN_PROBES);
    else if (!mt_backend_supports(c->be, MT_KIND_SEQUENCE))
        snprintf(why, sizeof why, "not tested: the backend runs no access sequences");
    else if (c->dev.max_sequence && len_b > c->dev.max_sequence)
        snprintf(why, sizeof why, "not tested: %u lines need sequences of %u entries (backend "
                 "limit %u)", n, len_b, c->dev.max_sequence);
    else if (r > c->dev.max_fine_loads)
        snprintf(why, sizeof why, "not tested: %u timed loads exceed the backend's %u", r,
                 c->dev.max_fine_loads);
    if (why[0]) {
        f = mt_find_value(0, "", MT_SRC_MEASURED, "access sequences", 0, "%s", why);
        f.kind = MT_FIND_NONE;
        mt_set(c, "l1d", "replacement", &f);
        return MT_OK;
    }
    uint32_t *a = malloc((size_t)len_a * sizeof *a), *b = malloc((size_t)len_b * sizeof *b);
    uint32_t *u = malloc((size_t)len_u * sizeof *u);
    mt_err err = MT_OK;
    if (!a || !b || !u) {
        err = mt_fail(c->ei, MT_ERR_NOMEM, "out of memory");
        goto out;
    }
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++)
        a[k++] = i;
    for (uint32_t i = 0; i < r; i++)
        a[k++] = i;     /* touch the oldest again */
    for (uint32_t i = 0; i < r; i++)
        a[k++] = n + i; /* new lines */
    for (uint32_t i = 0; i < r; i++)
        a[k++] = i;     /* timed */
    k = 0;
    for (uint32_t i = 0; i < n + r; i++)
        u[k++] = i;     /* the fill and the new lines, no touch */
    for (uint32_t i = 0; i < r; i++)
        u[k++] = i;     /* timed: the same lines as the recency test's */
    k = 0;
    for (uint32_t i = 0; i < n + n / 2; i++)
        b[k++] = i;
    for (uint32_t i = n - r; i < n; i++)
        b[k++] = i;     /* timed: the youngest of the first fill */
    uint64_t fp = (uint64_t)(n + n / 2) * ln;
    const mt_experiment tests[POLICY_TESTS] = {sequence(fp, ln, a, len_a, len_a - r),
                                               sequence(fp, ln, u, len_u, len_u - r),
                                               sequence(fp, ln, b, len_b, len_b - r)};
    mt_miss_count counts[POLICY_TESTS] = {{0}};
    const mt_policy_limits lim = {POLICY_KEPT_SHARE, POLICY_EVICTED_SHARE,
                                  POLICY_UNORDERED_MIN_YOUNG_EVICT, POLICY_UNORDERED_MAX_OLDEST_EVICT,
                                  POLICY_TOUCH_ALPHA};
    mt_progress(c, "L1 replacement: recency, untouched and ordering sequences (%u lines)", n);
    if ((err = run_sets(c, tests, 0, 1, s->hit_threshold, counts)) != MT_OK)
        goto out;
    mt_policy_verdict v = mt_classify_policy(counts[0], counts[1], counts[2], &lim);
    uint32_t repeats = 1;
    int ordered = v.cls == MT_POLICY_RECENCY || v.cls == MT_POLICY_INSERTION;
    /* Open after one set: an ordered class random could mimic, or a touch
     * whose effect one set of R loads cannot show. */
    if ((ordered && v.p_unordered >= POLICY_ALPHA) || v.no_contention) {
        mt_progress(c, "L1 replacement: %u more sets (one leaves the class open)", POLICY_REPEATS - 1);
        if ((err = run_sets(c, tests, 1, POLICY_REPEATS - 1, s->hit_threshold, counts)) != MT_OK)
            goto out;
        repeats = POLICY_REPEATS;
        v = mt_classify_policy(counts[0], counts[1], counts[2], &lim);
        ordered = v.cls == MT_POLICY_RECENCY || v.cls == MT_POLICY_INSERTION;
    }
    static const char *const verdicts[] = {
        [MT_POLICY_RECENCY] = "recency (LRU or tree pseudo-LRU)",
        [MT_POLICY_INSERTION] = "insertion order (FIFO, or direct-mapped)",
        /* Tree pseudo-LRU with 16 or more ways evicts some of the youngest
         * lines too (its victims after a sequential fill are ways 0, W/2,
         * W/4, 3W/4, ...), so the ordering test cannot rule it out. */
        [MT_POLICY_UNORDERED] = "unordered or tree pseudo-LRU (not LRU, not FIFO)",
        [MT_POLICY_UNCLASSIFIED] = "not classified",
    };
    double conf = v.cls == MT_POLICY_UNCLASSIFIED ? MT_CONF_INCONSISTENT : MT_CONF_POLICY;
    char runs[64] = "";
    if (repeats > 1)
        snprintf(runs, sizeof runs, " (%u runs pooled: %zu loads per test)", repeats, counts[0].timed);
    f = mt_find_value(0, "", MT_SRC_MEASURED, "access sequences (recency, untouched, ordering)",
                      conf, "%u-line fill%s: %.0f%% of %u lines touched again missed after %u new "
                      "lines (recency test), %.0f%% untouched (control); %.0f%% of the %u youngest "
                      "missed after %u new lines (ordering test); kept <= %.0f%%, evicted >= %.0f%%",
                      n, runs, 100 * v.recency_share, r, r, 100 * v.untouched_share,
                      100 * v.ordering_share, r, n / 2, 100 * POLICY_KEPT_SHARE,
                      100 * POLICY_EVICTED_SHARE);
    f.kind = MT_FIND_TEXT;
    snprintf(f.text, sizeof f.text, "%s", verdicts[v.cls]);
    /* The chance is printed where it decided something (more runs, or a
     * doubt); a class clear from one run keeps the note it always had. */
    if (ordered && repeats > 1)
        mt_finding_append_note(&f, "random replacement shows this with p=%.2g (alpha %g)",
                               v.p_unordered, POLICY_ALPHA);
    if (ordered && v.p_unordered >= POLICY_ALPHA)
        mt_finding_doubt(&f, MT_CONF_INCONSISTENT, "too few loads to rule out random replacement");
    if (v.no_contention)
        mt_finding_append_note(&f, "the touch saved nothing (Fisher p=%.2g, alpha %g): the new "
                               "lines did not contend with the timed ones (hashed index or "
                               "direct-mapped), so no recency claim", v.p_touch, POLICY_TOUCH_ALPHA);
    mt_set(c, "l1d", "replacement", &f);
out:
    free(a);
    free(b);
    free(u);
    return err;
}

static const mt_finding_decl provides[] = {{"l1d.replacement", "replacement policy"}, {NULL}};
static const char *const requires[] = {"l1d.size", "l1d.line", NULL};
static const mt_object_decl objects[] = {{NULL}};
const mt_probe_desc mt_probe_replacement = {
    .name = "replacement", .summary = "L1 data replacement: recency (LRU/PLRU), insertion order "
                                      "(FIFO) or unordered, from access sequences",
    .rank = 90, .objects = objects, .provides = provides, .requires = requires, .run = replacement,
};

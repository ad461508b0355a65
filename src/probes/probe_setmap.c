/* The L1 data cache's per-set capacity map (issue 8, part 4): how many
 * lines each set holds, which sets hold fewer, and what they add up to.
 * Opt-in (--geometry), and again at each carveout --carveout asks for.
 *
 * The geometry probe's ways W, sets and set index (modulo, or the recovered
 * XOR masks: set_lines.h) give, for set t, lines that map to t.  For k =
 * 1..W+1 the probe runs a sequence over k lines of every sampled set:
 * SETMAP_WARM_LAPS untimed laps, then SETMAP_TIMED_LAPS timed ones.  A
 * timed lap in which all k loads hit proves the set holds k lines at once;
 * a set holding fewer than k misses in every lap over k, whatever its
 * policy (analysis/setmap.h).  The usable ways of a set are the largest k
 * with a clean lap.  Sets are independent, so one sequence covers many
 * sets (as many as the backend's sequence and timed-load limits allow).
 *
 * The short sets (fewer usable ways than the most any set holds) are
 * reported as equations over the set-label bits when they are one coset of
 * the label space (e.g. "b7=0 b8=0": a quarter of the sets), as a range of
 * labels when consecutive, else as a count and the first labels.  The
 * labels are the index's: the modulo remainder, or the set bits of
 * l1d.index_masks (mask i gives label bit i). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../analysis/setmap.h"
#include "confidence.h"
#include "geometry.h"
#include "set_lines.h"

/* Laps before the timed ones: the first brings the k lines in; the
 * second lets a random policy that evicted one of them (stale lines of the
 * set from earlier experiments) bring it back. */
#define SETMAP_WARM_LAPS 2u
/* Timed laps per k: a set that holds k lines needs one clean lap among
 * them; three make a false miss (a timer spike, about 1e-3 per load on the
 * H100) in every lap over k <= 5 lines unlikely (below 1e-6 per set). */
#define SETMAP_TIMED_LAPS 3u
/* Most sets mapped: all sets of a cache up to this many (the H100's L1
 * has 512), else this many labels spread evenly. */
#define SETMAP_MAX_SETS 4096u
/* Most ways mapped: W + 1 laps' lines per set in one sequence. */
#define SETMAP_MAX_WAYS 32u
/* Pairs of sets lapped together at another carveout (pair_check): one
 * merged pair is enough to show the index changed; 64 keep the check at
 * one or two sequences. */
#define SETMAP_PAIRS 64u
/* The buffer alignment classes a backend may place experiments by
 * (run_k): the CUDA arena's (src/cuda/layout.h). */
#define SETMAP_SMALL_ALIGN (64u << 10)
#define SETMAP_BIG_SPAN (1u << 20)
/* Most lines per set tested at any carveout (kmax_at). */
#define SETMAP_MAX_K (2 * SETMAP_MAX_WAYS + 1)

static bool setmap_requested(const mt_probe_options *o)
{
    return o->geometry;
}

/* Runs the laps over k lines of sets[0..n) (set j's lines at
 * lines[j * stride ..]) and adds each set's clean timed laps to
 * clean[j * kmax + k - 1]. */
static mt_err run_k(mt_probe_ctx *c, const uint32_t *lines, uint32_t stride, uint32_t n,
                    uint32_t k, const mt_set_index *ix, int percent, uint32_t *clean,
                    uint32_t kmax)
{
    uint32_t ln = ix->line;
    uint32_t per_set = k * (SETMAP_WARM_LAPS + SETMAP_TIMED_LAPS);
    uint32_t chunk = n;
    if (c->dev.max_sequence && chunk > c->dev.max_sequence / per_set)
        chunk = c->dev.max_sequence / per_set;
    if (chunk > c->dev.max_fine_loads / (k * SETMAP_TIMED_LAPS))
        chunk = c->dev.max_fine_loads / (k * SETMAP_TIMED_LAPS);
    if (chunk == 0)
        return mt_fail(c->ei, MT_ERR_INVALID_ARG, "setmap: one set's %u-entry sequence exceeds "
                       "the backend's limits", per_set);
    uint32_t runs = (n + chunk - 1) / chunk;
    /* Line x's set is the index's label of x only if the buffer starts
     * where the index's period does (an aligned multiple of it).  The
     * backend may place several experiments of a batch one after another,
     * aligning each by its span's class (the CUDA arena: spans of 1 MiB
     * and more on 2 MiB, smaller ones on 64 KiB; src/cuda/layout.h), so
     * every buffer spans at least the period, and at least 1 MiB where the
     * period exceeds 64 KiB.  (On the H100 a batch of 4 experiments without
     * this mapped only its first one's sets right: the others' lines were
     * spread over several sets and all 5 fit.) */
    uint64_t period = ix->xor_index ? ix->lines_known * ln : ix->sets * ln;
    uint64_t min_span = period > SETMAP_SMALL_ALIGN && period < SETMAP_BIG_SPAN
                            ? SETMAP_BIG_SPAN : period;
    uint64_t limit = c->dev.path_limit_bytes[MT_PATH_GLOBAL_CA];
    if (limit && min_span > limit)
        min_span = limit;
    mt_experiment *e = calloc(runs, sizeof *e);
    mt_result *r = calloc(runs, sizeof *r);
    uint32_t *pool = malloc((size_t)n * per_set * sizeof *pool);
    mt_err err = MT_OK;
    if (!e || !r || !pool) {
        err = mt_fail(c->ei, MT_ERR_NOMEM, "out of memory");
        goto out;
    }
    for (uint32_t i = 0; i < runs; i++) {
        uint32_t first = i * chunk, m = n - first < chunk ? n - first : chunk, len = 0, top = 0;
        uint32_t *s = pool + (size_t)first * per_set;
        /* every set's laps in turn: lap by lap over all sets, the timed
         * laps last */
        for (uint32_t lap = 0; lap < SETMAP_WARM_LAPS + SETMAP_TIMED_LAPS; lap++)
            for (uint32_t j = 0; j < m; j++)
                for (uint32_t q = 0; q < k; q++) {
                    s[len] = lines[(size_t)(first + j) * stride + q];
                    top = s[len] > top ? s[len] : top;
                    len++;
                }
        uint64_t fp = ((uint64_t)top + 1) * ln; /* element x at line x */
        if (fp < min_span)
            fp = min_span;
        e[i] = mt_exp_chase(MT_PATH_GLOBAL_CA, fp, ln, 0, m * k * SETMAP_TIMED_LAPS, MT_MODE_FINE);
        e[i].kind = MT_KIND_SEQUENCE;
        e[i].u.seq = (mt_sequence){.index = s, .n = len, .untimed = m * k * SETMAP_WARM_LAPS};
        e[i].order_seed = k;
        if (percent >= 0)
            e[i] = mt_exp_with_carveout(e[i], percent);
    }
    if ((err = mt_run(c, e, runs, r)) != MT_OK)
        goto out;
    double thr = c->cs[MT_CACHE_L1D].hit_threshold;
    for (uint32_t i = 0; i < runs; i++) {
        uint32_t first = i * chunk, m = n - first < chunk ? n - first : chunk;
        if (r[i].n[0] < m * k * SETMAP_TIMED_LAPS)
            continue; /* a short result: those sets get no clean lap from it */
        for (uint32_t lap = 0; lap < SETMAP_TIMED_LAPS; lap++)
            for (uint32_t j = 0; j < m; j++) {
                uint32_t at = (lap * m + j) * k, q = 0;
                while (q < k && (double)r[i].cycles[0][at + q] - c->overhead_fine <= thr)
                    q++;
                clean[(size_t)(first + j) * kmax + k - 1] += q == k;
            }
    }
    mt_results_free(r, runs);
out:
    free(pool);
    free(e);
    free(r);
    return err;
}

/* "384 sets x 4 ways, 128 sets x 3 ways": the histogram, most ways first. */
static void histogram_text(const uint32_t *count, uint32_t kmax, char *buf, size_t cap)
{
    size_t at = 0;
    buf[0] = '\0';
    for (uint32_t u = kmax + 1; u-- > 0 && at < cap;)
        if (count[u])
            at += (size_t)snprintf(buf + at, cap - at, "%s%u sets x %u ways", at ? ", " : "",
                                   count[u], u);
}

/* The short sets' description (see the file comment). */
static void short_text(const uint64_t *labels, size_t n, const mt_set_index *ix, bool all,
                       char *buf, size_t cap)
{
    uint64_t eq[64], rhs = 0;
    uint32_t n_eq = 0;
    unsigned bits = 0;
    while (bits < 63 && (1ull << bits) < ix->sets)
        bits++;
    if (n == 0) {
        snprintf(buf, cap, "none");
    } else if (all && (1ull << bits) == ix->sets && mt_setmap_coset(labels, n, bits, eq, &n_eq, &rhs)) {
        char f[150];
        mt_setmap_coset_text(eq, n_eq, rhs, f, sizeof f);
        snprintf(buf, cap, "%zu sets: labels with %s", n, f);
    } else if (all && mt_setmap_consecutive(labels, n)) {
        snprintf(buf, cap, "%zu sets: labels %llu-%llu", n, (unsigned long long)labels[0],
                 (unsigned long long)labels[n - 1]);
    } else {
        size_t at = (size_t)snprintf(buf, cap, "%zu sets%s, e.g. labels", n,
                                     all ? " (no coset, not consecutive)" : " of those sampled");
        for (size_t i = 0; i < n && i < 8 && at < cap; i++)
            at += (size_t)snprintf(buf + at, cap - at, " %llu", (unsigned long long)labels[i]);
    }
}

/* At another carveout than the geometry's, the index itself may differ (a
 * cache that loses sets, not ways, to the carveout): two labels of the
 * default's index can then be one set, and each alone would still look
 * like a whole set.  So the lines of both sets of a pair of full sets
 * (label t and the label half the sets away) are lapped together: two
 * distinct sets hold all 2 x top lines (a clean lap), one set cannot.
 * Sets *shared to the pairs that never had a clean lap. */
static mt_err pair_check(mt_probe_ctx *c, const mt_set_index *ix, const uint32_t *lines,
                         uint32_t stride, uint32_t n, const uint32_t *usable, uint32_t top,
                         int percent, uint32_t *tested, uint32_t *shared)
{
    uint32_t k = 2 * top, m = 0;
    *tested = *shared = 0;
    if (n != ix->sets || n < 2 || top == 0)
        return MT_OK;
    uint32_t *pl = malloc((size_t)SETMAP_PAIRS * k * sizeof *pl);
    uint32_t *clean = calloc((size_t)SETMAP_PAIRS * k, sizeof *clean);
    mt_err err = MT_OK;
    if (!pl || !clean) {
        err = mt_fail(c->ei, MT_ERR_NOMEM, "out of memory");
        goto out;
    }
    for (uint32_t t = 0; t < n / 2 && m < SETMAP_PAIRS; t++) {
        uint32_t partner = t + n / 2; /* labels are 0..n-1 when every set is mapped */
        if (usable[t] != top || usable[partner] != top)
            continue;
        for (uint32_t q = 0; q < top; q++) {
            pl[(size_t)m * k + q] = lines[(size_t)t * stride + q];
            pl[(size_t)m * k + top + q] = lines[(size_t)partner * stride + q];
        }
        m++;
    }
    if (m && (err = run_k(c, pl, k, m, k, ix, percent, clean, k)) == MT_OK) {
        *tested = m;
        for (uint32_t j = 0; j < m; j++)
            *shared += clean[(size_t)j * k + k - 1] == 0;
    }
out:
    free(pl);
    free(clean);
    return err;
}

/* Maps the sets at one carveout (percent < 0: the default) and sets the
 * findings; suffix "" or "_at_carveout_16KiB". */
static mt_err map_at(mt_probe_ctx *c, const mt_set_index *ix, const uint32_t *lines,
                     uint32_t stride, const uint64_t *label, uint32_t n, uint32_t kmax,
                     int percent, const char *suffix)
{
    uint32_t ln = ix->line;
    uint32_t *clean = calloc((size_t)n * kmax, sizeof *clean);
    uint32_t *usable = calloc(n, sizeof *usable);
    uint64_t *short_labels = calloc(n, sizeof *short_labels);
    mt_err err = MT_OK;
    if (!clean || !usable || !short_labels) {
        err = mt_fail(c->ei, MT_ERR_NOMEM, "out of memory");
        goto out;
    }
    for (uint32_t k = 1; k <= kmax && err == MT_OK; k++)
        err = run_k(c, lines, stride, n, k, ix, percent, clean, kmax);
    if (err != MT_OK)
        goto out;
    uint32_t count[SETMAP_MAX_K + 1] = {0}, gaps = 0, top = 0;
    uint64_t held = 0;
    for (uint32_t j = 0; j < n; j++) {
        gaps += mt_setmap_usable(clean + (size_t)j * kmax, kmax, &usable[j]) > 0;
        count[usable[j]]++;
        held += usable[j];
        top = usable[j] > top ? usable[j] : top;
    }
    size_t n_short = 0;
    for (uint32_t j = 0; j < n; j++)
        if (usable[j] < top)
            short_labels[n_short++] = label[j];
    bool all = n == ix->sets;
    /* The map stands on the geometry's sets; a set holding more lines than
     * the ways, or sets whose laps are not monotone, say the lines were not
     * in one set (or the sequences were disturbed). */
    double conf = ix->confidence < MT_CONF_POLICY ? ix->confidence : MT_CONF_POLICY;
    char hist[192], shorts[192], name[MT_NAME_LEN];
    histogram_text(count, kmax, hist, sizeof hist);
    if (!all) {
        /* The counts are the sample's: say so, or "4096 sets x 1 ways" of a
         * 6430-set cache reads as the cache's histogram. */
        char sampled[sizeof hist];
        snprintf(sampled, sizeof sampled, "sample of %u of %llu sets: %s", n,
                 (unsigned long long)ix->sets, hist);
        snprintf(hist, sizeof hist, "%s", sampled);
    }
    mt_finding f = mt_find_value(0, "", MT_SRC_MEASURED, "per-set laps", conf,
                                 "usable ways per set: the most of k = 1..%u lines of one set "
                                 "with a miss-free lap (%u warm, %u timed laps); %s sets of "
                                 "%llu%s", kmax, SETMAP_WARM_LAPS, SETMAP_TIMED_LAPS,
                                 all ? "all" : "a sample of", (unsigned long long)ix->sets,
                                 ix->xor_index ? " (labels: l1d.index_masks)" : " (modulo)");
    f.kind = MT_FIND_TEXT;
    snprintf(f.text, sizeof f.text, "%s", hist);
    if (count[kmax])
        mt_finding_doubt(&f, MT_CONF_INCONSISTENT, "%u sets held all %u lines tested (%u ways "
                         "at the default carveout): their lines were not in one set (the index "
                         "differs here?)", count[kmax], kmax, ix->ways);
    if (gaps)
        mt_finding_doubt(&f, MT_CONF_INCONSISTENT, "%u sets held k lines but no lap over fewer "
                         "was clean", gaps);
    if (percent >= 0) {
        uint32_t tested = 0, shared = 0;
        if ((err = pair_check(c, ix, lines, stride, n, usable, top, percent, &tested,
                              &shared)) != MT_OK)
            goto out;
        if (shared)
            mt_finding_doubt(&f, MT_CONF_INCONSISTENT, "%u of %u pairs of sets half the labels "
                             "apart held fewer than their lines together: one set here, so "
                             "the index differs from the default carveout's", shared, tested);
        else
            /* Pairs catch merged sets only: a cache whose set count
             * follows the carveout can also spread one label's lines over
             * several sets, which every test here would pass. */
            mt_finding_doubt(&f, MT_CONF_CAPACITY_UNCONFIRMED, "the sets are the default "
                             "carveout's (l1d.index): %u pairs of sets held both sets' lines, "
                             "but whether the index is the same here is not established",
                             tested);
    }
    if (conf < MT_CONF_TRUSTED && f.confidence < MT_CONF_TRUSTED)
        mt_finding_append_note(&f, "confidence capped at l1d.%s's (%.2f)", ix->weakest,
                               ix->confidence);
    snprintf(name, sizeof name, "set_ways%s", suffix);
    mt_set(c, "l1d", name, &f);
    const double map_conf = f.confidence;

    short_text(short_labels, n_short, ix, all, shorts, sizeof shorts);
    f = mt_find_value(0, "", MT_SRC_MEASURED, "per-set laps", map_conf,
                      "sets holding fewer than %u lines (the most any set held)", top);
    f.kind = MT_FIND_TEXT;
    snprintf(f.text, sizeof f.text, "%s", shorts);
    snprintf(name, sizeof name, "short_sets%s", suffix);
    mt_set(c, "l1d", name, &f);

    /* The lines the sets hold, in bytes: all sets, or the sample's mean
     * times the set count. */
    double bytes = (double)held * ln * (all ? 1.0 : (double)ix->sets / n);
    f = mt_find_value(bytes, "B", MT_SRC_MEASURED, "per-set laps", map_conf,
                      "sum over the sets of usable ways x %u B lines%s", ln,
                      all ? "" : " (sample mean x sets)");
    const mt_finding *size = mt_get(c, "l1d", "size");
    if (!suffix[0] && size->kind == MT_FIND_VALUE)
        mt_finding_append_note(&f, "l1d.size (largest footprint without misses): %.1f KiB",
                               size->value / 1024);
    snprintf(name, sizeof name, "set_capacity%s", suffix);
    mt_set(c, "l1d", name, &f);
out:
    free(clean);
    free(usable);
    free(short_labels);
    return err;
}

static void not_mapped(mt_probe_ctx *c, const char *why)
{
    static const char *const names[] = {"set_ways", "short_sets", "set_capacity"};
    for (int i = 0; i < 3; i++) {
        mt_finding f = {.kind = MT_FIND_NONE, .source = MT_SRC_MEASURED};
        snprintf(f.method, sizeof f.method, "per-set laps");
        snprintf(f.note, sizeof f.note, "not mapped: %.200s", why);
        mt_set(c, "l1d", names[i], &f);
    }
}

/* Lines per set to test at a carveout of smem bytes: one more than the
 * ways, plus what a smaller carveout than the default could give every set
 * (its extra lines spread over the sets: ceil(extra / line / sets) ways
 * each, if it takes ways rather than sets); at most SETMAP_MAX_K. */
static uint32_t kmax_at(const mt_probe_ctx *c, const mt_set_index *ix, uint32_t smem)
{
    uint64_t base = c->dev.carveout_smem_bytes, extra = 0;
    if (base > smem)
        extra = ((base - smem) / ix->line + ix->sets - 1) / ix->sets;
    uint64_t k = ix->ways + 1 + extra;
    return k > SETMAP_MAX_K ? SETMAP_MAX_K : (uint32_t)k;
}

static mt_err run_setmap(mt_probe_ctx *c)
{
    const mt_cache_state *cs = &c->cs[MT_CACHE_L1D];
    char why[240] = "";
    mt_set_index ix;
    bool indexed = mt_set_index_of(c, "l1d", MT_PATH_GLOBAL_CA, &ix, why, sizeof why);
    mt_mark_probed(c, "l1d");
    if (!indexed)
        ; /* why says why */
    else if (!cs->hit_known)
        snprintf(why, sizeof why, "no L1 hit threshold");
    else if (!mt_backend_supports(c->be, MT_KIND_SEQUENCE))
        snprintf(why, sizeof why, "the backend runs no access sequences");
    else if (ix.ways > SETMAP_MAX_WAYS)
        snprintf(why, sizeof why, "%u ways: the map stops at %u", ix.ways, SETMAP_MAX_WAYS);
    uint32_t n = 0, kmax = indexed ? ix.ways + 1 : 0;
    const mt_probe_options *o = c->opt;
    for (int i = 0; indexed && i < o->n_carveouts && i < MT_PROBE_MAX_CARVEOUTS; i++) {
        uint32_t k = kmax_at(c, &ix, o->carveout_smem[i]);
        kmax = k > kmax ? k : kmax;
    }
    uint32_t *lines = NULL;
    uint64_t *label = NULL;
    if (!why[0]) {
        n = ix.sets < SETMAP_MAX_SETS ? (uint32_t)ix.sets : SETMAP_MAX_SETS;
        lines = malloc((size_t)n * kmax * sizeof *lines);
        label = malloc((size_t)n * sizeof *label);
        if (!lines || !label) {
            free(lines);
            free(label);
            return mt_fail(c->ei, MT_ERR_NOMEM, "out of memory");
        }
        for (uint32_t j = 0; j < n && !why[0]; j++) {
            label[j] = (uint64_t)j * ix.sets / n; /* every set, or evenly spread */
            if (!mt_set_lines(&ix, label[j], kmax, lines + (size_t)j * kmax))
                snprintf(why, sizeof why, "%u lines of set %llu do not lie within the %llu "
                         "lines the index is known for", kmax, (unsigned long long)label[j],
                         (unsigned long long)ix.lines_known);
        }
    }
    if (why[0]) {
        free(lines);
        free(label);
        not_mapped(c, why);
        return MT_OK;
    }
    mt_note_threshold(c, "SETMAP_WARM_LAPS", SETMAP_WARM_LAPS,
                      "setmap: untimed laps over a set's k lines before the timed ones");
    mt_note_threshold(c, "SETMAP_TIMED_LAPS", SETMAP_TIMED_LAPS,
                      "setmap: timed laps per k; one miss-free lap proves the set holds k lines");
    mt_note_threshold(c, "SETMAP_MAX_SETS", SETMAP_MAX_SETS,
                      "setmap: most sets mapped (all up to this many, else an even sample)");
    if (o->n_carveouts)
        mt_note_threshold(c, "SETMAP_PAIRS", SETMAP_PAIRS,
                          "setmap: pairs of sets lapped together at another carveout to check "
                          "the index still holds there");
    mt_progress(c, "L1 set map: %u sets x k = 1..%u lines", n, kmax);
    mt_err err = map_at(c, &ix, lines, kmax, label, n, ix.ways + 1, -1, "");
    for (int i = 0; err == MT_OK && i < o->n_carveouts && i < MT_PROBE_MAX_CARVEOUTS; i++) {
        uint32_t smem = o->carveout_smem[i];
        char suffix[40];
        if (smem % 1024 == 0)
            snprintf(suffix, sizeof suffix, "_at_carveout_%uKiB", smem / 1024);
        else
            snprintf(suffix, sizeof suffix, "_at_carveout_%uB", smem);
        int percent = mt_carveout_percent(&c->dev, smem);
        if (percent < 0)
            continue; /* the carveout probe says why for this carveout */
        mt_progress(c, "L1 set map at %u KiB of shared memory (preference %d%%)", smem / 1024,
                    percent);
        err = map_at(c, &ix, lines, kmax, label, n, kmax_at(c, &ix, smem), percent, suffix);
    }
    free(lines);
    free(label);
    return err;
}

static const mt_finding_decl setmap_provides[] = {
    {"l1d.set_ways", "usable ways per set (histogram)"},
    {"l1d.short_sets", "sets with fewer usable ways"},
    {"l1d.set_capacity", "capacity from the set map"},
    {"l1d.set_ways_at_carveout_*", "usable ways per set at carveout"},
    {"l1d.short_sets_at_carveout_*", "short sets at carveout"},
    {"l1d.set_capacity_at_carveout_*", "capacity from the set map at carveout"},
    {NULL},
};
static const char *const setmap_requires[] = {"l1d.ways", "l1d.sets", "l1d.index",
                                              "l1d.index_masks", "l1d.line", "l1d.size", NULL};
const mt_probe_desc mt_probe_setmap = {
    .name = "setmap",
    .summary = "L1 data usable ways of every set (per-set capacity map), the short sets and "
               "their sum; opt-in (--geometry), again at each --carveout",
    .rank = 97, .provides = setmap_provides, .requires = setmap_requires, .run = run_setmap,
    .requested = setmap_requested,
};

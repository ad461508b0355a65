/* Miss penalty of the L1-level caches (l1d, texture, read-only): what a
 * load that misses the cache pays on average beyond a hit.  It runs after
 * the L2 probe because the chain must miss the L1 yet stay inside the part
 * of the L2 one SM can use (one partition of a partitioned L2): a chain
 * that spills to DRAM, or one that keeps L1 hits (random replacement), is
 * not what a miss costs.  One fine-grained warm chain per cache: each load
 * is classified (hit below the cache's hit threshold, outlier far above the
 * misses), and the penalty is the mean of the misses minus the hit median;
 * a chain that is not clean enough to say is flagged, never trusted. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "confidence.h"
#include "probe_internal.h"

#define MISS_CHAIN_FACTOR 32 /* chain of 32x the cache: nearly every load misses any policy */
#define MISS_LOADS 2048u     /* fine samples: the mean of the misses to well under a cycle */
/* Runs of the chain at places of their own added when one run sampled too
 * few L2 lines to average over the partitions: 16 runs in all divide the
 * standard error by 4, which brings the 32-line chain a 16 KiB partition
 * allows (+-10 cycles) within MT_MISS_PRECISION_SHARE of a typical penalty;
 * SM-local experiments, so one launch on a GPU. */
#define MISS_EXTRA_RUNS 15

/* Bytes of the L2 one SM can fill: the partition measured by the L2 probe,
 * else the driver's L2 size. */
static uint64_t l2_usable(const mt_probe_ctx *c)
{
    const mt_finding *p = mt_get(c, "l2", "partition_size");
    if (mt_partition_bytes(p) && mt_partition_bytes(p) < c->dev.l2_bytes)
        return mt_partition_bytes(p);
    return c->dev.l2_bytes;
}

/* Elements of the chain that may share one L2 line, and so one home
 * partition: the L2's measured line over the stride, else the largest line
 * a spec allows (real L2 lines are 128 B). */
#define MAX_L2_LINE_BYTES 4096u
static size_t l2_line_block(const mt_probe_ctx *c, uint32_t stride)
{
    uint32_t line = c->cs[MT_CACHE_L2].line ? c->cs[MT_CACHE_L2].line : MAX_L2_LINE_BYTES;
    return line > stride ? line / stride : 1;
}

/* The half-width a penalty can be stated to as a value. */
static double precision_of(double penalty)
{
    return fmax(MT_MISS_PRECISION_CYCLES, MT_MISS_PRECISION_SHARE * fabs(penalty));
}

/* Whether the chain's mean depends on where its few lines are homed (a
 * short chain over a partitioned L2) more than the precision allows. */
static bool too_few_lines(const mt_chain_se *cse, double penalty)
{
    return isnan(cse->se) || MT_MISS_SE_Z * cse->se > precision_of(penalty);
}

/* Beyond the precision a miss penalty can promise, the value becomes the
 * range of MT_MISS_SE_Z standard errors over the chain's lines; with too
 * few lines to say, the finding is doubted. */
static void bound_by_lines(mt_finding *f, const mt_chain_se *cse, double penalty)
{
    if (isnan(cse->se)) {
        mt_finding_doubt(f, MT_CONF_INCONSISTENT,
                         "only %zu lines sampled: too few to bound the mean over the L2's "
                         "partitions",
                         cse->elements);
        return;
    }
    double half = MT_MISS_SE_Z * cse->se;
    if (!too_few_lines(cse, penalty))
        return;
    f->kind = MT_FIND_RANGE;
    f->lo = penalty - half;
    f->hi = penalty + half;
    mt_finding_append_note(f,
                           "%zu lines sampled: the standard error over them (blocks of %zu) "
                           "is %.1f cycles, so the penalty is %.1f +- %.1f (%.0f standard "
                           "errors), a range",
                           cse->elements, cse->block, cse->se, penalty, half, MT_MISS_SE_Z);
}

/* The least standard error a mean over n_lines L2 lines can have when the
 * L2 serves two classes (near and far partitions, both trusted): a line is
 * near with some unknown share p, so the mean of n lines varies by
 * (far - near) sqrt(p (1 - p) / n), at most (far - near) / (2 sqrt n).  The
 * sample's own spread cannot stand in for it: 32 lines all homed far (one
 * chance in 70 with 1/8 near) have no spread at all, and their mean was 18
 * cycles above the mean over the partitions at confidence 0.9 (unseen
 * random seed 1146). */
static bool two_classes_known(const mt_probe_ctx *c)
{
    const mt_finding *far = mt_get(c, "l2", "far_latency"), *near = mt_get(c, "l2", "latency");
    return far->kind == MT_FIND_VALUE && near->kind == MT_FIND_VALUE &&
           far->confidence >= MT_CONF_TRUSTED && near->confidence >= MT_CONF_TRUSTED;
}

static double two_class_se_floor(const mt_probe_ctx *c, size_t n_lines)
{
    if (!n_lines || !two_classes_known(c))
        return 0;
    const mt_finding *far = mt_get(c, "l2", "far_latency"), *near = mt_get(c, "l2", "latency");
    return fabs(far->value - near->value) / (2.0 * sqrt((double)n_lines));
}

/* Fewest L2 lines one run must sample when the L2 looks partitioned (one
 * SM's capacity below the driver's L2) but its near and far classes are not
 * both trusted: the floor above is then unknown, and a short chain's lines
 * may all be homed in one class with no spread to show it (16 lines, all
 * far on an L2 of eight partitions, one chance in eight: 244 cycles for 227
 * at 0.9, unseen seed 2633).  Below it the chain runs MISS_EXTRA_RUNS more
 * times elsewhere and the runs' spread gives the error.  256 lines pin a
 * mean over two classes 137 cycles apart at a 1/8 share (that seed's) to a
 * standard error of 2.8 cycles: MT_MISS_SE_Z of them, 8.5 cycles, stay
 * within MT_MISS_PRECISION_SHARE of a 200-cycle penalty. */
#define MISS_LINES_GAP_UNKNOWN 256u

/* L2 lines among `elements` chain elements at `stride`, at the largest line
 * the L2 probe allows (its line finding at any confidence: a range's top),
 * else at MAX_L2_LINE_BYTES.  The H100's line reads 64-256 B in some runs,
 * and its 2048-element chain at 128 B is then 1024 lines, not 64. */
static size_t l2_lines_of(const mt_probe_ctx *c, size_t elements, uint32_t stride)
{
    const mt_finding *l = mt_get(c, "l2", "line");
    double line = l->kind == MT_FIND_VALUE ? l->value : l->kind == MT_FIND_RANGE ? l->hi : 0;
    if (!(line > 0) || line > MAX_L2_LINE_BYTES)
        line = MAX_L2_LINE_BYTES;
    size_t block = line > stride ? (size_t)(line / stride) : 1;
    return elements / block;
}

/* The three analyses of a miss chain's samples (`runs` runs of n / runs). */
typedef struct {
    mt_miss_mean mm;
    mt_miss_leak lk;
    mt_chain_se cse;
    double mean, hits; /* the plain or, when misses leak below the threshold, the mixture */
} miss_stats;

static mt_err analyse(const mt_probe_ctx *c, const mt_cache_state *s, const double *x, size_t n,
                      size_t runs, uint64_t elements, uint32_t stride, miss_stats *st)
{
    memset(st, 0, sizeof *st);
    mt_err err = mt_miss_mean_latency(x, n, s->hit_threshold, &st->mm);
    if (err == MT_OK && st->mm.misses)
        err = mt_miss_leak_test(x, n, s->hit_fine, s->hit_threshold, st->mm.cut, MT_KS_ALPHA,
                                &st->lk);
    if (err == MT_OK && st->mm.misses)
        err = mt_chain_mean_se(x, n, runs, elements, st->mm.cut, l2_line_block(c, stride),
                               &st->cse);
    if (err == MT_OK && st->mm.misses && !isnan(st->cse.se)) {
        double floor = two_class_se_floor(c, st->cse.elements / l2_line_block(c, stride));
        if (st->cse.se < floor)
            st->cse.se = floor;
    }
    /* Misses reaching below the hit threshold (a wide hit class over a near
     * L2 partition close to it): the mixture estimate counts them. */
    st->mean = st->lk.leaks ? st->lk.mean : st->mm.mean;
    st->hits = st->lk.leaks ? st->lk.hits : (double)st->mm.hits;
    return err;
}

/* MISS_EXTRA_RUNS more runs of the chain of e0, each right after the one
 * before (fresh lines, fresh homes), while the path's limit allows: *x
 * grows to *runs runs of *n samples each (the shortest run's count). */
static mt_err more_runs(mt_probe_ctx *c, const mt_experiment *e0, double **x, size_t *n,
                        size_t *runs)
{
    mt_experiment e[MISS_EXTRA_RUNS];
    mt_result r[MISS_EXTRA_RUNS];
    double *y[MISS_EXTRA_RUNS] = {0};
    size_t ny[MISS_EXTRA_RUNS] = {0}, nr = 0;
    uint64_t fp = e0->chain[0].footprint, limit = c->dev.path_limit_bytes[e0->chain[0].path];
    while (nr < MISS_EXTRA_RUNS && (!limit || (nr + 2) * fp <= limit)) {
        e[nr] = *e0;
        e[nr].chain[0].offset = (nr + 1) * fp;
        nr++;
    }
    if (!nr)
        return MT_OK;
    mt_err err = mt_run(c, e, nr, r);
    if (err != MT_OK)
        return err;
    size_t per = *n;
    for (size_t k = 0; k < nr; k++) {
        y[k] = mt_fine_samples(c, &r[k], 0, &ny[k]);
        mt_result_free(&r[k]);
        if (!y[k])
            err = MT_ERR_NOMEM;
        else if (ny[k] < per)
            per = ny[k];
    }
    double *all = err == MT_OK && per ? malloc((nr + 1) * per * sizeof *all) : NULL;
    if (all) {
        memcpy(all, *x, per * sizeof *all);
        for (size_t k = 0; k < nr; k++)
            memcpy(all + (k + 1) * per, y[k], per * sizeof *all);
        free(*x);
        *x = all;
        *n = (nr + 1) * per;
        *runs = nr + 1;
    }
    for (size_t k = 0; k < nr; k++)
        free(y[k]);
    if (err == MT_OK && per && !all)
        err = MT_ERR_NOMEM;
    return err == MT_OK ? MT_OK : mt_fail(c->ei, err, "out of memory reading samples");
}

static mt_err miss_penalty(mt_probe_ctx *c, mt_cache_id id)
{
    const mt_cache_state *s = &c->cs[id];
    const char *key = mt_cache_key(id);
    if (!s->present || s->size_is_bound || !s->size || !s->hit_known)
        return MT_OK;
    mt_path p = mt_cache_path(id);
    uint32_t stride = s->line ? s->line : (s->sector > 128 ? s->sector : 128);
    /* A quarter of the usable L2 holds the chain under any L2 policy; at
     * least twice the cache, so that it cannot fit the cache. */
    uint64_t usable = l2_usable(c), big = MISS_CHAIN_FACTOR * s->size;
    if (usable && big > usable / 4)
        big = usable / 4;
    /* A chain of twice the cache that is over a quarter of the usable L2
     * may spill from it (policies other than LRU keep evicting): cramped. */
    bool cramped = false;
    if (big < 2 * s->size) {
        big = 2 * s->size;
        cramped = usable && big > usable / 4;
    }
    if (c->dev.path_limit_bytes[p] && big > c->dev.path_limit_bytes[p])
        big = c->dev.path_limit_bytes[p];
    big = mt_round_down(big, stride);
    if (big < 2 * (uint64_t)stride)
        return MT_OK;
    uint32_t loads = MISS_LOADS < c->dev.max_fine_loads ? MISS_LOADS : c->dev.max_fine_loads;
    mt_experiment e = mt_exp_chase(p, big, stride, 1, loads, MT_MODE_FINE);
    size_t n;
    double *x;
    mt_progress(c, "%s miss penalty", mt_path_name(p));
    mt_err err = mt_run_fine(c, &e, &x, &n);
    if (err != MT_OK)
        return err;
    miss_stats st;
    size_t runs = 1;
    uint64_t elements = big / stride;
    err = analyse(c, s, x, n, runs, elements, stride, &st);
    /* One run sampled too few L2 lines: more runs elsewhere (only then, so
     * a GPU whose chain is long, as the H100's, runs what it always ran). */
    bool gap_unknown = usable < c->dev.l2_bytes && !two_classes_known(c) &&
                       l2_lines_of(c, st.cse.elements, stride) < MISS_LINES_GAP_UNKNOWN;
    if (err == MT_OK && st.mm.misses >= MT_MISS_MIN_COUNT &&
        (gap_unknown || too_few_lines(&st.cse, st.mean - s->hit_fine))) {
        if ((err = more_runs(c, &e, &x, &n, &runs)) != MT_OK) {
            free(x);
            return err;
        }
        if (runs > 1)
            err = analyse(c, s, x, n, runs, elements, stride, &st);
    }
    free(x);
    if (err != MT_OK)
        return mt_fail(c->ei, err, "%s miss penalty: no samples", key);
    const mt_miss_mean mm = st.mm;
    const mt_miss_leak lk = st.lk;
    /* Too few misses to say what one costs: no claim (the chain could not
     * leave the cache, e.g. a path limit below twice its size). */
    if (mm.misses < MT_MISS_MIN_COUNT)
        return MT_OK;
    double mean = st.mean, hits = st.hits;
    double spill = (double)mm.outliers / (double)mm.n;
    double penalty = mean - s->hit_fine;
    /* Misses slower than the L2's own hit threshold (cg loads), with this
     * path's hit latency as room for the extra trip through its cache, are
     * not L2 hits: the chain spills (e.g. an L2 partition smaller than
     * twice the cache). */
    const mt_cache_state *l2 = &c->cs[MT_CACHE_L2];
    bool beyond_l2 = l2->hit_known && mm.median > l2->hit_threshold + s->hit_fine;
    bool mostly_hits = hits > MT_MISS_MAX_HIT_SHARE * (double)mm.n;
    /* A far partition seen, but not the size one SM can use: the chain was
     * sized against the whole L2 and may spill beyond the part it can use
     * (an L2 of eight 178 KiB partitions took a 330 KiB chain, and its DRAM
     * misses gave 275 cycles for 158; unseen seed 826). */
    const mt_finding *far = mt_get(c, "l2", "far_latency");
    bool part_unknown = usable == c->dev.l2_bytes && far && far->kind == MT_FIND_VALUE &&
                        far->confidence >= MT_CONF_TRUSTED;
    bool spills = spill > MT_MISS_SPILL_SHARE || beyond_l2 || cramped || mostly_hits ||
                  part_unknown;
    double conf = spills ? MT_CONF_INCONSISTENT : MT_CONF_DIFFERENCE;
    char how[256];
    if (lk.leaks)
        snprintf(how, sizeof how,
                 "%zu vs %zu loads in the bands mirrored about the hit median (binomial p=%.2g): "
                 "misses reach below the hit threshold %.1f, mixture mean of %.0f misses %.1f",
                 lk.upper_band, lk.lower_band, lk.p, mm.hit_threshold, lk.misses, lk.mean);
    else
        snprintf(how, sizeof how, "mean of %zu misses %.1f", mm.misses, mm.mean);
    mt_finding f = mt_find_value(
        penalty, "cycles", MT_SRC_MEASURED, "pchase-fine miss mean",
        conf,
        "%llu B chain at %u B stride (L2 usable by one SM: %llu B): %s "
        "minus hit median %.1f; %.0f hits (<= %.1f) and %zu loads beyond %.1f left out%s",
        (unsigned long long)big, stride, (unsigned long long)usable, how,
        s->hit_fine, hits, mm.hit_threshold, mm.outliers, mm.cut,
        beyond_l2 ? "; the misses are slower than L2 hits: the chain spills beyond the L2, "
                    "the penalty is uncertain"
        : cramped ? "; twice the cache is over a quarter of the L2 one SM can use: the chain "
                    "may spill beyond the L2, the penalty is uncertain"
        : mostly_hits ? "; most of the chain hits: its misses are the few lines the policy "
                        "evicts, not a sample of the L2, the penalty is uncertain"
        : part_unknown ? "; the L2 has a far partition but the size one SM can use was not "
                         "measured: the chain may spill beyond it, the penalty is uncertain"
        : spills ? "; too many slow loads: the chain spills beyond the L2, the penalty is "
                   "uncertain"
                 : "");
    if (runs > 1)
        mt_finding_append_note(&f, "%zu runs of the chain at places of their own: one sampled "
                                   "too few L2 lines", runs);
    bound_by_lines(&f, &st.cse, penalty);
    mt_set(c, key, "miss_penalty", &f);
    return MT_OK;
}

static mt_err run(mt_probe_ctx *c)
{
    mt_note_threshold(c, "MT_MISS_OUTLIER_SDS", MT_MISS_OUTLIER_SDS,
                      "miss penalty: misses this many robust SDs above their median are outliers");
    mt_note_threshold(c, "MT_MISS_SPILL_SHARE", MT_MISS_SPILL_SHARE,
                      "miss penalty: more loads than this share beyond the cut flag the penalty");
    mt_note_threshold(c, "MT_MISS_MIN_COUNT", MT_MISS_MIN_COUNT,
                      "miss penalty: fewest misses a mean miss latency is taken from");
    mt_note_threshold(c, "MT_MISS_MAX_HIT_SHARE", MT_MISS_MAX_HIT_SHARE,
                      "miss penalty: a chain with more hits than this share flags the penalty");
    mt_note_threshold(c, "MISS_LINES_GAP_UNKNOWN", MISS_LINES_GAP_UNKNOWN,
                      "miss penalty: fewest L2 lines one run samples on a partitioned L2 whose "
                      "near/far classes are not trusted, else more runs");
    mt_note_threshold(c, "MT_SE_MIN_BLOCKS", MT_SE_MIN_BLOCKS,
                      "miss penalty: fewest blocks of lines a standard error is taken from");
    mt_note_threshold(c, "MT_MISS_SE_Z", MT_MISS_SE_Z,
                      "miss penalty: standard errors over the chain's lines a range spans");
    mt_note_threshold(c, "MT_MISS_PRECISION_CYCLES", MT_MISS_PRECISION_CYCLES,
                      "miss penalty: widest half-range reported as a value (cycles)");
    mt_note_threshold(c, "MT_MISS_PRECISION_SHARE", MT_MISS_PRECISION_SHARE,
                      "miss penalty: widest half-range reported as a value (share of it)");
    static const mt_cache_id ids[] = {MT_CACHE_L1D, MT_CACHE_TEX, MT_CACHE_RO};
    for (size_t i = 0; i < sizeof ids / sizeof *ids; i++) {
        mt_err err = miss_penalty(c, ids[i]);
        if (err != MT_OK)
            return err;
    }
    return MT_OK;
}

static const mt_finding_decl provides[] = {
    {"l1d.miss_penalty", "miss penalty"}, {"texture.miss_penalty", "miss penalty"},
    {"readonly.miss_penalty", "miss penalty"}, {NULL}};
static const char *const requires[] = {"l1d.size", "texture.size", "readonly.size", "l2.latency",
                                       NULL};
const mt_probe_desc mt_probe_l1_miss = {
    .name = "l1_miss", .summary = "miss penalty of l1d, texture and read-only, within the L2 one SM "
                                  "can use",
    .rank = 65, .provides = provides, .requires = requires, .run = run,
};

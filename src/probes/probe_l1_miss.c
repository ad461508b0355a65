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

/* Bytes of the L2 one SM can fill: the partition measured by the L2 probe,
 * else the driver's L2 size. */
static uint64_t l2_usable(const mt_probe_ctx *c)
{
    const mt_finding *p = mt_get(c, "l2", "partition_size");
    if (p->kind == MT_FIND_VALUE && p->value > 0 && p->value < (double)c->dev.l2_bytes)
        return (uint64_t)p->value;
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

/* The chain samples few lines of a partitioned L2 when it is short: its
 * mean then depends on where those lines are homed.  Beyond the precision
 * a miss penalty can promise, the value becomes the range of
 * MT_MISS_SE_Z standard errors over the chain's lines; with too few lines
 * to say, the finding is doubted. */
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
    double precision = fmax(MT_MISS_PRECISION_CYCLES, MT_MISS_PRECISION_SHARE * fabs(penalty));
    if (half <= precision)
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
    mt_miss_mean mm;
    mt_miss_leak lk = {0};
    mt_chain_se cse = {0};
    err = mt_miss_mean_latency(x, n, s->hit_threshold, &mm);
    if (err == MT_OK && mm.misses)
        err = mt_miss_leak_test(x, n, s->hit_fine, s->hit_threshold, mm.cut, MT_KS_ALPHA, &lk);
    if (err == MT_OK && mm.misses)
        err = mt_chain_mean_se(x, n, big / stride, mm.cut, l2_line_block(c, stride), &cse);
    free(x);
    if (err != MT_OK)
        return mt_fail(c->ei, err, "%s miss penalty: no samples", key);
    /* Too few misses to say what one costs: no claim (the chain could not
     * leave the cache, e.g. a path limit below twice its size). */
    if (mm.misses < MT_MISS_MIN_COUNT)
        return MT_OK;
    /* Misses reaching below the hit threshold (a wide hit class over a near
     * L2 partition close to it): the mixture estimate counts them. */
    double mean = lk.leaks ? lk.mean : mm.mean, hits = lk.leaks ? lk.hits : (double)mm.hits;
    double spill = (double)mm.outliers / (double)mm.n;
    double penalty = mean - s->hit_fine;
    /* Misses slower than the L2's own hit threshold (cg loads), with this
     * path's hit latency as room for the extra trip through its cache, are
     * not L2 hits: the chain spills (e.g. an L2 partition smaller than
     * twice the cache). */
    const mt_cache_state *l2 = &c->cs[MT_CACHE_L2];
    bool beyond_l2 = l2->hit_known && mm.median > l2->hit_threshold + s->hit_fine;
    bool mostly_hits = hits > MT_MISS_MAX_HIT_SHARE * (double)mm.n;
    bool spills = spill > MT_MISS_SPILL_SHARE || beyond_l2 || cramped || mostly_hits;
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
        : spills ? "; too many slow loads: the chain spills beyond the L2, the penalty is "
                   "uncertain"
                 : "");
    bound_by_lines(&f, &cse, penalty);
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

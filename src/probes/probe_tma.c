/* The bulk copy engine, TMA (opt-in: --cluster; docs/method.md, "Clusters
 * and TMA"): on Hopper and later, one thread of a block copies global
 * memory into shared memory with cp.async.bulk and waits for its mbarrier.
 * One block on one SM copies sizes of 1 to 32 KiB, one copy in flight;
 * cycles per copy come from the difference of R and 2R repeats.  The
 * latency is the smallest copy's cycles, the rate the bytes added over the
 * cycles added from the smallest to the largest size.  The
 * same bytes copied by the block's 256 threads with 16-byte loads and
 * stores are the reference.  Elsewhere the findings say "not supported". */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cluster_runs.h"
#include "confidence.h"
#include "probe_internal.h"

/* Copy sizes 1, 2, 4 ... 32 KiB (within the 48 KiB any block may use). */
#define TMA_MIN_COPY (1u << 10)
#define TMA_MAX_COPY (32u << 10)
#define TMA_MAX_SIZES 6
/* Copies per run in the shorter run (twice in the longer): at the
 * largest size and a few hundred cycles per copy, tens of thousands of
 * cycles, far beyond the launch's cost that the difference removes. */
#define TMA_REPEATS 64u
/* Runs of each size (repeat counts TMA_REPEATS, +1, +2: distinct runs). */
#define TMA_RUNS 3u
/* The runs' rates spreading wider than this share of their median: the
 * copies' fixed cost dwarfs the bytes added between the two largest
 * sizes, and the rate is reported with low confidence. */
#define TMA_RATE_SPREAD_SHARE 0.03

static void note_thresholds(mt_probe_ctx *c)
{
    mt_note_threshold(c, "TMA_RATE_SPREAD_SHARE", TMA_RATE_SPREAD_SHARE,
                      "bulk and plain copy rates: runs spreading wider (share of their median) "
                      "are reported with low confidence");
}

/* The plain copy's block: 8 warps, 16 B a thread and access. */
#define TMA_PLAIN_THREADS 256u
/* A bulk copy is issued by one thread; the block is one warp. */
#define TMA_BULK_THREADS 32u
static void set_unsupported(mt_probe_ctx *c, const char *why)
{
    mt_finding f = mt_find_value(0, "", MT_SRC_DRIVER, "device attributes", MT_CONF_DRIVER,
                                 "%s", why);
    f.kind = MT_FIND_TEXT;
    snprintf(f.text, sizeof f.text, "not supported");
    mt_set(c, "tma", "bulk_copy", &f);
}

static const char *op_label(mt_cluster_op op)
{
    return op == MT_CLUSTER_BULK_COPY ? "cp.async.bulk, one thread, mbarrier wait"
                                      : "256 threads, 16 B loads and stores";
}

/* Latency and rate of one copy op over the sizes: the cycles of the
 * smallest copy (its fixed cost and 1 KiB), and the rate from the smallest
 * to the largest (bytes added over cycles added: the fixed cost cancels;
 * on the H100 the widest span repeats within 1% from run to run, where
 * the two largest sizes alone spread by 11%).
 * A line over all sizes does not hold on the H100 (cycles stay flat up to
 * 4 KiB, then grow faster than linearly), so no intercept is claimed.
 * Each size runs TMA_RUNS times (distinct repeat counts); the findings are
 * medians, and a spread of the runs' rates beyond TMA_RATE_SPREAD_SHARE
 * (the fixed cost dwarfing the bytes added) gives low confidence. */
static mt_err copy_sizes(mt_probe_ctx *c, mt_cluster_op op, const char *lat_name,
                         const char *bw_name)
{
    double x[TMA_MAX_SIZES], y[TMA_MAX_SIZES], per[TMA_MAX_SIZES * TMA_RUNS];
    mt_experiment e[TMA_MAX_SIZES * TMA_RUNS];
    size_t n = 0;
    uint32_t threads = op == MT_CLUSTER_BULK_COPY ? TMA_BULK_THREADS : TMA_PLAIN_THREADS;
    for (uint32_t b = TMA_MIN_COPY; b <= TMA_MAX_COPY && n < TMA_MAX_SIZES; b *= 2) {
        if (c->dev.smem_per_block && b > c->dev.smem_per_block)
            break;
        x[n] = b;
        for (uint32_t k = 0; k < TMA_RUNS; k++)
            e[n * TMA_RUNS + k] = mt_exp_cluster_copy(op, 1, threads, b, TMA_REPEATS + k);
        n++;
    }
    if (n < 2)
        return MT_OK; /* too little shared memory for two sizes */
    mt_err err = mt_cluster_per_repeat(c, e, n * TMA_RUNS, per);
    if (err)
        return err;
    for (size_t i = 0; i < n; i++)
        y[i] = mt_median(per + i * TMA_RUNS, TMA_RUNS);
    char sizes[200];
    size_t len = 0;
    for (size_t i = 0; i < n; i++)
        len += (size_t)snprintf(sizes + len, sizeof sizes - len, "%s%.0f KiB: %.0f", i ? ", " : "",
                                x[i] / 1024, y[i]);
    if (isfinite(y[0])) {
        mt_finding f = mt_find_value(y[0], "cycles", MT_SRC_MEASURED, "copy-difference",
                                     MT_CONF_DIFFERENCE,
                                     "one %.0f KiB copy, global (L2) to shared, one block, one "
                                     "copy in flight (%s); median of %u runs; cycles per copy by "
                                     "size %s",
                                     x[0] / 1024, op_label(op), TMA_RUNS, sizes);
        mt_set(c, "tma", lat_name, &f);
    }
    double rate[TMA_RUNS];
    for (uint32_t k = 0; k < TMA_RUNS; k++) {
        double added = per[(n - 1) * TMA_RUNS + k] - per[k];
        rate[k] = added > 0 ? (x[n - 1] - x[0]) / added : NAN;
    }
    mt_stats st = mt_describe(rate, TMA_RUNS);
    if (!isfinite(st.median) || !(st.min > 0))
        return MT_OK; /* a run with no cycles added: no rate to claim */
    double spread = (st.max - st.min) / st.median;
    int ok = spread <= TMA_RATE_SPREAD_SHARE;
    mt_finding f = mt_find_value(st.median, "B/clk/SM", MT_SRC_MEASURED, "copy-difference",
                                 ok ? MT_CONF_DIFFERENCE : MT_CONF_INCONSISTENT,
                                 "%s: bytes over cycles added from %.0f to %.0f KiB copies, median "
                                 "of %u runs (spread %.1f%%%s); effective %.1f B/clk at %.0f KiB",
                                 op_label(op), x[0] / 1024, x[n - 1] / 1024, TMA_RUNS,
                                 100 * spread, ok ? "" : ", wider than TMA_RATE_SPREAD_SHARE",
                                 x[n - 1] / y[n - 1], x[n - 1] / 1024);
    mt_set(c, "tma", bw_name, &f);
    return MT_OK;
}

static mt_err tma(mt_probe_ctx *c)
{
    mt_mark_probed(c, "tma");
    char why[200];
    mt_cluster_unsupported_reason(c, 1, why, sizeof why);
    if (why[0]) {
        set_unsupported(c, why);
        return MT_OK;
    }
    note_thresholds(c);
    mt_finding f = mt_find_value(0, "", MT_SRC_DRIVER, "device attributes", MT_CONF_DRIVER,
                                 "compute capability %d.%d: cp.async.bulk with mbarrier "
                                 "completion", c->dev.cc_major, c->dev.cc_minor);
    f.kind = MT_FIND_TEXT;
    snprintf(f.text, sizeof f.text, "yes");
    mt_set(c, "tma", "bulk_copy", &f);
    mt_progress(c, "bulk copies (TMA), global to shared");
    mt_err err = copy_sizes(c, MT_CLUSTER_BULK_COPY, "latency", "bandwidth");
    if (err)
        return err;
    mt_progress(c, "plain copies (loads and stores), global to shared");
    return copy_sizes(c, MT_CLUSTER_PLAIN_COPY, "plain_latency", "plain_bandwidth");
}

static bool tma_requested(const mt_probe_options *o)
{
    return o->cluster;
}

static const mt_object_decl objects[] = {
    {"tma", "Bulk Copy Engine (TMA)", "TMA", MT_OBJ_LINK, 0, 62}, {NULL}};
static const mt_finding_decl provides[] = {
    {"tma.bulk_copy", "bulk copies"},
    {"tma.latency", "bulk copy latency (1 KiB)"},
    {"tma.bandwidth", "bulk copy rate per SM"},
    {"tma.plain_latency", "plain copy latency (1 KiB)"},
    {"tma.plain_bandwidth", "plain copy rate per SM"},
    {NULL}};
const mt_probe_desc mt_probe_tma = {
    .name = "tma",
    .summary = "bulk copy engine, TMA (opt-in --cluster): global-to-shared copy latency and rate "
               "against plain loads and stores",
    .rank = 97, .objects = objects, .provides = provides, .run = tma,
    .requested = tma_requested,
};

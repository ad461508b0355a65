/* The bulk copy engine, TMA (opt-in: --cluster; docs/method.md, "Clusters
 * and TMA"): on Hopper and later, one thread of a block copies global
 * memory into shared memory with cp.async.bulk and waits for its mbarrier.
 * One block on one SM copies sizes of 1 to 32 KiB, one copy in flight;
 * cycles per copy come from the difference of R and 2R repeats, and a
 * least-squares line over the sizes, cycles = latency + bytes / rate,
 * gives the copy's fixed latency and its rate in bytes per cycle.  The
 * same bytes copied by the block's 256 threads with 16-byte loads and
 * stores are the reference.  Elsewhere the findings say "not supported". */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../analysis/linear_fit.h"
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
/* The plain copy's block: 8 warps, 16 B a thread and access. */
#define TMA_PLAIN_THREADS 256u
/* A bulk copy is issued by one thread; the block is one warp. */
#define TMA_BULK_THREADS 32u
/* The line must fit every size within this share of its cycles per copy:
 * a copy whose cost is not latency + bytes / rate (a rate that changes
 * with size) is reported with low confidence. */
#define TMA_FIT_MAX_RESIDUAL_SHARE 0.05

static void note_thresholds(mt_probe_ctx *c)
{
    mt_note_threshold(c, "TMA_FIT_MAX_RESIDUAL_SHARE", TMA_FIT_MAX_RESIDUAL_SHARE,
                      "bulk and plain copies: a size off the line cycles = latency + bytes / "
                      "rate by more than this share gives low confidence");
}

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

/* Latency and rate of one copy op over the sizes. */
static mt_err copy_line(mt_probe_ctx *c, mt_cluster_op op, const char *lat_name,
                        const char *bw_name)
{
    double x[TMA_MAX_SIZES], y[TMA_MAX_SIZES];
    mt_experiment e[TMA_MAX_SIZES];
    size_t n = 0;
    uint32_t threads = op == MT_CLUSTER_BULK_COPY ? TMA_BULK_THREADS : TMA_PLAIN_THREADS;
    for (uint32_t b = TMA_MIN_COPY; b <= TMA_MAX_COPY && n < TMA_MAX_SIZES; b *= 2) {
        if (c->dev.smem_per_block && b > c->dev.smem_per_block)
            break;
        x[n] = b;
        e[n++] = mt_exp_cluster_copy(op, 1, threads, b, TMA_REPEATS);
    }
    if (n < 3)
        return MT_OK; /* too little shared memory for a line with a residual */
    mt_err err = mt_cluster_per_repeat(c, e, n, y);
    if (err)
        return err;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(y[i]))
            return MT_OK; /* a copy too short to time: no claim */
    mt_line_fit fit;
    if ((err = mt_fit_line(x, y, n, &fit, c->ei)))
        return err;
    if (!(fit.slope > 0))
        return MT_OK; /* copies not slower with more bytes: no rate to claim */
    double worst = fit.max_residual / y[fit.worst];
    int ok = worst <= TMA_FIT_MAX_RESIDUAL_SHARE;
    char sizes[200];
    size_t len = 0;
    for (size_t i = 0; i < n; i++)
        len += (size_t)snprintf(sizes + len, sizeof sizes - len, "%s%.0f KiB: %.1f B/clk",
                                i ? ", " : "", x[i] / 1024, x[i] / y[i]);
    const char *doubt = ok ? "" : "; a size off the line by more than TMA_FIT_MAX_RESIDUAL_SHARE";
    mt_finding f = mt_find_value(fit.offset, "cycles", MT_SRC_MEASURED, "copy-size-fit",
                                 ok ? MT_CONF_DIFFERENCE : MT_CONF_INCONSISTENT,
                                 "global (L2) to shared, one block, one copy in flight (%s): "
                                 "intercept of cycles per copy over %zu sizes (+-%.1f)%s",
                                 op_label(op), n, fit.offset_se, doubt);
    mt_set(c, "tma", lat_name, &f);
    f = mt_find_value(1.0 / fit.slope, "B/clk/SM", MT_SRC_MEASURED, "copy-size-fit",
                      ok ? MT_CONF_DIFFERENCE : MT_CONF_INCONSISTENT,
                      "%s: inverse slope of cycles per copy over the sizes; effective by size "
                      "%s%s",
                      op_label(op), sizes, doubt);
    mt_set(c, "tma", bw_name, &f);
    return MT_OK;
}

static mt_err tma(mt_probe_ctx *c)
{
    mt_mark_probed(c, "tma");
    char why[200];
    mt_cluster_unsupported_reason(c, 0, why, sizeof why);
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
    mt_err err = copy_line(c, MT_CLUSTER_BULK_COPY, "latency", "bandwidth");
    if (err)
        return err;
    mt_progress(c, "plain copies (loads and stores), global to shared");
    return copy_line(c, MT_CLUSTER_PLAIN_COPY, "plain_latency", "plain_bandwidth");
}

static bool tma_requested(const mt_probe_options *o)
{
    return o->cluster;
}

static const mt_object_decl objects[] = {
    {"tma", "Bulk Copy Engine (TMA)", "TMA", MT_OBJ_LINK, 0, 62}, {NULL}};
static const mt_finding_decl provides[] = {
    {"tma.bulk_copy", "bulk copies"},
    {"tma.latency", "bulk copy latency"},
    {"tma.bandwidth", "bulk copy rate per SM"},
    {"tma.plain_latency", "plain copy latency"},
    {"tma.plain_bandwidth", "plain copy rate per SM"},
    {NULL}};
const mt_probe_desc mt_probe_tma = {
    .name = "tma",
    .summary = "bulk copy engine, TMA (opt-in --cluster): global-to-shared copy latency and rate "
               "against plain loads and stores",
    .rank = 97, .objects = objects, .provides = provides, .run = tma,
    .requested = tma_requested,
};

/* Distributed shared memory (opt-in: --cluster; docs/method.md, "Clusters
 * and TMA"): on Hopper and later, the blocks of a thread-block cluster read
 * each other's shared memory.  Latency: block 0 chases a chain laid out in
 * block 1's shared memory (aggregate chases, as the shared probe's), for
 * every cluster size 2, 4, 8, 16 the device launches, and in its own
 * shared memory through the same cluster addresses (the local reference).
 * Bandwidth: every block of one cluster streams its neighbour's shared
 * memory; bytes per cycle per SM from the difference of R and 2R repeats.
 * Elsewhere the findings say "not supported" and why. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cluster_runs.h"
#include "confidence.h"
#include "latency_precision.h"
#include "probe_internal.h"

/* The latency chain: 1024 words at a 4 B stride, as the shared probe's
 * (many laps, no bank conflicts). */
#define DSM_CHAIN_BYTES 4096u
#define DSM_CHAIN_STRIDE 4u
#define DSM_LOADS 2048u
/* Repeated chases per cluster size: the median of 5 and their spread. */
#define DSM_REPS 5u
/* The "within 2 cycles": the first chases of a size must spread
 * no wider than this for their median to be a value. */
#define DSM_LATENCY_SPREAD_CYCLES 2.0
/* ... and their median's standard error, from the chases' standard
 * deviation pooled over every size's repeats (the same remote path, the
 * same timer: one noise, whatever the size's own latency), times this
 * must stay within MT_LATENCY_MAX_HALF_WIDTH.  3 is above the two-sided
 * 95% Student quantile of the fewest degrees of freedom it meets (one
 * size: 4, 2.78; two sizes: 8, 2.31): five spread-free chases can be five
 * lucky ones (unseen seed 4197: 31234.6-cycle remote latency, 3.2 cycles
 * of noise per chase, five chases 31236.1..31237.9, 2.5 cycles off). */
#define DSM_MEDIAN_Z 3.0
/* Standard error of a median of normal samples per standard error of
 * their mean: sqrt(pi / 2). */
#define DSM_MEDIAN_SE_FACTOR 1.2533
/* Where the first chases do not pin the latency: more chases of the same
 * size and target in batches of this many, up to DSM_REPS_MAX in all,
 * until their median's order-statistic interval (mt_median_ci at
 * MT_LATENCY_CI_LEVEL, Bonferroni over the batches: 0.9929 for 7) is
 * within MT_LATENCY_MAX_HALF_WIDTH; a median it
 * still does not pin is the interval's range (mt_finding_set_precision).
 * 64 chases pin a median of chases whose noise is up to about 6 cycles
 * (1.96 x 1.25 x 6 / 8 = 1.8). */
#define DSM_REPS_BATCH 8u
#define DSM_REPS_MAX 64u
/* The bandwidth stream: 32 KiB per block (within the 48 KiB any block
 * may use), 16 MiB per block in the shorter run (R = 512 repeats): at
 * 32 B/clk half a million cycles, long enough for the launch's cost to
 * cancel well.  Three runs (R, R+1, R+2: distinct experiments), median. */
#define DSM_STREAM_BYTES (32u << 10)
#define DSM_STREAM_REPEATS 512u
#define DSM_STREAM_RUNS 3u
/* Runs of one size whose rates spread more than this share of their
 * median are reported with low confidence. */
#define DSM_BW_SPREAD_SHARE 0.03
#define DSM_MAX_SIZES 4 /* 2, 4, 8, 16 */

static void note_thresholds(mt_probe_ctx *c)
{
    mt_note_threshold(c, "DSM_LATENCY_SPREAD_CYCLES", DSM_LATENCY_SPREAD_CYCLES,
                      "distributed shared memory latency: the first chases of a size spreading "
                      "wider do not pin their median");
    mt_note_threshold(c, "DSM_MEDIAN_Z", DSM_MEDIAN_Z,
                      "distributed shared memory latency: standard errors of the first chases' "
                      "median (pooled noise) that must fit MT_LATENCY_MAX_HALF_WIDTH");
    mt_note_threshold(c, "DSM_REPS_MAX", DSM_REPS_MAX,
                      "distributed shared memory latency: most chases run to pin a median the "
                      "first ones do not");
    mt_note_latency_precision(c);
    mt_note_threshold(c, "DSM_BW_SPREAD_SHARE", DSM_BW_SPREAD_SHARE,
                      "distributed shared memory bandwidth: runs spreading wider (share of "
                      "their median) are reported with low confidence");
}

static void set_unsupported(mt_probe_ctx *c, const char *why)
{
    mt_finding f = mt_find_value(0, "", MT_SRC_DRIVER, "device attributes", MT_CONF_DRIVER,
                                 "%s", why);
    f.kind = MT_FIND_TEXT;
    snprintf(f.text, sizeof f.text, "not supported");
    mt_set(c, "dsm", "max_cluster_size", &f);
}

/* Per-load latencies of DSM_REPS aggregate chases of block 0 into block 1
 * of a cluster of each of the n sizes, then into its own shared memory
 * (target 0): v[i * DSM_REPS + k], the local ones last. */
static mt_err latencies(mt_probe_ctx *c, const uint32_t *sizes, size_t n, double *v)
{
    mt_experiment e[(DSM_MAX_SIZES + 1) * DSM_REPS];
    mt_result r[(DSM_MAX_SIZES + 1) * DSM_REPS];
    size_t m = 0;
    for (size_t i = 0; i <= n; i++)
        for (uint32_t k = 0; k < DSM_REPS; k++)
            /* The last group: the block's own shared memory (target 0). */
            e[m++] = mt_exp_cluster_chase(i < n ? sizes[i] : 2, i < n ? 1 : 0, DSM_CHAIN_BYTES,
                                          DSM_CHAIN_STRIDE, 1, DSM_LOADS + k, MT_MODE_AGGREGATE);
    mt_err err = mt_run(c, e, m, r);
    if (err)
        return err;
    for (size_t i = 0; i < m; i++)
        v[i] = mt_agg_latency(c, &e[i], &r[i]);
    mt_results_free(r, m);
    return MT_OK;
}

/* One latency of a cluster of `size`, block 0 reading block `target`:
 * the median of its DSM_REPS first chases v[0..DSM_REPS) when their
 * spread and their pooled noise `sd` pin it (DSM_LATENCY_SPREAD_CYCLES,
 * DSM_MEDIAN_Z), else of more chases (DSM_REPS_BATCH, DSM_REPS_MAX) with
 * their median's interval in *ci.  *pinned says which; v holds
 * DSM_REPS_MAX latencies. */
typedef struct {
    double lat, spread; /* the first chases' median and spread */
    bool pinned;        /* by the first chases */
    mt_median_interval ci; /* of every chase where not pinned */
} dsm_lat;

static mt_err pin_latency(mt_probe_ctx *c, uint32_t size, uint32_t target, double *v, double sd,
                          dsm_lat *d)
{
    mt_stats st = mt_describe(v, DSM_REPS);
    d->lat = st.median;
    d->spread = st.max - st.min;
    d->pinned = d->spread <= DSM_LATENCY_SPREAD_CYCLES &&
                DSM_MEDIAN_Z * DSM_MEDIAN_SE_FACTOR * sd / sqrt((double)DSM_REPS) <=
                    MT_LATENCY_MAX_HALF_WIDTH;
    if (d->pinned)
        return MT_OK;
    uint32_t n = DSM_REPS;
    mt_err err;
    do {
        mt_experiment e[DSM_REPS_BATCH];
        mt_result r[DSM_REPS_BATCH];
        for (uint32_t k = 0; k < DSM_REPS_BATCH; k++)
            e[k] = mt_exp_cluster_chase(size, target, DSM_CHAIN_BYTES, DSM_CHAIN_STRIDE, 1,
                                        DSM_LOADS + n + k, MT_MODE_AGGREGATE);
        if ((err = mt_run(c, e, DSM_REPS_BATCH, r)))
            return err;
        for (uint32_t k = 0; k < DSM_REPS_BATCH; k++)
            v[n + k] = mt_agg_latency(c, &e[k], &r[k]);
        mt_results_free(r, DSM_REPS_BATCH);
        n += DSM_REPS_BATCH;
        /* Each batch is a look at the interval, and stopping at the first
         * one that pins the median inflates its misses: Bonferroni over
         * every look the loop may take (w10: 61 chases, the 96% interval
         * [5407.1, 5413.6] missed 5405.8). */
        double level = mt_bonferroni_level(MT_LATENCY_CI_LEVEL,
                                           (DSM_REPS_MAX - DSM_REPS) / DSM_REPS_BATCH);
        if ((err = mt_median_ci(v, n, level, &d->ci)) != MT_OK)
            return mt_fail(c->ei, err, "DSM latency: %s", mt_strerror(err));
    } while (!mt_latency_precise(&d->ci) && n + DSM_REPS_BATCH <= DSM_REPS_MAX);
    d->lat = d->ci.median;
    return MT_OK;
}

/* The finding of one latency; `what` describes the chase. */
static mt_finding latency_finding(const mt_probe_ctx *c, const dsm_lat *d, double sd,
                                  const char *what)
{
    mt_finding f;
    if (d->pinned) {
        f = mt_find_value(d->lat, "cycles", MT_SRC_MEASURED, "cluster-pchase-aggregate",
                          MT_CONF_AGG_MEDIAN,
                          "%s; median of %u chases (spread %.1f, pooled sd %.2f); loop overhead "
                          "%.1f subtracted",
                          what, DSM_REPS, d->spread, sd, c->overhead_agg);
        return f;
    }
    f = mt_find_value(d->lat, "cycles", MT_SRC_MEASURED, "cluster-pchase-aggregate",
                      MT_CONF_AGG_MEDIAN,
                      "%s; median of %zu chases, %.0f%% CI [%.1f, %.1f] (the first %u spread "
                      "%.1f, pooled sd %.2f: not pinned, DSM_MEDIAN_Z)",
                      what, d->ci.n, 100 * d->ci.level, d->ci.lo, d->ci.hi, DSM_REPS, d->spread,
                      sd);
    mt_finding_set_precision(&f, &d->ci);
    return f;
}

/* Bytes per cycle per SM of a cluster of `size` streaming neighbours'
 * shared memory: median of DSM_STREAM_RUNS runs, *spread their range over
 * the median. */
static mt_err bandwidth(mt_probe_ctx *c, uint32_t size, double *bw, double *spread)
{
    uint32_t threads = c->dev.max_threads_per_block > 0 ? (uint32_t)c->dev.max_threads_per_block
                                                        : 1024;
    if (threads > 1024)
        threads = 1024;
    threads -= threads % 32;
    uint64_t bytes = DSM_STREAM_BYTES;
    while (c->dev.smem_per_block && bytes > c->dev.smem_per_block)
        bytes /= 2;
    mt_experiment e[DSM_STREAM_RUNS];
    double per[DSM_STREAM_RUNS], v[DSM_STREAM_RUNS];
    for (uint32_t k = 0; k < DSM_STREAM_RUNS; k++)
        e[k] = mt_exp_cluster_stream(size, 1, threads, bytes, DSM_STREAM_REPEATS + k);
    mt_err err = mt_cluster_per_repeat(c, e, DSM_STREAM_RUNS, per);
    if (err)
        return err;
    for (uint32_t k = 0; k < DSM_STREAM_RUNS; k++)
        v[k] = (double)bytes / per[k];
    mt_stats st = mt_describe(v, DSM_STREAM_RUNS);
    *bw = st.median;
    *spread = st.median > 0 ? (st.max - st.min) / st.median : NAN;
    return MT_OK;
}

static mt_err dsm(mt_probe_ctx *c)
{
    mt_mark_probed(c, "dsm");
    char why[200];
    mt_cluster_unsupported_reason(c, 1, why, sizeof why);
    if (why[0]) {
        set_unsupported(c, why);
        return MT_OK;
    }
    note_thresholds(c);
    mt_finding f = mt_find_value(c->dev.max_cluster_size, "count", MT_SRC_DRIVER,
                                 "device attributes", MT_CONF_DRIVER,
                                 "largest cluster the device launches (non-portable size "
                                 "attribute); %d portable",
                                 c->dev.max_cluster_size_portable);
    mt_set(c, "dsm", "max_cluster_size", &f);

    uint32_t sizes[DSM_MAX_SIZES];
    size_t n = 0;
    for (uint32_t s = 2; s <= MT_CLUSTER_MAX_SIZE && s <= (uint32_t)c->dev.max_cluster_size; s *= 2)
        sizes[n++] = s;
    mt_progress(c, "distributed shared memory latency (clusters of 2..%u)", sizes[n - 1]);
    double v[DSM_MAX_SIZES + 1][DSM_REPS_MAX];
    double first[(DSM_MAX_SIZES + 1) * DSM_REPS];
    mt_err err = latencies(c, sizes, n, first);
    if (err)
        return err;
    for (size_t i = 0; i <= n; i++)
        memcpy(v[i], first + i * DSM_REPS, sizeof(double) * DSM_REPS);
    double sd_remote = mt_pooled_sd(first, n, DSM_REPS);
    double sd_local = mt_pooled_sd(first + n * DSM_REPS, 1, DSM_REPS);
    dsm_lat remote[DSM_MAX_SIZES], local;
    char by[160] = "";
    size_t len = 0;
    int steady = 1;
    for (size_t i = 0; i < n; i++) {
        /* Only the cluster of 2 is a finding of its own: the others' first
         * chases are listed as they are. */
        if (i == 0) {
            if ((err = pin_latency(c, sizes[0], 1, v[0], sd_remote, &remote[0])))
                return err;
        } else {
            mt_stats st = mt_describe(v[i], DSM_REPS);
            remote[i].lat = st.median;
            remote[i].spread = st.max - st.min;
        }
        len += (size_t)snprintf(by + len, sizeof by - len, "%s%u: %.1f", i ? ", " : "", sizes[i],
                                remote[i].lat);
        steady = steady && remote[i].spread <= DSM_LATENCY_SPREAD_CYCLES;
    }
    if ((err = pin_latency(c, 2, 0, v[n], sd_local, &local)))
        return err;
    f = latency_finding(c, &remote[0], sd_remote,
                        "block 0 chasing a 4 KiB chain in block 1's shared memory, cluster of 2");
    mt_set(c, "dsm", "latency", &f);
    char what[160];
    snprintf(what, sizeof what,
             "the same chase in the block's own shared memory through the same cluster addresses "
             "(remote costs %.1f cycles more)",
             remote[0].lat - local.lat);
    f = latency_finding(c, &local, sd_local, what);
    mt_set(c, "dsm", "latency_local", &f);
    f = mt_find_value(0, "", MT_SRC_MEASURED, "cluster-pchase-aggregate",
                      steady ? MT_CONF_AGG_MEDIAN : MT_CONF_INCONSISTENT,
                      "cycles by cluster size, block 0 reading block 1%s",
                      steady ? "" : "; some spread wider than DSM_LATENCY_SPREAD_CYCLES");
    f.kind = MT_FIND_TEXT;
    snprintf(f.text, sizeof f.text, "%s", by);
    mt_set(c, "dsm", "latency_by_size", &f);

    mt_progress(c, "distributed shared memory bandwidth");
    double bw[DSM_MAX_SIZES], spread[DSM_MAX_SIZES];
    len = 0;
    by[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        if ((err = bandwidth(c, sizes[i], &bw[i], &spread[i])))
            return err;
        len += (size_t)snprintf(by + len, sizeof by - len, "%s%u: %.1f", i ? ", " : "", sizes[i],
                                bw[i]);
    }
    if (!isfinite(bw[0]) || !(bw[0] > 0))
        return MT_OK; /* no positive difference: no claim */
    int ok = spread[0] <= DSM_BW_SPREAD_SHARE;
    f = mt_find_value(bw[0], "B/clk/SM", MT_SRC_MEASURED, "cluster-stream-difference",
                      ok ? MT_CONF_DIFFERENCE : MT_CONF_INCONSISTENT,
                      "each block of a cluster of 2 reading the other's shared memory, 16 B per "
                      "thread and access; median of %u runs (spread %.1f%%%s); by cluster size "
                      "%s",
                      DSM_STREAM_RUNS, 100 * spread[0],
                      ok ? "" : ", wider than DSM_BW_SPREAD_SHARE", by);
    mt_set(c, "dsm", "bandwidth", &f);
    return MT_OK;
}

static bool dsm_requested(const mt_probe_options *o)
{
    return o->cluster;
}

static const mt_object_decl objects[] = {
    {"dsm", "Distributed Shared Memory", "DSM", MT_OBJ_MEMORY, 0, 61}, {NULL}};
static const mt_finding_decl provides[] = {
    {"dsm.max_cluster_size", "largest cluster"},
    {"dsm.latency", "latency (another block's shared memory)"},
    {"dsm.latency_local", "latency (own shared memory, cluster address)"},
    {"dsm.latency_by_size", "latency by cluster size"},
    {"dsm.bandwidth", "bandwidth per SM"},
    {NULL}};
static const char *const requires[] = {"shared.latency", NULL};
const mt_probe_desc mt_probe_dsm = {
    .name = "dsm",
    .summary = "distributed shared memory (opt-in --cluster): latency and bandwidth between the "
               "blocks of a cluster",
    .rank = 96, .objects = objects, .provides = provides, .requires = requires, .run = dsm,
    .requested = dsm_requested,
};

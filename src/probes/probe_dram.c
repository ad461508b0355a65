/* DRAM: its size from the driver, its latency from cold chains through
 * ld.global.cg whose stride skips whole L2 lines and DRAM bursts, so every
 * load misses the (flushed) L2.  The L2's miss penalty is derived from this
 * latency afterwards (derive_l2_miss_penalty.c). */
#include "confidence.h"
#include "latency_precision.h"
#include "probe_internal.h"

#define DRAM_STRIDE 2048u
#define DRAM_LOADS 4096u
/* DRAM latencies vary by tens of cycles from load to load (row hits and
 * misses, refresh, queueing), so the mean of one 4096-load chain is only
 * known to a cycle or two.  The chains are repeated in batches of this
 * many, each at its own offset (different lines, so the repetitions are
 * independent samples), and their median's interval (latency_precision.h)
 * decides whether another batch is needed.  8 is the fewest runs whose
 * extremes already hold the median at 95% (1 - 2/2^8). */
#define DRAM_REPS_BATCH 8u
/* At most this many chains (about 2 ms each on a GPU): 32 runs narrow the
 * interval to about a third of one run's spread; a latency still not
 * pinned down then is reported as the range. */
#define DRAM_REPS_MAX 32u
/* Offset between the repetitions' chains: 32 of them fit in one stride. */
#define DRAM_REP_SHIFT (DRAM_STRIDE / DRAM_REPS_MAX)

/* Runs chains first..first+n-1 and writes their per-load latencies. */
static mt_err run_reps(mt_probe_ctx *c, uint32_t first, uint32_t n, double *v)
{
    mt_experiment e[DRAM_REPS_BATCH];
    mt_result r[DRAM_REPS_BATCH];
    for (uint32_t i = 0; i < n; i++) {
        e[i] = mt_exp_chase(MT_PATH_GLOBAL_CG, (uint64_t)DRAM_STRIDE * DRAM_LOADS, DRAM_STRIDE, 0,
                            DRAM_LOADS, MT_MODE_AGGREGATE);
        e[i].chain[0].offset = (uint64_t)(first + i) * DRAM_REP_SHIFT;
    }
    mt_err err = mt_run(c, e, n, r);
    if (err != MT_OK)
        return err;
    for (uint32_t i = 0; i < n; i++)
        v[first + i] = mt_agg_latency(c, &e[i], &r[i]);
    mt_results_free(r, n);
    return MT_OK;
}

static mt_err dram(mt_probe_ctx *c)
{
    mt_mark_probed(c, "dram");
    mt_finding f;
    if (c->dev.global_mem_bytes) {
        f = mt_find_value((double)c->dev.global_mem_bytes, "B", MT_SRC_DRIVER, "driver attribute",
                          MT_CONF_DRIVER, "global memory");
        mt_set(c, "dram", "size", &f);
    }
    mt_note_latency_precision(c);
    mt_note_threshold(c, "DRAM_REPS_MAX", DRAM_REPS_MAX,
                      "DRAM: most cold chains repeated to pin the latency's median");
    mt_progress(c, "DRAM latency");
    double v[DRAM_REPS_MAX];
    uint32_t n = 0;
    mt_median_interval ci;
    do {
        mt_err err = run_reps(c, n, DRAM_REPS_BATCH, v);
        if (err != MT_OK)
            return err;
        n += DRAM_REPS_BATCH;
        if ((err = mt_median_ci(v, n, MT_LATENCY_CI_LEVEL, &ci)) != MT_OK)
            return mt_fail(c->ei, err, "DRAM latency: %s", mt_strerror(err));
    } while (!mt_latency_precise(&ci) && n < DRAM_REPS_MAX);
    c->cs[MT_CACHE_DRAM].latency = ci.median;
    f = mt_find_value(ci.median, "cycles", MT_SRC_MEASURED, "pchase-aggregate cold",
                      MT_CONF_AGG_MIXED,
                      "median of %u cold %u-load chains at %u B stride through ld.global.cg "
                      "(L2 flushed), loop overhead subtracted; includes address translation",
                      n, DRAM_LOADS, DRAM_STRIDE);
    mt_finding_set_precision(&f, &ci);
    mt_set(c, "dram", "latency", &f);
    return MT_OK;
}

static const mt_object_decl objects[] = {
    {"dram", "DRAM", "DRAM", MT_OBJ_MEMORY, MT_OBJ_IN_TABLE, 80}, {NULL}};
static const mt_finding_decl provides[] = {
    {"dram.size", "size"}, {"dram.latency", "latency"}, {NULL}};
const mt_probe_desc mt_probe_dram = {
    .name = "dram", .summary = "DRAM: size (driver) and cold-miss latency",
    .rank = 70, .objects = objects, .provides = provides, .run = dram,
};

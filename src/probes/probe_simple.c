/* The short probes: timer calibration, shared memory, DRAM. */
#include <math.h>
#include <stdlib.h>

#include "probe_internal.h"

/* The `none` path runs the timing code with no load: its fine samples are
 * what the clock reads and the dependent store add to every sample, its
 * aggregate per-load time is the loop overhead of the aggregate chase. */
mt_err mt_probe_calibrate(mt_probe_ctx *c)
{
    enum { REPS = 3 };
    mt_experiment e[1 + REPS];
    mt_result r[1 + REPS];
    e[0] = mt_exp(MT_PATH_NONE, 4096, 4, 1, 1024, MT_MODE_FINE);
    for (int i = 1; i <= REPS; i++)
        e[i] = mt_exp(MT_PATH_NONE, 4096, 4, 1, 4096, MT_MODE_AGGREGATE);
    mt_progress(c, "timer and loop overhead");
    mt_err err = mt_run(c, e, 1 + REPS, r);
    if (err != MT_OK)
        return err;
    double *x = malloc((r[0].n[0] + 1) * sizeof *x);
    if (!x) {
        mt_results_free(r, 1 + REPS);
        return mt_fail(c->ei, MT_ERR_NOMEM, "out of memory");
    }
    for (uint32_t k = 0; k < r[0].n[0]; k++)
        x[k] = r[0].cycles[0][k];
    mt_stats st = mt_describe(x, r[0].n[0]);
    free(x);
    double agg[REPS];
    for (int i = 0; i < REPS; i++)
        agg[i] = (double)r[1 + i].cycles[0][0] / e[1 + i].loads;
    mt_results_free(r, 1 + REPS);
    c->overhead_fine = st.median;
    c->overhead_agg = mt_median(agg, REPS);
    c->topo->timer_overhead_fine =
        mt_find_value(c->overhead_fine, "cycles", MT_SRC_MEASURED, "pchase-fine path=none", 0.95,
                      "median of %zu samples (p05 %.0f, p95 %.0f); subtracted from every fine sample",
                      st.n, st.p05, st.p95);
    c->topo->timer_overhead_agg =
        mt_find_value(c->overhead_agg, "cycles", MT_SRC_MEASURED, "pchase-aggregate path=none", 0.95,
                      "per-iteration loop cost, median of %d runs; subtracted from aggregate latencies",
                      REPS);
    return MT_OK;
}

mt_err mt_probe_shared(mt_probe_ctx *c)
{
    mt_cache_report *rep = &c->topo->cache[MT_CACHE_SHARED];
    rep->probed = true;
    if (c->dev.smem_per_sm)
        rep->size = mt_find_value(c->dev.smem_per_sm, "B", MT_SRC_DRIVER, "driver attribute", 1.0,
                                  "shared memory per SM; %u B per block after opt-in, %u B static",
                                  c->dev.smem_per_block_optin, c->dev.smem_per_block);
    double lat;
    mt_progress(c, "shared memory latency");
    mt_err err = mt_measure_agg_latency(c, MT_PATH_SHARED, 4096, 4, 1, &lat, NULL);
    if (err != MT_OK)
        return err;
    c->cs[MT_CACHE_SHARED].latency = lat;
    rep->latency = mt_find_value(lat, "cycles", MT_SRC_MEASURED, "pchase-aggregate", 0.95,
                                 "4 KiB chain, stride 4 B, no bank conflicts (one thread); loop "
                                 "overhead %.1f subtracted", c->overhead_agg);
    return MT_OK;
}

/* DRAM: a cold chain through ld.global.cg whose stride skips whole L2 lines
 * and DRAM bursts, so every load misses the (flushed) L2. */
#define DRAM_STRIDE 2048u
#define DRAM_LOADS 4096u
mt_err mt_probe_dram(mt_probe_ctx *c)
{
    mt_cache_report *rep = &c->topo->cache[MT_CACHE_DRAM];
    rep->probed = true;
    if (c->dev.global_mem_bytes)
        rep->size = mt_find_value((double)c->dev.global_mem_bytes, "B", MT_SRC_DRIVER,
                                  "driver attribute", 1.0, "global memory");
    double lat;
    mt_progress(c, "DRAM latency");
    mt_err err = mt_measure_agg_latency(c, MT_PATH_GLOBAL_CG, (uint64_t)DRAM_STRIDE * DRAM_LOADS,
                                        DRAM_STRIDE, 0, &lat, NULL);
    if (err != MT_OK)
        return err;
    c->cs[MT_CACHE_DRAM].latency = lat;
    rep->latency = mt_find_value(lat, "cycles", MT_SRC_MEASURED, "pchase-aggregate cold", 0.9,
                                 "cold %u-load chain at %u B stride through ld.global.cg (L2 flushed), "
                                 "loop overhead subtracted; includes address translation",
                                 DRAM_LOADS, DRAM_STRIDE);
    mt_cache_state *l2 = &c->cs[MT_CACHE_L2];
    if (l2->latency > 0)
        c->topo->cache[MT_CACHE_L2].miss_penalty =
            mt_find_value(lat - l2->latency, "cycles", MT_SRC_DERIVED, "latency difference", 0.85,
                          "DRAM latency minus L2 hit latency (%.1f)", l2->latency);
    return MT_OK;
}

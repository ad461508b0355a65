/* DRAM: its size from the driver, its latency from cold chains through
 * ld.global.cg whose stride skips whole L2 lines and DRAM bursts, so every
 * load misses the (flushed) L2.  The L2's miss penalty is derived from this
 * latency afterwards (derive_l2_miss_penalty.c). */
#include <math.h>

#include "confidence.h"
#include "latency_precision.h"
#include "probe_internal.h"

#define DRAM_STRIDE 2048u
#define DRAM_LOADS 4096u
/* DRAM latencies vary by tens of cycles from load to load (row hits and
 * misses, refresh, queueing; the simulator allows up to an eighth of the
 * latency), so the mean of one 4096-load chain is known to sd / 64.  The
 * L2 probe's cold chain gives sd (robust, of single misses): when this many
 * of those standard errors stay within MT_LATENCY_MAX_HALF_WIDTH, the usual
 * three runs suffice.  3.29 is the normal quantile of 99.9% two-sided: the
 * three runs may be one draw (a simulator repeats an experiment's noise),
 * so one chain's mean must be right alone, and a confident latency off by
 * more than the half width should be a one-in-a-thousand event. */
#define DRAM_MEAN_Z 3.29
/* Fewer misses than this give a spread too rough to lean on: the sector
 * chain of 1024 loads makes 32 to 128 of them. */
#define DRAM_SPREAD_MIN_MISSES 16u
/* The spread is itself an estimate from those k misses: a robust sd (1.4826
 * MAD) of normal samples has a relative standard error of about
 * DRAM_MAD_REL_SE / sqrt(k) (the MAD's asymptotic variance, 1.36 sd^2 / k).
 * The check uses the spread DRAM_SD_Z of those errors up, one-sided 95%:
 * a spread read low and a chain's mean drawn high together made a 47-cycle
 * DRAM (spread read 36 from 128 misses) a value 2.4 cycles off at 0.9
 * (unseen seed 2246).  The H100's spread, 22 cycles from 64 misses, still
 * pins its mean (1.4 of the 2 cycles). */
#define DRAM_SD_Z 1.645
#define DRAM_MAD_REL_SE 1.1664
/* Otherwise the chains are repeated in batches of this many, each at its
 * own offset (different lines, so the runs are independent samples on a
 * GPU and in the simulator alike), and their median's interval
 * (latency_precision.h) decides whether another batch is needed.  8 is the
 * fewest runs whose extremes hold the median at 95% (1 - 2/2^8). */
#define DRAM_REPS_BATCH 8u
/* At most this many runs (about 2 ms each on a GPU): 32 narrow the
 * interval to about a third of one run's spread; a latency still not
 * pinned down then is reported as the range. */
#define DRAM_REPS_MAX 32u
/* Offset between the runs' chains: 32 of them fit in one stride. */
#define DRAM_REP_SHIFT (DRAM_STRIDE / DRAM_REPS_MAX)

/* Runs chains first..first+n-1 (n <= DRAM_REPS_BATCH) and writes their
 * per-load latencies to v[first..]. */
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

/* The spread of single DRAM latencies pins one chain's mean well enough. */
static bool spread_pins_mean(const mt_cache_state *d)
{
    if (d->load_sd_n < DRAM_SPREAD_MIN_MISSES)
        return false;
    double sd_hi = d->load_sd * (1 + DRAM_SD_Z * DRAM_MAD_REL_SE / sqrt((double)d->load_sd_n));
    return DRAM_MEAN_Z * sd_hi / sqrt((double)DRAM_LOADS) <= MT_LATENCY_MAX_HALF_WIDTH;
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
    mt_note_threshold(c, "DRAM_MEAN_Z", DRAM_MEAN_Z,
                      "DRAM: standard errors of one chain's mean that must fit the half width");
    mt_note_threshold(c, "DRAM_SPREAD_MIN_MISSES", DRAM_SPREAD_MIN_MISSES,
                      "DRAM: fewest single cold misses whose spread judges one chain's mean");
    mt_note_threshold(c, "DRAM_SD_Z", DRAM_SD_Z,
                      "DRAM: standard errors of the misses' spread (MAD) it is taken up by "
                      "before it judges one chain's mean");
    mt_note_threshold(c, "DRAM_REPS_MAX", DRAM_REPS_MAX,
                      "DRAM: most cold chains run to pin the latency's median");
    mt_progress(c, "DRAM latency");
    mt_cache_state *d = &c->cs[MT_CACHE_DRAM];
    double lat;
    mt_err err = mt_measure_agg_latency(c, MT_PATH_GLOBAL_CG, (uint64_t)DRAM_STRIDE * DRAM_LOADS,
                                        DRAM_STRIDE, 0, &lat, NULL);
    if (err != MT_OK)
        return err;
    if (spread_pins_mean(d)) {
        d->latency = lat;
        f = mt_find_value(lat, "cycles", MT_SRC_MEASURED, "pchase-aggregate cold",
                          MT_CONF_AGG_MIXED,
                          "cold %u-load chain at %u B stride through ld.global.cg (L2 flushed), "
                          "loop overhead subtracted; includes address translation",
                          DRAM_LOADS, DRAM_STRIDE);
        mt_set(c, "dram", "latency", &f);
        return MT_OK;
    }
    /* Too noisy (or its spread unknown): the runs at offset 0 are one
     * sample, independent runs at other offsets join it. */
    double v[DRAM_REPS_MAX];
    v[0] = lat;
    uint32_t n = 1;
    mt_median_interval ci;
    do {
        uint32_t batch = n == 1 ? DRAM_REPS_BATCH - 1 : DRAM_REPS_BATCH;
        if ((err = run_reps(c, n, batch, v)) != MT_OK)
            return err;
        n += batch;
        if ((err = mt_median_ci(v, n, MT_LATENCY_CI_LEVEL, &ci)) != MT_OK)
            return mt_fail(c->ei, err, "DRAM latency: %s", mt_strerror(err));
    } while (!mt_latency_precise(&ci) && n < DRAM_REPS_MAX);
    d->latency = ci.median;
    f = mt_find_value(ci.median, "cycles", MT_SRC_MEASURED, "pchase-aggregate cold",
                      MT_CONF_AGG_MIXED,
                      "median of %u cold %u-load chains at %u B stride through ld.global.cg (L2 "
                      "flushed), loop overhead subtracted; includes address translation; single "
                      "misses spread %.0f cycles (sd); median %.0f%% CI [%.1f, %.1f]",
                      n, DRAM_LOADS, DRAM_STRIDE, d->load_sd, 100 * ci.level, ci.lo, ci.hi);
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

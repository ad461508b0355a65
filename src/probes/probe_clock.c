/* The SM clock actually in effect (MT_KIND_CLOCK experiments): the driver's
 * "clock rate" is the maximum boost clock, but a GPU may run below it
 * (power or thermal limits, a locked application clock) and every latency
 * in cycles converts to time at the clock it ran at.  Runs right after the
 * calibration; renderers show latencies in ns from this finding
 * (mt_topology_ns_per_cycle). */
#include <math.h>

#include "confidence.h"
#include "probe_internal.h"

/* Three spins of 1 ms: the counters are exact, so a few ms suffice; the
 * median of three ignores one that a clock change cut in two. */
#define CLOCK_REPS 3
#define CLOCK_SPIN_NS 1000000u

static mt_err probe_clock(mt_probe_ctx *c)
{
    if (!mt_backend_supports(c->be, MT_KIND_CLOCK))
        return MT_OK; /* a recording made before clock experiments: nothing to say */
    mt_experiment e[CLOCK_REPS];
    mt_result r[CLOCK_REPS];
    for (int i = 0; i < CLOCK_REPS; i++)
        e[i] = mt_exp_clock(CLOCK_SPIN_NS, -1);
    mt_progress(c, "SM clock against the global timer");
    mt_err err = mt_run(c, e, CLOCK_REPS, r);
    if (err != MT_OK)
        return err;
    double mhz[CLOCK_REPS];
    for (int i = 0; i < CLOCK_REPS; i++)
        mhz[i] = r[i].n[0] == 2 && r[i].cycles[0][1] ? 1e3 * r[i].cycles[0][0] / r[i].cycles[0][1]
                                                     : NAN;
    mt_results_free(r, CLOCK_REPS);
    double lo = mhz[0], hi = mhz[0];
    for (int i = 1; i < CLOCK_REPS; i++) {
        lo = fmin(lo, mhz[i]);
        hi = fmax(hi, mhz[i]);
    }
    double med = mt_median(mhz, CLOCK_REPS);
    if (!(med > 0))
        return mt_fail(c->ei, MT_ERR_DEVICE, "clock experiments returned no time");
    double max_mhz = c->dev.clock_khz / 1e3;
    mt_finding f = mt_find_value(
        med, "MHz", MT_SRC_MEASURED, "clock64 vs globaltimer", MT_CONF_CLOCK,
        "median of %d spins of %.1f ms (%.0f..%.0f MHz); %.0f%% of the driver's maximum %.0f MHz",
        CLOCK_REPS, CLOCK_SPIN_NS / 1e6, lo, hi, max_mhz > 0 ? 100 * med / max_mhz : 0, max_mhz);
    mt_set(c, "gpu", "sm_clock", &f);
    return MT_OK;
}

static const mt_finding_decl provides[] = {{"gpu.sm_clock", "SM clock in effect (measured)"},
                                           {NULL}};
const mt_probe_desc mt_probe_clock = {
    .name = "clock", .summary = "SM clock in effect, against the global ns timer (always runs)",
    .always = true, .rank = 1, .objects = NULL, .provides = provides, .run = probe_clock,
};

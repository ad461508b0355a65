/* Calibration: what the timing code itself costs, subtracted from every
 * other measurement.  The `none` path runs the timing code with no load:
 * its fine samples are what the clock reads and the dependent store add to
 * every sample, its aggregate per-load time is the loop overhead of the
 * aggregate chase.  Runs before every other probe. */
#include <math.h>
#include <stdlib.h>

#include "confidence.h"
#include "probe_internal.h"

#define CALIBRATE_REPS 3         /* aggregate runs; their median is kept */
#define CALIBRATE_FINE_LOADS 1024u
#define CALIBRATE_AGG_LOADS 4096u

static mt_err calibrate(mt_probe_ctx *c)
{
    mt_experiment e[1 + CALIBRATE_REPS];
    mt_result r[1 + CALIBRATE_REPS];
    e[0] = mt_exp_chase(MT_PATH_NONE, 4096, 4, 1, CALIBRATE_FINE_LOADS, MT_MODE_FINE);
    for (int i = 1; i <= CALIBRATE_REPS; i++)
        e[i] = mt_exp_chase(MT_PATH_NONE, 4096, 4, 1, CALIBRATE_AGG_LOADS, MT_MODE_AGGREGATE);
    mt_progress(c, "timer and loop overhead");
    mt_err err = mt_run(c, e, 1 + CALIBRATE_REPS, r);
    if (err != MT_OK)
        return err;
    double *x = malloc((r[0].n[0] + 1) * sizeof *x);
    if (!x) {
        mt_results_free(r, 1 + CALIBRATE_REPS);
        return mt_fail(c->ei, MT_ERR_NOMEM, "out of memory");
    }
    for (uint32_t k = 0; k < r[0].n[0]; k++)
        x[k] = r[0].cycles[0][k];
    mt_stats st = mt_describe(x, r[0].n[0]);
    free(x);
    double agg[CALIBRATE_REPS];
    for (int i = 0; i < CALIBRATE_REPS; i++)
        agg[i] = (double)r[1 + i].cycles[0][0] / e[1 + i].loads;
    mt_results_free(r, 1 + CALIBRATE_REPS);
    c->overhead_fine = st.median;
    c->overhead_agg = mt_median(agg, CALIBRATE_REPS);
    mt_mark_probed(c, "gpu");
    mt_finding f = mt_find_value(
        c->overhead_fine, "cycles", MT_SRC_MEASURED, "pchase-fine path=none", MT_CONF_AGG_MEDIAN,
        "median of %zu samples (p05 %.0f, p95 %.0f); subtracted from every fine sample", st.n,
        st.p05, st.p95);
    mt_set(c, "gpu", "timer_overhead_fine", &f);
    f = mt_find_value(c->overhead_agg, "cycles", MT_SRC_MEASURED, "pchase-aggregate path=none",
                      MT_CONF_AGG_MEDIAN,
                      "per-iteration loop cost, median of %d runs; subtracted from aggregate "
                      "latencies", CALIBRATE_REPS);
    mt_set(c, "gpu", "timer_overhead_agg", &f);
    return MT_OK;
}

static const mt_object_decl objects[] = {
    {"gpu", "GPU", "GPU", MT_OBJ_GPU, 0, 1000}, {NULL}};
static const mt_finding_decl provides[] = {
    {"gpu.timer_overhead_fine", "timer overhead per fine-grained sample"},
    {"gpu.timer_overhead_agg", "loop overhead per aggregate load"},
    {NULL}};
const mt_probe_desc mt_probe_calibrate = {
    .name = "calibrate", .summary = "timer and loop overhead (always runs first)",
    .always = true, .rank = 0, .objects = objects, .provides = provides, .run = calibrate,
};

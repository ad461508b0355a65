/* Bandwidth and memory-level parallelism from stream experiments
 * (docs/method.md, "Bandwidth"): pure functions over measured numbers. */
#ifndef MT_ANALYSIS_BANDWIDTH_H
#define MT_ANALYSIS_BANDWIDTH_H

#include <stddef.h>

#include "../core/error.h"

/* A configuration still gains if the best rate at the most bytes in flight
 * tried beats the best at half of it (or less) by more than this share:
 * more in flight might go faster still (the report says so).  3% is the
 * simulated ceiling's tolerance (issue 10) and well above a quiet GPU's
 * run-to-run spread of a median (< 1%). */
#define MT_BW_RISE_SHARE 0.03
/* A sweep point belongs to the MLP plateau when it reaches this share of
 * the sweep's most requests in flight: 2% is several times the spread of
 * the ratio of two medians of repeated streams. */
#define MT_MLP_PLATEAU_TOL 0.02
/* The MLP has saturated only if the largest sweep point keeps fewer than
 * this share of its chases in flight; otherwise the sweep ran out of
 * chases before the SM ran out of miss slots, and the figure is a lower
 * bound.  0.9 leaves room for the spread above and for a start-up cost
 * that Little's law does not see. */
#define MT_MLP_LINEAR_SHARE 0.9

/* Bytes per cycle from two runs that differ only in how much they moved:
 * (bytes2 - bytes1) / (cycles2 - cycles1), which cancels the launch's
 * fixed cost.  NAN when cycles2 <= cycles1. */
double mt_bw_slope(double bytes1, double cycles1, double bytes2, double cycles2);

/* Whether the best rate over n configurations still rose with the bytes
 * in flight (MT_BW_RISE_SHARE, see above).  *best = index of the best rate.
 * MT_ERR_INVALID_ARG when n == 0 or a rate is not finite. */
mt_err mt_bw_best(const double *inflight, const double *rate, size_t n, size_t *best,
                  int *still_rising);

typedef struct {
    double mlp;          /* requests in flight at saturation (plateau median) */
    double at_chases;    /* fewest chases reaching the plateau */
    int saturated;       /* 0: the sweep ended on the rise: mlp is a lower bound */
} mt_mlp_fit;
/* MLP by Little's law from a sweep of chases[i] independent chases per SM
 * (ascending, chases[0] == 1) whose loads complete at rate[i] per cycle:
 * in flight(i) = rate[i] / rate[0] (one chase keeps one load in flight, so
 * rate[0] is 1 / latency).  MT_ERR_INVALID_ARG for fewer than 2 points,
 * chases[0] != 1 or rates that are not finite and positive. */
mt_err mt_mlp_from_sweep(const double *chases, const double *rate, size_t n, mt_mlp_fit *out);

/* A DRAM interface's peak in GB/s: bus bits / 8 x memory clock x 2 (double
 * data rate, as the CUDA attributes state the clock); 0 when unknown. */
double mt_dram_peak_gbps(int bus_width_bits, int mem_clock_khz);

#endif

/* Bandwidth and memory-level parallelism (bandwidth.h). */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "bandwidth.h"

double mt_bw_slope(double bytes1, double cycles1, double bytes2, double cycles2)
{
    if (!(cycles2 > cycles1))
        return NAN;
    return (bytes2 - bytes1) / (cycles2 - cycles1);
}

mt_err mt_bw_best(const double *inflight, const double *rate, size_t n, size_t *best,
                  int *still_rising)
{
    if (n == 0)
        return MT_ERR_INVALID_ARG;
    double top = 0;
    size_t b = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(rate[i]) || !isfinite(inflight[i]))
            return MT_ERR_INVALID_ARG;
        if (rate[i] > rate[b])
            b = i;
        if (inflight[i] > top)
            top = inflight[i];
    }
    /* Best rate at the most in flight, and at half of it or less. */
    double r_top = 0, r_half = 0;
    int any_half = 0;
    for (size_t i = 0; i < n; i++) {
        if (inflight[i] >= top && rate[i] > r_top)
            r_top = rate[i];
        if (inflight[i] <= top / 2) {
            any_half = 1;
            if (rate[i] > r_half)
                r_half = rate[i];
        }
    }
    *best = b;
    /* With nothing at half the top, the top was never compared: assume
     * it could rise. */
    *still_rising = !any_half || r_top > (1 + MT_BW_RISE_SHARE) * r_half;
    return MT_OK;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

mt_err mt_mlp_from_sweep(const double *chases, const double *rate, size_t n, mt_mlp_fit *out)
{
    if (n < 2 || chases[0] != 1)
        return MT_ERR_INVALID_ARG;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(rate[i]) || !(rate[i] > 0) || (i && !(chases[i] > chases[i - 1])))
            return MT_ERR_INVALID_ARG;
    double top = 0;
    for (size_t i = 0; i < n; i++)
        if (rate[i] / rate[0] > top)
            top = rate[i] / rate[0];
    double *plateau = malloc(n * sizeof *plateau);
    if (!plateau)
        return MT_ERR_NOMEM;
    /* A point that keeps (nearly) all its chases in flight is limited by
     * its chase count, not by the SM: it only bounds the MLP from below.
     * Where some point saturated, only saturated points form the plateau
     * (512 chases all in flight beside 519 at 1024 made a plateau of
     * 515.4 for an MLP of 519: unseen seed 1460). */
    bool any_saturated = false;
    for (size_t i = 0; i < n; i++)
        any_saturated = any_saturated || rate[i] / rate[0] < MT_MLP_LINEAR_SHARE * chases[i];
    size_t m = 0;
    out->at_chases = 0;
    for (size_t i = 0; i < n; i++) {
        double inflight = rate[i] / rate[0];
        bool linear = inflight >= MT_MLP_LINEAR_SHARE * chases[i];
        if (!(inflight >= (1 - MT_MLP_PLATEAU_TOL) * top))
            continue;
        if (!out->at_chases) /* where it saturates: a linear point may reach it */
            out->at_chases = chases[i];
        if (!(any_saturated && linear))
            plateau[m++] = inflight;
    }
    qsort(plateau, m, sizeof *plateau, cmp_double);
    out->mlp = m % 2 ? plateau[m / 2] : (plateau[m / 2 - 1] + plateau[m / 2]) / 2;
    free(plateau);
    double last = rate[n - 1] / rate[0];
    out->saturated = last < MT_MLP_LINEAR_SHARE * chases[n - 1];
    return MT_OK;
}

double mt_dram_peak_gbps(int bus_width_bits, int mem_clock_khz)
{
    if (bus_width_bits <= 0 || mem_clock_khz <= 0)
        return 0;
    return bus_width_bits / 8.0 * mem_clock_khz * 1e3 * 2 / 1e9;
}

/* Opt with exactly one change point (thesis 3.3.3, Algorithm 1) with the L2
 * cost c(u, v) = sum (x_i - mean_{u..v})^2.  The thesis' O(T^2) table is not
 * needed: with running sums of x and x^2 every split costs O(1). */
#include "analysis.h"

mt_err mt_opt_changepoint(const double *x, size_t n, size_t *tau, double *total_cost)
{
    if (!x || !tau || n < 2)
        return MT_ERR_INVALID_ARG;
    /* Centre on the mean first: latencies are large and close together, and
     * sum(x^2) - sum(x)^2 / n on raw values cancels catastrophically. */
    double mean = 0.0;
    for (size_t i = 0; i < n; i++)
        mean += x[i];
    mean /= (double)n;
    double s1 = 0.0, s2 = 0.0;
    for (size_t i = 0; i < n; i++) {
        double d = x[i] - mean;
        s1 += d;
        s2 += d * d;
    }
    double l1 = 0.0, l2 = 0.0, best = 0.0;
    size_t best_tau = 0;
    for (size_t t = 1; t < n; t++) {
        double d = x[t - 1] - mean;
        l1 += d;
        l2 += d * d;
        double nl = (double)t, nr = (double)(n - t);
        double r1 = s1 - l1, r2 = s2 - l2;
        double cl = l2 - l1 * l1 / nl, cr = r2 - r1 * r1 / nr;
        double cost = (cl > 0.0 ? cl : 0.0) + (cr > 0.0 ? cr : 0.0);
        /* Strict <: on ties the earliest split wins, so the result does not
         * depend on rounding noise between equal candidates. */
        if (best_tau == 0 || cost < best) {
            best = cost;
            best_tau = t;
        }
    }
    *tau = best_tau;
    if (total_cost)
        *total_cost = best;
    return MT_OK;
}

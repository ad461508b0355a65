/* Distribution-free confidence interval of a median from order statistics.
 * Of n independent samples, the number below the true median is
 * Binomial(n, 1/2) whatever the distribution, so the k-th smallest and the
 * k-th largest sample enclose it with probability 1 - 2 P(X <= k - 1).
 * No assumption of normality: latency samples are skewed and carry timer
 * outliers, which move an order statistic by at most one rank. */
#include <stdlib.h>

#include "analysis.h"
#include "analysis_internal.h"

/* P(X <= k - 1) for X ~ Binomial(n, 1/2): by symmetry P(X >= n - k + 1). */
static double below_tail(size_t n, size_t k)
{
    return mt_an_binom_upper_tail(n, n - k + 1, 0.5);
}

mt_err mt_median_ci(const double *x, size_t n, double level, mt_median_interval *out)
{
    if (!x || !out || n == 0 || !(level > 0.0 && level < 1.0))
        return MT_ERR_INVALID_ARG;
    double *s = NULL;
    mt_err err = mt_an_sorted_copy(x, n, &s);
    if (err != MT_OK)
        return err;
    /* The coverage falls as k grows: bisect for the largest k (1-based,
     * k <= (n + 1) / 2) whose interval still covers `level`.  k = 1, the
     * whole sample, is the widest there is; fewer than 6 samples cannot
     * reach 95% and report the coverage they have. */
    size_t lo = 1, hi = (n + 1) / 2;
    while (lo < hi) {
        size_t mid = lo + (hi - lo + 1) / 2;
        if (1.0 - 2.0 * below_tail(n, mid) >= level)
            lo = mid;
        else
            hi = mid - 1;
    }
    out->n = n;
    out->median = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
    out->lo = s[lo - 1];
    out->hi = s[n - lo];
    out->level = 1.0 - 2.0 * below_tail(n, lo);
    if (out->level < 0.0) /* k = (n + 1) / 2 of odd n: the median alone */
        out->level = 0.0;
    free(s);
    return MT_OK;
}

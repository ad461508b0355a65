/* Exact binomial upper tail in log space, for the miss-excess test. */
#include <math.h>

#include "analysis_internal.h"

double mt_an_ln_factorial(uint64_t k)
{
    if (k < 16) {
        double s = 0.0;
        for (uint64_t i = 2; i <= k; i++)
            s += log((double)i);
        return s;
    }
    /* Stirling series; the first omitted term is below 1/(1188 k^9),
     * i.e. < 1e-14 for k >= 16. */
    const double half_ln_2pi = 0.91893853320467274178;
    double x = (double)k, r = 1.0 / x, r2 = r * r;
    return x * log(x) - x + 0.5 * log(x) + half_ln_2pi +
           r * (1.0 / 12.0 - r2 * (1.0 / 360.0 - r2 * (1.0 / 1260.0 - r2 / 1680.0)));
}

static double ln_pmf(uint64_t n, uint64_t k, double p)
{
    return mt_an_ln_factorial(n) - mt_an_ln_factorial(k) - mt_an_ln_factorial(n - k) +
           (double)k * log(p) + (double)(n - k) * log1p(-p);
}

double mt_an_binom_upper_tail(uint64_t n, uint64_t k, double p)
{
    if (k == 0)
        return 1.0;
    if (k > n || !(p > 0.0))
        return 0.0;
    if (!(p < 1.0))
        return 1.0;
    double odds = p / (1.0 - p);
    double mode = floor(((double)n + 1.0) * p);
    if ((double)k > mode) {
        /* Terms fall monotonically from k upward: sum them relative to the
         * first (largest) one, then scale by its pmf computed in logs. */
        double t = 1.0, s = 1.0;
        for (uint64_t j = k; j < n; j++) {
            t *= (double)(n - j) / (double)(j + 1) * odds;
            s += t;
            if (t <= 1e-17 * s)
                break;
        }
        double v = exp(ln_pmf(n, k, p) + log(s));
        return v > 1.0 ? 1.0 : v;
    }
    /* k at or below the mode: the upper tail is >= about 1/2, so compute the
     * small lower tail P(X <= k-1) the same way (terms fall from k-1 down). */
    double t = 1.0, s = 1.0;
    for (uint64_t j = k - 1; j > 0; j--) {
        t *= (double)j / (double)(n - j + 1) / odds;
        s += t;
        if (t <= 1e-17 * s)
            break;
    }
    double v = 1.0 - exp(ln_pmf(n, k - 1, p) + log(s));
    return v < 0.0 ? 0.0 : v;
}

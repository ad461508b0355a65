/* Two-sample p-value of a miss excess: mt_miss_excess_test takes the
 * reference's miss rate as known, but the reference's count is a draw too
 * (timer outliers at 0.5% give 36 misses in one run of 8192 loads and 58 in
 * the next, p = 2e-4 against the first as if it were exact).  When both
 * samples miss at one rate, the test's share of the m misses of both is
 * Binomial(m, n_test / (n_ref + n_test)): exact for Poisson counts, and for
 * binomial ones (less spread than Poisson) on the cautious side. */
#include "analysis.h"
#include "analysis_internal.h"

double mt_miss_excess_two_sample_p(size_t misses_ref, size_t n_ref, size_t misses_test,
                                   size_t n_test)
{
    size_t m = misses_ref + misses_test;
    if (m == 0 || n_ref + n_test == 0)
        return 1.0;
    double share = (double)n_test / ((double)n_ref + (double)n_test);
    return mt_an_binom_upper_tail(m, misses_test, share);
}

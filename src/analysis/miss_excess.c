/* Are there more misses in the test sample than the reference's miss rate
 * explains?  Exact one-sided binomial test; finds the first footprint with
 * any eviction, where a handful of extra misses among thousands of loads is
 * too small for KS (D ~ 0.01) but far too many for chance. */
#include <string.h>

#include "analysis.h"
#include "analysis_internal.h"

mt_err mt_miss_excess_test(const double *ref, size_t nref, const double *test,
                           size_t ntest, double hit_threshold, double alpha,
                           mt_miss_excess *out)
{
    if (!ref || !test || !out || nref == 0 || ntest == 0 || !(alpha > 0.0 && alpha < 1.0))
        return MT_ERR_INVALID_ARG;
    memset(out, 0, sizeof *out);
    out->alpha = alpha;
    out->hit_threshold = hit_threshold;
    out->misses_ref = mt_an_count_above(ref, nref, hit_threshold);
    out->misses_test = mt_an_count_above(test, ntest, hit_threshold);
    out->n_test = ntest;
    /* Laplace's rule of succession: a clean reference still gives a rate
     * (1 / (n_ref + 2)), so one stray miss in the test is not "significant". */
    out->p0 = ((double)out->misses_ref + 1.0) / ((double)nref + 2.0);
    out->p_value = mt_an_binom_upper_tail(ntest, out->misses_test, out->p0);
    out->more_misses = out->p_value < alpha;
    return MT_OK;
}

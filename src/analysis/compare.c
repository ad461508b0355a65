/* Test sample vs. reference sample (sharing and "is this path cached"
 * experiments): different distribution (KS) AND a real rise in the miss
 * fraction, so sub-cycle timer shifts that KS can resolve on large samples
 * do not count as disturbance. */
#include <string.h>

#include "analysis.h"
#include "analysis_internal.h"
#include "thresholds.h"

static double mean_of(const double *x, size_t n)
{
    double s = 0.0;
    for (size_t i = 0; i < n; i++)
        s += x[i];
    return s / (double)n;
}

mt_err mt_compare_to_reference(const double *ref, size_t nref, const double *test,
                               size_t ntest, double hit_threshold, double alpha,
                               mt_comparison *out)
{
    if (!ref || !test || !out || nref == 0 || ntest == 0)
        return MT_ERR_INVALID_ARG;
    memset(out, 0, sizeof *out);
    mt_err e = mt_ks_two_sample(ref, nref, test, ntest, alpha, &out->ks);
    if (e != MT_OK)
        return e;
    out->hit_threshold = hit_threshold;
    out->min_increase = MT_MIN_MISS_FRACTION_INCREASE;
    out->miss_frac_ref = (double)mt_an_count_above(ref, nref, hit_threshold) / (double)nref;
    out->miss_frac_test = (double)mt_an_count_above(test, ntest, hit_threshold) / (double)ntest;
    out->mean_ref = mean_of(ref, nref);
    out->mean_test = mean_of(test, ntest);
    out->differs = out->ks.reject &&
                   out->miss_frac_test - out->miss_frac_ref >= MT_MIN_MISS_FRACTION_INCREASE;
    return MT_OK;
}

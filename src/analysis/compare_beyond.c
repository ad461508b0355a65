/* Misses a hit threshold cannot see (analysis.h, mt_compare_beyond): a
 * cache behind another (the constant L1.5 behind the constant L1) is
 * judged by the loads that pass the one in front.  When its own hits
 * spread widely, its hit threshold can lie above the next level's latency,
 * and every miss then passes for a hit: the capacity search reads "no
 * misses" and claims a bound above the truth (unseen seeds 1143 and 1167:
 * an L1.5 at 139 +- 16 cycles before an L2 at 191 +- 3 read "> 64 KiB" for
 * 51456 B).  Those misses still move the distribution of the loads that
 * passed the cache in front: compared with a reference chain the cache
 * holds, the test's are slower. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "thresholds.h"

/* The samples of x above floor, in a new array (*out, *n_out). */
static mt_err beyond(const double *x, size_t n, double floor, double **out, size_t *n_out)
{
    double *y = malloc((n ? n : 1) * sizeof *y);
    if (!y)
        return MT_ERR_NOMEM;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (x[i] > floor)
            y[k++] = x[i];
    *out = y;
    *n_out = k;
    return MT_OK;
}

mt_err mt_compare_beyond(const double *ref, size_t nref, const double *test, size_t ntest,
                         double floor, double alpha, mt_beyond_comparison *out)
{
    if (!ref || !test || !out || isnan(floor))
        return MT_ERR_INVALID_ARG;
    memset(out, 0, sizeof *out);
    double *a = NULL, *b = NULL;
    mt_err err = beyond(ref, nref, floor, &a, &out->n_ref);
    if (err == MT_OK)
        err = beyond(test, ntest, floor, &b, &out->n_test);
    if (err == MT_OK && out->n_ref >= MT_MISS_MIN_COUNT && out->n_test >= MT_MISS_MIN_COUNT) {
        out->tested = true;
        out->median_ref = mt_median(a, out->n_ref);
        out->median_test = mt_median(b, out->n_test);
        /* A slower level is one class gap or more above the cache's median
         * (closer, the two are one class): its loads raise the share above
         * that line, while a shift of a cycle or two, which KS resolves on
         * thousands of loads, does not. */
        err = mt_compare_to_reference(a, out->n_ref, b, out->n_test,
                                      out->median_ref + MT_MIN_CLASS_GAP_CYCLES, alpha, &out->cmp);
        out->slower = err == MT_OK && out->cmp.differs;
    }
    free(a);
    free(b);
    return err;
}

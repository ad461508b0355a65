/* Two latency classes (hit / miss) by Otsu's method: the cut through the
 * sorted sample that maximises the between-class variance.  Needs no prior
 * guess of either latency, which is what every probe lacks at first. */
#include <stdlib.h>

#include "analysis.h"
#include "analysis_internal.h"
#include "thresholds.h"

mt_err mt_split_two_classes(const double *x, size_t n, mt_split *out)
{
    if (!x || !out || n == 0)
        return MT_ERR_INVALID_ARG;
    double *s = NULL;
    mt_err e = mt_an_sorted_copy(x, n, &s);
    if (e != MT_OK)
        return e;
    double mean = 0.0;
    for (size_t i = 0; i < n; i++)
        mean += s[i];
    mean /= (double)n;

    /* With d_i = x_i - mean and L = sum of d over the lower class (n0
     * values), the between-class variance is L^2 / (n0 * n1) up to the
     * constant 1/n^2.  Only cuts between distinct values are candidates. */
    size_t cut = 0;  /* lower class = s[0..cut) */
    double best = -1.0, left = 0.0;
    for (size_t k = 1; k < n; k++) {
        left += s[k - 1] - mean;
        if (!(s[k - 1] < s[k]))
            continue;
        double v = left * left / ((double)k * (double)(n - k));
        if (v > best) {
            best = v;
            cut = k;
        }
    }

    if (cut == 0) {  /* all values equal: one class, nothing above it */
        out->threshold = s[0];
        out->low_mean = out->high_mean = s[0];
        out->high_fraction = 0.0;
        out->separated = false;
        free(s);
        return MT_OK;
    }
    double lo_sum = 0.0, hi_sum = 0.0;
    for (size_t i = 0; i < cut; i++)
        lo_sum += s[i];
    for (size_t i = cut; i < n; i++)
        hi_sum += s[i];
    /* Midpoint of the gap: classifies new samples symmetrically, and every
     * value of this sample above it is in the upper class. */
    out->threshold = 0.5 * (s[cut - 1] + s[cut]);
    out->low_mean = lo_sum / (double)cut;
    out->high_mean = hi_sum / (double)(n - cut);
    out->high_fraction = (double)(n - cut) / (double)n;
    out->separated = out->high_mean - out->low_mean >= MT_MIN_CLASS_GAP_CYCLES;
    free(s);
    return MT_OK;
}

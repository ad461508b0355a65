/* Median and MAD of a sample, and the outlier limit built from them. */
#include <math.h>
#include <stdlib.h>

#include "analysis.h"
#include "outliers.h"

mt_err mt_robust_center_of(const double *x, size_t n, mt_robust_center *out)
{
    if (!x || !out || n == 0)
        return MT_ERR_INVALID_ARG;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return MT_ERR_INVALID_ARG;
    double *dev = malloc(n * sizeof *dev);
    if (!dev)
        return MT_ERR_NOMEM;
    out->median = mt_median(x, n);
    for (size_t i = 0; i < n; i++)
        dev[i] = fabs(x[i] - out->median);
    out->mad = mt_median(dev, n);
    free(dev);
    return MT_OK;
}

double mt_outlier_limit(double mad, double floor)
{
    return fmax(MT_OUTLIER_MADS * MT_MAD_TO_SD * mad, floor);
}

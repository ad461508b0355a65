/* Geometric reduction (thesis 3.3.2, after [40]): one footprint's row of
 * per-load latencies becomes one number, its distance from the "all hits"
 * vector, so a multi-dimensional sweep becomes a 1-D series for Opt + KS. */
#include <math.h>

#include "analysis.h"

mt_err mt_reduce_geometric(const double *matrix, size_t rows, size_t cols,
                           double *out, double *angle_out)
{
    if (!matrix || !out || rows == 0 || cols == 0)
        return MT_ERR_INVALID_ARG;
    /* Reference level: the median of the smallest footprint, which fits in
     * the cache; the median ignores the few timer outliers row 0 may have. */
    double c = mt_median(matrix, cols);
    double sqrt_cols = sqrt((double)cols);
    for (size_t r = 0; r < rows; r++) {
        const double *row = matrix + r * cols;
        double dist2 = 0.0, norm2 = 0.0, sum = 0.0;
        for (size_t k = 0; k < cols; k++) {
            double d = row[k] - c;
            dist2 += d * d;
            norm2 += row[k] * row[k];
            sum += row[k];
        }
        /* Divided by sqrt(cols): the RMS deviation, in cycles, independent
         * of how many loads a row has. */
        out[r] = sqrt(dist2) / sqrt_cols;
        if (angle_out) {
            /* Angle to (1,...,1): zero for a constant row; grows with the
             * spread of the row (misses mixed with hits). */
            double denom = sqrt(norm2) * sqrt_cols;
            double cosv = denom > 0.0 ? sum / denom : 1.0;
            cosv = cosv > 1.0 ? 1.0 : (cosv < -1.0 ? -1.0 : cosv);
            angle_out[r] = acos(cosv);
        }
    }
    return MT_OK;
}

/* Capacity from a fine footprint sweep (thesis 3.4): geometric reduction of
 * the latency matrix, Opt for the change, KS to confirm it. */
#include <stdlib.h>
#include <string.h>

#include "analysis.h"

/* Three rows at least: one reference row and a point on each side. */
#define MT_CAPACITY_MIN_ROWS 3

mt_err mt_capacity_from_sweep(const uint64_t *footprints, const double *matrix,
                              size_t rows, size_t cols, double alpha, mt_capacity *out)
{
    if (!footprints || !matrix || !out || rows < MT_CAPACITY_MIN_ROWS || cols == 0 ||
        !(alpha > 0.0 && alpha < 1.0))
        return MT_ERR_INVALID_ARG;
    for (size_t r = 1; r < rows; r++)
        if (footprints[r] <= footprints[r - 1])
            return MT_ERR_INVALID_ARG;  /* must be strictly ascending */
    memset(out, 0, sizeof *out);
    double *series = malloc(rows * sizeof *series);
    if (!series)
        return MT_ERR_NOMEM;
    mt_err e = mt_reduce_geometric(matrix, rows, cols, series, NULL);
    if (e == MT_OK)
        e = mt_detect_changepoint(series, rows, alpha, &out->cp);
    free(series);
    if (e != MT_OK)
        return e;
    out->found = out->cp.found;
    if (out->found) {
        out->lo = footprints[out->cp.index - 1];
        out->hi = footprints[out->cp.index];
    }
    return MT_OK;
}

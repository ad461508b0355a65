/* Ordinary least-squares straight line y = offset + slope * x, with what
 * its residuals say about it (the carveout sweep fits the L1 size against
 * the shared memory a carveout takes: probes/probe_carveout.c).  Pure. */
#ifndef MT_LINEAR_FIT_H
#define MT_LINEAR_FIT_H

#include <stddef.h>

#include "../core/error.h"

typedef struct {
    size_t n;              /* points used */
    double slope, offset;
    /* Standard errors of slope and offset from the residuals (n - 2
     * degrees of freedom); 0 with two points, which any line fits. */
    double slope_se, offset_se;
    double rms_residual;   /* sqrt(sum of squared residuals / n) */
    double max_residual;   /* largest |y - fitted y| */
    size_t worst;          /* index of the point with max_residual */
} mt_line_fit;

/* Fits x[0..n-1], y[0..n-1].  MT_ERR_INVALID_ARG with fewer than two
 * points or when every x is the same (no slope is defined). */
mt_err mt_fit_line(const double *x, const double *y, size_t n, mt_line_fit *out,
                   mt_errinfo *ei);

#endif

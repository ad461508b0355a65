/* Least-squares line through (x, y): centred sums, so sizes in bytes
 * (x and y near 2^18) lose no precision to cancellation. */
#include <math.h>
#include <string.h>

#include "linear_fit.h"

mt_err mt_fit_line(const double *x, const double *y, size_t n, mt_line_fit *out,
                   mt_errinfo *ei)
{
    memset(out, 0, sizeof *out);
    if (n < 2)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "a line needs two points, got %zu", n);
    double mx = 0, my = 0;
    for (size_t i = 0; i < n; i++) {
        mx += x[i];
        my += y[i];
    }
    mx /= (double)n;
    my /= (double)n;
    double sxx = 0, sxy = 0;
    for (size_t i = 0; i < n; i++) {
        sxx += (x[i] - mx) * (x[i] - mx);
        sxy += (x[i] - mx) * (y[i] - my);
    }
    if (sxx <= 0)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "all %zu points have the same x: no slope", n);
    out->n = n;
    out->slope = sxy / sxx;
    out->offset = my - out->slope * mx;
    double sse = 0;
    for (size_t i = 0; i < n; i++) {
        double r = fabs(y[i] - (out->offset + out->slope * x[i]));
        sse += r * r;
        if (r > out->max_residual) {
            out->max_residual = r;
            out->worst = i;
        }
    }
    out->rms_residual = sqrt(sse / (double)n);
    if (n > 2) {
        double s2 = sse / (double)(n - 2); /* residual variance */
        out->slope_se = sqrt(s2 / sxx);
        out->offset_se = sqrt(s2 * (1.0 / (double)n + mx * mx / sxx));
    }
    return MT_OK;
}

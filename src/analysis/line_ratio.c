/* Line size from the capacities measured at a small and a big stride.
 * With big stride s >= line every element takes its own line, so the
 * capacity grows by s / line; line = s / ratio, snapped to a power of two. */
#include <math.h>

#include "analysis.h"
#include "thresholds.h"

mt_err mt_line_from_capacities(double cap_small_stride, double cap_big_stride,
                               uint32_t big_stride, uint32_t min_line,
                               mt_line_estimate *out)
{
    if (!out || big_stride == 0 || !(cap_small_stride > 0.0) || !(cap_big_stride > 0.0) ||
        !isfinite(cap_small_stride) || !isfinite(cap_big_stride))
        return MT_ERR_INVALID_ARG;
    out->found = false;
    out->lower_bound = false;
    out->line_bytes = 0;
    out->margin = 0.0;
    out->ratio = cap_big_stride / cap_small_stride;

    /* Capacity did not grow (within the tolerance non-LRU replacement
     * needs): every big-stride element shared a line with others, so the
     * line is at least the big stride. */
    if (out->ratio < 1.0 + MT_LINE_RATIO_TOLERANCE) {
        out->lower_bound = true;
        out->line_bytes = big_stride;
        return MT_OK;
    }
    double l = (double)big_stride / out->ratio;
    /* Nearest power of two in log space, not below min_line (itself rounded
     * up to a power of two; 0 means no minimum). */
    double e = round(log2(l));
    uint32_t floor_pow = 1;
    while (floor_pow < min_line && floor_pow < (1u << 31))
        floor_pow <<= 1;
    double p = e < 0.0 ? 1.0 : ldexp(1.0, (int)(e > 31.0 ? 31.0 : e));
    if (p < (double)floor_pow)
        p = (double)floor_pow;
    /* Relative test |L/P - 1| <= tol.  With tol = 0.25 the accepted band
     * [0.75 P, 1.25 P] lies inside P's log-space rounding interval
     * (P/sqrt2, P*sqrt2), so at most one power of two can ever accept. */
    out->margin = fabs(l / p - 1.0);
    if (out->margin <= MT_LINE_RATIO_TOLERANCE) {
        out->found = true;
        out->line_bytes = (uint32_t)p;
    }
    return MT_OK;
}

static bool pow2(uint32_t v) { return v && !(v & (v - 1)); }

bool mt_line_bound_corroborated(double cap, const uint32_t *strides, const double *fit_bytes,
                                const double *resident, size_t n, uint32_t claim,
                                uint32_t min_line)
{
    for (size_t i = 0; i < n; i++) {
        mt_line_estimate o;
        if (pow2(strides[i]) || !(fit_bytes[i] > 0) ||
            mt_line_from_capacities(cap, fit_bytes[i], strides[i], min_line, &o) != MT_OK)
            continue;
        if (o.lower_bound)
            return true;
        if (!o.found || o.margin > MT_LINE_RATIO_FIRM || o.line_bytes < claim)
            continue;
        /* The stride's line must hold what every stride of at least it
         * kept resident (one element a line there). */
        bool refuted = false;
        for (size_t j = 0; j < n; j++)
            refuted |= strides[j] >= o.line_bytes &&
                       resident[j] > cap / o.line_bytes * (1 + MT_LINE_RATIO_TOLERANCE);
        if (!refuted)
            return true;
    }
    return false;
}

/* Change-point detection on a 1-D series (thesis 3.3): Opt proposes the
 * single most likely change, KS between the two segments confirms it. */
#include <string.h>

#include "analysis.h"

/* Below 4 points one segment has at most one value: a "change" would be a
 * single sample, and KS at any useful alpha cannot confirm it anyway
 * (D <= 1 < d_crit for segments of 1 and 2). */
#define MT_CP_MIN_POINTS 4

mt_err mt_detect_changepoint(const double *x, size_t n, double alpha, mt_changepoint *out)
{
    if (!x || !out || n < 2 || !(alpha > 0.0 && alpha < 1.0))
        return MT_ERR_INVALID_ARG;
    memset(out, 0, sizeof *out);
    size_t tau = 0;
    double cost = 0.0;
    mt_err e = mt_opt_changepoint(x, n, &tau, &cost);
    if (e != MT_OK)
        return e;
    out->index = tau;
    out->cost = cost;
    e = mt_ks_two_sample(x, tau, x + tau, n - tau, alpha, &out->ks);
    if (e != MT_OK)
        return e;
    out->found = n >= MT_CP_MIN_POINTS && out->ks.reject;
    return MT_OK;
}

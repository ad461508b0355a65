/* One population or two: BIC of one Gaussian against the two-Gaussian
 * mixture of a split's classes.  Otsu (split.c) always finds a cut; this
 * says whether the cut separates two populations or halves one. */
#include <math.h>

#include "analysis.h"
#include "thresholds.h"

typedef struct {
    double w, mean, sd;
} component;

static component fit(const double *x, size_t n, double threshold, int upper, size_t total)
{
    component c = {0, 0, MT_BIMODAL_MIN_SD};
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if ((x[i] > threshold) == upper) {
            c.mean += x[i];
            k++;
        }
    if (k == 0)
        return c;
    c.mean /= (double)k;
    double ss = 0;
    for (size_t i = 0; i < n; i++)
        if ((x[i] > threshold) == upper)
            ss += (x[i] - c.mean) * (x[i] - c.mean);
    c.sd = sqrt(ss / (double)k);
    if (c.sd < MT_BIMODAL_MIN_SD)
        c.sd = MT_BIMODAL_MIN_SD;
    c.w = (double)k / (double)total;
    return c;
}

/* log of w * N(x; mean, sd), without the constant -ln sqrt(2 pi) that both
 * models share per point. */
static double log_term(const component *c, double x)
{
    double z = (x - c->mean) / c->sd;
    return log(c->w) - log(c->sd) - 0.5 * z * z;
}

mt_err mt_bimodality_test(const double *x, size_t n, double threshold, mt_bimodality *out)
{
    if (!x || !out || n < 2)
        return MT_ERR_INVALID_ARG;
    out->two_classes = false;
    out->delta_bic = 0;
    out->min_delta_bic = MT_BIMODAL_MIN_DELTA_BIC;
    component one = fit(x, n, -INFINITY, 1, n);
    component lo = fit(x, n, threshold, 0, n), hi = fit(x, n, threshold, 1, n);
    if (lo.w == 0 || hi.w == 0)
        return MT_OK;
    double ll1 = 0, ll2 = 0;
    for (size_t i = 0; i < n; i++) {
        ll1 += log_term(&one, x[i]);
        /* log(e^a + e^b) without overflow or underflow */
        double a = log_term(&lo, x[i]), b = log_term(&hi, x[i]);
        double m = a > b ? a : b;
        ll2 += m + log(exp(a - m) + exp(b - m));
    }
    /* BIC = k ln n - 2 LL with k = 2 (one) and 5 (two: a weight, two means,
     * two spreads). */
    double ln_n = log((double)n);
    out->delta_bic = (2 * ln_n - 2 * ll1) - (5 * ln_n - 2 * ll2);
    out->two_classes = out->delta_bic >= MT_BIMODAL_MIN_DELTA_BIC;
    return MT_OK;
}

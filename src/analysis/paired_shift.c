#include "paired_shift.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of v[0..n-1], sorting v. */
static double median_sorting(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

mt_err mt_paired_shift_cyclic(const double *ref, size_t nref, uint64_t ref_elems, const double *x,
                              size_t nx, uint64_t x_elems, mt_paired_shift *out)
{
    memset(out, 0, sizeof *out);
    if (!ref_elems || !x_elems)
        return MT_ERR_INVALID_ARG;
    /* Elements the reference measured: the first min(nref, ref_elems). */
    size_t known = nref < ref_elems ? nref : (size_t)ref_elems;
    if (!known)
        return MT_ERR_INVALID_ARG;
    size_t laps = (nref + known - 1) / known; /* samples per element, at most */
    double *med = malloc(known * sizeof *med);
    double *tmp = malloc(laps * sizeof *tmp);
    double *diff = malloc((nx ? nx : 1) * sizeof *diff);
    double *tmp_hi = malloc((nx ? nx : 1) * sizeof *tmp_hi);
    mt_err err = MT_OK;
    if (!med || !tmp || !diff || !tmp_hi) {
        err = MT_ERR_NOMEM;
        goto out;
    }
    for (size_t k = 0; k < known; k++) {
        size_t m = 0;
        for (size_t j = k; j < nref; j += (size_t)ref_elems)
            tmp[m++] = ref[j];
        med[k] = median_sorting(tmp, m);
    }
    size_t n = 0;
    for (size_t j = 0; j < nx; j++) {
        uint64_t k = j % x_elems;
        if (k < known)
            diff[n++] = x[j] - med[k];
    }
    if (n < MT_PAIRED_SHIFT_MIN_PAIRS) {
        err = MT_ERR_INVALID_ARG;
        goto out;
    }
    double shift = mt_median(diff, n);
    size_t up = 0, hi = 0, lo = 0;
    for (size_t i = 0; i < n; i++) {
        up += shift > 0 && diff[i] > shift / 2;
        lo += diff[i] < -MT_PAIRED_SHIFT_TAIL_CYCLES;
        if (diff[i] > MT_PAIRED_SHIFT_TAIL_CYCLES)
            tmp_hi[hi++] = diff[i];
    }
    out->tail_up = (double)hi / (double)n;
    out->tail_down = (double)lo / (double)n;
    out->tail_shift = hi ? median_sorting(tmp_hi, hi) : 0.0;
    for (size_t i = 0; i < n; i++)
        diff[i] = fabs(diff[i] - shift);
    double mad = median_sorting(diff, n);
    /* 1.4826 turns a MAD into a normal sd; 1.2533 (sqrt(pi / 2)) is the
     * median's efficiency loss against the mean. */
    out->shift = shift;
    out->se = 1.2533 * 1.4826 * mad / sqrt((double)n);
    out->share_up = (double)up / (double)n;
    out->pairs = n;
out:
    free(med);
    free(tmp);
    free(diff);
    free(tmp_hi);
    return err;
}

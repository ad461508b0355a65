/* Shared-memory banks from warp-load latencies (banks.h). */
#include "banks.h"

#include <math.h>
#include <stdlib.h>

#include "thresholds.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

mt_err mt_bank_level_of(double *x, size_t n, mt_bank_level *out, mt_errinfo *ei)
{
    if (n < 4)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "a bank level needs at least 4 samples, got %zu", n);
    qsort(x, n, sizeof *x, cmp_double);
    /* Timer spikes (interrupts) far above the rest are dropped first. */
    double med = x[n / 2], mad[64];
    size_t step = n / 64 + 1, nm = 0;
    for (size_t i = 0; i < n && nm < 64; i += step)
        mad[nm++] = fabs(x[i] - med);
    qsort(mad, nm, sizeof *mad, cmp_double);
    double cut = med + MT_BANK_SPIKE_SDS * 1.4826 * mad[nm / 2];
    while (n > 4 && x[n - 1] > cut && mad[nm / 2] > 0)
        n--;
    size_t lo = n / 4, hi = n - n / 4;
    double sum = 0, sq = 0;
    for (size_t i = lo; i < hi; i++)
        sum += x[i];
    double m = sum / (double)(hi - lo);
    for (size_t i = lo; i < hi; i++)
        sq += (x[i] - m) * (x[i] - m);
    /* The middle half of a normal sample has 0.143 of its variance: scale
     * back to the whole sample's spread. */
    double sd = sqrt(sq / (double)(hi - lo) / 0.143);
    out->level = m;
    /* Spikes below the cut still lean the mean upwards (thresholds.h). */
    double bias = MT_BANK_SPIKE_BIAS * sd;
    /* The interquartile mean of normal samples varies 1.19 times as much
     * as their mean (its efficiency is 0.84). */
    out->se = sqrt(1.19 * sd * sd / (double)n + bias * bias);
    return MT_OK;
}

int mt_bank_levels_differ(const mt_bank_level *a, const mt_bank_level *b, double min_gap)
{
    double gap = MT_BANK_SE_FACTOR * sqrt(a->se * a->se + b->se * b->se);
    return fabs(a->level - b->level) > (gap > min_gap ? gap : min_gap);
}

void mt_bank_row(const mt_bank_level *lv, size_t n, double min_gap, size_t *row_index,
                 int *confirmed)
{
    *row_index = 0;
    *confirmed = 0;
    if (n == 0)
        return;
    size_t i = n - 1;
    while (i > 0 && !mt_bank_levels_differ(&lv[i - 1], &lv[n - 1], min_gap))
        i--;
    *row_index = i;
    *confirmed = i + 1 < n;
}

int mt_bank_nearer(const mt_bank_level *x, const mt_bank_level *lo, const mt_bank_level *hi,
                   double min_gap)
{
    if (!mt_bank_levels_differ(lo, hi, 2 * min_gap))
        return -1;
    double mid = (lo->level + hi->level) / 2;
    if (fabs(x->level - mid) < min_gap)
        return -1;
    return x->level > mid ? 1 : 0;
}

/* Ordering helpers: sorted copies, allocation-free selection, nearest-rank
 * percentiles and threshold counts.  Shared by every file that needs order
 * statistics, so the tie and rounding rules are defined in one place. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_internal.h"

int mt_an_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

mt_err mt_an_sorted_copy(const double *x, size_t n, double **out)
{
    if (!x || !out || n == 0)
        return MT_ERR_INVALID_ARG;
    if (n > SIZE_MAX / sizeof(double))
        return MT_ERR_NOMEM;
    double *c = malloc(n * sizeof *c);
    if (!c)
        return MT_ERR_NOMEM;
    memcpy(c, x, n * sizeof *c);
    qsort(c, n, sizeof *c, mt_an_cmp_double);
    *out = c;
    return MT_OK;
}

#define SIGN_BIT 0x8000000000000000ull

/* Map a double to an unsigned key with the same order: positive numbers get
 * the sign bit set, negative numbers are bit-inverted. */
static uint64_t order_key(double v)
{
    uint64_t b;
    memcpy(&b, &v, sizeof b);
    return (b & SIGN_BIT) ? ~b : (b | SIGN_BIT);
}

static double from_key(uint64_t k)
{
    uint64_t b = (k & SIGN_BIT) ? (k & ~SIGN_BIT) : ~k;
    double v;
    memcpy(&v, &b, sizeof v);
    return v;
}

double mt_an_select_kth(const double *x, size_t n, size_t k)
{
    if (!x || n == 0)
        return 0.0;
    if (k >= n)
        k = n - 1;
    /* Smallest key K with #{i : key(x_i) <= K} >= k + 1 is the key of the
     * k-th smallest value; it is always the key of some x_i. */
    uint64_t lo = 0, hi = UINT64_MAX;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        size_t c = 0;
        for (size_t i = 0; i < n; i++)
            c += order_key(x[i]) <= mid;
        if (c >= k + 1)
            hi = mid;
        else
            lo = mid + 1;
    }
    return from_key(lo);
}

double mt_an_nearest_rank(const double *sorted, size_t n, double q)
{
    double r = ceil(q * (double)n);
    size_t rank = r < 1.0 ? 1 : (r > (double)n ? n : (size_t)r);
    return sorted[rank - 1];
}

size_t mt_an_count_above(const double *x, size_t n, double threshold)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++)
        c += x[i] > threshold;
    return c;
}

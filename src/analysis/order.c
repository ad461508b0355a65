/* Ordering helpers: sorted copies, allocation-free selection, nearest-rank
 * percentiles and threshold counts.  Shared by every file that needs order
 * statistics, so the tie and rounding rules are defined in one place. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_internal.h"

int mt_an_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
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

/* From this many values on, sorted copies are radix-sorted: the L2 map
 * sorts the ~450,000 loads of a latency class several times, and qsort's
 * comparison calls made that 150 ms of the H100's one-second report
 * (radix: a few ms); the KS tests of the sharing probe sort thousands of
 * samples a few hundred times.  Below ~1000 values qsort is as fast (the
 * radix passes' counters dominate) and needs no buffers. */
#define RADIX_MIN_N 1024
/* Bits per radix pass: 2048 counters stay in the L1 cache; 6 passes cover
 * the 64-bit key, and a pass whose digit is the same for every key (the
 * high bits of latencies of one magnitude) is skipped. */
#define RADIX_BITS 11
#define RADIX_BUCKETS (1u << RADIX_BITS)

/* Sorts c[0..n) ascending by order_key (the order of mt_an_cmp_double for
 * numbers; NaNs go to the ends).  False when its buffers cannot be had. */
static bool radix_sort(double *c, size_t n)
{
    uint64_t *key = malloc(n * sizeof *key), *tmp = malloc(n * sizeof *tmp);
    if (!key || !tmp) {
        free(key);
        free(tmp);
        return false;
    }
    for (size_t i = 0; i < n; i++)
        key[i] = order_key(c[i]);
    for (unsigned shift = 0; shift < 64; shift += RADIX_BITS) {
        size_t count[RADIX_BUCKETS] = {0};
        for (size_t i = 0; i < n; i++)
            count[(key[i] >> shift) & (RADIX_BUCKETS - 1)]++;
        if (count[(key[0] >> shift) & (RADIX_BUCKETS - 1)] == n)
            continue;
        size_t pos = 0;
        for (size_t b = 0; b < RADIX_BUCKETS; b++) {
            size_t here = count[b];
            count[b] = pos;
            pos += here;
        }
        for (size_t i = 0; i < n; i++)
            tmp[count[(key[i] >> shift) & (RADIX_BUCKETS - 1)]++] = key[i];
        uint64_t *swap = key;
        key = tmp;
        tmp = swap;
    }
    for (size_t i = 0; i < n; i++)
        c[i] = from_key(key[i]);
    free(key);
    free(tmp);
    return true;
}

void mt_sort_doubles(double *x, size_t n)
{
    if (!x || n < 2)
        return;
    if (n < RADIX_MIN_N || n > SIZE_MAX / sizeof(uint64_t) || !radix_sort(x, n))
        qsort(x, n, sizeof *x, mt_an_cmp_double);
}

mt_err mt_an_sorted_copy(const double *x, size_t n, double **out)
{
    if (!x || !out || n == 0)
        return MT_ERR_INVALID_ARG;
    if (n > SIZE_MAX / sizeof(uint64_t))
        return MT_ERR_NOMEM;
    double *c = malloc(n * sizeof *c);
    if (!c)
        return MT_ERR_NOMEM;
    memcpy(c, x, n * sizeof *c);
    mt_sort_doubles(c, n);
    *out = c;
    return MT_OK;
}

/* Rearranges key[0..n) so that key[k] holds the value a sort would put
 * there, with no larger value before it and no smaller one after it:
 * Hoare's selection with a three-way partition (latencies repeat a lot, and
 * the run of values equal to the pivot ends the search at once) and a
 * median-of-three pivot; expected linear time. */
static void select_in_place(uint64_t *key, size_t n, size_t k)
{
    size_t lo = 0, hi = n; /* the k-th value lies in key[lo..hi) */
    while (hi - lo > 1) {
        uint64_t a = key[lo], b = key[lo + (hi - lo) / 2], c = key[hi - 1];
        uint64_t p = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
        /* [lo, lt) < p, [lt, i) == p, [gt, hi) > p */
        size_t lt = lo, i = lo, gt = hi;
        while (i < gt) {
            uint64_t v = key[i];
            if (v < p) {
                key[i++] = key[lt];
                key[lt++] = v;
            } else if (v > p) {
                key[i] = key[--gt];
                key[gt] = v;
            } else {
                i++;
            }
        }
        if (k < lt)
            hi = lt;
        else if (k >= gt)
            lo = gt;
        else
            return;
    }
}

mt_err mt_an_median_select(const double *x, size_t n, double *out)
{
    if (!x || !out || n == 0)
        return MT_ERR_INVALID_ARG;
    if (n > SIZE_MAX / sizeof(uint64_t))
        return MT_ERR_NOMEM;
    uint64_t *key = malloc(n * sizeof *key);
    if (!key)
        return MT_ERR_NOMEM;
    for (size_t i = 0; i < n; i++)
        key[i] = order_key(x[i]);
    size_t k = n / 2;
    select_in_place(key, n, k);
    double m = from_key(key[k]);
    if (n % 2 == 0) {
        /* The other middle value: the largest of the lower part. */
        uint64_t below = key[0];
        for (size_t i = 1; i < k; i++)
            below = key[i] > below ? key[i] : below;
        m = 0.5 * (from_key(below) + m);
    }
    free(key);
    *out = m;
    return MT_OK;
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

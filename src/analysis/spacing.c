/* Line / sector size from where misses fall in a sequential chain (thesis
 * 4.3): with stride s below the fill granularity G, a miss brings in G bytes
 * and the next G/s - 1 loads hit, so consecutive misses are G bytes apart. */
#include <stdlib.h>

#include "analysis.h"
#include "thresholds.h"

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

mt_err mt_miss_spacing(const double *lat, size_t n, uint32_t stride_bytes,
                       double miss_threshold, mt_spacing *out)
{
    if (!lat || !out || n < 2 || stride_bytes == 0)
        return MT_ERR_INVALID_ARG;
    out->found = false;
    out->spacing_bytes = 0;
    out->support = 0.0;
    out->n_misses = 0;
    out->threshold = miss_threshold;

    size_t n_miss = 0;
    for (size_t i = 0; i < n; i++)
        n_miss += lat[i] > miss_threshold;
    out->n_misses = n_miss;
    if (n_miss < 2)
        return MT_OK;  /* no gap to measure */

    size_t n_gaps = n_miss - 1;
    size_t *gaps = malloc(n_gaps * sizeof *gaps);
    if (!gaps)
        return MT_ERR_NOMEM;
    size_t g = 0, prev = 0;
    bool have_prev = false;
    for (size_t i = 0; i < n; i++) {
        if (!(lat[i] > miss_threshold))
            continue;
        if (have_prev)
            gaps[g++] = i - prev;
        prev = i;
        have_prev = true;
    }
    /* Mode of the gaps by sorting; on a tie the smaller gap wins (a noise
     * outlier can only split a true gap into smaller ones, never merge two,
     * so ties are rare and the smaller gap is the finer granularity). */
    qsort(gaps, n_gaps, sizeof *gaps, cmp_size);
    size_t mode = gaps[0], mode_count = 0;
    for (size_t i = 0; i < n_gaps;) {
        size_t j = i;
        while (j < n_gaps && gaps[j] == gaps[i])
            j++;
        if (j - i > mode_count) {
            mode_count = j - i;
            mode = gaps[i];
        }
        i = j;
    }
    free(gaps);

    uint64_t bytes = (uint64_t)mode * stride_bytes;
    out->support = (double)mode_count / (double)n_gaps;
    if (bytes > UINT32_MAX) {
        out->spacing_bytes = UINT32_MAX;  /* saturated: not a cache line */
        return MT_OK;
    }
    out->spacing_bytes = (uint32_t)bytes;
    out->found = n_miss >= MT_MIN_MISSES_FOR_SPACING && out->support >= MT_MIN_SPACING_SUPPORT;
    return MT_OK;
}

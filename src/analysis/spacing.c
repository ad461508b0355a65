/* Line / sector size from where misses fall in a sequential chain (thesis
 * 4.3): with stride s below the fill granularity G, a miss brings in G bytes
 * and the next G/s - 1 loads hit, so consecutive misses are G bytes apart. */
#include <math.h>
#include <stdlib.h>

#include "analysis.h"
#include "thresholds.h"

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

/* Whether the loads half a gap (`gap` elements) after the misses' phase
 * form a slower class than the other loads that are not misses. */
static mt_err half_gap_class(const double *lat, size_t n, double miss_threshold,
                             double hit_median, size_t gap, bool *finer)
{
    *finer = false;
    size_t *count = calloc(gap, sizeof *count);
    double *half = malloc(n * sizeof *half), *rest = malloc(n * sizeof *rest);
    mt_err err = MT_OK;
    if (!count || !half || !rest) {
        err = MT_ERR_NOMEM;
        goto out;
    }
    /* The misses' phase: the residue most of them have. */
    for (size_t i = 0; i < n; i++)
        count[i % gap] += lat[i] > miss_threshold;
    size_t phase = 0;
    for (size_t r = 1; r < gap; r++)
        if (count[r] > count[phase])
            phase = r;
    size_t at = (phase + gap / 2) % gap, nh = 0, nr = 0;
    for (size_t i = 0; i < n; i++) {
        size_t r = i % gap;
        if (r == at)
            half[nh++] = lat[i];
        else if (r != phase && !(lat[i] > miss_threshold))
            rest[nr++] = lat[i];
    }
    if (nh < MT_MIN_MISSES_FOR_SPACING || nr < MT_MIN_MISSES_FOR_SPACING)
        goto out;
    mt_ks_result ks;
    if ((err = mt_ks_two_sample(half, nh, rest, nr, MT_KS_ALPHA, &ks)) != MT_OK)
        goto out;
    double mh = mt_median(half, nh);
    *finer = ks.reject && mh - mt_median(rest, nr) >= MT_MIN_CLASS_GAP_CYCLES &&
             mh - hit_median >= MT_MIN_CLASS_GAP_CYCLES;
out:
    free(count);
    free(half);
    free(rest);
    return err;
}

mt_err mt_miss_spacing(const double *lat, size_t n, uint32_t stride_bytes,
                       double miss_threshold, double hit_median, mt_spacing *out)
{
    if (!lat || !out || n < 2 || stride_bytes == 0)
        return MT_ERR_INVALID_ARG;
    out->found = false;
    out->spacing_bytes = 0;
    out->support = 0.0;
    out->n_misses = 0;
    out->halved = 0;
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

    /* Misses served by a level close to the hit latency sit near the
     * threshold, and only some of them cross it: the gap between the
     * misses that do (say every other one) then looks like the spacing.
     * The loads half a gap after the misses are the test: if they form a
     * class above the other loads below the threshold (KS at MT_KS_ALPHA
     * and medians at least MT_MIN_CLASS_GAP_CYCLES apart) and above the
     * level's own hits (an upper level's misses are this level's hits),
     * misses fall there too and the spacing halves; again, while the gap
     * stays even. */
    while (!isnan(hit_median) && mode >= 2 && mode % 2 == 0) {
        bool finer = false;
        mt_err err = half_gap_class(lat, n, miss_threshold, hit_median, mode, &finer);
        if (err != MT_OK)
            return err;
        if (!finer)
            break;
        mode /= 2;
        out->halved++;
    }
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

/* Mean latency of the misses of a chain that may keep some hits and a few
 * timer outliers (analysis.h, mt_miss_mean_latency): hits are classified by
 * the cache's hit threshold, outliers cut at a robust distance above the
 * misses' median, and the misses in between averaged. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "analysis_internal.h"
#include "thresholds.h"

mt_err mt_miss_mean_latency(const double *x, size_t n, double hit_threshold, mt_miss_mean *out)
{
    if (!x || !out || n == 0 || isnan(hit_threshold))
        return MT_ERR_INVALID_ARG;
    memset(out, 0, sizeof *out);
    out->n = n;
    out->hit_threshold = hit_threshold;
    double *m = malloc(n * sizeof *m);
    if (!m)
        return MT_ERR_NOMEM;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (x[i] > hit_threshold)
            m[k++] = x[i];
    out->hits = n - k;
    if (k == 0) {
        free(m);
        return MT_OK;
    }
    qsort(m, k, sizeof *m, mt_an_cmp_double);
    double med = k % 2 ? m[k / 2] : 0.5 * (m[k / 2 - 1] + m[k / 2]);
    /* Robust spread: 1.4826 * median absolute deviation. */
    double *dev = malloc(k * sizeof *dev);
    if (!dev) {
        free(m);
        return MT_ERR_NOMEM;
    }
    for (size_t i = 0; i < k; i++)
        dev[i] = fabs(m[i] - med);
    qsort(dev, k, sizeof *dev, mt_an_cmp_double);
    double mad = k % 2 ? dev[k / 2] : 0.5 * (dev[k / 2 - 1] + dev[k / 2]);
    free(dev);
    double cut = med + fmax(MT_MIN_CLASS_GAP_CYCLES, MT_MISS_OUTLIER_SDS * 1.4826 * mad);
    double sum = 0;
    size_t kept = 0;
    for (size_t i = 0; i < k; i++)
        if (m[i] <= cut) {
            sum += m[i];
            kept++;
        }
    free(m);
    out->median = med;
    out->cut = cut;
    out->misses = kept;
    out->outliers = k - kept;
    out->mean = kept ? sum / (double)kept : 0;
    return MT_OK;
}

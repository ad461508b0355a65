/* Two corrections to the mean latency of a miss chain (analysis.h):
 *
 * - mt_miss_leak_test: when a cache's hits spread widely, its hit
 *   threshold can reach into the next level's fastest loads (the near L2
 *   partition), which are then counted as hits and the miss mean leans
 *   towards the far partition.  Hits are symmetric about their median, so
 *   two bands mirrored about it hold equal shares of them; more loads in
 *   the upper band than in the lower one are misses below the threshold.
 *   The miss mean is then taken from the whole chain minus the estimated
 *   hits (a mixture estimate) instead of from the loads above the threshold.
 *
 * - mt_chain_mean_se: the loads of a chain sample its lines, and on a
 *   partitioned L2 each line is homed near or far: a chain of a few dozen
 *   lines gives a mean that depends on where those few lines happen to be
 *   homed.  The standard error over the chain's elements (lines), by
 *   blocking adjacent elements (several elements can share one L2 line, and
 *   so one home), says how far that mean can be from the mean over all
 *   lines. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "analysis_internal.h"
#include "thresholds.h"

mt_err mt_miss_leak_test(const double *x, size_t n, double hit_median, double hit_threshold,
                         double cut, double alpha, mt_miss_leak *out)
{
    if (!x || !out || n == 0 || isnan(hit_median) || isnan(hit_threshold) || isnan(cut) ||
        !(alpha > 0 && alpha < 1))
        return MT_ERR_INVALID_ARG;
    memset(out, 0, sizeof *out);
    out->p = 1;
    /* The bands start a class gap away from the median, so that the few
     * discrete steps of a tight hit distribution (a skew of a cycle or two
     * on real GPUs) never count: only a hit class wider than the gap has
     * bands at all (a threshold at or below the median has none). */
    double near = MT_MIN_CLASS_GAP_CYCLES, far = hit_threshold - hit_median;
    size_t below = 0, at_or_below = 0, kept = 0;
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        double d = x[i] - hit_median;
        if (d < -near && d >= -far)
            out->lower_band++;
        else if (d > near && d <= far)
            out->upper_band++;
        if (d < 0)
            below++;
        if (d <= 0)
            at_or_below++;
        if (x[i] <= cut) {
            sum += x[i];
            kept++;
        }
    }
    size_t k = out->upper_band, m = out->upper_band + out->lower_band;
    if (m > 0 && k > m / 2) {
        out->p = mt_an_binom_upper_tail(m, k, 0.5);
        out->leaks = out->p < alpha;
    }
    /* Hits: the lower half (strictly below the median, mirrored) plus those
     * at the median itself.  Their mean is the median (symmetric). */
    out->hits = (double)(below + at_or_below);
    if (out->hits > (double)kept)
        out->hits = (double)kept;
    double misses = (double)kept - out->hits;
    out->misses = misses;
    out->mean = misses > 0 ? (sum - out->hits * hit_median) / misses : 0;
    return MT_OK;
}

/* Standard deviation of the block means divided by sqrt(blocks). */
static double block_se(const double *elem_mean, const unsigned char *has, size_t n_elem,
                       size_t b)
{
    size_t nb = 0;
    double s = 0, ss = 0;
    for (size_t start = 0; start + b <= n_elem; start += b) {
        double bs = 0;
        size_t bn = 0;
        for (size_t j = start; j < start + b; j++)
            if (has[j]) {
                bs += elem_mean[j];
                bn++;
            }
        if (!bn)
            continue;
        double v = bs / (double)bn;
        s += v;
        ss += v * v;
        nb++;
    }
    if (nb < MT_SE_MIN_BLOCKS)
        return NAN;
    double mean = s / (double)nb;
    double var = (ss - (double)nb * mean * mean) / (double)(nb - 1);
    return var > 0 ? sqrt(var / (double)nb) : 0;
}

mt_err mt_chain_mean_se(const double *x, size_t n, size_t runs, size_t n_elem, double cut,
                        size_t max_block, mt_chain_se *out)
{
    if (!x || !out || n == 0 || runs == 0 || n % runs || n_elem == 0 || isnan(cut))
        return MT_ERR_INVALID_ARG;
    memset(out, 0, sizeof *out);
    out->se = NAN;
    /* Sample k of a run of a sequential chain that starts after whole
     * warm-up laps is element k mod n_elem; a partial lap visits only the
     * first per_run.  Each run's chain lies elsewhere: elements of its own. */
    size_t per_run = n / runs;
    size_t ne_run = n_elem < per_run ? n_elem : per_run, ne = ne_run * runs;
    double *sum = calloc(ne, sizeof *sum);
    size_t *cnt = calloc(ne, sizeof *cnt);
    unsigned char *has = calloc(ne, 1);
    if (!sum || !cnt || !has) {
        free(sum);
        free(cnt);
        free(has);
        return MT_ERR_NOMEM;
    }
    for (size_t i = 0; i < n; i++)
        if (x[i] <= cut) {
            size_t j = i / per_run * ne_run + i % per_run % ne_run;
            sum[j] += x[i];
            cnt[j]++;
        }
    for (size_t j = 0; j < ne; j++)
        if (cnt[j]) {
            sum[j] /= (double)cnt[j];
            has[j] = 1;
            out->elements++;
        }
    if (max_block < 1)
        max_block = 1;
    /* The largest standard error over block sizes 1, 2, 4, ... up to
     * max_block: blocks at least as long as the correlated runs (elements
     * sharing one home) give the honest one, shorter ones underestimate. */
    for (size_t b = 1; b <= max_block; b *= 2) {
        double se = block_se(sum, has, ne, b);
        if (isnan(se))
            break;
        if (isnan(out->se) || se > out->se) {
            out->se = se;
            out->block = b;
        }
    }
    free(sum);
    free(cnt);
    free(has);
    return MT_OK;
}

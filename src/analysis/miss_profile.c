/* Steps of a miss-share curve and the aligned groups misses come in
 * (miss_profile.h). */
#include "miss_profile.h"

#include <math.h>

/* Length of the longest run from i whose values span at most `spread`. */
static size_t flat_run(const double *y, size_t n, size_t i, double spread)
{
    double lo = y[i], hi = y[i];
    size_t j = i + 1;
    for (; j < n; j++) {
        double lo2 = fmin(lo, y[j]), hi2 = fmax(hi, y[j]);
        if (hi2 - lo2 > spread)
            break;
        lo = lo2;
        hi = hi2;
    }
    return j - i;
}

/* Least-squares slope of y[i .. i + len - 1] against the point index. */
static double run_slope(const double *y, size_t i, size_t len)
{
    double mx = (double)(len - 1) / 2, my = 0, sxy = 0, sxx = 0;
    for (size_t k = 0; k < len; k++)
        my += y[i + k];
    my /= (double)len;
    for (size_t k = 0; k < len; k++) {
        sxy += ((double)k - mx) * (y[i + k] - my);
        sxx += ((double)k - mx) * ((double)k - mx);
    }
    return sxx > 0 ? sxy / sxx : 0;
}

size_t mt_profile_steps(const double *y, size_t n, double spread, double max_slope,
                        size_t min_points, mt_profile_step *out)
{
    size_t m = 0, i = 0;
    if (min_points < 2)
        min_points = 2;
    while (i < n) {
        size_t len = flat_run(y, n, i, spread);
        if (len >= min_points && fabs(run_slope(y, i, len)) <= max_slope) {
            out[m++] = (mt_profile_step){MT_STEP_FLAT, i, i + len - 1};
            i += len;
            continue;
        }
        /* A change point: extends the change right before it, or starts one. */
        if (m > 0 && out[m - 1].kind != MT_STEP_FLAT && out[m - 1].last + 1 == i)
            out[m - 1].last = i;
        else
            out[m++] = (mt_profile_step){MT_STEP_RISE, i, i};
        mt_profile_step *s = &out[m - 1];
        double before = s->first > 0 ? y[s->first - 1] : 0;
        s->kind = y[i] >= before ? MT_STEP_RISE : MT_STEP_FALL;
        i++;
    }
    return m;
}

/* Mixed groups of g lines in one map, and groups that are all missed. */
static void count_groups(const mt_miss_map *m, uint32_t g, size_t *mixed, size_t *missed)
{
    for (uint32_t start = 0; start < m->lines; start += g) {
        uint32_t end = start + g < m->lines ? start + g : m->lines, k, n_miss = 0;
        for (k = start; k < end; k++)
            n_miss += m->miss[k] != 0;
        if (n_miss > 0 && n_miss < end - start)
            (*mixed)++;
        else if (n_miss > 0)
            (*missed)++;
    }
}

static bool is_partial(const mt_miss_map *m, double *share)
{
    uint32_t n_miss = 0;
    for (uint32_t k = 0; k < m->lines; k++)
        n_miss += m->miss[k] != 0;
    *share = m->lines ? (double)n_miss / m->lines : 0;
    return n_miss > 0 && n_miss < m->lines;
}

/* Over the partial footprints: how many split no group of g lines, the
 * groups missed at those, and log10 of the chance of that under independent
 * per-line misses (a missed line's g - 1 group-mates all miss with
 * probability share^(g - 1), each footprint at its own share). */
static void tally(const mt_miss_map *maps, size_t n, uint32_t g, size_t *whole, size_t *missed,
                  double *log10_chance)
{
    *whole = *missed = 0;
    *log10_chance = 0;
    double share;
    for (size_t f = 0; f < n; f++) {
        if (!is_partial(&maps[f], &share))
            continue;
        size_t mx = 0, ms = 0;
        count_groups(&maps[f], g, &mx, &ms);
        if (mx > 0)
            continue;
        (*whole)++;
        *missed += ms;
        *log10_chance += (double)ms * (double)(g - 1) * log10(share);
    }
}

void mt_miss_granule(const mt_miss_map *maps, size_t n, uint32_t max_lines, double min_share,
                     mt_granule *out)
{
    *out = (mt_granule){.group = 1};
    double share;
    for (size_t f = 0; f < n; f++)
        out->partial += is_partial(&maps[f], &share);
    if (out->partial == 0)
        return;
    /* A group of one line is never split: g = 1 always holds. */
    tally(maps, n, 1, &out->whole, &out->miss_groups, &out->log10_chance);
    while (2 * out->group <= max_lines) {
        size_t whole, missed;
        double chance;
        tally(maps, n, 2 * out->group, &whole, &missed, &chance);
        if ((double)whole < min_share * (double)out->partial) {
            out->split_next = out->partial - whole;
            return;
        }
        out->group *= 2;
        out->whole = whole;
        out->miss_groups = missed;
        out->log10_chance = chance;
    }
}

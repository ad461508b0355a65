/* Footprint plans for the cache-size search (thesis 3.2, fig. 3.5): a coarse
 * doubling pass that brackets the change, then an evenly spaced sweep of the
 * bracket that feeds the change-point detection. */
#include "analysis.h"

size_t mt_plan_doubling(uint64_t start, uint64_t limit, uint64_t *out, size_t max)
{
    if (!out || max == 0 || start == 0 || start > limit)
        return 0;
    size_t n = 0;
    uint64_t v = start;
    for (;;) {
        out[n++] = v;
        if (n == max)
            return n;  /* caller's array is full: truncated plan */
        if (v > limit / 2)
            break;     /* 2v > limit (or would overflow) */
        v *= 2;
    }
    if (out[n - 1] < limit)
        out[n++] = limit;
    return n;
}

/* Smallest multiple of g that is >= t, or UINT64_MAX if it does not fit. */
static uint64_t round_up(uint64_t t, uint64_t g)
{
    uint64_t q = t / g + (t % g != 0);
    if (q > UINT64_MAX / g)
        return UINT64_MAX;
    return q * g;
}

size_t mt_plan_sweep(uint64_t lo, uint64_t hi, uint64_t granule, size_t max_points,
                     uint64_t *out)
{
    if (!out || max_points == 0 || hi <= lo)
        return 0;
    uint64_t g = granule ? granule : 1;  /* granule 0 means "any size" */
    uint64_t first = round_up(lo + 1, g);
    /* Candidates: every multiple of g in (lo, hi), then hi itself (hi need
     * not be a multiple: it is the footprint that showed the change). */
    uint64_t n_mult = first < hi ? (hi - 1 - first) / g + 1 : 0;
    if (n_mult < max_points) {  /* n_mult + 1 <= max_points: take them all */
        size_t n = 0;
        for (uint64_t k = 0; k < n_mult; k++)
            out[n++] = first + k * g;
        out[n++] = hi;
        return n;
    }
    /* Too many: point i targets lo + (hi - lo) * i / max_points, rounded up
     * to the granule; a point that would repeat its predecessor moves one
     * granule on.  The last target is hi itself. */
    uint64_t span = hi - lo, q = span / max_points, r = span % max_points;
    size_t n = 0;
    uint64_t prev = lo;
    for (size_t i = 1; i <= max_points; i++) {
        uint64_t t = lo + q * i + (uint64_t)((r * (uint64_t)i) / max_points);
        uint64_t p = round_up(t, g);
        if (n > 0 && p <= prev)
            p = prev > UINT64_MAX - g ? UINT64_MAX : prev + g;
        if (p >= hi || i == max_points) {
            out[n++] = hi;
            break;
        }
        out[n++] = p;
        prev = p;
    }
    return n;
}

/* The largest footprint that fitted above the first misses of a capacity
 * search.  Where a cache's sets are hashed, whether a chain misses depends
 * on where its lines fall as well as on how many there are: a chain can
 * miss while a larger one fits (the H100's L2: one SM's chains missed at
 * 21.3 MB and fitted at 22.9-24.4 MB).  The cache then holds at least the
 * largest fit, and the first misses only say where this chain conflicted.
 * Where nothing above fits whole, chains that missed in part still bound
 * what the cache held (mt_held_bytes_bound, held_bound.c). */
#include "analysis.h"

/* A footprint counts as a fit only if none of its runs missed: a repeat
 * that missed makes it a conflict like the first misses. */
static bool ever_missed(const uint64_t *fp, const bool *missed, size_t n, uint64_t f)
{
    for (size_t i = 0; i < n; i++)
        if (fp[i] == f && missed[i])
            return true;
    return false;
}

mt_fit_above mt_largest_fit_above(const uint64_t *fp, const bool *missed, size_t n,
                                  uint64_t above)
{
    mt_fit_above r = {0, 0};
    if (!fp || !missed)
        return r;
    for (size_t i = 0; i < n; i++)
        if (!missed[i] && fp[i] > above && fp[i] > r.fit && !ever_missed(fp, missed, n, fp[i]))
            r.fit = fp[i];
    for (size_t i = 0; i < n && r.fit; i++)
        if (missed[i] && fp[i] > r.fit && (!r.miss || fp[i] < r.miss))
            r.miss = fp[i];
    return r;
}

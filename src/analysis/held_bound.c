/* What a capacity search's misses allow a lower bound to claim.  A cache of
 * S bytes holds at most S bytes of a cyclic chain of F bytes when a lap
 * begins, so the lap brings in at least F - S bytes, at most `miss_bytes`
 * (the fill unit) a miss, whatever the replacement policy:
 * S >= F - miss_bytes x misses a lap.  Timer outliers only add misses, so
 * they only lower the bound; a statistical test that passed a few misses a
 * lap as outliers cannot make it too high (a random-replacement constant
 * L1.5 of 64768 B missed 45 of the 4096 loads of a 64 KiB chain, p = 0.03,
 * and read "> 65536 B": unseen seed 2274). */
#include "analysis.h"

mt_held_bound mt_held_bytes_bound(const uint64_t *fp, const size_t *loads, const size_t *misses,
                                  size_t n, uint32_t stride, uint32_t miss_bytes)
{
    mt_held_bound r = {0};
    if (!fp || !loads || !misses || !stride)
        return r;
    for (size_t i = 0; i < n; i++) {
        uint64_t elements = fp[i] / stride;
        /* Only whole laps: a part of a lap may be the part that stayed. */
        size_t laps = elements ? loads[i] / elements : 0;
        if (!laps)
            continue;
        double per_lap = (double)misses[i] / (double)laps;
        double b = (double)fp[i] - (double)miss_bytes * per_lap;
        if (b < 0)
            b = 0;
        if (!r.found || b > r.bytes) {
            r.found = true;
            r.bytes = b;
            r.misses_per_lap = per_lap;
            r.footprint = fp[i];
        }
    }
    return r;
}

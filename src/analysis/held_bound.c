/* What a capacity search's misses show a cache held (analysis.h,
 * mt_held_bytes_bound).  A cache of S bytes holds at most S bytes of a
 * cyclic chain of F bytes when a lap begins, so the lap brings in at least
 * F - S bytes, at most `miss_bytes` (the fill unit) a miss, whatever the
 * replacement policy: S >= F - miss_bytes x misses a lap.
 * Two uses: a lower bound a capacity search claims (whole laps only: a
 * random-replacement constant L1.5 of 64768 B missed 45 of the 4096 loads
 * of a 64 KiB chain, p = 0.03 against the timer's outliers, and read
 * "> 65536 B", unseen seed 2274), and the top of an L2 partition's range
 * from the windows of long chains that missed in part (unseen seed 2518: a
 * hashed 8 MiB partition first missed at 7.6 MB and 19.7% of a 10.5 MB
 * chain's window missing shows at least 8.3 MB held). */
#include <math.h>

#include "analysis.h"

/* Wilson score upper bound of a binomial share: k of n, z errors.  Unlike
 * p + z se it stays above 0 when k = 0 (a window with no misses may still
 * miss a few a lap). */
static double share_upper(size_t k, size_t n, double z)
{
    double p = (double)k / (double)n, z2 = z * z, d = 1 + z2 / (double)n;
    double mid = p + z2 / (2 * (double)n);
    double half = z * sqrt(p * (1 - p) / (double)n + z2 / (4 * (double)n * (double)n));
    double u = (mid + half) / d;
    return u > 1 ? 1 : u;
}

mt_held_bound mt_held_bytes_bound(const uint64_t *fp, const size_t *loads, const size_t *misses,
                                  size_t n, uint32_t stride, uint32_t miss_bytes, bool windows,
                                  double z)
{
    mt_held_bound r = {0};
    if (!fp || !loads || !misses || !stride)
        return r;
    for (size_t i = 0; i < n; i++) {
        uint64_t elements = fp[i] / stride;
        if (!elements || !loads[i] || misses[i] > loads[i])
            continue;
        size_t laps = loads[i] / elements;
        double per_lap, share;
        if (laps) { /* whole laps: their misses counted */
            per_lap = (double)misses[i] / (double)laps;
            share = per_lap / (double)elements;
        } else if (windows) { /* a window: its share, z errors up, for the lap's */
            share = share_upper(misses[i], loads[i], z);
            per_lap = share * (double)elements;
        } else {
            continue; /* a part of a lap may be the part that stayed */
        }
        double b = (double)fp[i] - (double)miss_bytes * per_lap;
        if (b < 0)
            b = 0;
        if (!r.found || b > r.bytes) {
            r.found = true;
            r.bytes = b;
            r.misses_per_lap = per_lap;
            r.share_hi = share;
            r.footprint = fp[i];
        }
    }
    return r;
}

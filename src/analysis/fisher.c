/* One-sided Fisher exact test of two miss counts, for the sharing probe:
 * did sample a miss significantly less often than sample b? */
#include <math.h>

#include "analysis.h"
#include "analysis_internal.h"

static double ln_choose(uint64_t n, uint64_t k)
{
    return mt_an_ln_factorial(n) - mt_an_ln_factorial(k) - mt_an_ln_factorial(n - k);
}

double mt_fisher_fewer(uint64_t miss_a, uint64_t n_a, uint64_t miss_b, uint64_t n_b)
{
    if (miss_a > n_a || miss_b > n_b)
        return 1.0;
    /* With the margins fixed, a's misses are hypergeometric: n_a draws from
     * n_a + n_b loads of which miss_a + miss_b missed. */
    uint64_t total = n_a + n_b, misses = miss_a + miss_b, hits = total - misses;
    uint64_t lo = n_a > hits ? n_a - hits : 0;
    double ln_all = ln_choose(total, n_a), p = 0.0;
    for (uint64_t x = lo; x <= miss_a; x++)
        p += exp(ln_choose(misses, x) + ln_choose(hits, n_a - x) - ln_all);
    return p > 1.0 ? 1.0 : p;
}

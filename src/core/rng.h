/* splitmix64: small, fast, good enough for chain permutations and sim noise,
 * and identical on every platform so a seed always gives the same samples. */
#ifndef MT_RNG_H
#define MT_RNG_H

#include <math.h>
#include <stdint.h>

typedef struct {
    uint64_t s;
} mt_rng;

static inline uint64_t mt_rng_next(mt_rng *r)
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform double in [0, 1). */
static inline double mt_rng_uniform(mt_rng *r)
{
    return (double)(mt_rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

/* Uniform integer in [0, n). n > 0. */
static inline uint64_t mt_rng_below(mt_rng *r, uint64_t n)
{
    return mt_rng_next(r) % n;
}

/* Standard normal draw (Box-Muller). */
static inline double mt_rng_gauss(mt_rng *r)
{
    double u1 = 1.0 - mt_rng_uniform(r); /* (0, 1]: log stays finite */
    double u2 = mt_rng_uniform(r);
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2) /* 2 pi */;
}

#endif

/* Synthetic data for the analysis-core tests: a deterministic Gaussian
 * generator on top of the project's splitmix64, so every test sees the same
 * samples on every machine. */
#ifndef MT_TEST_ANALYSIS_SYNTH_H
#define MT_TEST_ANALYSIS_SYNTH_H

#include <math.h>

#include "core/rng.h"

/* Standard normal deviate (Box-Muller, one value per call). */
static inline double synth_gauss(mt_rng *r)
{
    double u1 = mt_rng_uniform(r), u2 = mt_rng_uniform(r);
    if (u1 < 1e-300)
        u1 = 1e-300;
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

/* x[i] = mean + sd * N(0,1) for i in [0, n). */
static inline void synth_fill(mt_rng *r, double *x, size_t n, double mean, double sd)
{
    for (size_t i = 0; i < n; i++)
        x[i] = mean + sd * synth_gauss(r);
}

#endif

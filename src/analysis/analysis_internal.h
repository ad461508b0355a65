/* Helpers shared by the analysis-core files.  Not part of the public API
 * (analysis.h); tests include this header to check the helpers directly. */
#ifndef MT_ANALYSIS_INTERNAL_H
#define MT_ANALYSIS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "../core/error.h"

/* qsort comparator for doubles (ascending; input is NaN-free). */
int mt_an_cmp_double(const void *a, const void *b);

/* *out = malloc'd ascending copy of x[0..n); caller frees.  n >= 1. */
mt_err mt_an_sorted_copy(const double *x, size_t n, double **out);

/* k-th smallest (0-based, k < n) of x without modifying or copying it:
 * bisection over the order-preserving 64-bit image of doubles, 64 counting
 * passes.  Used where a sorted copy cannot be allocated. */
double mt_an_select_kth(const double *x, size_t n, size_t k);

/* *out = the median of x[0..n) (the mean of the two middle values for an
 * even n), as a sorted copy would give it, by selection on a heap copy:
 * linear instead of n log n.  x is not modified.  n >= 1. */
mt_err mt_an_median_select(const double *x, size_t n, double *out);

/* Nearest-rank percentile of an ascending array: element ceil(q * n)
 * (1-based, clamped to [1, n]).  n >= 1, 0 <= q <= 1. */
double mt_an_nearest_rank(const double *sorted, size_t n, double q);

/* Survival function of the Kolmogorov distribution,
 * Q(lambda) = 2 sum_{k>=1} (-1)^(k-1) exp(-2 k^2 lambda^2), evaluated with
 * the dual (theta-function) series for small lambda where the alternating
 * series converges slowly.  Q(lambda <= 0) = 1. */
double mt_an_kolmogorov_q(double lambda);

/* ln(k!) without lgamma (glibc's lgamma writes the global signgam). */
double mt_an_ln_factorial(uint64_t k);

/* P(X >= k) for X ~ Binomial(n, p), summed in log space from the tail's
 * largest term, stable for n up to (at least) 1e6. */
double mt_an_binom_upper_tail(uint64_t n, uint64_t k, double p);

/* Number of elements of x[0..n) strictly above threshold. */
size_t mt_an_count_above(const double *x, size_t n, double threshold);

#endif

/* The per-set capacity map of a cache (probes/probe_setmap.c, docs/method.md
 * "Per-set capacity"): how many lines each set holds, from laps over k
 * lines of one set, and which sets hold fewer.  Pure functions.
 *
 * The test rests on a pigeonhole argument that needs no policy: a lap over
 * k lines of one set in which every load hits changes nothing in the cache,
 * so all k lines were resident at once, and the set holds at least k.  A
 * set that holds u < k lines misses at least once in every lap over k.  So
 * the usable ways of a set are the largest k with a miss-free lap; false
 * misses (timer spikes) can only hide a clean lap, never make one. */
#ifndef MT_ANALYSIS_SETMAP_H
#define MT_ANALYSIS_SETMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One set: clean[k - 1] = miss-free timed laps over k of its lines, k =
 * 1..kmax.  *usable = the largest k with a clean lap (0: none); returns
 * the number of k below it without one (0 for a consistent set: if k lines
 * fit, so do k - 1; more means false misses hid every lap of such a k). */
uint32_t mt_setmap_usable(const uint32_t *clean, uint32_t kmax, uint32_t *usable);

/* Whether the labels[0..n) (distinct, below 2^bits) are exactly one coset
 * x0 + V of a subspace V of GF(2)^bits.  If so, writes the equations that
 * define it: eq[i] (a mask of label bits) and rhs bit i of *rhs, i <
 * *n_eq = bits - dim V: label t is in it exactly when parity(t AND eq[i])
 * is rhs bit i for every i (the equations in reduced row echelon form). */
bool mt_setmap_coset(const uint64_t *labels, size_t n, unsigned bits, uint64_t *eq,
                     uint32_t *n_eq, uint64_t *rhs);

/* "b7=0 b8=0" or "b0^b3=1 b5=0": the equations of mt_setmap_coset as text
 * over the set-label bits ("all sets" for none). */
void mt_setmap_coset_text(const uint64_t *eq, uint32_t n_eq, uint64_t rhs, char *buf, size_t cap);

/* Whether the sorted labels[0..n) are consecutive (lo .. lo + n - 1). */
bool mt_setmap_consecutive(const uint64_t *labels, size_t n);

#endif

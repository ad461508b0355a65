/* Linear algebra over GF(2) for set-index hashes (issue 8).  A vector is a
 * uint64_t whose bit j is coordinate j (a line-address bit); a matrix is an
 * array of such rows.  A linear set index maps line address x to the
 * parities of x AND each row, so only the row space matters: two matrices
 * index the same partition of addresses into sets exactly when their row
 * spaces are equal (set labels are arbitrary). */
#ifndef MT_ANALYSIS_GF2_H
#define MT_ANALYSIS_GF2_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Brings rows[0..n) to reduced row echelon form in place and returns the
 * rank r.  Pivot of a row: its LOWEST set bit; afterwards rows[0..r) are
 * nonzero with strictly increasing pivots, no other row has a pivot's bit,
 * and rows[r..n) are zero.  The form is unique for a row space, so it is
 * the canonical way to print one (a hash whose mask i is bit i plus higher
 * bits is already in this form). */
size_t mt_gf2_rref(uint64_t *rows, size_t n);

/* Rank of rows[0..n) (not modified).  n <= 64. */
size_t mt_gf2_rank(const uint64_t *rows, size_t n);

/* Whether a[0..na) and b[0..nb) span the same space.  na, nb <= 64. */
bool mt_gf2_same_span(const uint64_t *a, size_t na, const uint64_t *b, size_t nb);

/* parity(x AND rows[i]) as bit i, i < n <= 64: the set label of x. */
uint64_t mt_gf2_apply(const uint64_t *rows, size_t n, uint64_t x);

/* For rows[0..r) in reduced row echelon form (mt_gf2_rref): the vector made
 * of the pivot bits of the rows whose bit is set in `label`; its label
 * (mt_gf2_apply) is `label`, because each pivot bit lies in its own row
 * only.  The smallest line of that set among those built from pivots. */
uint64_t mt_gf2_pivot_vector(const uint64_t *rows, size_t r, uint64_t label);

/* For rows[0..r) in reduced row echelon form: a basis of the vectors below
 * 2^bits (bits <= 64) whose label is 0 (the lines that XOR a line into
 * another of its set), one per bit below `bits` that is no row's pivot
 * (a free bit), in increasing order of that bit, which is each vector's
 * highest; writes them to out (room for `bits`) and returns their count. */
size_t mt_gf2_null_basis(const uint64_t *rows, size_t r, unsigned bits, uint64_t *out);

#endif

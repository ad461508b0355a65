/* Set-index XOR masks of a cache over a span of line bits, from one
 * eviction set and eviction tests (issue 8 part 2; docs/method.md, "L2
 * set-index masks over the whole partition").
 *
 * Model: line x goes to set M x, M a linear map over GF(2) of the line
 * bits tested.  E holds W lines of the target t's set s, E' = E and t.
 * For a vector v and a level j, the pool "E XOR v, to blocks of 2^j" is
 * the union over x in E' of the aligned block of 2^j lines holding
 * x XOR v, without t.  For every u below 2^j with M (v XOR u) = 0 it
 * holds the W + 1 lines x XOR v XOR u of set s (at most one of them t,
 * left out: W remain); for no other u does it hold any line of s.  So
 * under LRU, FIFO and tree pseudo-LRU it evicts t exactly when the coset
 * v + span(bits below j) meets the kernel K of M: one question per test,
 * answered by an interval list of at most W + 2 intervals.
 *
 * The kernel, bit by bit from bit 0: with the pivots found so far (the
 * bits whose columns M e_p are new), bit b's column is new when
 * "e_b to blocks of 2^J" does not evict (J: one above the top pivot, the
 * bits below J span every column below b).  Otherwise a kernel vector
 * e_b + u (u below b) is found from the top pivot down: at pivot p the
 * test "f to blocks of 2^p" keeps u's bit p 0 when it evicts, else sets
 * it; bits that are no pivot stay 0 (they add no column).  The kernel
 * vectors found (one per bit that is no pivot) are a basis of K; the
 * masks are its orthogonal complement (the row space of M), reported in
 * reduced row echelon form (gf2.h), 2^rank sets.  About bits x (rank + 1)
 * tests, each pool at most W 2^(top pivot + 1) lines.
 *
 * Prediction: random kernel vectors v (E XOR v must evict t) and random
 * vectors outside it (E XOR v must not); any other outcome (an index that
 * is not linear over these bits, a decision a timer spike turned, a
 * policy beyond LRU, FIFO and pseudo-LRU) and nothing is claimed. */
#ifndef MT_EVICT_MASKS_H
#define MT_EVICT_MASKS_H

#include <stdbool.h>
#include <stdint.h>

#include "evict_reduce.h"

/* Most line bits (element indices of evict experiments are 32 bits). */
#define MT_EVICT_MASKS_MAX_BITS 32u

/* Does `pool` (lines of the block, each at most once) evict line `target`? */
typedef mt_err (*mt_evict_target_oracle)(void *ctx, uint64_t target, const mt_line_list *pool,
                                         bool *evicts);

typedef struct {
    bool verified;     /* masks measured and every prediction held */
    uint32_t bits;     /* line bits 0 .. bits-1 tested */
    uint32_t rank;     /* independent set-index bits: 2^rank sets */
    uint64_t masks[MT_EVICT_MASKS_MAX_BITS]; /* rows[0..rank), reduced row echelon form */
    uint32_t predictions; /* predictions tested (all held when verified) */
    uint64_t tests;       /* oracle calls */
    char why[200];        /* what stopped it, when not verified */
} mt_evict_masks;

/* Measures the masks over line bits 0..bits-1 (bits <= MT_EVICT_MASKS_MAX_BITS):
 * target and the W lines of its set in set_lines lie below 2^bits.  At
 * most max_tests oracle calls; `predictions` random predictions of each
 * kind (seed: their draw).  An index that the tests show is not linear, a
 * spent budget or a pool beyond the oracle's limits is a result with
 * verified false and why set, not an error; errors are the oracle's or
 * out of memory. */
mt_err mt_evict_masks_measure(uint64_t target, const uint64_t *set_lines, uint32_t ways,
                              uint32_t bits, uint64_t max_tests, uint32_t predictions,
                              uint64_t seed, mt_evict_target_oracle oracle, void *ctx,
                              mt_evict_masks *out);

#endif

/* The latency step between two chains that load the same elements (issue
 * 9: TLB levels).  Both are cyclic chains walked in element order from
 * element 0 (a sequential chase measured after whole warm-up laps), so
 * sample j of a chain of E elements is element j mod E, and the first
 * elements of a longer chain are the elements of a shorter one at the same
 * stride and offset.  Comparing each element with itself removes whatever
 * depends on where the element lives (near or far L2 partition, DRAM
 * bank): what is left is what the longer chain changed for every element,
 * e.g. a TLB level it overflows. */
#ifndef MT_ANALYSIS_PAIRED_SHIFT_H
#define MT_ANALYSIS_PAIRED_SHIFT_H

#include <stddef.h>
#include <stdint.h>

#include "../core/error.h"

/* Fewest paired differences a shift is computed from: below this the
 * median's standard error (from the MAD) is itself too rough to judge a
 * step by. */
#define MT_PAIRED_SHIFT_MIN_PAIRS 16u

/* The tails counted beside the median (tail_up, tail_down): pairs more
 * than this many cycles above or below their element's reference.  Twice
 * the TLB probe's smallest step (4 cycles): on the H100 the latency's own
 * spread puts 15% of the pairs beyond 4 cycles on each side but 1-3%
 * beyond 8 (the recording of 2026-11-23, tests/fixtures/h100-sxm5-2), while
 * every miss penalty the simulator allows (8 cycles and more) reaches it. */
#define MT_PAIRED_SHIFT_TAIL_CYCLES 8.0

typedef struct {
    double shift;    /* median over the pairs of (test sample - the element's reference median) */
    double se;       /* standard error of that median: 1.2533 x 1.4826 x MAD / sqrt(pairs) */
    double share_up; /* share of the pairs whose difference exceeds shift / 2 (0 when shift <= 0) */
    size_t pairs;    /* test samples whose element the reference also measured */
    double tail_up;   /* share of the pairs above +MT_PAIRED_SHIFT_TAIL_CYCLES */
    double tail_down; /* share of the pairs below -MT_PAIRED_SHIFT_TAIL_CYCLES */
    double tail_shift; /* median of the pairs above +MT_PAIRED_SHIFT_TAIL_CYCLES (0: none) */
} mt_paired_shift;

/* ref: nref samples of a chain of ref_elems elements; x: nx samples of a
 * chain of x_elems >= 1 elements.  Pairs each sample of x whose element is
 * below ref_elems and was measured by the reference with that element's
 * median reference sample.  MT_ERR_INVALID_ARG when fewer than
 * MT_PAIRED_SHIFT_MIN_PAIRS pairs result (or an element count is 0). */
mt_err mt_paired_shift_cyclic(const double *ref, size_t nref, uint64_t ref_elems, const double *x,
                              size_t nx, uint64_t x_elems, mt_paired_shift *out);

#endif

/* A chain of one element per page (the tlb and matrix probes): the page
 * (or a stride above it) plus the fewest lines, an odd number below
 * MT_PAGE_STRIDE_MAX_LINES, that make the stride's line count prime, so
 * that consecutive elements walk every set of a modulo-indexed cache
 * instead of piling into one (a prime line count shares no factor with a
 * set count). */
#ifndef MT_PAGE_STRIDE_H
#define MT_PAGE_STRIDE_H

#include <stdint.h>

/* Lines added at most: primes are far denser than one in 256 among the
 * line counts of strides up to 2^32 bytes. */
#define MT_PAGE_STRIDE_MAX_LINES 256u

uint64_t mt_page_stride(uint64_t base, uint32_t line);

#endif

/* Pointer-chase chains, built identically by every backend.
 *
 * Element k of a chain lives at byte address  offset + k * stride  inside the
 * path's buffer.  The 32-bit word stored there is the WORD index
 * ((offset + succ(k) * stride) / 4) of its successor, so a kernel chases with
 * j = a[j] starting at j = offset / 4.  succ is k+1 (wrapping) for
 * MT_ORDER_SEQUENTIAL and a single-cycle random permutation (Sattolo) for
 * MT_ORDER_RANDOM, seeded by the experiment's order_seed. */
#ifndef MT_CHAIN_H
#define MT_CHAIN_H

#include <stddef.h>
#include <stdint.h>

#include "backend.h"

/* Number of elements: footprint / stride (at least 1). */
uint64_t mt_chain_elements(const mt_chain *c);

/* succ[k] = element index following element k (n = mt_chain_elements(c)). */
mt_err mt_chain_successors(const mt_chain *c, mt_order order, uint32_t seed,
                           uint32_t *succ, uint64_t n, mt_errinfo *ei);

/* Byte address of element k. */
static inline uint64_t mt_chain_addr(const mt_chain *c, uint64_t k)
{
    return c->offset + k * (uint64_t)c->stride;
}

#endif

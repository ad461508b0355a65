#include "chain.h"

#include "../core/rng.h"

uint64_t mt_chain_elements(const mt_chain *c)
{
    if (c->stride == 0)
        return 1;
    uint64_t n = c->footprint / c->stride;
    return n ? n : 1;
}

mt_err mt_chain_successors(const mt_chain *c, mt_order order, uint32_t seed,
                           uint32_t *succ, uint64_t n, mt_errinfo *ei)
{
    if (n != mt_chain_elements(c) || n > UINT32_MAX)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "chain of %llu elements is too long",
                       (unsigned long long)n);
    if (order == MT_ORDER_SEQUENTIAL) {
        for (uint64_t k = 0; k < n; k++)
            succ[k] = (uint32_t)((k + 1) % n);
        return MT_OK;
    }
    /* Sattolo's algorithm gives a uniformly random single cycle, so the
     * chain visits every element once per lap. */
    uint32_t *perm = succ; /* perm[i] is the successor of i */
    for (uint64_t k = 0; k < n; k++)
        perm[k] = (uint32_t)k;
    mt_rng r = {.s = 0x6d656d746f706full ^ seed};
    for (uint64_t i = n - 1; i > 0; i--) {
        uint64_t j = mt_rng_below(&r, i);
        uint32_t t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    return MT_OK;
}

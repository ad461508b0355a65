#include "evict_model.h"

#include <stdlib.h>
#include <string.h>

#include "../backend/chain.h"

mt_err mt_sim_evict_members_of(mt_sim_evict_members *m, const mt_cache *c, const mt_chain *ch,
                               uint64_t space, uint32_t target, mt_errinfo *ei)
{
    uint64_t elements = mt_chain_elements(ch);
    if (m->members && m->cache == c && m->sets == c->sets && m->offset == ch->offset &&
        m->elements == elements && m->stride == ch->stride && m->space == space &&
        m->target == target)
        return MT_OK;
    mt_sim_evict_members_free(m);
    uint32_t home = mt_cache_set_of(c, mt_chain_addr(ch, target) | space);
    /* A first pass counts, so the list is allocated once at its size. */
    size_t n = 0;
    for (uint64_t k = 0; k < elements; k++)
        n += k != target && mt_cache_set_of(c, mt_chain_addr(ch, k) | space) == home;
    uint32_t *list = malloc((n ? n : 1) * sizeof *list);
    if (!list)
        return mt_fail(ei, MT_ERR_NOMEM, "out of memory for %zu lines of one set", n);
    size_t at = 0;
    for (uint64_t k = 0; k < elements && at < n; k++)
        if (k != target && mt_cache_set_of(c, mt_chain_addr(ch, k) | space) == home)
            list[at++] = (uint32_t)k;
    *m = (mt_sim_evict_members){.cache = c, .sets = c->sets, .offset = ch->offset,
                                .elements = elements, .space = space, .stride = ch->stride,
                                .target = target, .members = list, .n_members = n};
    return MT_OK;
}

size_t mt_sim_evict_first_member(const mt_sim_evict_members *m, uint64_t from)
{
    size_t lo = 0, hi = m->n_members;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->members[mid] < from)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void mt_sim_evict_members_free(mt_sim_evict_members *m)
{
    free(m->members);
    memset(m, 0, sizeof *m);
}

#include "evict_model.h"

#include <stdlib.h>
#include <string.h>

#include "../backend/chain.h"

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Whether element k is a member: in the target's set, not the target. */
static int member(const mt_cache *c, const mt_chain *ch, uint64_t space, uint32_t home,
                  uint32_t target, uint64_t k)
{
    return k != target && mt_cache_set_of(c, mt_chain_addr(ch, k) | space) == home;
}

mt_err mt_sim_evict_members_of(mt_sim_evict_members *m, const mt_cache *c, const mt_chain *ch,
                               uint64_t space, const mt_sequence *q, mt_errinfo *ei)
{
    uint64_t elements = mt_chain_elements(ch), pool = 0;
    uint32_t target = q->index[0];
    for (uint32_t k = 1; k + 1 < q->n; k += 2)
        pool += q->index[k + 1];
    int same = m->cache == c && m->sets == c->sets && m->offset == ch->offset &&
               m->elements == elements && m->stride == ch->stride && m->space == space &&
               m->target == target;
    if (same && m->members && m->whole)
        return MT_OK;
    uint64_t scanned = same ? m->pool_scanned : 0;
    mt_sim_evict_members_free(m);
    uint32_t home = mt_cache_set_of(c, mt_chain_addr(ch, target) | space);
    int whole = elements <= MT_SIM_EVICT_SCAN_RATIO * pool || scanned + pool > elements;
    /* A first pass counts, so the list is allocated once at its size. */
    size_t n = 0;
    if (whole)
        for (uint64_t k = 0; k < elements; k++)
            n += member(c, ch, space, home, target, k);
    else
        for (uint32_t i = 1; i + 1 < q->n; i += 2)
            for (uint64_t k = q->index[i]; k < (uint64_t)q->index[i] + q->index[i + 1]; k++)
                n += member(c, ch, space, home, target, k);
    uint32_t *list = malloc((n ? n : 1) * sizeof *list);
    if (!list)
        return mt_fail(ei, MT_ERR_NOMEM, "out of memory for %zu lines of one set", n);
    size_t at = 0;
    if (whole) {
        for (uint64_t k = 0; k < elements && at < n; k++)
            if (member(c, ch, space, home, target, k))
                list[at++] = (uint32_t)k;
    } else {
        for (uint32_t i = 1; i + 1 < q->n; i += 2)
            for (uint64_t k = q->index[i]; k < (uint64_t)q->index[i] + q->index[i + 1] && at < n;
                 k++)
                if (member(c, ch, space, home, target, k))
                    list[at++] = (uint32_t)k;
        qsort(list, at, sizeof *list, cmp_u32); /* the tests look members up by address */
    }
    /* Members of one pool are kept for that experiment only. */
    *m = (mt_sim_evict_members){.cache = c, .sets = c->sets, .offset = ch->offset,
                                .elements = elements, .space = space, .stride = ch->stride,
                                .target = target, .members = list, .n_members = at,
                                .whole = whole, .pool_scanned = scanned + (whole ? 0 : pool)};
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

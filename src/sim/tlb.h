/* One simulated TLB level: a fully associative, LRU set of page numbers
 * (docs/spec-format.md, "TLB levels").  A hash table finds a page in O(1)
 * and a doubly linked list keeps the recency order, so a level of 65,536
 * entries costs the same per load as one of 16.  A set-associative level
 * (mt_tlb_init_sets with fewer ways than entries) keeps its sets of a few
 * ways as plain arrays with an LRU age per way instead: the set is the
 * page number modulo the sets. */
#ifndef MT_SIM_TLB_H
#define MT_SIM_TLB_H

#include <stdint.h>

#include "../core/error.h"

typedef struct {
    uint32_t entries;  /* capacity */
    uint32_t used;     /* entries holding a page */
    uint64_t *page;    /* per entry */
    uint32_t *prev, *next; /* recency list over entries; head = most recent */
    uint32_t head, tail;
    uint32_t *slot;    /* hash table: entry + 1, 0 = empty; size mask + 1 */
    uint32_t mask;
    /* Set-associative levels only (sets > 1): page + 1 per way (0 =
     * empty) and the load count of its last use, sets x ways of each. */
    uint32_t sets, ways;
    uint64_t *way_page, *way_used;
    uint64_t clock;
} mt_tlb;

mt_err mt_tlb_init(mt_tlb *t, uint32_t entries, mt_errinfo *ei);
/* A level of entries / ways sets of `ways` ways (ways dividing entries;
 * ways == entries is mt_tlb_init). */
mt_err mt_tlb_init_sets(mt_tlb *t, uint32_t entries, uint32_t ways, mt_errinfo *ei);
void mt_tlb_free(mt_tlb *t);
/* Empties the level. */
void mt_tlb_reset(mt_tlb *t);
/* Looks page up: 1 on a hit (it becomes the most recent), 0 on a miss (it
 * is entered, evicting the least recently used page when full). */
int mt_tlb_access(mt_tlb *t, uint64_t page);

#endif

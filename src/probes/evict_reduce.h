/* Eviction-set reduction by group testing over a list of line intervals
 * (Vila, Koepf and Morales, "Theory and practice of finding eviction
 * sets", 2019; docs/method.md, "L2 eviction sets beyond 2 MiB").
 *
 * The list is lines of one contiguous block, held as ascending disjoint
 * intervals of element indices.  An oracle says whether a list evicts the
 * target (an MT_KIND_EVICT experiment, or a cache model).  The reduction
 * splits the list into g groups of consecutive positions and keeps the
 * first list without one group that still evicts; when no group can go,
 * it doubles g (the ways are not known: with g > W groups one group
 * always holds none of the W lines needed); when no single line can go
 * it stops.  Under LRU, FIFO and tree pseudo-LRU the list then is W lines
 * of the target's set.  Removing a group of consecutive positions adds at
 * most one interval, so a list stays within a few intervals per drop. */
#ifndef MT_EVICT_REDUCE_H
#define MT_EVICT_REDUCE_H

#include <stdbool.h>
#include <stdint.h>

#include "../core/error.h"

typedef struct {
    uint32_t first, count;
} mt_line_interval;

typedef struct {
    mt_line_interval *iv; /* capacity: cap intervals */
    uint32_t n, cap;
    uint64_t lines;       /* sum of the counts */
} mt_line_list;

/* Does `list` evict the target?  *evicts receives the decision. */
typedef mt_err (*mt_evict_oracle)(void *ctx, const mt_line_list *list, bool *evicts);

typedef struct {
    uint64_t tests;      /* oracle calls */
    bool budget_spent;   /* stopped at max_tests, the list not reduced */
    bool too_fragmented; /* a candidate needed more than cap intervals */
} mt_evict_reduce_stats;

/* out = in without the lines at positions [lo, hi) of the list (positions
 * count lines in list order); out->cap must be at least in->n + 1.
 * Returns false when out would need more than out->cap intervals. */
bool mt_line_list_remove(const mt_line_list *in, uint64_t lo, uint64_t hi, mt_line_list *out);

/* Reduces *list in place (scratch: a second list of the same cap) with at
 * most max_tests oracle calls (0: no limit). */
mt_err mt_evict_reduce(mt_line_list *list, mt_line_list *scratch, uint64_t max_tests,
                       mt_evict_oracle oracle, void *ctx, mt_evict_reduce_stats *st);

#endif

/* The simulator's shortcut for MT_KIND_EVICT (backend.h; docs/method.md,
 * "L2 eviction sets beyond 2 MiB"): which lines of an experiment's block
 * share the target's set in one L2 partition.
 *
 * The model of an evict test is: the target loaded, then every pool line
 * once in address order, then the target timed.  Sets of the sim's cache
 * keep their state apart (a line only ever touches its own set), so the
 * pool's lines outside the target's set cannot change whether the target
 * stays: loading only the members of its set, in the same order, gives the
 * same outcome with the same random draws' distribution.  The members of
 * the whole block are found once (one set computation per line) and kept
 * for the next experiment on the same block, target and cache, so a test
 * costs its intervals' binary searches and its members' loads, not the
 * pool's lines.  A pool that is a small part of a large block (at most
 * 1 / MT_SIM_EVICT_SCAN_RATIO of its lines: the set-index masks' tests,
 * a few blocks of lines spread over gigabytes) has its own lines scanned
 * instead, for that experiment only, until the lines so scanned on one
 * block and target would pass the block's: then the block is scanned
 * once and kept (at most twice the cheaper of the two ways). */
#ifndef MT_SIM_EVICT_MODEL_H
#define MT_SIM_EVICT_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "../backend/backend.h"
#include "cache.h"

typedef struct {
    const mt_cache *cache; /* the partition the members were found in */
    uint32_t sets;
    uint64_t offset, elements, space;
    uint32_t stride, target;
    uint32_t *members; /* element indices (target excluded), ascending */
    size_t n_members;
    int whole;             /* members of the whole block (kept), or of one pool's lines */
    uint64_t pool_scanned; /* lines scanned pool by pool on this block and target */
} mt_sim_evict_members;

/* A block this many times the pool's lines or more is not scanned whole:
 * scanning it costs more than the pool's own lines would in most of the
 * tests that could reuse it (the search's pools start at the whole block,
 * and reuse it; the masks' tests have pools of a thousandth of theirs). */
#define MT_SIM_EVICT_SCAN_RATIO 8u

/* The members of the target's set among chain ch's elements (addresses
 * tagged with `space`) in cache c: kept from the last call when it asked
 * the same, found again otherwise; among the pool's lines only (evict
 * experiment q: its intervals) when the block is MT_SIM_EVICT_SCAN_RATIO
 * times the pool or more and the pools scanned so far on it stay below
 * its lines. */
mt_err mt_sim_evict_members_of(mt_sim_evict_members *m, const mt_cache *c, const mt_chain *ch,
                               uint64_t space, const mt_sequence *q, mt_errinfo *ei);

/* The first member at or after element `from` (n_members when none). */
size_t mt_sim_evict_first_member(const mt_sim_evict_members *m, uint64_t from);

void mt_sim_evict_members_free(mt_sim_evict_members *m);

#endif

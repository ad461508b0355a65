/* One set-associative cache (one slice of one physical cache) with
 * sectored lines: a tag per line, a valid bit per sector.
 *
 * Per way the model keeps a line address, a replacement stamp and a sector
 * bitmask packed in 16 bytes, a set's ways side by side, so
 * the H100's 409,600-line L2 costs 6.5 MB and a lookup touches one short
 * run of memory.  Resetting is O(1): each set carries the epoch it was last
 * cleared in, and a set from an older epoch is cleared when first touched. */
#ifndef MT_SIM_CACHE_H
#define MT_SIM_CACHE_H

#include <stdint.h>

#include "../core/error.h"
#include "../core/rng.h"
#include "spec.h"

typedef struct {
    uint64_t tag;    /* line address */
    uint32_t stamp;  /* LRU: last access; FIFO: fill time (per-experiment clock); 0 = empty */
    uint32_t valid;  /* sector bits */
} mt_cache_way;

typedef struct {
    uint32_t sets, ways;        /* ways: the tag array's, per set */
    /* carveout_takes = ways (mt_sim_set_ways): every set has lost_all ways
     * to shared memory, and sets labelled short_from or above one more. */
    uint32_t lost_all, short_from;
    uint32_t line_shift, sector_shift;
    uint32_t sector_idx_mask;   /* sectors per line - 1 */
    uint32_t fill_sectors;      /* sectors fetched together on a miss */
    mt_sim_index index;
    uint32_t index_bits;        /* ceil(log2(sets)) */
    uint64_t index_mask[MT_SIM_MAX_INDEX_BITS]; /* index = hash: one per set-index bit */
    int sets_pow2;
    uint64_t sets_magic;        /* 2^64 / sets rounded up: division by multiplication */
    mt_sim_repl repl;
    uint32_t fermi_way;
    mt_cache_way *way;          /* sets * ways */
    uint8_t *plru;              /* plru only: per set `ways` bytes, tree node k (1..ways-1,
                                   heap order) at [k]: 0 = the victim is on the left */
    uint32_t *set_epoch;        /* per set */
    uint32_t epoch;
    uint32_t clock;
} mt_cache;

/* Geometry, index function and policy from the spec; arrays allocated. */
mt_err mt_cache_init(mt_cache *c, const mt_sim_cache_spec *cs, mt_errinfo *ei);
void mt_cache_free(mt_cache *c);

/* Empties the cache (O(1)). */
void mt_cache_reset(mt_cache *c);

/* Set that the line holding addr maps to. */
uint32_t mt_cache_set_of(const mt_cache *c, uint64_t addr);

/* Accesses the sector holding addr.  Returns 1 on a hit (line present and
 * sector valid), 0 on a miss; a miss allocates the line if absent (filling
 * an empty way first, else evicting by policy; random and fermi draw from
 * rng) and marks the fill block holding the sector valid.  Every access
 * updates the replacement state (LRU recency; the pseudo-LRU tree; FIFO
 * only changes on fills).
 * way_out (optional) receives the way hit or filled. */
int mt_cache_access(mt_cache *c, uint64_t addr, mt_rng *rng, int *way_out);

#endif

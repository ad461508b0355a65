/* Ground truth of a sim spec in the terms of the topology, and the
 * acceptance tolerances of issue 2, shared by the end-to-end tests. */
#ifndef MT_E2E_TRUTH_H
#define MT_E2E_TRUTH_H

#include <stdbool.h>
#include <stdint.h>

#include "backend/backend.h"
#include "probes/probe_internal.h"
#include "topology/topology.h"
#include "sim/spec.h"

typedef struct {
    bool present;
    const mt_sim_cache_spec *cs; /* physical cache serving it */
    uint64_t size;
    uint32_t line, sector;       /* sector = what is observable: max(sector, fill) */
    double latency;
    bool lru_modulo;             /* size must be within one line; else 3% or a range */
    uint32_t slices;
} mt_truth_cache;

/* Fills truth[MT_CACHE_COUNT] from a spec; shared[i] = bitmask of caches
 * served by the same physical cache as i. */
void mt_truth_from_spec(const mt_sim_spec *s, mt_truth_cache *truth, uint32_t *shared);

/* How strictly findings are compared with the truth.
 *
 * MT_TRUTH_EXACT (the presets): every finding the spec determines must be a
 * value within its tolerance (sizes: one line for LRU with modulo indexing,
 * else 3% or a range holding the truth; latencies 2 cycles; miss penalties
 * max(4 cycles, 5%); sector, line, slices exact), or the bound/range named.
 *
 * MT_TRUTH_CONTRACT (issue 7, "never confidently wrong": spec files and the
 * randomized test): a finding passes when it is right within the same
 * tolerance, OR it is a range / lower bound that holds the truth, OR its
 * confidence is below MT_TRUTH_TRUSTED (the report flags it), OR it was not
 * reported at all (no claim).  A finding with confidence >= MT_TRUTH_TRUSTED
 * that is wrong fails; so does a claim that a cache, a far partition or a
 * partitioning is absent when it exists (or present when it does not). */
typedef enum { MT_TRUTH_EXACT, MT_TRUTH_CONTRACT } mt_truth_mode;
#define MT_TRUTH_TRUSTED 0.5

/* Checks a topology against the truth; returns the number of mismatches and
 * appends one line per mismatch to msg (NUL-terminated, cap bytes). */
int mt_truth_check_mode(const mt_sim_spec *s, const mt_topology *t, mt_truth_mode mode, char *msg,
                        size_t cap);
/* mt_truth_check_mode with MT_TRUTH_EXACT. */
int mt_truth_check(const mt_sim_spec *s, const mt_topology *t, char *msg, size_t cap);
/* A set-associative first TLB level read exactly: entries, page and ways
 * values trusted and exact, the group exact where reported (e2e_truth_tlb.c;
 * for specs whose sets' span a chain's stride reaches). */
int mt_truth_tlb_first_exact(const mt_sim_spec *s, const mt_topology *t, char *msg, size_t cap);

#endif

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

/* Checks a topology against the truth; returns the number of mismatches and
 * appends one line per mismatch to msg (NUL-terminated, cap bytes). */
int mt_truth_check(const mt_sim_spec *s, const mt_topology *t, char *msg, size_t cap);

#endif

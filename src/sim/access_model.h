/* The simulator's model of one warp's global load (docs/spec-format.md,
 * "Global access granularity"; MT_KIND_ACCESS): a warm request served by
 * the first cache of its path costs that cache's latency, plus a fixed
 * number of cycles for every sector and every line of that cache it
 * touches beyond the first.  Pure; the engine adds the
 * noise and the end-to-end truth (tests/e2e_truth_access.c) uses the same
 * functions to say what the probe must find. */
#ifndef MT_SIM_ACCESS_MODEL_H
#define MT_SIM_ACCESS_MODEL_H

#include <stdint.h>

#include "../backend/backend.h"
#include "banks.h"

/* [access] keys: cycles each sector and each line a request touches
 * beyond the first add, per path (ca: ld.global.ca, cg: ld.global.cg). */
typedef struct {
    int present; /* an [access] section was given */
    double sector_cycles[2], line_cycles[2]; /* [0] ca, [1] cg */
    /* What one pass of a request is: a line of the path's first cache
     * (0), or a bank wavefront of [shared]'s banks (1: the L1 sharing its
     * array with shared memory); line_cycles is then the cost per extra
     * wavefront. */
    int bank_passes[2];
    /* Tag lookups: every group of tag_group distinct lines a request
     * touches beyond the first costs tag_cycles (a tag stage resolving
     * tag_group lines a cycle; the H100's L1: 4 lines, 1 cycle). */
    double tag_cycles[2];
    uint32_t tag_group[2];
    /* A request by fewer than MT_SIM_ACCESS_WARP threads (the others
     * predicated off) costs this more. */
    double partial_cycles[2];
} mt_sim_access_spec;

/* Largest tag group: the access probe's MT_ACCESS_MAX_GROUP, which it
 * tells apart with its patterns of 5 and 9 lines. */
#define MT_SIM_MAX_ACCESS_GROUP 8u
/* Threads of a full warp for the partial-warp cost: the access probe's
 * patterns are of at most 32 threads whatever the spec's warp_size. */
#define MT_SIM_ACCESS_WARP 32u

/* Limits of the format: 0 (free), or from MT_SIM_MIN_ACCESS_CYCLES (a
 * cost the access probe can tell from none: twice its
 * MT_ACCESS_MIN_COST_CYCLES) up to a bank conflict's largest cost. */
#define MT_SIM_MIN_ACCESS_CYCLES 1.0
#define MT_SIM_MAX_ACCESS_CYCLES 64.0

/* Distinct `unit`-byte blocks (unit a power of two) holding the 4-byte
 * words the pattern's threads read (byte 4 x word_index[t], from an
 * aligned base). */
uint32_t mt_sim_access_units(const mt_banks *x, uint32_t unit);

/* Passes of one request of pattern x: the lines of `line` bytes it
 * touches, or its bank wavefronts on banks b (bank_passes). */
uint32_t mt_sim_access_passes(const mt_sim_access_spec *a, int cg, const mt_sim_bank_spec *b,
                              const mt_banks *x, uint32_t line);

/* Cycles one request of pattern x adds over a request of one sector, one
 * pass and one tag group by a full warp, on a path whose first cache has
 * `sector` and `line` bytes. */
double mt_sim_access_extra(const mt_sim_access_spec *a, int cg, const mt_sim_bank_spec *b,
                           const mt_banks *x, uint32_t sector, uint32_t line);

#endif

/* The L1 data cache's miss profile above its capacity (probe_l1_profile.c):
 * the footprints and chains the probe runs and how one footprint's samples
 * become a miss share and a miss map.  Shared with the end-to-end truth
 * (tests/e2e_truth.c), which runs the same chains on a noise-free
 * simulation of the spec: one copy of the plan. */
#ifndef MT_PROBES_L1_PROFILE_H
#define MT_PROBES_L1_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "probe_internal.h"

/* A miss share at least this is the full thrash: "nearly every load
 * misses" (LRU or FIFO thrash at 1.0; timer spikes only add misses).  Here
 * because the end-to-end truth judges the thrash footprint by it. */
#define PROFILE_THRASH_SHARE 0.9
/* Largest group of lines the granule test tries (8 KiB of 128 B lines: far
 * above any sector or line group of an NVIDIA L1); the truth tries the same. */
#define PROFILE_GRANULE_MAX_LINES 64u
/* Misses come in groups of g lines when at least this share of the
 * footprints with some lines missing lose only whole aligned groups of g.
 * Not all: on the H100 (single laps, tests/fixtures/h100-sxm5-2/l1profile)
 * 42 of 46 such footprints lose whole groups of 4 lines, the other 4 (at
 * the start of the rise) single lines too.  3/4: with a modulo index and an
 * odd step, runs of overflowing sets split pairs at every other footprint
 * (1/2 whole), which must read as single lines. */
#define PROFILE_GRANULE_MIN_SHARE 0.75

typedef struct {
    uint64_t first;  /* bytes: the measured size in whole lines (the first footprint) */
    uint64_t step;   /* bytes: an odd number of lines */
    size_t n;        /* footprints first + i x step, i < n */
    uint32_t line;   /* the chains' stride: the measured line */
    uint32_t runs;   /* experiments per footprint */
} mt_l1_profile_plan;

/* The first footprint the profile starts from: the measured size (a value,
 * or the low end of a range: the profile then shows where misses start
 * too); 0 when there is none (a bound, not measured). */
uint64_t mt_l1_profile_base(const mt_finding *size);

/* The footprints for a cache of `size` bytes in `line`-byte lines on c's
 * device; false (why says so, one line) when there is nothing to profile
 * (fewer than two footprints fit the path, or one lap of the first does
 * not fit the backend's fine-grained limit). */
bool mt_l1_profile_plan_make(const mt_probe_ctx *c, uint64_t size, uint32_t line,
                             mt_l1_profile_plan *p, char *why, size_t whylen);

/* Footprint i of the plan, bytes. */
uint64_t mt_l1_profile_footprint(const mt_l1_profile_plan *p, size_t i);

/* The experiments of the plan, footprint-major (footprint i, run k at
 * index i x runs + k): sequential chains at the line stride, warm-up laps,
 * then whole timed laps.  e holds n x runs entries. */
void mt_l1_profile_experiments(const mt_probe_ctx *c, const mt_l1_profile_plan *p,
                               mt_experiment *e);

/* One footprint from its runs' results r[0..runs-1]: *share = misses of all
 * timed loads (fine samples above thr, mt_count_misses); miss[k] = 1 when
 * line k missed in every timed lap of every run (a timer spike misses one
 * lap; a line the cache does not keep misses in all of them). */
void mt_l1_profile_tally(const mt_probe_ctx *c, const mt_result *r, uint32_t runs, uint32_t lines,
                         double thr, double *share, uint8_t *miss);

#endif

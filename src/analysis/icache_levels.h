/* Instruction-cache levels from cycles per instruction against code size
 * (issue 10 part 5; docs/method.md, "Instruction caches").  Pure: the
 * probe (probe_icache.c) measures, this splits the curve into plateaus. */
#ifndef MT_ANALYSIS_ICACHE_LEVELS_H
#define MT_ANALYSIS_ICACHE_LEVELS_H

#include <stddef.h>
#include <stdint.h>

#include "../core/error.h"

#define MT_ICACHE_MAX_POINTS 32
#define MT_ICACHE_MAX_LEVELS 8

/* One code size of the sweep: the median cycles per instruction of its
 * timed laps and that median's standard error. */
typedef struct {
    uint32_t code_bytes;
    double cpi, se;
} mt_icache_point;

/* A plateau: points first..last (indices into the sweep), served by one
 * level; its cycles per instruction the median of theirs.  step_z: how
 * many standard errors the step into the NEXT plateau is (0 for the
 * last). */
typedef struct {
    size_t first, last;
    double cpi;
    double step, step_z;
} mt_icache_level;

/* Splits points (code_bytes ascending, n <= MT_ICACHE_MAX_POINTS) at every
 * rise of at least min_step cycles per instruction that is also at least z
 * standard errors of the difference: each rise is code no longer held by
 * a level.  A fall, or a rise too small, stays within a plateau.
 * MT_ERR_INVALID_ARG for n == 0, too many points or sizes not ascending. */
mt_err mt_icache_levels(const mt_icache_point *p, size_t n, double min_step, double z,
                        mt_icache_level *out, size_t *n_out);

#endif

/* The stride-conflict geometry search (probe_geometry.c) for any cache a
 * probe can reach: what it needs to know of the cache, and the call that
 * measures it and sets its "<key>.ways", "<key>.sets" and "<key>.index"
 * findings (and "<key>.index_masks" for a recovered XOR hash).  Used by the L1 data probe (probe_geometry.c) and by the probe
 * of the other first-level caches (probe_cache_geometry.c). */
#ifndef MT_GEOMETRY_H
#define MT_GEOMETRY_H

#include "probe_internal.h"

typedef struct {
    const char *key;      /* object key ("l1d", "const_l1"): the findings' owner */
    const char *name;     /* for progress ("L1 Data") */
    mt_path path;         /* the loads that reach the cache */
    uint32_t line;        /* bytes: strides are counted in lines */
    /* The measured size in bytes (a value: lo == hi).  It only bounds the
     * searches (hi) and is cross-checked against sets x ways x line. */
    double size_lo, size_hi;
    double size_confidence; /* the size finding's: the sets' bound rests on it */
    double hit_threshold; /* fine cycles (overhead removed) above which a load missed it */
    double confidence;    /* of an exact (modulo) result: the line's */
    /* Most loads the stride search may issue (0: no limit).  Once they are
     * spent, no further round, prediction or hash recovery runs: what is
     * left open is reported as a range, with the reason (the L2). */
    uint64_t budget_loads;
    /* Most lines the hash recovery may start from (0: no limit): its group
     * tests cost about the square of them in lines (the L2, whose fewest
     * overflowing lines can be thousands). */
    uint64_t hash_max_start;
    /* Longest chain the stride search times (0: the backend's fine-sample
     * limit); a stride holding more is capped (a lower bound). */
    uint64_t max_chain;
} mt_geometry_target;

/* The target for cache `id` from what earlier probes found (its size, line
 * and hit threshold); false when they leave nothing to count strides in
 * (no line value, no size value or range, no hit threshold). */
bool mt_geometry_target_of(const mt_probe_ctx *c, mt_cache_id id, mt_geometry_target *t);

/* Measures the target's capacity at strides of 1, 2^j and 2^j + 1 lines,
 * checks a modulo fit by random predictions, recovers an XOR hash where
 * it is not modulo (geometry_hash.h), and sets its ways, sets, index and
 * index_masks findings. */
mt_err mt_geometry_measure(mt_probe_ctx *c, const mt_geometry_target *t);

/* Whether the geometry probes (geometry, cache_geom) and the policy probe
 * that stands on them run: always in the default run; with --only, when
 * --geometry asks (mt_probe_desc.requested). */
bool mt_geometry_requested(const mt_probe_options *o);

#endif

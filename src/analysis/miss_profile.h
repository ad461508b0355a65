/* A cache's miss profile between its capacity and the full thrash (the L1
 * profile probe, probe_l1_profile.c, and its truth in tests/e2e_truth.c):
 * the steps of a miss-share curve over growing footprints, and the aligned
 * groups of lines that misses come in.  Pure functions over numbers. */
#ifndef MT_ANALYSIS_MISS_PROFILE_H
#define MT_ANALYSIS_MISS_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
    MT_STEP_FLAT = 0, /* a plateau: the share stays within the spread */
    MT_STEP_RISE,     /* points between plateaus, ending higher than they began */
    MT_STEP_FALL      /* ... ending lower */
} mt_step_kind;

typedef struct {
    mt_step_kind kind;
    size_t first, last; /* point indices, inclusive */
} mt_profile_step;

/* Splits y[0..n-1] (a miss curve over growing footprints, one point per
 * footprint) into steps: from the left, the longest run whose values span
 * at most `spread` is a FLAT when it has at least min_points points and its
 * least-squares slope is at most max_slope per point in size (a slow steady
 * rise spans little over a few points, yet is no plateau); a point that
 * starts no flat joins the RISE or FALL between two flats (by its last
 * value against the value before its first, 0 before the first point).
 * out must hold n steps; returns how many were written. */
size_t mt_profile_steps(const double *y, size_t n, double spread, double max_slope,
                        size_t min_points, mt_profile_step *out);

/* What one footprint's misses say about aligned groups: miss[k] is 1 when
 * line k (of `lines`, k-th line of the chain from its start) missed. */
typedef struct {
    const uint8_t *miss;
    uint32_t lines;
} mt_miss_map;

typedef struct {
    uint32_t group;       /* largest power-of-two group (lines) the misses come in */
    size_t partial;       /* footprints with some but not all lines missed */
    size_t whole;         /* of those, footprints whose misses are whole groups of `group` */
    size_t miss_groups;   /* groups of `group` lines missed at those footprints */
    size_t split_next;    /* partial footprints that split groups of 2 x group lines */
    /* log10 of the chance that independent per-line misses (each footprint
     * at its own miss share) put every missed line's group-mates among the
     * misses too, over the `whole` footprints; 0 for group == 1. */
    double log10_chance;
} mt_granule;

/* The largest power of two g <= max_lines such that at no fewer than
 * min_share of the footprints with some but not all lines missed, every
 * aligned group of g lines (lines [i g, (i + 1) g) from the chain's start;
 * a last, shorter group too) is all missed or all hit: the granule misses
 * come in.  A share, not every footprint: on the H100 a few footprints of
 * the rise also lose single lines.  g = 1 when there is no partial
 * footprint (out->partial == 0 then says there is no evidence). */
void mt_miss_granule(const mt_miss_map *maps, size_t n, uint32_t max_lines, double min_share,
                     mt_granule *out);

#endif

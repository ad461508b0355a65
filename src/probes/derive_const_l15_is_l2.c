/* A "constant L1.5" whose latency is the L2's is the L2 itself: the GPU has
 * one constant cache level, and loads that miss the constant L1 go to the
 * L2.  Compared with the L2's mean latency over its partitions (what an
 * aggregate chase from the constant path pays too).  Tolerance: the class
 * gap, or CONST_L15_IS_L2_TOLERANCE of the L2 latency when that is larger
 * (the constant path may add a few cycles on its way to the L2). */
#include <math.h>
#include <stdio.h>

#include "derive.h"

#define CONST_L15_IS_L2_TOLERANCE 0.05
/* A "constant L1.5" this many times slower than the L2's slowest hit
 * latency (+ tolerance) is no cache between the L1 and the L2: memory.  1.2
 * leaves room for a slower constant path yet lies well below DRAM (at
 * least 100 cycles beyond the L2 on every GPU we know, over 1.5x). */
#define MAX_L2_FACTOR 1.2

/* The ends a latency finding allows: a value's own, a range's bounds
 * (the L2 probe reports its near class as a range where the two classes
 * overlap: unseen seed 872); false for any other kind. */
static bool latency_ends(const mt_finding *f, double *lo, double *hi)
{
    if (!f || (f->kind != MT_FIND_VALUE && f->kind != MT_FIND_RANGE))
        return false;
    *lo = f->kind == MT_FIND_VALUE ? f->value : f->lo;
    *hi = f->kind == MT_FIND_VALUE ? f->value : f->hi;
    return true;
}

static mt_err derive(mt_topology *t, mt_errinfo *ei)
{
    const mt_finding *lat = mt_topology_get(t, "const_l15", "latency");
    const mt_finding *l2 = mt_topology_get(t, "l2", "mean_latency");
    if (lat->kind != MT_FIND_VALUE || l2->kind != MT_FIND_VALUE || !(l2->value > 0))
        return MT_OK;
    /* The list holds every threshold with room to spare (MT_MAX_THRESHOLDS):
     * one beyond it would be dropped, as a probe's is, not fatal. */
    (void)mt_topology_note_threshold(
        t, "CONST_L15_IS_L2_TOLERANCE", CONST_L15_IS_L2_TOLERANCE,
        "constant L1.5 latency within this share (or the class gap) of the L2's: no L1.5");
    (void)mt_topology_note_threshold(
        t, "MAX_L2_FACTOR", MAX_L2_FACTOR,
        "constant L1.5 latency over this times the L2's slowest hit: memory, L1.5 unknown");
    double tol = fmax(MT_MIN_CLASS_GAP_CYCLES, CONST_L15_IS_L2_TOLERANCE * l2->value);
    /* With partitions the L1.5 latency (a median of misses) may fall on the
     * near or the far class, or between them: all are L2 hits. */
    const mt_finding *near = mt_topology_get(t, "l2", "latency");
    const mt_finding *far = mt_topology_get(t, "l2", "far_latency");
    double lo = l2->value - tol, hi = l2->value + tol;
    /* A far class the L2 probe doubts still may be the L2's: a latency
     * that only it explains makes the L1.5 doubtful, not absent for sure. */
    bool far_doubted = false;
    double near_lo, near_hi, far_lo, far_hi;
    if (latency_ends(near, &near_lo, &near_hi) && latency_ends(far, &far_lo, &far_hi)) {
        double wide_lo = fmin(lo, near_lo - tol), wide_hi = fmax(hi, far_hi + tol);
        if (far->confidence >= MT_CONF_INCONSISTENT + 0.01) {
            lo = wide_lo;
            hi = wide_hi;
        } else if (!(lat->value >= lo && lat->value <= hi) && lat->value >= wide_lo &&
                   lat->value <= wide_hi) {
            far_doubted = true;
            lo = wide_lo;
            hi = wide_hi;
        }
    }
    /* Slower than every L2 hit: the chain of 3x the constant L1 left the L2
     * as well (an L2 partition smaller than that chain), so what was timed
     * is memory, and whether an L1.5 exists is not known.  Said so, below
     * the confidence users trust. */
    /* Between the L2's slowest hit and MAX_L2_FACTOR times it, the loads
     * paid either a slower constant path to the L2 or part of the way to
     * memory; neither is a cache faster than the L2, so no L1.5 was seen
     * there either (unseen seed w1506: an L2 of 8 KiB partitions behind an
     * 11.4 KiB constant L1 read as an L1.5 "> 64 KiB" at the DRAM's 551
     * cycles, 1.19x the L2's far class, with confidence 1). */
    bool beyond = lat->value > hi;
    bool memory = lat->value >= MAX_L2_FACTOR * hi;
    if (lat->value < lo)
        return MT_OK;
    double l15 = lat->value, l2lat = l2->value;
    mt_object *o = mt_topology_object(t, "const_l15");
    static const char *const measured[] = {"line", "sector", "latency", "miss_penalty", "per_sm"};
    for (size_t i = 0; i < sizeof measured / sizeof *measured; i++)
        mt_object_remove(o, measured[i]);
    mt_finding f = mt_derived_value(0, "", "pchase-aggregate vs L2",
                                    beyond || far_doubted ? MT_CONF_INCONSISTENT
                                                          : MT_CONF_ABSENT_BY_LATENCY);
    f.kind = MT_FIND_ABSENT;
    f.value = f.lo = f.hi = 0;
    if (memory)
        snprintf(f.note, sizeof f.note,
                 "loads missing the constant L1 take %.1f cycles, over %g x the L2's slowest hit "
                 "latency (%.1f): they went to memory, so no constant L1.5 was seen, but one "
                 "could hide behind that", l15, MAX_L2_FACTOR, hi);
    else if (beyond)
        snprintf(f.note, sizeof f.note,
                 "loads missing the constant L1 take %.1f cycles, over the L2's slowest hit "
                 "latency (%.1f) but under %g x it: a slower constant path to the L2, or memory; "
                 "no constant L1.5 was seen, but one could hide behind that", l15, hi,
                 MAX_L2_FACTOR);
    else
        snprintf(f.note, sizeof f.note,
                 "loads missing the constant L1 take %.1f cycles, within the L2's hit latencies "
                 "(mean %.1f, near and far classes, +- %.1f): no constant L1.5%s", l15, l2lat, tol,
                 far_doubted ? " (only the far class, itself uncertain, says so)" : "");
    return mt_derive_set(t, "const_l15", "size", "size", &f, ei);
}

static const mt_finding_decl provides[] = {{"const_l15.size", "size"}, {NULL}};
static const char *const requires[] = {"const_l15.latency", "l2.mean_latency", NULL};
const mt_derivation_desc mt_derive_const_l15_is_l2 = {
    .name = "const_l15_is_l2",
    .summary = "no constant L1.5 when loads missing the constant L1 take the L2's latency",
    .provides = provides, .requires = requires, .derive = derive,
};

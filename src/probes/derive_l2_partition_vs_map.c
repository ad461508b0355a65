/* The partition size checked against the per-SM map.  Groups of the map
 * are partitions (SMs attached to different partitions see disjoint near
 * lines), and a line is near for 1/P of the addresses, so the L2 has at
 * least max(groups, 1 / near share) partitions, the near share taken at
 * the top of its error.  One SM allocates in its own partition, so the
 * capacity it can use is at most the L2's size over that many partitions:
 * a larger l2.partition_size is an impossible combination.  The capacity
 * search loses: just past a partition's capacity a non-LRU policy (random,
 * PLRU, Fermi's) evicts only a few lines per lap, and a first-miss test
 * over a few thousand sampled loads sees them only further on (6-12% too
 * large on such simulated L2s), while the map's groups and share passed
 * their own checks.  (A capacity below the map's partition is possible:
 * hashed placement fills some sets before others; the map probe's own
 * check compares the shares both ways, with slack.) */
#include <math.h>

#include "derive.h"
#include "l2_near_map.h"

/* A partition size this much above the largest partition the map allows
 * is the impossible combination.  Below the contract's 5% tolerance of a
 * partition size, so every overestimate the end-to-end tests would count
 * as wrong is caught, and above the capacity search's refinement step
 * (1/256 of the L2: 0.8% of a partition for two partitions, 1.6% for
 * four), which a correct edge may straddle. */
#define PARTITION_OVER_MAP_SLACK 0.03

static bool trusted(const mt_finding *f, bool range_ok)
{
    return f && (f->kind == MT_FIND_VALUE || (range_ok && f->kind == MT_FIND_RANGE)) &&
           f->confidence >= MT_CONF_TRUSTED;
}

static mt_err derive(mt_topology *t, mt_errinfo *ei)
{
    const mt_finding *ps = mt_topology_get(t, "l2", "partition_size");
    const mt_finding *groups = mt_topology_get(t, "l2", "map_groups");
    const mt_finding *share = mt_topology_get(t, "l2", "near_share");
    const mt_finding *size = mt_topology_get(t, "l2", "size");
    if (!trusted(ps, true) || !trusted(groups, false) || !trusted(share, true) ||
        !size || size->kind != MT_FIND_VALUE || !(size->value > 0))
        return MT_OK;
    /* The list holds every threshold with room to spare (MT_MAX_THRESHOLDS):
     * one beyond it would be dropped, as a probe's is, not fatal. */
    (void)mt_topology_note_threshold(
        t, "PARTITION_OVER_MAP_SLACK", PARTITION_OVER_MAP_SLACK,
        "L2: a partition size this share above the L2 size over the map's fewest partitions "
        "is impossible");
    /* The largest near share the map allows: a stated value is known to
     * MAP_SHARE_Z errors of at most MAP_SHARE_MAX_ERROR, a range to itself. */
    double top = share->kind == MT_FIND_RANGE ? share->hi
                                              : share->value + MAP_SHARE_Z * MAP_SHARE_MAX_ERROR;
    double fewest = top >= 1 || !(top > 0) ? 1 : ceil(1 / top - 1e-9);
    if (groups->value > fewest)
        fewest = groups->value;
    double largest = size->value / fewest;
    /* A range (where the chain lies decides its first eviction) is
     * impossible only when even its low end is. */
    double low = ps->kind == MT_FIND_RANGE ? ps->lo : ps->value;
    if (low <= largest * (1 + PARTITION_OVER_MAP_SLACK))
        return MT_OK;
    mt_finding f = *ps;
    mt_finding_doubt(&f, MT_CONF_INCONSISTENT,
                     "contradicted by the L2 map: %.0f groups and a near share up to %.3f make "
                     "at least %.0f partitions of at most %.0f B; the first evictions were seen "
                     "late",
                     groups->value, top, fewest, largest);
    return mt_derive_set(t, "l2", "partition_size", "partition size (measured)", &f, ei);
}

static const mt_finding_decl provides[] = {
    {"l2.partition_size", "partition size (measured)"}, {NULL}};
static const char *const requires[] = {"l2.partition_size", "l2.map_groups", "l2.near_share",
                                       "l2.size", NULL};
const mt_derivation_desc mt_derive_l2_partition_vs_map = {
    .name = "l2_partition_vs_map",
    .summary = "L2 partition size checked against the map's groups and near share",
    .provides = provides, .requires = requires, .derive = derive,
};

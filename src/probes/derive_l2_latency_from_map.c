/* The L2's near and far hit latencies from the per-SM map (probe l2map)
 * when the map is trusted.  The L2 probe splits one chain's loads from SM 0
 * into two latency classes; where the classes overlap (the H100: 270 vs 301
 * cycles under +-20 of noise, one chain of 3456 loads) that split leans and
 * is doubted, while the map times every line from every SM, takes each
 * line's median over its laps and pools the loads of SM 0's whole group.
 * A map that passed its own checks (classes apart, groups consistent, near
 * share in line with the partition size, far class in line with the L2
 * probe's) therefore replaces the L2 probe's near and far latencies, and
 * the note keeps what the L2 probe had seen.  Group 0 is SM 0's group
 * (the map numbers groups from SM 0's), the SM every other L2 finding is
 * measured from. */
#include <string.h>

#include "derive.h"

/* A map finding the map's checks left trusted. */
static bool map_trusted(const mt_finding *f)
{
    return f && (f->kind == MT_FIND_VALUE || f->kind == MT_FIND_RANGE) &&
           f->confidence >= MT_CONF_TRUSTED;
}

/* Replaces l2.<name> with the map's finding of SM 0's group, source
 * derived; the note names the map finding and what the L2 probe had. */
static mt_err take_from_map(mt_topology *t, const char *name, const char *label,
                            const char *map_name, mt_errinfo *ei)
{
    const mt_finding *map = mt_topology_get(t, "l2", map_name);
    const mt_finding *old = mt_topology_get(t, "l2", name);
    mt_finding f = *map;
    f.source = MT_SRC_DERIVED;
    snprintf(f.method, sizeof f.method, "l2-map, SM 0's group");
    char was[96] = "";
    if (old && old->kind == MT_FIND_VALUE)
        snprintf(was, sizeof was, "; SM 0's own near/far split gave %.1f (confidence %.2f)",
                 old->value, old->confidence);
    snprintf(f.note, sizeof f.note, "from the L2 map (l2.%s, SM 0's group; the map passed its "
             "checks): %.120s%s", map_name, map->note, was);
    return mt_derive_set(t, "l2", name, label, &f, ei);
}

static mt_err derive(mt_topology *t, mt_errinfo *ei)
{
    /* The map's findings are doubted together (probe_l2_map.c,
     * set_or_doubt): its group count stands for the whole map. */
    if (!map_trusted(mt_topology_get(t, "l2", "map_groups")) ||
        !map_trusted(mt_topology_get(t, "l2", "near_latency_g0")) ||
        !map_trusted(mt_topology_get(t, "l2", "far_latency_g0")))
        return MT_OK;
    mt_err err = take_from_map(t, "latency", "latency", "near_latency_g0", ei);
    if (err == MT_OK)
        err = take_from_map(t, "far_latency", "far-partition hit latency", "far_latency_g0", ei);
    return err;
}

static const mt_finding_decl provides[] = {
    {"l2.latency", "latency"}, {"l2.far_latency", "far-partition hit latency"}, {NULL}};
/* Only a map of two classes has a far latency for SM 0's group. */
static const char *const requires[] = {"l2.map_groups", "l2.near_latency_g0", "l2.far_latency_g0",
                                       NULL};
const mt_derivation_desc mt_derive_l2_latency_from_map = {
    .name = "l2_latency_from_map",
    .summary = "L2 near and far hit latency from the per-SM map when the map is trusted",
    .provides = provides, .requires = requires, .derive = derive,
};

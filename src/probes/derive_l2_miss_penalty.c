/* The L2's miss penalty: DRAM latency minus the L2 hit latency, two
 * findings of two probes (dram, l2). */
#include "derive.h"

static mt_err derive(mt_topology *t, mt_errinfo *ei)
{
    const mt_finding *dram = mt_topology_get(t, "dram", "latency");
    const mt_finding *l2 = mt_topology_get(t, "l2", "latency");
    if (dram->kind != MT_FIND_VALUE || l2->kind != MT_FIND_VALUE || !(l2->value > 0))
        return MT_OK;
    mt_finding f = mt_derived_value(dram->value - l2->value, "cycles", "latency difference",
                                    MT_CONF_DIFFERENCE_ACROSS);
    snprintf(f.note, sizeof f.note, "DRAM latency minus L2 hit latency (%.1f)", l2->value);
    return mt_derive_set(t, "l2", "miss_penalty", "miss penalty", &f, ei);
}

static const mt_finding_decl provides[] = {{"l2.miss_penalty", "miss penalty"}, {NULL}};
static const char *const requires[] = {"dram.latency", "l2.latency", NULL};
const mt_derivation_desc mt_derive_l2_miss_penalty = {
    .name = "l2_miss_penalty", .summary = "L2 miss penalty = DRAM latency - L2 hit latency",
    .provides = provides, .requires = requires, .derive = derive,
};

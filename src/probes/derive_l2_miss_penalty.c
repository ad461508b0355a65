/* The L2's miss penalty: DRAM latency minus the L2's near hit latency, two
 * findings of two probes (dram, l2).  The near latency is l2.latency as
 * it stands after derive_l2_latency_from_map.c (file order: it runs
 * first), so a trusted map's near latency of SM 0's group is the one
 * subtracted: a load that misses the L2 pays the DRAM latency where a hit
 * in the partition its SM is attached to would have paid the near one. */
#include <math.h>

#include "derive.h"

/* A latency as the interval it is known to: a value is its own interval. */
static bool interval(const mt_finding *f, double *lo, double *hi)
{
    if (f->kind == MT_FIND_VALUE) {
        *lo = *hi = f->value;
        return true;
    }
    if (f->kind == MT_FIND_RANGE) {
        *lo = f->lo;
        *hi = f->hi;
        return true;
    }
    return false;
}

static mt_err derive(mt_topology *t, mt_errinfo *ei)
{
    const mt_finding *dram = mt_topology_get(t, "dram", "latency");
    const mt_finding *l2 = mt_topology_get(t, "l2", "latency");
    double dlo, dhi, llo, lhi;
    if (!interval(dram, &dlo, &dhi) || !interval(l2, &llo, &lhi) || !(llo > 0))
        return MT_OK;
    /* A difference is no surer than either latency it subtracts. */
    double conf = fmin(MT_CONF_DIFFERENCE_ACROSS, fmin(dram->confidence, l2->confidence));
    mt_finding f = mt_derived_value(dlo - lhi, "cycles", "latency difference", conf);
    if (dlo == dhi && llo == lhi) {
        snprintf(f.note, sizeof f.note,
                 "DRAM latency minus the L2's near hit latency (l2.latency, %.1f, %s)", llo,
                 l2->method);
    } else {
        f.kind = MT_FIND_RANGE;
        f.value = 0.5 * ((dlo - lhi) + (dhi - llo));
        f.lo = dlo - lhi;
        f.hi = dhi - llo;
        snprintf(f.note, sizeof f.note,
                 "DRAM latency minus the L2's near hit latency (l2.latency, %.1f-%.1f, %s): a "
                 "range, the difference of their intervals", llo, lhi, l2->method);
    }
    return mt_derive_set(t, "l2", "miss_penalty", "miss penalty", &f, ei);
}

static const mt_finding_decl provides[] = {{"l2.miss_penalty", "miss penalty"}, {NULL}};
static const char *const requires[] = {"dram.latency", "l2.latency", NULL};
const mt_derivation_desc mt_derive_l2_miss_penalty = {
    .name = "l2_miss_penalty", .summary = "L2 miss penalty = DRAM latency - L2 near hit latency",
    .provides = provides, .requires = requires, .derive = derive,
};

/* Findings that check each other: logical caches that share one physical
 * cache have its one capacity.  When the sizes measured through two sharing
 * paths do not overlap (within MT_CAPACITY_AGREEMENT), at least one of them
 * is wrong (a replacement that keeps most of an over-full chain, outliers
 * taken for misses) and the probes cannot tell which: both fall below the
 * confidence users trust, and the note names the other.  Sharing sets that
 * are themselves flagged say nothing and are skipped. */
#include <string.h>

#include "derive.h"

static const char *const group[] = {"l1d", "texture", "readonly"};
#define GROUP_N (sizeof group / sizeof *group)

/* [lo, hi] of a size finding widened by the agreement tolerance; false when
 * the finding makes no usable claim (none, absent, a bound, flagged). */
static bool size_interval(const mt_finding *f, double *lo, double *hi)
{
    if (!f || f->confidence < MT_CONF_TRUSTED)
        return false;
    if (f->kind == MT_FIND_VALUE) {
        *lo = f->value;
        *hi = f->value;
    } else if (f->kind == MT_FIND_RANGE) {
        *lo = f->lo;
        *hi = f->hi;
    } else {
        return false;
    }
    *lo *= 1 - MT_CAPACITY_AGREEMENT;
    *hi *= 1 + MT_CAPACITY_AGREEMENT;
    return true;
}

static mt_err doubt(mt_topology *t, const char *key, const char *other, mt_errinfo *ei)
{
    const mt_finding *own = mt_topology_get(t, key, "size");
    mt_finding f = *own;
    mt_finding_doubt(&f, MT_CONF_INCONSISTENT,
                     "%s shares this physical cache but measured a size that does not overlap: "
                     "one of them is wrong",
                     other);
    return mt_derive_set(t, key, "size", "size", &f, ei);
}

static mt_err derive(mt_topology *t, mt_errinfo *ei)
{
    bool bad[GROUP_N] = {false};
    const char *other[GROUP_N] = {NULL};
    for (size_t i = 0; i < GROUP_N; i++)
        for (size_t j = i + 1; j < GROUP_N; j++) {
            const mt_finding *set = mt_topology_get(t, group[i], "shared_with");
            if (!set || set->confidence < MT_CONF_TRUSTED ||
                !mt_finding_set_has(set, group[j]))
                continue;
            double alo, ahi, blo, bhi;
            if (!size_interval(mt_topology_get(t, group[i], "size"), &alo, &ahi) ||
                !size_interval(mt_topology_get(t, group[j], "size"), &blo, &bhi))
                continue;
            if (ahi < blo || bhi < alo) {
                bad[i] = bad[j] = true;
                other[i] = group[j];
                other[j] = group[i];
            }
        }
    for (size_t i = 0; i < GROUP_N; i++) {
        if (!bad[i])
            continue;
        mt_err err = doubt(t, group[i], other[i], ei);
        if (err != MT_OK)
            return err;
    }
    return MT_OK;
}

static const mt_finding_decl provides[] = {
    {"l1d.size", "size"}, {"texture.size", "size"}, {"readonly.size", "size"}, {NULL}};
/* Requires nothing: without "shared_with" sets nothing is compared. */
const mt_derivation_desc mt_derive_shared_sizes = {
    .name = "shared_sizes",
    .summary = "logical caches sharing a physical cache must measure one size, else both are "
               "flagged",
    .provides = provides, .requires = NULL, .derive = derive,
};

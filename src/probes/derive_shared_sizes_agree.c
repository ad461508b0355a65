/* Findings that check each other, the agreeing case: logical caches that
 * share one physical cache have its one capacity.  A size whose own probe
 * doubted it (its line test's capacities were no power of two apart: on an
 * H100 texture fetches use the sets unevenly at every wide stride, so the
 * texture's line test is inconclusive and its correct size sat at 0.3)
 * while it agrees, within MT_CAPACITY_AGREEMENT, with the trusted size of a
 * cache the sharing probe found to be the same physical array, is that
 * array's size: it takes the trusted value with source "derived" and the
 * trusted member's confidence times MT_CONF_DERIVATION_FACTOR.  Runs after
 * shared_sizes (registry order), so only sizes that no trusted member
 * contradicts are there to agree with; a size that disagrees with any
 * trusted member of its group keeps its doubt. */
#include <math.h>
#include <string.h>

#include "derive.h"

static const char *const group[] = {"l1d", "texture", "readonly"};
#define GROUP_N (sizeof group / sizeof *group)

/* A trusted VALUE size of `other` that `key` lists in a trusted
 * "shared with" set; NULL otherwise. */
static const mt_finding *trusted_shared_size(const mt_topology *t, const char *key,
                                             const char *other)
{
    const mt_finding *set = mt_topology_get(t, key, "shared_with");
    if (!set || set->confidence < MT_CONF_TRUSTED || !mt_finding_set_has(set, other))
        return NULL;
    const mt_finding *size = mt_topology_get(t, other, "size");
    if (!size || size->kind != MT_FIND_VALUE || size->confidence < MT_CONF_TRUSTED)
        return NULL;
    return size;
}

static bool agrees(double a, double b)
{
    return fabs(a - b) <= MT_CAPACITY_AGREEMENT * b;
}

static mt_err derive(mt_topology *t, mt_errinfo *ei)
{
    for (size_t i = 0; i < GROUP_N; i++) {
        const mt_finding *own = mt_topology_get(t, group[i], "size");
        if (!own || own->kind != MT_FIND_VALUE || own->source != MT_SRC_MEASURED ||
            own->confidence >= MT_CONF_TRUSTED)
            continue;
        const mt_finding *best = NULL;
        size_t from = 0;
        bool contradicted = false;
        for (size_t j = 0; j < GROUP_N; j++) {
            const mt_finding *other = j == i ? NULL : trusted_shared_size(t, group[i], group[j]);
            if (!other)
                continue;
            if (!agrees(own->value, other->value))
                contradicted = true;
            else if (!best || other->confidence > best->confidence) {
                best = other;
                from = j;
            }
        }
        if (!best || contradicted)
            continue;
        const mt_object *from_obj = mt_topology_object(t, group[from]);
        mt_finding f = mt_derived_value(best->value, "B", "shared physical cache",
                                        best->confidence * MT_CONF_DERIVATION_FACTOR);
        snprintf(f.note, sizeof f.note,
                 "size of %s, which shares this physical cache (trusted); this path's own "
                 "search gave %.0f B, within MT_CAPACITY_AGREEMENT of it, which only this "
                 "path's own tests had doubted (e.g. a line test over unevenly used sets)",
                 from_obj ? from_obj->name : group[from], own->value);
        mt_err err = mt_derive_set(t, group[i], "size", "size", &f, ei);
        if (err != MT_OK)
            return err;
    }
    return MT_OK;
}

static const mt_finding_decl provides[] = {
    {"l1d.size", "size"}, {"texture.size", "size"}, {"readonly.size", "size"}, {NULL}};
/* Requires nothing: without "shared_with" sets nothing agrees. */
const mt_derivation_desc mt_derive_shared_sizes_agree = {
    .name = "shared_sizes_agree",
    .summary = "a doubted size that agrees with the trusted size of a cache sharing its "
               "physical array takes that size",
    .provides = provides, .requires = NULL, .derive = derive,
};

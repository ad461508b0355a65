/* Logical caches that share one physical cache share its line.  A line
 * measured through capacity is an upper bound (uneven set use only lowers
 * the line count), so the smallest measured line of a sharing group is the
 * line; a member whose own test gave more, or nothing, takes it with source
 * "derived".  On an H100 texture fetches spread unevenly over the sets
 * (their own test gives 256 B or a bound), while ld.global.ca/.nc into the
 * same cache resolve 128 B. */
#include <string.h>

#include "derive.h"

/* The caches the sharing probe tests, in object order. */
static const char *const group[] = {"l1d", "texture", "readonly"};
#define GROUP_N (sizeof group / sizeof *group)

/* 1 when `other` is listed in the shared_with set of `key`. */
static int shares(const mt_topology *t, const char *key, const char *other)
{
    return mt_finding_set_has(mt_topology_get(t, key, "shared_with"), other);
}

/* The line a member claims: its value, or the least line its lower bound
 * allows; else `fallback` (what the group would give it). */
static double claimed_line(const mt_finding *own, double fallback)
{
    if (own && own->kind == MT_FIND_VALUE)
        return own->value;
    if (own && own->kind == MT_FIND_LOWER_BOUND)
        return own->lo;
    return fallback;
}

static mt_err derive(mt_topology *t, mt_errinfo *ei)
{
    double best[GROUP_N];
    int best_from[GROUP_N];
    for (size_t i = 0; i < GROUP_N; i++) {
        best[i] = -1;
        best_from[i] = -1;
        for (size_t j = 0; j < GROUP_N; j++) {
            const mt_finding *line = mt_topology_get(t, group[j], "line");
            bool same = i == j || shares(t, group[i], group[j]);
            if (!same || !line || line->kind != MT_FIND_VALUE || line->source != MT_SRC_MEASURED)
                continue;
            if (best[i] < 0 || line->value < best[i]) {
                best[i] = line->value;
                best_from[i] = (int)j;
            }
        }
    }
    /* A member whose own measured range lies below a line (its resident
     * lines refuted a claim that large, measure_line.c) contradicts that
     * line for the whole physical array: nobody takes it, and a member
     * that measured it as a value is doubted (a hashed direct-mapped L1
     * refuted 256 B through ld.global.ca while texture fetches, which no
     * scattered check can run, read 256 B for 128 B lines; CI seed 37).
     * A lower bound is such a claim too: "a line of at least lo" (a
     * direct-mapped texture cache of 228 sets read "> 512 B" for 256 B
     * lines, as every wide stride wraps its sets after the cache's bytes,
     * while read-only loads into it kept 190 lines of 256 B: seed w1505). */
    int against[GROUP_N];
    double against_hi[GROUP_N];
    for (size_t i = 0; i < GROUP_N; i++) {
        against[i] = -1;
        against_hi[i] = 0;
        const mt_finding *own = mt_topology_get(t, group[i], "line");
        double v = claimed_line(own, best[i]);
        if (!(v > 0))
            continue;
        for (size_t j = 0; j < GROUP_N; j++) {
            const mt_finding *line = mt_topology_get(t, group[j], "line");
            bool same = i == j || shares(t, group[i], group[j]);
            if (same && line && line->kind == MT_FIND_RANGE && line->source == MT_SRC_MEASURED &&
                line->hi < v) {
                against[i] = (int)j;
                against_hi[i] = line->hi;
            }
        }
    }
    for (size_t i = 0; i < GROUP_N; i++) {
        if (against[i] < 0)
            continue;
        const mt_finding *own = mt_topology_get(t, group[i], "line");
        bool own_claim = own && (own->kind == MT_FIND_VALUE || own->kind == MT_FIND_LOWER_BOUND);
        const mt_object *by = mt_topology_object(t, group[against[i]]);
        /* The line this cache's findings rest on: its own claim, else the
         * one the group would have given it. */
        double own_value = claimed_line(own, best[i]);
        mt_err err = MT_OK;
        if (own_claim && own->confidence > MT_CONF_INCONSISTENT) {
            mt_finding f = *own;
            mt_finding_doubt(&f, MT_CONF_INCONSISTENT,
                             "%s, which shares this physical cache, kept more lines resident "
                             "than a line of %s%.0f B allows (at most %.0f B)",
                             by ? by->name : group[against[i]],
                             own->kind == MT_FIND_LOWER_BOUND ? "at least " : "", own_value,
                             against_hi[i]);
            if ((err = mt_derive_set(t, group[i], "line", "line", &f, ei)) != MT_OK)
                return err;
        }
        /* Set-index masks are over line-address bits (address / line): a
         * refuted line shifts every bit they name (a member without a line
         * of its own took its masks from one that has: cache_geom). */
        const mt_finding *masks = mt_topology_get(t, group[i], "index_masks");
        if (masks && masks->kind == MT_FIND_TEXT && masks->confidence > MT_CONF_INCONSISTENT) {
            mt_finding m = *masks;
            mt_finding_doubt(&m, MT_CONF_INCONSISTENT,
                             "over %.0f B lines, which %s (sharing this physical cache) refutes",
                             own_value, by ? by->name : group[against[i]]);
            if ((err = mt_derive_set(t, group[i], "index_masks", NULL, &m, ei)) != MT_OK)
                return err;
        }
    }
    for (size_t i = 0; i < GROUP_N; i++) {
        if (best_from[i] < 0 || best_from[i] == (int)i || against[i] >= 0)
            continue;
        const mt_finding *own = mt_topology_get(t, group[i], "line");
        mt_finding_kind k = own ? own->kind : MT_FIND_NONE;
        if (k == MT_FIND_VALUE && own->value <= best[i])
            continue;
        char own_text[48];
        if (k == MT_FIND_VALUE)
            snprintf(own_text, sizeof own_text, "%.0f B", own->value);
        else if (k == MT_FIND_LOWER_BOUND)
            snprintf(own_text, sizeof own_text, "> %.0f B", own->lo);
        else
            snprintf(own_text, sizeof own_text, "no value");
        const char *from = group[best_from[i]];
        const mt_finding *src = mt_topology_get(t, from, "line");
        const mt_object *from_obj = mt_topology_object(t, from);
        mt_finding f = mt_derived_value(best[i], "B", "shared physical cache",
                                        src->confidence * MT_CONF_DERIVATION_FACTOR);
        snprintf(f.note, sizeof f.note,
                 "line of %s, which shares this physical cache; this path's own capacity test "
                 "gave %s, an upper bound (its addresses use the sets unevenly)",
                 from_obj ? from_obj->name : from, own_text);
        mt_err err = mt_derive_set(t, group[i], "line", "line", &f, ei);
        if (err != MT_OK)
            return err;
    }
    return MT_OK;
}

static const mt_finding_decl provides[] = {
    {"l1d.line", "line"}, {"texture.line", "line"}, {"readonly.line", "line"}, {NULL}};
/* Requires nothing: without "shared_with" sets (the sharing probe did not
 * run) every cache is its own group and nothing changes. */
const mt_derivation_desc mt_derive_shared_lines = {
    .name = "shared_lines",
    .summary = "logical caches sharing a physical cache take the smallest measured line",
    .provides = provides, .requires = NULL, .derive = derive,
};

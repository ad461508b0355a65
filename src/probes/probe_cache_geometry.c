/* Ways, sets and set index of the texture, read-only, constant L1 and
 * constant L1.5 caches (issue 8, part 1 for every first-level cache): the
 * L1 data probe's stride-conflict search (probe_geometry.c, geometry.h)
 * run through each cache's own loads, at its own line and hit threshold.
 * In the default run, after the L1 data geometry (whose findings a cache
 * sharing it takes).
 *
 * Logical caches that share one physical cache (the sharing probe's
 * "shared_with", trusted) have one geometry: the texture or read-only
 * cache that shares the L1 data cache (or the read-only cache that shares
 * the texture cache) takes the one measured there, with a note that says
 * so, instead of measuring it again at full cost. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "confidence.h"
#include "geometry.h"

static const char *const geometry_names[] = {"ways", "sets", "index", "index_masks"};

/* A cache measured earlier (the L1 data cache, or the texture cache for the
 * read-only one) that the sharing probe found to be the same physical
 * cache as `id` and that has its geometry; NULL when there is none. */
static const char *measured_twin(const mt_probe_ctx *c, mt_cache_id id)
{
    if (id != MT_CACHE_TEX && id != MT_CACHE_RO)
        return NULL; /* the sharing probe compares the L1-level caches only */
    const mt_finding *set = mt_get(c, mt_cache_key(id), "shared_with");
    if (set->kind != MT_FIND_SET || set->confidence < MT_CONF_TRUSTED)
        return NULL;
    for (mt_cache_id other = MT_CACHE_L1D; other < id; other++) {
        const char *key = mt_cache_key(other);
        if (mt_finding_set_has(set, key) && mt_get(c, key, "index")->kind != MT_FIND_NONE)
            return key;
    }
    return NULL;
}

/* The twin's geometry, with a note naming where it was measured. */
static void copy_geometry(mt_probe_ctx *c, mt_cache_id id, const char *twin)
{
    for (size_t i = 0; i < sizeof geometry_names / sizeof *geometry_names; i++) {
        mt_finding f = *mt_get(c, twin, geometry_names[i]);
        if (f.kind == MT_FIND_NONE)
            continue;
        mt_finding_append_note(&f, "one physical cache with %s (shared_with): measured there",
                               twin);
        mt_set(c, mt_cache_key(id), geometry_names[i], &f);
    }
}

/* The constant L1 sits in front of the L1.5 on the same loads, and a load
 * it serves is a hit for the L1.5's decisions too: a line the L1 keeps
 * never reaches the L1.5, so W + 1 lines of one L1.5 set can pass for
 * fitting while the L1 holds one of them, and an eviction set overcounts
 * the ways (a direct-mapped hashed L1 of 79 lines before an 8-way L1.5 read
 * as 9 ways at confidence 1: unseen seed 846), and W lines "fit" when the L1
 * alone holds them (a fully associative 8-line L1 before a direct-mapped
 * L1.5 read as 8 ways: seed 906).  Neither can happen where a trusted
 * modulo L1 puts every line of the L1.5 in one of its sets (the L1.5's line
 * a multiple of the L1's sets x line) and that set has fewer ways than the
 * W lines found to fit: cycling through more lines than ways, it keeps none
 * of them to the next lap under LRU (the H100's and every preset's
 * policy). */
static bool inner_l1_may_hold_lines(const mt_probe_ctx *c, double l15_line)
{
    const mt_finding *size = mt_get(c, "const_l1", "size");
    if (size->kind == MT_FIND_NONE || size->kind == MT_FIND_ABSENT)
        return false; /* no constant L1 before the L1.5 */
    const mt_finding *ix = mt_get(c, "const_l1", "index"), *sets = mt_get(c, "const_l1", "sets");
    const mt_finding *ways = mt_get(c, "const_l1", "ways"), *line = mt_get(c, "const_l1", "line");
    const mt_finding *w15 = mt_get(c, "const_l15", "ways");
    bool modulo = ix->kind == MT_FIND_TEXT && strncmp(ix->text, "modulo", 6) == 0 &&
                  ix->confidence >= MT_CONF_TRUSTED && sets->kind == MT_FIND_VALUE &&
                  ways->kind == MT_FIND_VALUE && line->kind == MT_FIND_VALUE &&
                  sets->confidence >= MT_CONF_TRUSTED && ways->confidence >= MT_CONF_TRUSTED;
    if (!modulo)
        return true;
    double span = sets->value * line->value;
    bool one_set = span > 0 && fmod(l15_line, span) == 0;
    return !(one_set && ways->value < w15->value);
}

/* An L1.5 eviction set the constant L1 may have shortened: its ways, and
 * the sets' bound (the most elements a chain held, which the L1's lines
 * swell too), are doubted, the reason first (the capacities that follow
 * fill the note). */
static void doubt_l15_eviction_set(mt_probe_ctx *c)
{
    const mt_finding *w = mt_get(c, "const_l15", "ways");
    const mt_finding *line = mt_get(c, "const_l15", "line");
    if (w->kind != MT_FIND_VALUE || w->confidence <= MT_CONF_INCONSISTENT ||
        strcmp(w->method, "eviction set (group testing)") != 0 ||
        !inner_l1_may_hold_lines(c, line->value))
        return;
    static const char *const names[] = {"ways", "sets"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        mt_finding f = *mt_get(c, "const_l15", names[i]);
        if (f.kind == MT_FIND_NONE || f.confidence <= MT_CONF_INCONSISTENT)
            continue;
        f.confidence = MT_CONF_INCONSISTENT;
        mt_finding_note_first(&f, "the constant L1 before it may keep lines of the set, which "
                              "then never reach the L1.5: the %s may be overcounted", names[i]);
        mt_set(c, "const_l15", names[i], &f);
    }
}

static mt_err run_cache_geometry(mt_probe_ctx *c)
{
    static const mt_cache_id caches[] = {MT_CACHE_TEX, MT_CACHE_RO, MT_CACHE_CONST_L1,
                                         MT_CACHE_CONST_L15};
    for (size_t i = 0; i < sizeof caches / sizeof *caches; i++) {
        mt_cache_id id = caches[i];
        mt_mark_probed(c, mt_cache_key(id));
        const char *twin = measured_twin(c, id);
        if (twin) {
            copy_geometry(c, id, twin);
            continue;
        }
        mt_geometry_target t;
        if (!mt_geometry_target_of(c, id, &t))
            continue; /* no line or size to count strides in: no finding */
        mt_err err = mt_geometry_measure(c, &t);
        if (err != MT_OK)
            return err;
        if (id == MT_CACHE_CONST_L15)
            doubt_l15_eviction_set(c);
    }
    return MT_OK;
}

static const mt_finding_decl cache_geometry_provides[] = {
    {"texture.ways", "ways"},     {"texture.sets", "sets"},     {"texture.index", "set index"},
    {"texture.index_masks", "set-index XOR masks"},
    {"readonly.ways", "ways"},    {"readonly.sets", "sets"},    {"readonly.index", "set index"},
    {"readonly.index_masks", "set-index XOR masks"},
    {"const_l1.ways", "ways"},    {"const_l1.sets", "sets"},    {"const_l1.index", "set index"},
    {"const_l1.index_masks", "set-index XOR masks"},
    {"const_l15.ways", "ways"},   {"const_l15.sets", "sets"},   {"const_l15.index", "set index"},
    {"const_l15.index_masks", "set-index XOR masks"},
    {NULL},
};
/* The caches' sizes and lines, the sharing sets (to measure a physical
 * cache once) and the L1 data geometry (the one a sharing cache takes). */
static const char *const cache_geometry_requires[] = {
    "texture.size", "readonly.size", "const_l1.size", "const_l15.size",
    "texture.shared_with", "readonly.shared_with", "l1d.index", NULL};
const mt_probe_desc mt_probe_cache_geometry = {
    .name = "cache_geom",
    .summary = "texture, read-only, constant L1 and L1.5 ways, sets and set index (XOR masks "
               "of a hash), as for the L1 data cache (once per physical cache)",
    .rank = 96, .provides = cache_geometry_provides, .requires = cache_geometry_requires,
    .run = run_cache_geometry, .requested = mt_geometry_requested,
};

/* The [access] section of a sim spec: what each sector and each line a
 * warp's global load touches beyond the first costs (docs/spec-format.md,
 * "Global access granularity"; issue 9 part 4).  Every key is optional;
 * a spec without the section gets defaults derived from [shared], so
 * every spec written before it keeps parsing and runs access
 * experiments. */
#include <stdio.h>

#include "spec_internal.h"

const char *const mt_sp_access_keys[] = {"ca_sector_cycles", "ca_line_cycles", "ca_passes",
                                         "ca_tag_cycles",    "ca_tag_group",   "ca_partial_cycles",
                                         "cg_sector_cycles", "cg_line_cycles", "cg_passes",
                                         "cg_tag_cycles",    "cg_tag_group",   "cg_partial_cycles",
                                         NULL};

/* ca_passes / cg_passes: "lines" (default) or "banks", which needs 4-byte
 * banks (a warp's 4-byte words then map to banks as the access probe's
 * wavefront model counts them). */
static mt_err read_passes(pctx *c, const section *s, const char *key, const mt_sim_spec *o,
                          int *out)
{
    static const char *const words[] = {"lines", "banks", NULL};
    mt_err err = mt_sp_word(c, s, key, words, out);
    if (err)
        return err;
    if (*out && o->banks.width != 4)
        return mt_sp_err(c, mt_sp_find(s, key)->line,
                         "%s = banks needs [shared] bank_width = 4 (it is %u)", key,
                         o->banks.width);
    return MT_OK;
}

/* One optional cost: 0, or MT_SIM_MIN_ACCESS_CYCLES..MAX. */
static mt_err read_cost(pctx *c, const section *s, const char *key, double *out)
{
    mt_err err = mt_sp_double(c, s, key, 0, 0, MT_SIM_MAX_ACCESS_CYCLES, out, NULL);
    if (err)
        return err;
    if (*out > 0 && *out < MT_SIM_MIN_ACCESS_CYCLES)
        return mt_sp_err(c, mt_sp_find(s, key)->line,
                         "%s = %g is neither 0 nor at least %g cycles (the access probe takes "
                         "a smaller cost for none)",
                         key, *out, MT_SIM_MIN_ACCESS_CYCLES);
    return MT_OK;
}

/* The tag and partial-warp keys of one path (prefix "ca" or "cg"):
 * tag_group a power of two up to MT_SIM_MAX_ACCESS_GROUP; a costing tag
 * group only beside bank passes that cost and no sector cost, the one
 * model the access probe's fit has for it (its sector term counting
 * lines in groups, its pass a bank wavefront). */
static mt_err read_tags(pctx *c, const section *s, const char *prefix, int p, mt_sim_access_spec *a)
{
    char key[32];
    mt_err err;
    snprintf(key, sizeof key, "%s_tag_cycles", prefix);
    if ((err = read_cost(c, s, key, &a->tag_cycles[p])))
        return err;
    int tag_line = a->tag_cycles[p] > 0 ? mt_sp_find(s, key)->line : 0;
    snprintf(key, sizeof key, "%s_partial_cycles", prefix);
    if ((err = read_cost(c, s, key, &a->partial_cycles[p])))
        return err;
    snprintf(key, sizeof key, "%s_tag_group", prefix);
    uint32_t group = 1;
    if ((err = mt_sp_u32(c, s, key, 0, 1, MT_SIM_MAX_ACCESS_GROUP, &group, NULL)))
        return err;
    if (!mt_sp_is_pow2(group))
        return mt_sp_err(c, mt_sp_find(s, key)->line, "%s = %u is not a power of two", key,
                         group);
    a->tag_group[p] = group;
    if (tag_line && (!a->bank_passes[p] || a->line_cycles[p] <= 0 || a->sector_cycles[p] > 0))
        return mt_sp_err(c, tag_line,
                         "%s_tag_cycles needs %s_passes = banks with a nonzero %s_line_cycles "
                         "and no %s_sector_cycles (the access probe fits one sector term)",
                         prefix, prefix, prefix, prefix);
    return MT_OK;
}

mt_err mt_sp_read_access(pctx *c, const section *s, mt_sim_spec *o)
{
    mt_sim_access_spec *a = &o->access;
    /* Defaults: since Volta the L1 and shared memory are one array behind
     * one data path, so an extra line of a request is one more pass
     * through it, as an extra way of a bank conflict is: [shared]'s
     * conflict_cycles.  A cg request's data comes back through the same
     * path: the same cost per line.  The sectors of one line come in one
     * pass (free), as the CUDA guide's "one transaction per 32 B sector
     * touched" costs bandwidth, not latency, for a single warp. */
    a->present = s != NULL;
    a->sector_cycles[0] = a->sector_cycles[1] = 0;
    a->bank_passes[0] = a->bank_passes[1] = 0;
    a->line_cycles[0] = o->banks.conflict_cycles;
    a->line_cycles[1] = o->banks.conflict_cycles;
    a->tag_cycles[0] = a->tag_cycles[1] = a->partial_cycles[0] = a->partial_cycles[1] = 0;
    a->tag_group[0] = a->tag_group[1] = 1;
    if (!s)
        return MT_OK;
    mt_err err;
    if ((err = read_cost(c, s, "ca_sector_cycles", &a->sector_cycles[0])) ||
        (err = read_cost(c, s, "ca_line_cycles", &a->line_cycles[0])) ||
        (err = read_passes(c, s, "ca_passes", o, &a->bank_passes[0])) ||
        (err = read_tags(c, s, "ca", 0, a)))
        return err;
    /* cg's line cost follows ca's unless given (the same return path). */
    a->line_cycles[1] = a->line_cycles[0];
    if ((err = read_cost(c, s, "cg_sector_cycles", &a->sector_cycles[1])) ||
        (err = read_cost(c, s, "cg_line_cycles", &a->line_cycles[1])) ||
        (err = read_passes(c, s, "cg_passes", o, &a->bank_passes[1])) ||
        (err = read_tags(c, s, "cg", 1, a)))
        return err;
    return MT_OK;
}

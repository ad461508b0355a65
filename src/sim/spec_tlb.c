/* The [tlb NAME] sections of a sim spec: the levels of address translation
 * (docs/spec-format.md, "TLB levels"; issue 9).  Each level is read on its
 * own, then the levels are checked against each other and against the
 * global path limit once the whole spec is known. */
#include <stdio.h>
#include <string.h>

#include "spec_internal.h"

const char *const mt_sp_tlb_keys[] = {"entries", "page", "miss_penalty", "ways", "sms_per_group",
                                      NULL};

/* sms_per_group: `all` (0, the default: one instance for the GPU) or a
 * count of SMs from 1 on (checked against sm_count with the other
 * sections, mt_sp_check_tlbs). */
static mt_err read_group(pctx *c, const section *s, mt_sim_tlb_spec *t)
{
    const kv *k = mt_sp_find(s, "sms_per_group");
    t->sms_per_group = 0;
    if (!k || strcmp(k->val, "all") == 0)
        return MT_OK;
    return mt_sp_u32(c, s, "sms_per_group", 0, 1, 65536, &t->sms_per_group, NULL);
}

/* ways: the entries (fully associative, the default) or, for a level of a
 * power-of-two count of entries, a power of two up to
 * MT_SIM_MAX_TLB_SET_WAYS: then the sets are a power of two too, as the
 * TLB probe's checks at twice a stride assume (docs/method.md). */
static mt_err read_ways(pctx *c, const section *s, mt_sim_tlb_spec *t)
{
    int has = 0;
    t->ways = t->entries;
    mt_err err = mt_sp_u32(c, s, "ways", 0, 1, MT_SIM_MAX_TLB_ENTRIES, &t->ways, &has);
    if (err || !has || t->ways == t->entries)
        return err;
    int line = mt_sp_find(s, "ways")->line;
    if (t->ways > t->entries)
        return mt_sp_err(c, line, "ways = %u exceeds entries = %u", t->ways, t->entries);
    if (!mt_sp_is_pow2(t->ways) || t->ways > MT_SIM_MAX_TLB_SET_WAYS)
        return mt_sp_err(c, line,
                         "ways = %u: a set-associative level has a power of two of 1 to %u ways "
                         "(or ways = entries: fully associative)",
                         t->ways, MT_SIM_MAX_TLB_SET_WAYS);
    if (!mt_sp_is_pow2(t->entries))
        return mt_sp_err(c, line,
                         "ways = %u of entries = %u: a set-associative level has a power of two "
                         "of entries (its sets a power of two)",
                         t->ways, t->entries);
    return MT_OK;
}

mt_err mt_sp_read_tlb(pctx *c, const section *s, mt_sim_tlb_spec *t)
{
    mt_err err;
    memset(t, 0, sizeof *t);
    snprintf(t->name, sizeof t->name, "%s", s->name);
    t->line_no = s->line;
    if ((err = mt_sp_u32(c, s, "entries", 1, 1, MT_SIM_MAX_TLB_ENTRIES, &t->entries, NULL)) ||
        (err = mt_sp_size(c, s, "page", 1, MT_SIM_MIN_TLB_PAGE, MT_SIM_MAX_TLB_PAGE, &t->page,
                          NULL)) ||
        (err = mt_sp_double(c, s, "miss_penalty", 1, MT_SIM_MIN_TLB_PENALTY, MT_SIM_MAX_LATENCY,
                            &t->miss_penalty, NULL)))
        return err;
    if (!mt_sp_is_pow2(t->page))
        return mt_sp_err(c, mt_sp_find(s, "page")->line, "page = %llu B is not a power of two",
                         (unsigned long long)t->page);
    if ((err = read_ways(c, s, t)) != MT_OK)
        return err;
    return read_group(c, s, t);
}

/* Line of key in the section of TLB level t (its header when absent). */
static int tlb_key_line(const pctx *c, const mt_sim_tlb_spec *t, const char *key)
{
    for (int i = 0; i < c->n_sec; i++)
        if (c->sec[i].kind == SEC_TLB && c->sec[i].line == t->line_no) {
            const kv *k = mt_sp_find(&c->sec[i], key);
            return k ? k->line : t->line_no;
        }
    return t->line_no;
}

/* SM groups: at most sm_count SMs (a larger group is `all`), and each
 * level's groups made of whole groups of the level before (a level nearer
 * the SM is never shared more widely than one further out). */
static mt_err check_groups(pctx *c, const mt_sim_spec *o)
{
    for (int i = 0; i < o->n_tlbs; i++) {
        const mt_sim_tlb_spec *t = &o->tlb[i];
        if (t->sms_per_group > (uint32_t)o->sm_count)
            return mt_sp_err(c, tlb_key_line(c, t, "sms_per_group"),
                             "[tlb %s]: sms_per_group = %u exceeds sm_count = %d (one group of "
                             "every SM is `all`)",
                             t->name, t->sms_per_group, o->sm_count);
        if (i == 0)
            continue;
        const mt_sim_tlb_spec *up = &o->tlb[i - 1];
        if (t->sms_per_group && (!up->sms_per_group || t->sms_per_group % up->sms_per_group))
            return mt_sp_err(c, tlb_key_line(c, t, "sms_per_group"),
                             "[tlb %s]: sms_per_group = %u is not a multiple of [tlb %s]'s %s "
                             "(a level's groups are made of whole groups of the level before)",
                             t->name, t->sms_per_group, up->name,
                             up->sms_per_group ? "group" : "`all`");
    }
    return MT_OK;
}

mt_err mt_sp_check_tlbs(pctx *c, const mt_sim_spec *o)
{
    mt_err err = check_groups(c, o);
    if (err)
        return err;
    for (int i = 1; i < o->n_tlbs; i++) {
        const mt_sim_tlb_spec *t = &o->tlb[i], *up = &o->tlb[i - 1];
        /* One page size for the whole hierarchy, as the TLB probe assumes
         * when it turns entries into reach. */
        if (t->page != up->page)
            return mt_sp_err(c, tlb_key_line(c, t, "page"),
                             "[tlb %s]: page %llu B differs from [tlb %s]'s %llu B (all levels "
                             "translate one page size)",
                             t->name, (unsigned long long)t->page, up->name,
                             (unsigned long long)up->page);
        /* A level with at most the entries of the one before would miss
         * whenever that one misses (its hits could never be seen), and one
         * with less than 4x as many would put two levels' edges within one
         * doubling of the probe's sweep. */
        if ((uint64_t)t->entries < (uint64_t)MT_SIM_TLB_ENTRY_RATIO * up->entries)
            return mt_sp_err(c, tlb_key_line(c, t, "entries"),
                             "[tlb %s]: entries = %u is below %u x [tlb %s]'s %u", t->name,
                             t->entries, MT_SIM_TLB_ENTRY_RATIO, up->name, up->entries);
    }
    /* The default probes' chains stay within the global path limit (the L2
     * probe's 4 x L2, the geometry probes' long strides); a first level
     * covering it keeps all their findings free of translation misses, so
     * what they measure is what the caches alone give.  Only the sparse
     * chains of the opt-in TLB probe go beyond. */
    uint64_t lim = mt_sim_global_path_limit(o);
    if (o->n_tlbs > 0 && (uint64_t)o->tlb[0].entries * o->tlb[0].page < lim)
        return mt_sp_err(c, tlb_key_line(c, &o->tlb[0], "entries"),
                         "[tlb %s]: reach (entries x page) %llu B is below the global path limit "
                         "%llu B (min(global_mem / 2, 4 GiB)) that the other probes' chains use",
                         o->tlb[0].name,
                         (unsigned long long)((uint64_t)o->tlb[0].entries * o->tlb[0].page),
                         (unsigned long long)lim);
    return MT_OK;
}

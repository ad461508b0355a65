/* Parser of the simulator spec format (docs/spec-format.md).
 *
 * Two passes.  The first (spec_syntax.c) splits the text into sections of
 * key = value entries and rejects what is wrong whatever the values are:
 * syntax, unknown or duplicate sections and keys.  The second (here) reads
 * the values section by section with the typed getters of spec_values.c
 * and checks ranges and cross-key rules.  Every error is one line
 * "FILE:LINE: message"; errors about something absent point at the section
 * header, or at the last line of the file when a whole section is missing. */
#include <ctype.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <signal.h>

#include "spec_internal.h"

static mt_err read_device(pctx *c, const section *s, mt_sim_spec *o)
{
    mt_err err;
    const kv *k = mt_sp_find(s, "name");
    if (!k)
        return mt_sp_missing(c, s, "name");
    {
        const char *b = k->val, *e = k->val + strlen(k->val);
        if (e - b >= 2 && *b == '"' && e[-1] == '"') {
            b++;
            e--;
        }
        if ((size_t)(e - b) >= sizeof o->name)
            return mt_sp_err(c, k->line, "name is longer than %zu characters", sizeof o->name - 1);
        memcpy(o->name, b, (size_t)(e - b));
        o->name[e - b] = '\0';
    }
    k = mt_sp_find(s, "compute_capability");
    if (!k)
        return mt_sp_missing(c, s, "compute_capability");
    if (mt_sp_parse_cc(k->val, &o->cc_major, &o->cc_minor))
        return mt_sp_err(c, k->line, "compute_capability: '%s' is not MAJOR.MINOR (e.g. 9.0)",
                         k->val);
    if ((err = mt_sp_int(c, s, "sm_count", 1, 1, 65536, &o->sm_count, NULL)) ||
        (err = mt_sp_int(c, s, "clock_mhz", 1, 1, 100000, &o->clock_mhz, NULL)) ||
        (err = mt_sp_int(c, s, "actual_clock_mhz", 0, 1, o->clock_mhz, &o->actual_clock_mhz,
                         NULL)) ||
        (err = mt_sp_int(c, s, "mem_clock_mhz", 1, 1, 100000, &o->mem_clock_mhz, NULL)) ||
        (err = mt_sp_int(c, s, "bus_width_bits", 1, 1, 65536, &o->bus_width_bits, NULL)) ||
        (err = mt_sp_size(c, s, "global_mem", 1, 1, 1ull << 50, &o->global_mem, NULL)) ||
        (err = mt_sp_size(c, s, "l2_size", 1, 1, MT_SIM_MAX_CACHE_BYTES, &o->l2_size, NULL)) ||
        (err = mt_sp_size(c, s, "persisting_l2_max", 0, 0, o->l2_size, &o->persisting_l2_max, NULL)) ||
        (err = mt_sp_size32(c, s, "smem_per_sm", 1, &o->smem_per_sm, NULL)) ||
        (err = mt_sp_size32(c, s, "smem_per_block", 1, &o->smem_per_block, NULL)) ||
        (err = mt_sp_size32(c, s, "smem_per_block_optin", 1, &o->smem_per_block_optin, NULL)) ||
        (err = mt_sp_size32(c, s, "const_mem", 1, &o->const_mem, NULL)) ||
        (err = mt_sp_size32(c, s, "const_reserved", 0, &o->const_reserved, NULL)) ||
        (err = mt_sp_int(c, s, "max_threads_per_block", 1, 1, 1 << 20, &o->max_threads_per_block,
                       NULL)) ||
        (err = mt_sp_int(c, s, "max_threads_per_sm", 1, 1, 1 << 20, &o->max_threads_per_sm, NULL)) ||
        (err = mt_sp_int(c, s, "warp_size", 1, 1, 1024, &o->warp_size, NULL)) ||
        (err = mt_sp_int(c, s, "regs_per_sm", 0, 1, 1 << 24, &o->regs_per_sm, NULL)) ||
        (err = mt_sp_uint(c, s, "seed", 1, 0, UINT64_MAX, &o->seed, NULL)) ||
        (err = mt_sp_double(c, s, "timer_overhead", 1, 0, MT_SIM_MAX_LATENCY, &o->timer_overhead,
                          NULL)) ||
        (err = mt_sp_double(c, s, "loop_overhead", 1, 0, MT_SIM_MAX_LATENCY, &o->loop_overhead,
                          NULL)) ||
        (err = mt_sp_double(c, s, "outlier_rate", 0, 0, 1, &o->outlier_rate, NULL)) ||
        (err = mt_sp_double(c, s, "outlier_cycles", 0, 0, MT_SIM_MAX_LATENCY, &o->outlier_cycles,
                          NULL)) ||
        (err = mt_sp_int(c, s, "fail_after_batches", 0, 0, 1 << 30, &o->fail_after_batches, NULL)) ||
        (err = mt_sp_int(c, s, "signal_after_batches", 0, 0, 1 << 30, &o->signal_after_batches,
                         NULL)))
        return err;
    /* The signal test hook sends one of the signals the CLI handles. */
    static const char *const signal_words[] = {"SIGINT", "SIGTERM", NULL};
    static const int signal_numbers[] = {SIGINT, SIGTERM};
    int which = 0;
    if ((err = mt_sp_word(c, s, "signal", signal_words, &which)))
        return err;
    o->signal_number = signal_numbers[which];
    if (o->smem_per_block > o->smem_per_block_optin)
        return mt_sp_err(c, mt_sp_find(s, "smem_per_block")->line,
                    "smem_per_block exceeds smem_per_block_optin");
    if (o->smem_per_block_optin > o->smem_per_sm)
        return mt_sp_err(c, mt_sp_find(s, "smem_per_block_optin")->line,
                    "smem_per_block_optin exceeds smem_per_sm");
    if (o->max_threads_per_block > o->max_threads_per_sm)
        return mt_sp_err(c, mt_sp_find(s, "max_threads_per_block")->line,
                    "max_threads_per_block exceeds max_threads_per_sm");
    if (o->const_mem == 0)
        return mt_sp_err(c, mt_sp_find(s, "const_mem")->line, "const_mem must be > 0");
    if (o->const_reserved >= o->const_mem)
        return mt_sp_err(c, mt_sp_find(s, "const_reserved")->line, "const_reserved must be below const_mem");
    if (o->outlier_rate > 0 && !mt_sp_find(s, "outlier_cycles"))
        return mt_sp_err(c, mt_sp_find(s, "outlier_rate")->line, "outlier_rate needs outlier_cycles");
    int has_pct = 0, has_bytes = 0;
    if ((err = mt_sp_int(c, s, "carveout_percent", 0, 0, 100, &o->carveout_percent, &has_pct)) ||
        (err = mt_sp_size32(c, s, "carveout_smem", 0, &o->carveout_smem, &has_bytes)))
        return err;
    if (has_bytes && o->carveout_smem > o->smem_per_sm)
        return mt_sp_err(c, mt_sp_find(s, "carveout_smem")->line, "carveout_smem exceeds smem_per_sm");
    /* Either one given: derive the other the way the driver relates them
     * (percent of the largest shared-memory size per SM). */
    if (has_pct && !has_bytes)
        o->carveout_smem = (uint32_t)(((uint64_t)o->smem_per_sm * (uint64_t)o->carveout_percent + 99) / 100);
    if (has_bytes && !has_pct)
        o->carveout_percent =
            (int)(((uint64_t)o->carveout_smem * 100 + o->smem_per_sm / 2) / o->smem_per_sm);
    return mt_sp_read_carveouts(c, s, o);
}

static mt_err read_serves(pctx *c, const section *s, mt_sim_cache_spec *cs)
{
    const kv *k = mt_sp_find(s, "serves");
    if (!k)
        return mt_sp_missing(c, s, "serves");
    char buf[MT_SP_MAX_VALUE];
    snprintf(buf, sizeof buf, "%s", k->val);
    int n = 0, all = 0;
    char *save = NULL; /* strtok_r: node runs parse specs on several threads at once */
    for (char *tok = strtok_r(buf, " ,\t", &save); tok; tok = strtok_r(NULL, " ,\t", &save), n++) {
        if (strcmp(tok, "all") == 0) {
            all = 1;
            continue;
        }
        int p = -1;
        for (int i = 0; i < MT_SIM_LP_COUNT; i++)
            if (strcmp(tok, mt_sp_lpath_names[i]) == 0)
                p = i;
        if (p == MT_SIM_LP_CG)
            return mt_sp_err(c, k->line, "serves: 'cg' loads bypass the per-SM caches by definition; "
                                    "only the L2 (serves = all) serves them");
        if (p < 0)
            return mt_sp_err(c, k->line, "serves: unknown path '%s' (expected l1d, tex, ro, const or all)",
                        tok);
        if (cs->serves & (1u << p))
            return mt_sp_err(c, k->line, "serves: '%s' listed twice", tok);
        cs->serves |= 1u << p;
    }
    if (all && n > 1)
        return mt_sp_err(c, k->line, "serves: 'all' (the L2) cannot be combined with other paths");
    if (all) {
        cs->is_l2 = 1;
        cs->serves = (1u << MT_SIM_LP_COUNT) - 1;
    }
    return MT_OK;
}

static mt_err read_cache(pctx *c, const section *s, mt_sim_cache_spec *cs)
{
    mt_err err;
    char t[64];
    mt_sp_title(s, t, sizeof t);
    memset(cs, 0, sizeof *cs);
    snprintf(cs->name, sizeof cs->name, "%s", s->name);
    cs->line_no = s->line;
    if ((err = read_serves(c, s, cs)))
        return err;
    cs->level = 1;
    const kv *k = mt_sp_find(s, "level");
    if (k && cs->is_l2)
        return mt_sp_err(c, k->line, "level: the L2 (serves = all) is always the last level");
    if ((err = mt_sp_double(c, s, "level", 0, 0, 1000, &cs->level, NULL)))
        return err;

    int has_unified = 0;
    if ((err = mt_sp_read_unified(c, s, cs, &has_unified)))
        return err;
    if (!has_unified &&
        (err = mt_sp_size(c, s, "size", 1, 1, MT_SIM_MAX_CACHE_BYTES, &cs->size, NULL)))
        return err;
    if ((err = mt_sp_u32(c, s, "line", 1, 4, MT_SIM_MAX_LINE, &cs->line, NULL)))
        return err;
    if (!mt_sp_is_pow2(cs->line))
        return mt_sp_err(c, mt_sp_find(s, "line")->line, "line = %u is not a power of two", cs->line);
    cs->sector = cs->line;
    if ((err = mt_sp_u32(c, s, "sector", 0, 4, cs->line, &cs->sector, NULL)))
        return err;
    if (!mt_sp_is_pow2(cs->sector))
        return mt_sp_err(c, mt_sp_find(s, "sector")->line, "sector = %u is not a power of two", cs->sector);
    if (cs->line / cs->sector > MT_SIM_MAX_SECTORS_PER_LINE)
        return mt_sp_err(c, mt_sp_find(s, "sector")->line, "more than %d sectors per line",
                    MT_SIM_MAX_SECTORS_PER_LINE);
    cs->fill = cs->sector;
    if ((err = mt_sp_u32(c, s, "fill", 0, cs->sector, cs->line, &cs->fill, NULL)))
        return err;
    if (!mt_sp_is_pow2(cs->fill))
        return mt_sp_err(c, mt_sp_find(s, "fill")->line, "fill = %u is not a power of two", cs->fill);
    const kv *ksize = mt_sp_find(s, has_unified ? "unified" : "size");
    if (cs->size % cs->line)
        return mt_sp_err(c, ksize->line, "size %llu B is not a multiple of the line size %u",
                    (unsigned long long)cs->size, cs->line);
    uint64_t lines = cs->size / cs->line;
    if (lines > MT_SIM_MAX_LINES)
        return mt_sp_err(c, ksize->line, "%llu lines exceed the simulator's limit of %u per cache",
                    (unsigned long long)lines, MT_SIM_MAX_LINES);

    k = mt_sp_find(s, "ways");
    if (!k)
        return mt_sp_missing(c, s, "ways");
    if (strcmp(k->val, "full") == 0) {
        cs->fully_assoc = 1;
        if (lines > MT_SIM_MAX_WAYS)
            return mt_sp_err(c, k->line, "fully associative with %llu lines: at most %d ways are simulated",
                        (unsigned long long)lines, MT_SIM_MAX_WAYS);
        cs->ways = (uint32_t)lines;
    } else {
        if ((err = mt_sp_u32(c, s, "ways", 1, 1, MT_SIM_MAX_WAYS, &cs->ways, NULL)))
            return err;
        if (lines % cs->ways)
            return mt_sp_err(c, k->line, "%llu lines are not divisible into %u ways",
                        (unsigned long long)lines, cs->ways);
    }
    static const char *const index_words[] = {"modulo", "xor", "hash", NULL};
    static const char *const repl_words[] = {"lru", "fifo", "random", "fermi", "plru", NULL};
    int v = 0;
    if ((err = mt_sp_word(c, s, "index", index_words, &v)))
        return err;
    cs->index = (mt_sim_index)v;
    v = 0;
    if ((err = mt_sp_word(c, s, "replacement", repl_words, &v)))
        return err;
    cs->repl = (mt_sim_repl)v;
    /* The tree of a pseudo-LRU set halves the ways at every level; other
     * way counts have no single textbook tree, so they are refused rather
     * than given a made-up one. */
    if (cs->repl == MT_SIM_REPL_PLRU && !mt_sp_is_pow2(cs->ways))
        return mt_sp_err(c, mt_sp_find(s, "replacement")->line,
                         "replacement = plru needs a power-of-two number of ways (ways = %u)",
                         cs->ways);
    if ((err = mt_sp_read_carveout_takes(c, s, cs)))
        return err;
    k = mt_sp_find(s, "fermi_way");
    if (k && cs->repl != MT_SIM_REPL_FERMI)
        return mt_sp_err(c, k->line, "fermi_way needs replacement = fermi");
    if ((err = mt_sp_u32(c, s, "fermi_way", 0, 0, cs->ways - 1, &cs->fermi_way, NULL)))
        return err;

    double lat_base = 0, far_base = 0;
    if ((err = mt_sp_latencies(c, s, "latency", 1, cs->serves, cs->latency, &lat_base, NULL)) ||
        (err = mt_sp_double(c, s, "noise", 0, 0, 1e5, &cs->noise, NULL)))
        return err;

    cs->slices = 1;
    if ((err = mt_sp_u32(c, s, "slices", 0, 1, MT_SIM_MAX_SLICES, &cs->slices, NULL)))
        return err;
    if (cs->is_l2 && cs->slices != 1)
        return mt_sp_err(c, mt_sp_find(s, "slices")->line, "slices: the L2 is one GPU-wide structure; "
                                                "use partitions for its halves");
    k = mt_sp_find(s, "slice_map");
    cs->slice_map = MT_SIM_SLICE_WARP_MOD;
    if (k) {
        uint64_t g = 0;
        if (strcmp(k->val, "warp_mod") == 0)
            cs->slice_map = MT_SIM_SLICE_WARP_MOD;
        else if (strcmp(k->val, "thread_mod") == 0)
            cs->slice_map = MT_SIM_SLICE_THREAD_MOD;
        else if (strncmp(k->val, "group ", 6) == 0 && !mt_sp_parse_u64(k->val + 6, &g) &&
                 g >= 1 && g <= 65536) {
            cs->slice_map = MT_SIM_SLICE_GROUP;
            cs->slice_group = (uint32_t)g;
        } else
            return mt_sp_err(c, k->line,
                        "slice_map: '%s' (expected warp_mod, thread_mod or 'group N', N in 1..65536)",
                        k->val);
    }

    cs->partitions = 1;
    k = mt_sp_find(s, "partitions");
    if (k && !cs->is_l2)
        return mt_sp_err(c, k->line, "partitions: only the L2 (serves = all) has partitions");
    if ((err = mt_sp_u32(c, s, "partitions", 0, 1, MT_SIM_MAX_PARTITIONS, &cs->partitions, NULL)))
        return err;
    int has_far = 0;
    if ((err = mt_sp_latencies(c, s, "far_latency", 0, cs->serves, cs->far_latency, &far_base,
                             &has_far)))
        return err;
    int any_far_override = 0;
    for (int p = 0; p < MT_SIM_LP_COUNT; p++) {
        char key[32];
        snprintf(key, sizeof key, "far_latency.%s", mt_sp_lpath_names[p]);
        if (mt_sp_find(s, key))
            any_far_override = mt_sp_find(s, key)->line;
    }
    if (cs->partitions > 1 && !has_far)
        return mt_sp_missing(c, s, "far_latency");
    if (cs->partitions > 1 && cs->ways && (cs->size / cs->line / cs->ways) % cs->partitions)
        return mt_sp_err(c, mt_sp_find(s, "partitions")->line,
                         "partitions: the L2's %llu sets do not split into %u equal partitions",
                         (unsigned long long)(cs->size / cs->line / cs->ways), cs->partitions);
    if (cs->partitions == 1 && (has_far || any_far_override))
        return mt_sp_err(c, has_far ? mt_sp_find(s, "far_latency")->line : any_far_override,
                    "far_latency needs partitions > 1");
    if (has_far) {
        /* A path with its own latency but no far override keeps the same
         * near/far penalty: far = latency.<p> + (far_latency - latency). */
        for (int p = 0; p < MT_SIM_LP_COUNT; p++) {
            char key[32];
            snprintf(key, sizeof key, "far_latency.%s", mt_sp_lpath_names[p]);
            if (!mt_sp_find(s, key))
                cs->far_latency[p] = cs->latency[p] + (far_base - lat_base);
            if (cs->far_latency[p] < 0)
                cs->far_latency[p] = 0;
        }
    } else {
        for (int p = 0; p < MT_SIM_LP_COUNT; p++)
            cs->far_latency[p] = cs->latency[p];
    }
    return mt_sp_read_geometry(c, s, cs);
}

static mt_err read_level(pctx *c, const section *s, mt_sim_level_spec *l, unsigned allowed)
{
    mt_err err;
    memset(l, 0, sizeof *l);
    if ((err = mt_sp_latencies(c, s, "latency", 1, allowed, l->latency, NULL, NULL)) ||
        (err = mt_sp_double(c, s, "noise", 0, 0, 1e5, &l->noise, NULL)))
        return err;
    return MT_OK;
}

static mt_err cross_checks(pctx *c, mt_sim_spec *o)
{
    const char *need[] = {"device", "dram", "shared"};
    const sec_kind kinds[] = {SEC_DEVICE, SEC_DRAM, SEC_SHARED};
    for (int i = 0; i < 3; i++) {
        int found = 0;
        for (int j = 0; j < c->n_sec; j++)
            found |= c->sec[j].kind == kinds[i];
        if (!found)
            return mt_sp_err(c, c->last_line, "missing [%s] section", need[i]);
    }
    o->l2 = -1;
    uint64_t total_lines = 0;
    for (int i = 0; i < o->n_caches; i++) {
        const mt_sim_cache_spec *cs = &o->cache[i];
        total_lines += cs->size / cs->line * cs->slices;
        if (cs->is_l2) {
            if (o->l2 >= 0)
                return mt_sp_err(c, cs->line_no, "[cache %s]: a second cache with serves = all "
                                            "([cache %s] is the L2)",
                            cs->name, o->cache[o->l2].name);
            o->l2 = i;
            continue;
        }
        for (int j = 0; j < i; j++) {
            const mt_sim_cache_spec *o2 = &o->cache[j];
            unsigned both = cs->serves & o2->serves;
            if (!o2->is_l2 && both && cs->level == o2->level) {
                int p = __builtin_ctz(both);
                return mt_sp_err(c, cs->line_no,
                            "[cache %s] and [cache %s] both serve '%s' at level %g; give them "
                            "different 'level' values",
                            cs->name, o2->name, mt_sp_lpath_names[p], cs->level);
            }
        }
    }
    if (o->l2 < 0)
        return mt_sp_err(c, c->last_line, "missing the L2: a [cache NAME] section with serves = all");
    if (total_lines > MT_SIM_MAX_TOTAL_LINES)
        return mt_sp_err(c, c->last_line, "the caches hold %llu lines in all; the simulator's limit is %u",
                    (unsigned long long)total_lines, MT_SIM_MAX_TOTAL_LINES);
    return MT_OK;
}

mt_err mt_sim_spec_parse(const char *text, const char *fname, mt_sim_spec *out, mt_errinfo *ei)
{
    if (!text || !out)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "mt_sim_spec_parse: NULL argument");
    pctx c = {.fname = fname ? fname : "<spec>", .ei = ei};
    c.sec = calloc(MT_SP_MAX_SECTIONS, sizeof *c.sec);
    if (!c.sec)
        return mt_fail(ei, MT_ERR_NOMEM, "out of memory parsing %s", c.fname);
    mt_sim_spec *o = calloc(1, sizeof *o);
    if (!o) {
        free(c.sec);
        return mt_fail(ei, MT_ERR_NOMEM, "out of memory parsing %s", c.fname);
    }
    o->carveout_percent = -1;
    o->regs_per_sm = 65536;
    snprintf(o->source, sizeof o->source, "%s", c.fname);
    mt_err err = mt_sp_structure(&c, text);
    for (int i = 0; !err && i < c.n_sec; i++) {
        const section *s = &c.sec[i];
        switch (s->kind) {
        case SEC_DEVICE: err = read_device(&c, s, o); break;
        case SEC_CACHE: err = read_cache(&c, s, &o->cache[o->n_caches++]); break;
        case SEC_DRAM:
            err = read_level(&c, s, &o->dram, (1u << MT_SIM_LP_COUNT) - 1);
            break;
        case SEC_SHARED:
            err = read_level(&c, s, &o->shared, 0);
            if (!err)
                err = mt_sp_read_banks(&c, s, &o->banks);
            break;
        case SEC_TENANT: err = mt_sp_read_tenant(&c, s, &o->tenant); break;
        case SEC_THROUGHPUT: break; /* needs every cache: read after the cross checks */
        case SEC_CLUSTER: break;    /* checked against [device] and [shared]: read after them */
        case SEC_TLB: err = mt_sp_read_tlb(&c, s, &o->tlb[o->n_tlbs++]); break;
        case SEC_ICACHE: err = mt_sp_read_icache(&c, s, &o->icache[o->n_icaches++]); break;
        case SEC_ACCESS: break; /* its defaults come from [shared]: read after it */
        case SEC_LINK:
        case SEC_HOST_LINK: err = mt_sp_read_link(&c, s, o); break;
        }
    }
    if (!err)
        err = cross_checks(&c, o);
    if (!err) {
        const section *acc = NULL;
        for (int i = 0; i < c.n_sec; i++)
            if (c.sec[i].kind == SEC_ACCESS)
                acc = &c.sec[i];
        err = mt_sp_read_access(&c, acc, o);
    }
    for (int i = 0; !err && i < c.n_sec; i++)
        if (c.sec[i].kind == SEC_THROUGHPUT)
            err = mt_sp_read_throughput(&c, &c.sec[i], o);
        else if (c.sec[i].kind == SEC_CLUSTER)
            err = mt_sp_read_cluster(&c, &c.sec[i], o);
    if (!err)
        err = mt_sp_check_geometry(&c, o);
    if (!err)
        err = mt_sp_check_measurable(&c, o);
    if (!err)
        err = mt_sp_check_tlbs(&c, o);
    if (!err)
        err = mt_sp_check_icaches(&c, o);
    if (!err)
        *out = *o;
    free(o);
    free(c.sec);
    return err;
}


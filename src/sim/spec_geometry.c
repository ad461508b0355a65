/* Spec parser: the cache-geometry keys of issue 8 (docs/spec-format.md):
 * the bit-mask set-index hash (index_masks), the L1 that shares its array
 * with shared memory (unified, with [device] carveouts_kib), and the L2's
 * per-SM partition map (partition_of_sm).  Keys are read with their
 * section (mt_sp_read_*); rules that need other sections (the device's
 * carveouts and SM count) run once everything is read (mt_sp_check_geometry). */
#include <stdio.h>
#include <string.h>

#include "../backend/backend.h"
#include "spec_internal.h"

/* Splits a list value (words separated by spaces or commas) into at most
 * max tokens; returns the count, or -1 when there are more. */
static int split_list(const char *val, char *buf, size_t cap, char **tok, int max)
{
    snprintf(buf, cap, "%s", val);
    int n = 0;
    char *save = NULL; /* strtok_r: node runs parse specs on several threads at once */
    for (char *t = strtok_r(buf, " ,", &save); t; t = strtok_r(NULL, " ,", &save)) {
        if (n == max)
            return -1;
        tok[n++] = t;
    }
    return n;
}

/* "0x" and 1 to 16 hex digits.  Hex only here: a mask's bits are what it
 * means, and the prefix leaves no doubt about the base. */
static int parse_mask(const char *t, uint64_t *out)
{
    if (t[0] != '0' || (t[1] != 'x' && t[1] != 'X'))
        return -1;
    size_t n = strlen(t + 2);
    if (n < 1 || n > 16)
        return -1;
    uint64_t v = 0;
    for (const char *p = t + 2; *p; p++) {
        int d = (*p >= '0' && *p <= '9')   ? *p - '0'
                : (*p >= 'a' && *p <= 'f') ? *p - 'a' + 10
                : (*p >= 'A' && *p <= 'F') ? *p - 'A' + 10
                                           : -1;
        if (d < 0)
            return -1;
        v = v << 4 | (uint64_t)d;
    }
    *out = v;
    return 0;
}

/* Rank over GF(2) of the masks (Gaussian elimination on 64-bit rows): the
 * hash reaches every one of 2^n sets exactly when the n masks are linearly
 * independent. */
static uint32_t gf2_rank(const uint64_t *mask, uint32_t n)
{
    uint64_t row[MT_SIM_MAX_INDEX_BITS];
    memcpy(row, mask, n * sizeof *row);
    uint32_t rank = 0;
    for (int bit = 63; bit >= 0 && rank < n; bit--) {
        uint64_t b = 1ull << bit;
        uint32_t pivot = rank;
        while (pivot < n && !(row[pivot] & b))
            pivot++;
        if (pivot == n)
            continue;
        uint64_t t = row[pivot];
        row[pivot] = row[rank];
        row[rank] = t;
        for (uint32_t i = 0; i < n; i++)
            if (i != rank && (row[i] & b))
                row[i] ^= row[rank];
        rank++;
    }
    return rank;
}

/* Sets of one instance of the cache: a partitioned L2 looks lines up in
 * its partition's share of the sets. */
static uint64_t instance_sets(const mt_sim_cache_spec *cs)
{
    return cs->size / cs->line / cs->ways / (cs->is_l2 ? cs->partitions : 1);
}

static mt_err read_index_masks(pctx *c, const section *s, mt_sim_cache_spec *cs)
{
    const kv *k = mt_sp_find(s, "index_masks");
    if (k && cs->index != MT_SIM_INDEX_HASH)
        return mt_sp_err(c, k->line, "index_masks needs index = hash");
    if (cs->index != MT_SIM_INDEX_HASH)
        return MT_OK;
    if (cs->unified && !cs->carveout_ways)
        return mt_sp_err(c, mt_sp_find(s, "index")->line,
                         "index = hash: a cache sharing its array (unified) changes its set "
                         "count with the carveout, which a fixed list of masks cannot follow "
                         "(unless carveout_takes = ways)");
    uint64_t sets = instance_sets(cs);
    if (sets < 2 || !mt_sp_is_pow2(sets))
        return mt_sp_err(c, mt_sp_find(s, "index")->line,
                         "index = hash needs a power-of-two number of sets, at least 2 (%llu%s)",
                         (unsigned long long)sets, cs->partitions > 1 ? " per partition" : "");
    if (!k)
        return mt_sp_missing(c, s, "index_masks");
    uint32_t bits = (uint32_t)__builtin_ctzll(sets);
    char buf[MT_SP_MAX_VALUE], *tok[MT_SIM_MAX_INDEX_BITS + 1];
    int n = split_list(k->val, buf, sizeof buf, tok, MT_SIM_MAX_INDEX_BITS);
    if (n != (int)bits)
        return mt_sp_err(c, k->line,
                         "index_masks: %llu sets%s need exactly %u masks, one per set-index bit",
                         (unsigned long long)sets, cs->partitions > 1 ? " per partition" : "",
                         bits);
    for (int i = 0; i < n; i++) {
        if (parse_mask(tok[i], &cs->index_mask[i]))
            return mt_sp_err(c, k->line, "index_masks: '%.40s' is not a mask (0x and 1 to 16 hex digits)",
                             tok[i]);
        if (!cs->index_mask[i])
            return mt_sp_err(c, k->line, "index_masks: mask %d is zero (its set bit would never be set)", i);
    }
    cs->n_index_masks = bits;
    if (gf2_rank(cs->index_mask, bits) < bits)
        return mt_sp_err(c, k->line,
                         "index_masks: the masks are not linearly independent (some mask is the "
                         "XOR of others), so some sets would never be used");
    return MT_OK;
}

/* partition_of_sm = P P*N ...: N*P stands for N entries P. */
static mt_err read_partition_map(pctx *c, const section *s, mt_sim_cache_spec *cs)
{
    const kv *k = mt_sp_find(s, "partition_of_sm");
    if (!k)
        return MT_OK;
    if (!cs->is_l2 || cs->partitions < 2)
        return mt_sp_err(c, k->line, "partition_of_sm needs the L2 (serves = all) with partitions > 1");
    char buf[MT_SP_MAX_VALUE], *tok[MT_SP_MAX_VALUE];
    int n = split_list(k->val, buf, sizeof buf, tok, MT_SP_MAX_VALUE);
    uint32_t len = 0;
    for (int i = 0; i < n; i++) {
        uint64_t count = 1, part = 0;
        char *star = strchr(tok[i], '*');
        if (star) {
            *star = '\0';
            if (mt_sp_parse_u64(tok[i], &count) || count < 1)
                return mt_sp_err(c, k->line, "partition_of_sm: '%.40s*...' needs a count >= 1 before '*'",
                                 tok[i]);
        }
        const char *ps = star ? star + 1 : tok[i];
        if (mt_sp_parse_u64(ps, &part) || part >= cs->partitions)
            return mt_sp_err(c, k->line,
                             "partition_of_sm: '%.40s' is not a partition number 0..%u",
                             ps, cs->partitions - 1);
        if (count > MT_SIM_MAX_PARTITION_MAP - len)
            return mt_sp_err(c, k->line, "partition_of_sm: more than %d entries",
                             MT_SIM_MAX_PARTITION_MAP);
        for (uint64_t r = 0; r < count; r++)
            cs->partition_map[len++] = (uint8_t)part;
    }
    if (len == 0)
        return mt_sp_err(c, k->line, "partition_of_sm: empty list");
    cs->partition_map_len = len;
    return MT_OK;
}

mt_err mt_sp_read_unified(pctx *c, const section *s, mt_sim_cache_spec *cs, int *has)
{
    const kv *k = mt_sp_find(s, "unified");
    *has = k != NULL;
    if (!k)
        return MT_OK;
    if (cs->is_l2)
        return mt_sp_err(c, k->line, "unified: the L2 does not share its array with shared memory");
    if (mt_sp_find(s, "size"))
        return mt_sp_err(c, mt_sp_find(s, "size")->line,
                         "size: not allowed with unified (the size is unified - the carveout)");
    mt_err err = mt_sp_size(c, s, "unified", 1, 1, MT_SIM_MAX_CACHE_BYTES, &cs->unified, NULL);
    if (!err)
        cs->size = cs->unified; /* the largest the L1 can be, for the line-count limits */
    return err;
}

mt_err mt_sp_read_carveout_takes(pctx *c, const section *s, mt_sim_cache_spec *cs)
{
    static const char *const takes_words[] = {"sets", "ways", NULL};
    const kv *k = mt_sp_find(s, "carveout_takes");
    if (k && !cs->unified)
        return mt_sp_err(c, k->line, "carveout_takes needs unified (a cache of fixed size "
                         "loses nothing to the carveout)");
    int v = 0;
    mt_err err = mt_sp_word(c, s, "carveout_takes", takes_words, &v);
    if (err)
        return err;
    cs->carveout_ways = v;
    /* A set with fewer ways than the cache has no textbook pseudo-LRU tree
     * and no Fermi way to favour: refused rather than given a made-up one. */
    if (v && (cs->repl == MT_SIM_REPL_PLRU || cs->repl == MT_SIM_REPL_FERMI))
        return mt_sp_err(c, k->line, "carveout_takes = ways: sets lose ways, which replacement "
                         "= %s does not define (use lru, fifo or random)",
                         cs->repl == MT_SIM_REPL_PLRU ? "plru" : "fermi");
    return MT_OK;
}

mt_err mt_sp_read_geometry(pctx *c, const section *s, mt_sim_cache_spec *cs)
{
    mt_err err = read_index_masks(c, s, cs);
    if (!err)
        err = read_partition_map(c, s, cs);
    if (!err && cs->unified && cs->fully_assoc)
        err = mt_sp_err(c, mt_sp_find(s, "ways")->line,
                        "ways = full: a cache sharing its array (unified) keeps its ways and "
                        "loses sets to the carveout; give a way count");
    return err;
}

mt_err mt_sp_read_carveouts(pctx *c, const section *s, mt_sim_spec *o)
{
    const kv *k = mt_sp_find(s, "carveouts_kib");
    if (!k)
        return MT_OK;
    char buf[MT_SP_MAX_VALUE], *tok[MT_MAX_CARVEOUTS];
    int n = split_list(k->val, buf, sizeof buf, tok, MT_MAX_CARVEOUTS);
    if (n < 1)
        return mt_sp_err(c, k->line, "carveouts_kib: %s", n ? "more than 16 carveouts" : "empty list");
    for (int i = 0; i < n; i++) {
        uint64_t v;
        if (mt_sp_parse_u64(tok[i], &v) || v > UINT32_MAX / 1024)
            return mt_sp_err(c, k->line, "carveouts_kib: '%.40s' is not a plain decimal KiB count",
                             tok[i]);
        if (i && v * 1024 <= o->carveouts[i - 1])
            return mt_sp_err(c, k->line, "carveouts_kib: not in ascending order (%llu after %u)",
                             (unsigned long long)v, o->carveouts[i - 1] / 1024);
        o->carveouts[i] = (uint32_t)v * 1024;
    }
    o->n_carveouts = n;
    /* The largest carveout is all of smem_per_sm (100%), as on every GPU
     * with a carveout; otherwise a percentage would not name one. */
    if (o->carveouts[n - 1] != o->smem_per_sm)
        return mt_sp_err(c, k->line, "carveouts_kib: the largest (%u KiB) must equal smem_per_sm (%u B)",
                         o->carveouts[n - 1] / 1024, o->smem_per_sm);
    return MT_OK;
}

/* A unified cache at carveout smem: what is left must be a positive whole
 * number of sets of `ways` lines. */
static mt_err check_unified_at(pctx *c, const mt_sim_cache_spec *cs, int line, uint32_t smem)
{
    if (smem >= cs->unified)
        return mt_sp_err(c, line, "[cache %s]: a %u KiB carveout leaves no L1 of the %llu B unified array",
                         cs->name, smem / 1024, (unsigned long long)cs->unified);
    uint64_t left = cs->unified - smem, set_bytes = (uint64_t)cs->line * cs->ways;
    if (cs->carveout_ways) {
        /* Whole lines taken, and every set keeps a way (a set of none would
         * be no cache for its lines, which no probe here reports). */
        uint64_t sets = cs->unified / set_bytes;
        if (smem % cs->line)
            return mt_sp_err(c, line, "[cache %s]: carveout_takes = ways: a %u B carveout is not "
                             "a whole number of %u B lines", cs->name, smem, cs->line);
        if (left / cs->line < sets)
            return mt_sp_err(c, line, "[cache %s]: carveout_takes = ways: a %u KiB carveout "
                             "leaves %llu lines for %llu sets; every set must keep a way",
                             cs->name, smem / 1024, (unsigned long long)(left / cs->line),
                             (unsigned long long)sets);
        return MT_OK;
    }
    if (left % set_bytes)
        return mt_sp_err(c, line,
                         "[cache %s]: a %u KiB carveout leaves %llu B, not a whole number of "
                         "sets of %u ways of %u B",
                         cs->name, smem / 1024, (unsigned long long)left, cs->ways, cs->line);
    return MT_OK;
}

/* Measurable: a probe's data lies within the global path limit, so the
 * hash must reach every set from line addresses below it; masks that are
 * independent only through higher bits leave sets no chain can fill. */
static mt_err check_masks_reachable(pctx *c, const section *s, const mt_sim_cache_spec *cs,
                                    uint64_t path_limit)
{
    if (cs->index != MT_SIM_INDEX_HASH)
        return MT_OK;
    uint64_t lines = path_limit / cs->line;
    uint32_t bits = 0;
    while (bits < 63 && (1ull << (bits + 1)) <= lines)
        bits++;
    uint64_t reach = (1ull << bits) - 1;
    uint64_t low[MT_SIM_MAX_INDEX_BITS];
    for (uint32_t i = 0; i < cs->n_index_masks; i++)
        low[i] = cs->index_mask[i] & reach;
    if (gf2_rank(low, cs->n_index_masks) < cs->n_index_masks)
        return mt_sp_err(c, mt_sp_find(s, "index_masks")->line,
                         "index_masks: restricted to the line-address bits below the global path "
                         "limit (%llu B, bits 0..%u), the masks are not independent: some sets "
                         "would hold no data a probe can reach",
                         (unsigned long long)path_limit, bits ? bits - 1 : 0);
    return MT_OK;
}

mt_err mt_sp_check_geometry(pctx *c, mt_sim_spec *o)
{
    const section *dev = NULL;
    for (int i = 0; i < c->n_sec; i++)
        if (c->sec[i].kind == SEC_DEVICE)
            dev = &c->sec[i];
    for (int i = 0; i < o->n_caches; i++) {
        mt_sim_cache_spec *cs = &o->cache[i];
        const section *s = NULL;
        for (int j = 0; j < c->n_sec; j++)
            if (c->sec[j].kind == SEC_CACHE && strcmp(c->sec[j].name, cs->name) == 0)
                s = &c->sec[j];
        mt_err merr = check_masks_reachable(c, s, cs, mt_sim_global_path_limit(o));
        if (merr)
            return merr;
        if (cs->partition_map_len > (uint32_t)o->sm_count)
            return mt_sp_err(c, mt_sp_find(s, "partition_of_sm")->line,
                             "partition_of_sm: %u entries for %d SMs", cs->partition_map_len,
                             o->sm_count);
        if (!cs->unified)
            continue;
        int uline = mt_sp_find(s, "unified")->line;
        if (o->carveout_smem == 0)
            return mt_sp_err(c, uline,
                             "unified: the L1's size follows the carveout; give [device] "
                             "carveout_percent or carveout_smem");
        mt_err err = check_unified_at(c, cs, uline, o->carveout_smem);
        for (int k = 0; !err && k < o->n_carveouts; k++)
            err = check_unified_at(c, cs, uline, o->carveouts[k]);
        if (err)
            return err;
        cs->size = mt_sim_cache_size(cs, o->carveout_smem);
    }
    /* The default carveout is one the device can be asked for. */
    if (o->n_carveouts && o->carveout_smem) {
        int found = 0;
        for (int k = 0; k < o->n_carveouts; k++)
            found |= o->carveouts[k] == o->carveout_smem;
        if (!found) {
            const kv *k = mt_sp_find(dev, "carveout_smem");
            if (!k)
                k = mt_sp_find(dev, "carveout_percent");
            return mt_sp_err(c, k->line, "the default carveout (%u B) is not one of carveouts_kib",
                             o->carveout_smem);
        }
    }
    return MT_OK;
}

uint32_t mt_sim_partition_of_sm(const mt_sim_cache_spec *cs, int sm)
{
    uint32_t s = sm >= 0 ? (uint32_t)sm : 0;
    if (cs->partitions <= 1)
        return 0;
    if (cs->partition_map_len)
        return cs->partition_map[s % cs->partition_map_len];
    return s % cs->partitions;
}

uint32_t mt_sim_carveout_smem(const mt_sim_spec *s, int percent)
{
    if (percent < 0)
        return s->carveout_smem;
    return mt_carveout_smem_of(s->carveouts, s->n_carveouts, s->smem_per_sm, percent);
}

uint64_t mt_sim_cache_size(const mt_sim_cache_spec *cs, uint32_t carveout_smem)
{
    return cs->unified ? cs->unified - carveout_smem : cs->size;
}

uint32_t mt_sim_set_ways(const mt_sim_cache_spec *cs, uint32_t carveout_smem, uint64_t set)
{
    if (!cs->unified || !cs->carveout_ways)
        return cs->ways;
    uint64_t sets = cs->unified / cs->line / cs->ways, taken = carveout_smem / cs->line;
    return cs->ways - (uint32_t)(taken / sets) - (set >= sets - taken % sets ? 1u : 0u);
}

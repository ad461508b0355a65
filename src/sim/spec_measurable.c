/* Spec parser, pass 3: rules across keys and sections that every value can
 * pass on its own and a spec still break.  Without them a spec the parser
 * accepts could fail late (a probe's chain longer than a path allows, after
 * the report was written), report nonsense next to a measurement (1 B of
 * memory under a 50 MiB L2), be measured wrongly (noise or spikes that bury
 * the steps the probes look for, a level slower than the one behind it), or
 * run for minutes.  docs/spec-format.md ("Limits") states each rule and
 * why; the constants are in spec.h. */
#include <stdio.h>
#include <string.h>

#include "spec_internal.h"

/* The section of this kind (and cache name), or NULL. */
static const section *find_section(const pctx *c, sec_kind kind, const char *cache_name)
{
    for (int i = 0; i < c->n_sec; i++)
        if (c->sec[i].kind == kind && (kind != SEC_CACHE || strcmp(c->sec[i].name, cache_name) == 0))
            return &c->sec[i];
    return NULL;
}

/* Line of key in s; the header's line when the key is absent (a default). */
static int key_line(const section *s, const char *key)
{
    const kv *k = mt_sp_find(s, key);
    return k ? k->line : s->line;
}

/* Line of the latency a path uses: its own override, else the base key. */
static int path_key_line(const section *s, const char *base, int path)
{
    char key[32];
    snprintf(key, sizeof key, "%s.%s", base, mt_sp_lpath_names[path]);
    return mt_sp_find(s, key) ? key_line(s, key) : key_line(s, base);
}

static mt_err check_device(pctx *c, const mt_sim_spec *o)
{
    const section *d = find_section(c, SEC_DEVICE, NULL);
    if (o->outlier_rate > MT_SIM_MAX_OUTLIER_RATE)
        return mt_sp_err(c, key_line(d, "outlier_rate"),
                         "outlier_rate = %g is above %g: more spikes than the probes' robust "
                         "statistics are built to ignore",
                         o->outlier_rate, MT_SIM_MAX_OUTLIER_RATE);
    if (o->outlier_cycles > MT_SIM_MAX_OUTLIER_CYCLES)
        return mt_sp_err(c, key_line(d, "outlier_cycles"), "outlier_cycles = %g is above %g",
                         o->outlier_cycles, MT_SIM_MAX_OUTLIER_CYCLES);
    if (o->const_mem > MT_SIM_MAX_CONST_MEM)
        return mt_sp_err(c, key_line(d, "const_mem"),
                         "const_mem = %u B is above %u B (every NVIDIA GPU has 64 KiB)",
                         o->const_mem, MT_SIM_MAX_CONST_MEM);
    if (o->const_mem < o->const_reserved + MT_SIM_MIN_CONST_BANK)
        return mt_sp_err(c, key_line(d, "const_mem"),
                         "const_mem - const_reserved = %u B leaves less than the %u B the "
                         "constant-cache probe chases through",
                         o->const_mem - o->const_reserved, MT_SIM_MIN_CONST_BANK);
    static const char *const smem_keys[] = {"smem_per_block", "smem_per_block_optin",
                                            "smem_per_sm"};
    const uint32_t smem[] = {o->smem_per_block, o->smem_per_block_optin, o->smem_per_sm};
    for (int i = 0; i < 3; i++)
        if (smem[i] < MT_SIM_MIN_SMEM)
            return mt_sp_err(c, key_line(d, smem_keys[i]),
                             "%s = %u B is below %u B, the shared-memory probe's chain",
                             smem_keys[i], smem[i], MT_SIM_MIN_SMEM);
    return MT_OK;
}

/* The L2 against the device: sizes the probes derive their chains from,
 * and the cost of simulating it. */
static mt_err check_l2(pctx *c, const mt_sim_spec *o)
{
    const section *d = find_section(c, SEC_DEVICE, NULL);
    const mt_sim_cache_spec *l2 = &o->cache[o->l2];
    const section *s = find_section(c, SEC_CACHE, l2->name);
    if (o->l2_size < MT_SIM_MIN_L2)
        return mt_sp_err(c, key_line(d, "l2_size"),
                         "l2_size = %llu B is below %u B: the L2 probe's chains (down to "
                         "1/256 of it) would be shorter than a line",
                         (unsigned long long)o->l2_size, MT_SIM_MIN_L2);
    double ratio = (double)o->l2_size / (double)l2->size;
    if (ratio > MT_SIM_L2_DRIVER_RATIO || ratio < 1 / MT_SIM_L2_DRIVER_RATIO)
        return mt_sp_err(c, key_line(d, "l2_size"),
                         "l2_size = %llu B and the L2 [cache %s] of %llu B differ by more than "
                         "a factor of %g: the probes size their L2 chains from l2_size",
                         (unsigned long long)o->l2_size, l2->name,
                         (unsigned long long)l2->size, MT_SIM_L2_DRIVER_RATIO);
    if (l2->size > MT_SIM_MAX_L2_BYTES)
        return mt_sp_err(c, key_line(s, "size"),
                         "the L2 [cache %s] of %llu B is above %llu B: a run would take minutes",
                         l2->name, (unsigned long long)l2->size, MT_SIM_MAX_L2_BYTES);
    if ((double)l2->size * l2->ways > (double)MT_SIM_MAX_L2_BYTE_WAYS)
        return mt_sp_err(c, key_line(s, "ways"),
                         "the L2 [cache %s]: %llu B x %u ways is above %llu: every lookup scans "
                         "the ways, a run would take minutes",
                         l2->name, (unsigned long long)l2->size, l2->ways,
                         MT_SIM_MAX_L2_BYTE_WAYS);
    /* The L2 probe chases up to 4x the L2 through the global paths. */
    uint64_t path = mt_sim_global_path_limit(o);
    uint64_t l2_max = o->l2_size > l2->size ? o->l2_size : l2->size;
    if (path < MT_SIM_GLOBAL_PATH_PER_L2 * l2_max)
        return mt_sp_err(c, key_line(d, "global_mem"),
                         "global_mem = %llu B gives a %llu B global path (half of it), below "
                         "%dx the L2's %llu B that the L2 probe chases through",
                         (unsigned long long)o->global_mem, (unsigned long long)path,
                         MT_SIM_GLOBAL_PATH_PER_L2, (unsigned long long)l2_max);
    return MT_OK;
}

/* noise <= latency / 8 for every latency of a level (paths 0: the level
 * has one latency, lat[0], as [shared]). */
static mt_err check_noise(pctx *c, const section *s, double noise, const double *lat,
                          unsigned paths, const char *base)
{
    char t[64];
    if (!paths && noise > MT_SIM_NOISE_PER_LATENCY * lat[0])
        return mt_sp_err(c, key_line(s, "noise"),
                         "noise = %g in %s is above 1/8 of its latency (%g cycles)", noise,
                         mt_sp_title(s, t, sizeof t), lat[0]);
    for (int p = 0; p < MT_SIM_LP_COUNT; p++) {
        if (!(paths & (1u << p)) || noise <= MT_SIM_NOISE_PER_LATENCY * lat[p])
            continue;
        return mt_sp_err(c, key_line(s, "noise"),
                         "noise = %g in %s is above 1/8 of its %s for '%s' loads (%g cycles)",
                         noise, mt_sp_title(s, t, sizeof t), base, mt_sp_lpath_names[p], lat[p]);
    }
    return MT_OK;
}

/* Along one path the latencies grow outwards: each per-SM cache (by level)
 * below the next, the last below the L2's near latency, that at most its far
 * latency, and both at most DRAM's (a far hit as slow as DRAM is still an L2
 * hit; a near hit must be faster).  A level slower than the one behind it
 * turns every miss the probes look for into a hit. */
static mt_err check_path_order(pctx *c, const mt_sim_spec *o, int p)
{
    const mt_sim_cache_spec *prev = NULL;
    for (;;) { /* the per-SM caches serving p, by level */
        const mt_sim_cache_spec *next = NULL;
        for (int i = 0; i < o->n_caches; i++) {
            const mt_sim_cache_spec *cs = &o->cache[i];
            if (cs->is_l2 || !(cs->serves & (1u << p)) || (prev && cs->level <= prev->level))
                continue;
            if (!next || cs->level < next->level)
                next = cs;
        }
        if (!next)
            break;
        if (prev && next->latency[p] <= prev->latency[p])
            return mt_sp_err(c, path_key_line(find_section(c, SEC_CACHE, next->name), "latency", p),
                             "[cache %s] is no slower than [cache %s] before it for '%s' loads "
                             "(%g <= %g cycles)",
                             next->name, prev->name, mt_sp_lpath_names[p], next->latency[p],
                             prev->latency[p]);
        prev = next;
    }
    const mt_sim_cache_spec *l2 = &o->cache[o->l2];
    const section *sl2 = find_section(c, SEC_CACHE, l2->name);
    const section *sd = find_section(c, SEC_DRAM, NULL);
    if (prev && l2->latency[p] <= prev->latency[p])
        return mt_sp_err(c, path_key_line(sl2, "latency", p),
                         "the L2 [cache %s] is no slower than [cache %s] before it for '%s' loads "
                         "(%g <= %g cycles)",
                         l2->name, prev->name, mt_sp_lpath_names[p], l2->latency[p],
                         prev->latency[p]);
    if (l2->far_latency[p] < l2->latency[p])
        return mt_sp_err(c, path_key_line(sl2, "far_latency", p),
                         "far_latency of [cache %s] is below its near latency for '%s' loads "
                         "(%g < %g cycles)",
                         l2->name, mt_sp_lpath_names[p], l2->far_latency[p], l2->latency[p]);
    if (o->dram.latency[p] <= l2->latency[p] || o->dram.latency[p] < l2->far_latency[p])
        return mt_sp_err(c, path_key_line(sd, "latency", p),
                         "[dram] latency %g for '%s' loads is not above the L2's (%g near, %g far)",
                         o->dram.latency[p], mt_sp_lpath_names[p], l2->latency[p],
                         l2->far_latency[p]);
    return MT_OK;
}

mt_err mt_sp_check_measurable(pctx *c, const mt_sim_spec *o)
{
    mt_err err;
    if ((err = check_device(c, o)) || (err = check_l2(c, o)))
        return err;
    for (int i = 0; i < o->n_caches; i++) {
        const mt_sim_cache_spec *cs = &o->cache[i];
        const section *s = find_section(c, SEC_CACHE, cs->name);
        if ((err = check_noise(c, s, cs->noise, cs->latency, cs->serves, "latency")))
            return err;
        if (cs->is_l2 && cs->partitions > 1 &&
            (err = check_noise(c, s, cs->noise, cs->far_latency, cs->serves, "far_latency")))
            return err;
    }
    const unsigned all = (1u << MT_SIM_LP_COUNT) - 1;
    if ((err = check_noise(c, find_section(c, SEC_DRAM, NULL), o->dram.noise, o->dram.latency,
                           all, "latency")) ||
        (err = check_noise(c, find_section(c, SEC_SHARED, NULL), o->shared.noise,
                           o->shared.latency, 0, "latency")))
        return err;
    for (int p = 0; p < MT_SIM_LP_COUNT; p++)
        if ((err = check_path_order(c, o, p)))
            return err;
    return MT_OK;
}

/* The [throughput] section of a sim spec (docs/spec-format.md,
 * "Throughput"): bytes per cycle each level delivers to stream
 * experiments, per SM and for the whole GPU, and the misses an SM keeps in
 * flight.  Keys are LEVEL.FIGURE, LEVEL a [cache NAME], `shared` or
 * `dram`; plus `mshr`. */
#include <stdio.h>
#include <string.h>

#include "spec_internal.h"

static const char *const figures[] = {"read", "write", "read_gpu", "write_gpu", NULL};

/* Pass 1 cannot know the cache names yet: any LEVEL.FIGURE with a known
 * FIGURE passes here, and pass 2 checks LEVEL. */
int mt_sp_throughput_key_known(const char *key)
{
    if (strcmp(key, "mshr") == 0)
        return 1;
    const char *dot = strrchr(key, '.');
    if (!dot || dot == key)
        return 0;
    for (int i = 0; figures[i]; i++)
        if (strcmp(dot + 1, figures[i]) == 0)
            return 1;
    return 0;
}

/* The level a key names: cache index, or -1 shared, -2 dram; -3 none. */
static int level_of(const mt_sim_spec *o, const char *key, size_t len)
{
    if (len == 6 && strncmp(key, "shared", 6) == 0)
        return -1;
    if (len == 4 && strncmp(key, "dram", 4) == 0)
        return -2;
    for (int i = 0; i < o->n_caches; i++)
        if (strlen(o->cache[i].name) == len && strncmp(o->cache[i].name, key, len) == 0)
            return i;
    return -3;
}

/* A cache can be streamed when it serves a global path (const data is
 * not streamed: backend.h refuses constant-path streams). */
static int streamed(const mt_sim_cache_spec *cs)
{
    unsigned global = (1u << MT_SIM_LP_L1D) | (1u << MT_SIM_LP_TEX) | (1u << MT_SIM_LP_RO) |
                      (1u << MT_SIM_LP_CG);
    return cs->is_l2 || (cs->serves & global);
}

static mt_err set_figure(pctx *c, const kv *k, mt_sim_spec *o)
{
    const char *dot = strrchr(k->key, '.');
    const char *fig = dot + 1;
    int lev = level_of(o, k->key, (size_t)(dot - k->key));
    if (lev == -3)
        return mt_sp_err(c, k->line, "%s: no level '%.*s' (a [cache NAME], shared or dram)",
                         k->key, (int)(dot - k->key), k->key);
    int gpu = strstr(fig, "_gpu") != NULL;
    mt_sim_bw_spec *b = lev == -1 ? &o->tp.shared : lev == -2 ? &o->tp.dram : &o->tp.cache[lev];
    if (lev >= 0 && !streamed(&o->cache[lev]))
        return mt_sp_err(c, k->line, "%s: [cache %s] serves only constant data, which is not "
                                     "streamed", k->key, o->cache[lev].name);
    if (gpu && !(lev == -2 || (lev >= 0 && o->cache[lev].is_l2)))
        return mt_sp_err(c, k->line, "%s: only the L2 and dram have a GPU-wide figure", k->key);
    if (!gpu && lev == -2)
        return mt_sp_err(c, k->line, "%s: dram has GPU-wide figures only (read_gpu, write_gpu); "
                                     "per SM the L2's figures limit it", k->key);
    double lo = MT_SIM_MIN_BW, hi = gpu ? MT_SIM_MAX_BW_GPU : MT_SIM_MAX_BW_SM, v = 0;
    section one = {.kind = SEC_THROUGHPUT, .n = 1};
    one.kv[0] = *k;
    mt_err err = mt_sp_double(c, &one, k->key, 1, lo, hi, &v, NULL);
    if (err)
        return err;
    double *dst = strcmp(fig, "read") == 0    ? &b->read
                  : strcmp(fig, "write") == 0 ? &b->write
                  : strcmp(fig, "read_gpu") == 0 ? &b->read_gpu
                                                 : &b->write_gpu;
    *dst = v;
    return MT_OK;
}

static mt_err need(pctx *c, const section *s, const char *level, const char *fig, double v)
{
    if (v > 0)
        return MT_OK;
    return mt_sp_err(c, s->line, "[throughput]: missing %s.%s", level, fig);
}

mt_err mt_sp_read_throughput(pctx *c, const section *s, mt_sim_spec *o)
{
    memset(&o->tp, 0, sizeof o->tp);
    o->tp.present = 1;
    mt_err err;
    if ((err = mt_sp_u32(c, s, "mshr", 1, 1, MT_SIM_MAX_MSHR, &o->tp.mshr, NULL)))
        return err;
    for (int i = 0; i < s->n; i++)
        if (strcmp(s->kv[i].key, "mshr") != 0 && (err = set_figure(c, &s->kv[i], o)))
            return err;
    /* Every streamed level needs its read figures; a write figure left
     * out is the read one. */
    for (int i = 0; i < o->n_caches; i++) {
        mt_sim_bw_spec *b = &o->tp.cache[i];
        if (!streamed(&o->cache[i]))
            continue;
        if ((err = need(c, s, o->cache[i].name, "read", b->read)))
            return err;
        if (o->cache[i].is_l2 && (err = need(c, s, o->cache[i].name, "read_gpu", b->read_gpu)))
            return err;
        if (b->write == 0)
            b->write = b->read;
        if (b->write_gpu == 0)
            b->write_gpu = b->read_gpu;
    }
    if ((err = need(c, s, "shared", "read", o->tp.shared.read)) ||
        (err = need(c, s, "dram", "read_gpu", o->tp.dram.read_gpu)))
        return err;
    if (o->tp.shared.write == 0)
        o->tp.shared.write = o->tp.shared.read;
    if (o->tp.dram.write_gpu == 0)
        o->tp.dram.write_gpu = o->tp.dram.read_gpu;
    /* GPU-wide figures of at least the per-SM minimum on every SM. */
    double gpu_min = MT_SIM_MIN_BW * o->sm_count;
    const mt_sim_bw_spec *l2 = &o->tp.cache[o->l2];
    if (l2->read_gpu < gpu_min || l2->write_gpu < gpu_min || o->tp.dram.read_gpu < gpu_min ||
        o->tp.dram.write_gpu < gpu_min)
        return mt_sp_err(c, s->line, "[throughput]: GPU-wide figures must be at least %g B/clk "
                                     "per SM (%g for %d SMs)", MT_SIM_MIN_BW, gpu_min, o->sm_count);
    /* Streams fill an SM with whole warps in blocks of the block limit. */
    if (o->max_threads_per_block % 32 || o->max_threads_per_block > 1024 ||
        o->max_threads_per_sm % o->max_threads_per_block)
        return mt_sp_err(c, s->line, "[throughput]: streams need max_threads_per_block a multiple "
                                     "of 32 up to 1024 that divides max_threads_per_sm");
    return MT_OK;
}

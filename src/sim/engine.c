#include "engine.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../backend/chain.h"
#include "../core/rng.h"
#include "banks.h"
#include "cache.h"
#include "evict_model.h"
#include "tlb.h"

/* Longest route of caches a load can take (every cache plus the L2). */
#define MAX_ROUTE MT_SIM_MAX_CACHES

struct mt_sim_engine {
    mt_sim_spec spec;
    /* Slices are allocated on first use: most experiments touch one. */
    mt_cache *inst[MT_SIM_MAX_CACHES][MT_SIM_MAX_SLICES];
    /* Per backend path: cache indices from the SM outwards, L2 last. */
    int route[MT_PATH_COUNT][MAX_ROUTE];
    int route_len[MT_PATH_COUNT];
    int tenant_active; /* the [tenant] disturbs the current batch */
    /* Shared memory per SM the instances of unified caches (whose size is
     * what the carveout leaves) were built for. */
    uint32_t inst_smem;
    /* The [tlb] levels, level 1 first: per level one instance per group of
     * SMs (tlb_groups[i] of them; sms_per_group), each built on first use
     * (entries 0 until then) and emptied with the caches before every
     * experiment. */
    mt_tlb *tlb[MT_SIM_MAX_TLBS];
    uint32_t tlb_groups[MT_SIM_MAX_TLBS];
    int n_tlbs;
    /* MT_KIND_EVICT: the target's set members of the last block asked. */
    mt_sim_evict_members evict;
};

void mt_sim_engine_set_tenant(mt_sim_engine *eng, int active)
{
    eng->tenant_active = active && eng->spec.tenant.present;
}

/* The logical path (spec "serves" name) of a backend path; -1 for shared and none. */
int mt_sim_lpath_of(mt_path p)
{
    switch (p) {
    case MT_PATH_GLOBAL_CA: return MT_SIM_LP_L1D;
    case MT_PATH_GLOBAL_CG: return MT_SIM_LP_CG;
    case MT_PATH_GLOBAL_NC: return MT_SIM_LP_RO;
    case MT_PATH_TEXTURE: return MT_SIM_LP_TEX;
    case MT_PATH_CONSTANT: return MT_SIM_LP_CONST;
    default: return -1;
    }
}

int mt_sim_access_cache(const mt_sim_spec *s, mt_path p)
{
    int lp = mt_sim_lpath_of(p), best = -1;
    if (lp < 0)
        return -1;
    for (int i = 0; i < s->n_caches; i++)
        if (!s->cache[i].is_l2 && (s->cache[i].serves & (1u << lp)) &&
            (best < 0 || s->cache[i].level < s->cache[best].level))
            best = i;
    return best >= 0 ? best : s->l2;
}

static void build_routes(mt_sim_engine *eng)
{
    const mt_sim_spec *s = &eng->spec;
    for (int p = 0; p < MT_PATH_COUNT; p++) {
        int lp = mt_sim_lpath_of((mt_path)p);
        eng->route_len[p] = 0;
        if (lp < 0)
            continue; /* shared, none: no caches */
        int *r = eng->route[p], n = 0;
        for (int i = 0; i < s->n_caches; i++)
            if (!s->cache[i].is_l2 && (s->cache[i].serves & (1u << lp)))
                r[n++] = i;
        /* insertion sort by level (levels on one path are distinct) */
        for (int i = 1; i < n; i++)
            for (int j = i; j > 0 && s->cache[r[j]].level < s->cache[r[j - 1]].level; j--) {
                int t = r[j];
                r[j] = r[j - 1];
                r[j - 1] = t;
            }
        r[n++] = s->l2;
        eng->route_len[p] = n;
    }
}

mt_err mt_sim_engine_new(const mt_sim_spec *spec, mt_sim_engine **out, mt_errinfo *ei)
{
    mt_sim_engine *eng = calloc(1, sizeof *eng);
    if (!eng)
        return mt_fail(ei, MT_ERR_NOMEM, "out of memory for the simulator");
    eng->spec = *spec;
    eng->inst_smem = spec->carveout_smem;
    build_routes(eng);
    for (int i = 0; i < spec->n_tlbs; i++) {
        uint32_t g = spec->tlb[i].sms_per_group;
        eng->tlb_groups[i] = g ? ((uint32_t)spec->sm_count + g - 1) / g : 1;
        eng->tlb[i] = calloc(eng->tlb_groups[i], sizeof *eng->tlb[i]);
        if (!eng->tlb[i]) {
            mt_sim_engine_free(eng);
            return mt_fail(ei, MT_ERR_NOMEM, "out of memory for the TLB levels");
        }
        eng->n_tlbs++;
    }
    *out = eng;
    return MT_OK;
}

/* Frees the instances of cache ci (they are rebuilt on next use). */
static void drop_instances(mt_sim_engine *eng, int ci)
{
    for (int k = 0; k < MT_SIM_MAX_SLICES; k++)
        if (eng->inst[ci][k]) {
            mt_cache_free(eng->inst[ci][k]);
            free(eng->inst[ci][k]);
            eng->inst[ci][k] = NULL;
        }
}

void mt_sim_engine_free(mt_sim_engine *eng)
{
    if (!eng)
        return;
    for (int i = 0; i < MT_SIM_MAX_CACHES; i++)
        drop_instances(eng, i);
    for (int i = 0; i < eng->n_tlbs; i++) {
        for (uint32_t g = 0; g < eng->tlb_groups[i]; g++)
            mt_tlb_free(&eng->tlb[i][g]);
        free(eng->tlb[i]);
    }
    mt_sim_evict_members_free(&eng->evict);
    free(eng);
}

/* An experiment under another carveout than the last: the caches that
 * share their array with shared memory change size (their sets; the ways
 * stay), so their instances are rebuilt. */
static void use_carveout(mt_sim_engine *eng, uint32_t smem)
{
    if (smem == eng->inst_smem)
        return;
    for (int i = 0; i < eng->spec.n_caches; i++)
        if (eng->spec.cache[i].unified)
            drop_instances(eng, i);
    eng->inst_smem = smem;
}

uint64_t mt_sim_experiment_seed(uint64_t spec_seed, const mt_experiment *e)
{
    return mt_experiment_hash(mt_hash_mix(0x73696d2d73656564ull, spec_seed), e);
}

static double gauss(mt_rng *r)
{
    return mt_rng_gauss(r);
}

/* The [tenant] during one experiment: its own RNG (so our loads' noise
 * draws stay what they are without it), how many of our loads it has seen,
 * and where its stream of lines has got to. */
typedef struct {
    const mt_sim_tenant_spec *t;
    mt_rng rng;
    uint64_t loads, stream;
} tenant_ctx;

/* One chain's view of the hierarchy during an experiment. */
typedef struct {
    tenant_ctx *ten;          /* NULL when no tenant is active */
    const mt_chain *chain;
    int lp;                   /* logical path, -1 for shared / none */
    int n;                    /* caches on the route; level n = DRAM (or shared) */
    mt_cache *lv[MAX_ROUTE];
    double lat[MAX_ROUTE + 1], far[MAX_ROUTE + 1], noise[MAX_ROUTE + 1];
    int l2_level;             /* index of the L2 in lv, -1 if none */
    uint32_t l2_line_shift, partitions, my_partition;
    uint64_t space;           /* address-space tag */
    uint64_t elements, pos;   /* chain length, current element */
    uint32_t *succ;           /* NULL for sequential order */
    uint64_t count[MAX_ROUTE + 1]; /* aggregate mode: loads served per level */
    /* The TLB levels a load of this chain is translated through, the
     * instance of its SM's group per level (none for constant, shared and
     * none chains: only global memory is paged here). */
    mt_tlb *tlb[MT_SIM_MAX_TLBS];
    const mt_sim_tlb_spec *tlb_spec;
    int n_tlbs;
} chain_ctx;

static inline uint64_t next_element(const chain_ctx *cc, uint64_t k)
{
    return cc->succ ? cc->succ[k] : (k + 1 == cc->elements ? 0 : k + 1);
}

/* Instance `slice` of cache ci: a slice of a per-SM cache, or for a
 * partitioned L2 the partition (of size / partitions) the SM is attached to. */
static mt_err get_instance(mt_sim_engine *eng, int ci, uint32_t slice, mt_cache **out,
                           mt_errinfo *ei)
{
    mt_cache **slot = &eng->inst[ci][slice];
    if (!*slot) {
        mt_cache *c = calloc(1, sizeof *c);
        if (!c)
            return mt_fail(ei, MT_ERR_NOMEM, "out of memory for a cache");
        mt_sim_cache_spec cs = eng->spec.cache[ci];
        cs.size = mt_sim_cache_size(&cs, eng->inst_smem);
        if (cs.is_l2 && cs.partitions > 1)
            cs.size /= cs.partitions;
        mt_err err = mt_cache_init(c, &cs, ei);
        if (err) {
            free(c);
            return err;
        }
        *slot = c;
    }
    *out = *slot;
    return MT_OK;
}

static uint32_t slice_of(const mt_sim_cache_spec *cs, int thread, int warp_size)
{
    if (cs->slices <= 1)
        return 0;
    uint32_t t = (uint32_t)thread;
    switch (cs->slice_map) {
    case MT_SIM_SLICE_THREAD_MOD: return t % cs->slices;
    case MT_SIM_SLICE_GROUP: return (t / cs->slice_group) % cs->slices;
    case MT_SIM_SLICE_WARP_MOD:
    default: return (t / (uint32_t)warp_size) % cs->slices;
    }
}

/* Level i's instance for SM sm: that of its group of sms_per_group
 * consecutive SMs (the only one for `all`), built on first use. */
static mt_err tlb_instance(mt_sim_engine *eng, int i, int sm, mt_tlb **out, mt_errinfo *ei)
{
    const mt_sim_tlb_spec *ts = &eng->spec.tlb[i];
    uint32_t g = ts->sms_per_group ? (uint32_t)sm / ts->sms_per_group : 0;
    if (g >= eng->tlb_groups[i])
        g = eng->tlb_groups[i] - 1;
    mt_tlb *t = &eng->tlb[i][g];
    if (!t->entries) {
        mt_err err = mt_tlb_init_sets(t, ts->entries, ts->ways ? ts->ways : ts->entries, ei);
        if (err)
            return err;
    }
    *out = t;
    return MT_OK;
}

static mt_err setup_chain(mt_sim_engine *eng, const mt_experiment *e, int i, chain_ctx *cc,
                          mt_errinfo *ei)
{
    const mt_sim_spec *s = &eng->spec;
    const mt_chain *ch = &e->chain[i];
    memset(cc, 0, sizeof *cc);
    cc->chain = ch;
    cc->lp = mt_sim_lpath_of(ch->path);
    cc->l2_level = -1;
    cc->elements = mt_chain_elements(ch);
    cc->space = ch->path == MT_PATH_CONSTANT ? MT_SIM_CONST_SPACE : 0;
    if (ch->path == MT_PATH_NONE)
        return MT_OK; /* no loads: n = 0, lat 0, noise 0 */
    if (ch->path == MT_PATH_SHARED) {
        cc->lat[0] = cc->far[0] = s->shared.latency[0];
        cc->noise[0] = s->shared.noise;
        return MT_OK;
    }
    cc->n = eng->route_len[ch->path];
    int sm = e->sm >= 0 ? e->sm : 0;
    for (int d = 0; d < cc->n; d++) {
        int ci = eng->route[ch->path][d];
        const mt_sim_cache_spec *cs = &s->cache[ci];
        uint32_t inst = cs->is_l2 && cs->partitions > 1 ? mt_sim_partition_of_sm(cs, sm)
                                                        : slice_of(cs, ch->thread, s->warp_size);
        mt_err err = get_instance(eng, ci, inst, &cc->lv[d], ei);
        if (err)
            return err;
        cc->lat[d] = cs->latency[cc->lp];
        cc->far[d] = cs->far_latency[cc->lp];
        cc->noise[d] = cs->noise;
        if (cs->is_l2) {
            cc->l2_level = d;
            cc->l2_line_shift = cc->lv[d]->line_shift;
            cc->partitions = cs->partitions;
            cc->my_partition = mt_sim_partition_of_sm(cs, sm);
        }
    }
    cc->lat[cc->n] = cc->far[cc->n] = s->dram.latency[cc->lp];
    cc->noise[cc->n] = s->dram.noise;
    if (ch->path != MT_PATH_CONSTANT) {
        for (int lv = 0; lv < eng->n_tlbs; lv++) {
            mt_err err = tlb_instance(eng, lv, sm, &cc->tlb[lv], ei);
            if (err)
                return err;
        }
        cc->tlb_spec = s->tlb;
        cc->n_tlbs = eng->n_tlbs;
    }
    /* A sequence names its elements itself: order is ignored. */
    if (e->kind == MT_KIND_CHASE && e->order == MT_ORDER_RANDOM && cc->elements > 1) {
        if (cc->elements > MT_SIM_MAX_RANDOM_ELEMENTS)
            return mt_fail(ei, MT_ERR_UNSUPPORTED,
                           "chain %d: random order over %llu elements exceeds the simulator's "
                           "limit of %llu",
                           i, (unsigned long long)cc->elements,
                           (unsigned long long)MT_SIM_MAX_RANDOM_ELEMENTS);
        cc->succ = malloc(cc->elements * sizeof *cc->succ);
        if (!cc->succ)
            return mt_fail(ei, MT_ERR_NOMEM, "out of memory for a chain of %llu elements",
                           (unsigned long long)cc->elements);
        mt_err err = mt_chain_successors(ch, e->order, e->order_seed, cc->succ, cc->elements, ei);
        if (err)
            return err;
    }
    return MT_OK;
}

/* Brings [lo, lo+len) into route level d and below; returns the level that
 * served address a (a lies in the range).  A miss in a cache fetches its
 * whole fill block from the next level, which may span several of that
 * level's sectors (e.g. Kepler's 128 B L1 line over 32 B L2 sectors). */
static int fetch(chain_ctx *cc, mt_rng *rng, int d, uint64_t a, uint64_t lo, uint64_t len)
{
    if (d == cc->n)
        return d;
    mt_cache *c = cc->lv[d];
    uint64_t sec = 1ull << c->sector_shift;
    uint64_t fill = sec * c->fill_sectors;
    uint64_t end = lo + len;
    if ((lo & ~(sec - 1)) + sec >= end) { /* the usual case: one sector */
        uint64_t s = lo & ~(sec - 1);
        if (mt_cache_access(c, s, rng, NULL))
            return d;
        uint64_t blk = s & ~(fill - 1);
        return fetch(cc, rng, d + 1, a, blk, fill);
    }
    int served = -1;
    for (uint64_t s = lo & ~(sec - 1); s < end; s += sec) {
        int hit = mt_cache_access(c, s, rng, NULL);
        int holds_a = a >= s && a < s + sec;
        if (!hit) {
            uint64_t blk = s & ~(fill - 1);
            int a_in_blk = a >= blk && a < blk + fill;
            int r = fetch(cc, rng, d + 1, a_in_blk ? a : blk, blk, fill);
            if (a_in_blk && served < 0)
                served = r;
        } else if (holds_a && served < 0) {
            served = d;
        }
    }
    return served < 0 ? d : served;
}

static uint64_t part_hash(uint64_t line)
{
    mt_rng r = {.s = line};
    return mt_rng_next(&r);
}

/* The tenant's share of one of our loads (docs/spec-format.md): queueing
 * latency on loads the L2 or DRAM serve, never negative; and every
 * evict_every loads, evict_lines lines of its own stream into our L2. */
static void tenant_load(chain_ctx *cc, int d, double *lat)
{
    tenant_ctx *tn = cc->ten;
    const mt_sim_tenant_spec *t = tn->t;
    double add = d == cc->l2_level ? t->l2_latency : d == cc->n ? t->dram_latency : 0;
    if (add > 0) {
        add += t->jitter > 0 ? t->jitter * gauss(&tn->rng) : 0;
        *lat += add > 0 ? add : 0;
    }
    if (t->evict_every && cc->l2_level >= 0 && ++tn->loads % t->evict_every == 0)
        for (uint32_t i = 0; i < t->evict_lines; i++, tn->stream++)
            mt_cache_access(cc->lv[cc->l2_level],
                            MT_SIM_TENANT_SPACE + (tn->stream << cc->l2_line_shift), &tn->rng,
                            NULL);
}

/* Cycles the translation of addr adds: the miss penalty of every level
 * that misses, looking up level by level until one hits; each level
 * looked up keeps the page (LRU). */
static double tlb_penalty(chain_ctx *cc, uint64_t addr)
{
    double add = 0;
    for (int i = 0; i < cc->n_tlbs; i++) {
        if (mt_tlb_access(cc->tlb[i], addr / cc->tlb_spec[i].page))
            break;
        add += cc->tlb_spec[i].miss_penalty;
    }
    return add;
}

/* The TLBs at the start of an experiment: every page of the chain
 * translated once, in address order, as the backend's chain-building pass
 * touches every element before the chase (docs/spec-format.md).  A chain
 * within a level's reach then never misses it; a longer one leaves the
 * level holding its last pages.  Walks pages rather than elements when
 * several elements share a page. */
static void tlb_prewarm(chain_ctx *cc)
{
    const mt_chain *ch = cc->chain;
    uint64_t first = ch->offset, last = mt_chain_addr(ch, cc->elements - 1);
    for (int i = 0; i < cc->n_tlbs; i++) {
        uint64_t page = cc->tlb_spec[i].page;
        if (ch->stride >= page) {
            for (uint64_t k = 0; k < cc->elements; k++)
                mt_tlb_access(cc->tlb[i], mt_chain_addr(ch, k) / page);
        } else {
            for (uint64_t p = first / page; p <= last / page; p++)
                mt_tlb_access(cc->tlb[i], p);
        }
    }
}

/* One load of the current element; returns the serving level and its
 * latency, then advances the chain. */
static int one_load(chain_ctx *cc, mt_rng *rng, double *lat)
{
    const mt_chain *ch = cc->chain;
    uint64_t addr = mt_chain_addr(ch, cc->pos) | cc->space;
    cc->pos = next_element(cc, cc->pos);
    if (ch->path == MT_PATH_NONE) {
        *lat = 0;
        return 0;
    }
    int d = fetch(cc, rng, 0, addr, addr, 4);
    *lat = cc->lat[d];
    if (d == cc->l2_level && cc->partitions > 1 &&
        part_hash(addr >> cc->l2_line_shift) % cc->partitions != cc->my_partition)
        *lat = cc->far[d];
    if (cc->n_tlbs)
        *lat += tlb_penalty(cc, addr);
    if (cc->ten && cc->lp >= 0)
        tenant_load(cc, d, lat);
    return d;
}

static uint32_t to_cycles(double x)
{
    if (!(x >= 1.0)) /* also catches NaN */
        return 1;
    if (x >= 4294967295.0)
        return UINT32_MAX;
    return (uint32_t)llround(x);
}

/* The fine sample of one load that level d served in lat cycles: timer
 * overhead, the level's Gaussian noise, timer outliers. */
static uint32_t fine_sample(const mt_sim_spec *s, const chain_ctx *cc, mt_rng *rng, int d,
                            double lat)
{
    double x = lat + s->timer_overhead;
    if (cc->noise[d] > 0)
        x += cc->noise[d] * gauss(rng);
    if (s->outlier_rate > 0 && mt_rng_uniform(rng) < s->outlier_rate)
        x += s->outlier_cycles * (0.5 + mt_rng_uniform(rng));
    return to_cycles(x);
}

/* Measures e->loads loads of cc: continuing the chain, or (seq non-NULL)
 * of the elements seq[0 .. loads-1] in that order. */
static void measure(const mt_sim_spec *s, const mt_experiment *e, chain_ctx *cc, mt_rng *rng,
                    const uint32_t *seq, uint32_t *cycles)
{
    if (e->mode == MT_MODE_FINE) {
        for (uint32_t k = 0; k < e->loads; k++) {
            double lat;
            if (seq)
                cc->pos = seq[k];
            int d = one_load(cc, rng, &lat);
            cycles[k] = fine_sample(s, cc, rng, d, lat);
        }
        return;
    }
    /* Aggregate: the sum of per-load Gaussian noise is one Gaussian per
     * level with stddev sigma * sqrt(loads served there). */
    double total = 0;
    for (uint32_t k = 0; k < e->loads; k++) {
        double lat;
        if (seq)
            cc->pos = seq[k];
        int d = one_load(cc, rng, &lat);
        total += lat + s->loop_overhead;
        cc->count[d]++;
    }
    for (int d = 0; d <= cc->n; d++)
        if (cc->count[d] && cc->noise[d] > 0)
            total += cc->noise[d] * sqrt((double)cc->count[d]) * gauss(rng);
    cycles[0] = to_cycles(total);
}

/* MT_KIND_CLOCK: the spin lasts exactly its ns, at the spec's clock in
 * effect (actual_clock_mhz, by default clock_mhz); no noise (the global
 * timer and the SM clock are both exact counters). */
static mt_err run_clock(const mt_sim_spec *s, const mt_experiment *e, mt_result *out,
                        mt_errinfo *ei)
{
    out->cycles[0] = malloc(2 * sizeof *out->cycles[0]);
    if (!out->cycles[0])
        return mt_fail(ei, MT_ERR_NOMEM, "out of memory for a clock experiment");
    double mhz = s->actual_clock_mhz > 0 ? s->actual_clock_mhz : s->clock_mhz;
    double cycles = (double)e->u.clock.ns * mhz / 1000.0;
    out->cycles[0][0] = cycles < 4294967295.0 ? (uint32_t)llround(cycles) : UINT32_MAX;
    out->cycles[0][1] = e->u.clock.ns;
    out->n[0] = 2;
    out->sm_ran = e->sm >= 0 ? e->sm : 0;
    return MT_OK;
}

/* e->loads fine samples of one warp load of `lat` cycles: timer
 * overhead, Gaussian noise of stddev `noise`, timer outliers. */
static mt_err warp_load_samples(const mt_sim_spec *s, const mt_experiment *e, double lat,
                                double noise, mt_result *out, mt_errinfo *ei)
{
    out->cycles[0] = malloc((size_t)e->loads * sizeof *out->cycles[0]);
    if (!out->cycles[0])
        return mt_fail(ei, MT_ERR_NOMEM, "out of memory for %u samples", e->loads);
    out->n[0] = e->loads;
    mt_rng rng = {.s = mt_sim_experiment_seed(s->seed, e)};
    for (uint32_t k = 0; k < e->loads; k++) {
        double x = lat + s->timer_overhead;
        if (noise > 0)
            x += noise * gauss(&rng);
        if (s->outlier_rate > 0 && mt_rng_uniform(&rng) < s->outlier_rate)
            x += s->outlier_cycles * (0.5 + mt_rng_uniform(&rng));
        out->cycles[0][k] = to_cycles(x);
    }
    out->sm_ran = e->sm >= 0 ? e->sm : 0;
    return MT_OK;
}

/* MT_KIND_BANKS: every sample is a fine shared load ([shared] latency and
 * noise) plus conflict_cycles for each pass of the bank model (banks.h)
 * after the first. */
static mt_err run_banks(const mt_sim_spec *s, const mt_experiment *e, mt_result *out,
                        mt_errinfo *ei)
{
    uint32_t passes = mt_sim_bank_wavefronts(&s->banks, &e->u.banks);
    double lat = s->shared.latency[0] + s->banks.conflict_cycles * (passes - 1);
    return warp_load_samples(s, e, lat, s->shared.noise, out, ei);
}

/* MT_KIND_ACCESS: the pattern is warm in the first cache of its path
 * (mt_sim_access_cache), which serves it at its latency for that path
 * (the near one of a partitioned L2) and noise, plus the [access] cost of
 * every extra sector and line of that cache (access_model.h). */
static mt_err run_access(const mt_sim_spec *s, const mt_experiment *e, mt_result *out,
                         mt_errinfo *ei)
{
    int lp = mt_sim_lpath_of(e->chain[0].path);
    int ci = mt_sim_access_cache(s, e->chain[0].path);
    if (lp < 0 || ci < 0)
        return mt_fail(ei, MT_ERR_UNSUPPORTED, "no cache serves the %s path",
                       mt_path_name(e->chain[0].path));
    const mt_sim_cache_spec *cs = &s->cache[ci];
    double lat = cs->latency[lp] + mt_sim_access_extra(&s->access,
                                                       e->chain[0].path == MT_PATH_GLOBAL_CG,
                                                       &s->banks, &e->u.access, cs->sector,
                                                       cs->line);
    return warp_load_samples(s, e, lat, cs->noise, out, ei);
}

/* Every cache and TLB empty, as at the start of an experiment. */
static void empty_caches(mt_sim_engine *eng)
{
    for (int i = 0; i < MT_SIM_MAX_CACHES; i++)
        for (int k = 0; k < MT_SIM_MAX_SLICES; k++)
            if (eng->inst[i][k])
                mt_cache_reset(eng->inst[i][k]);
    for (int i = 0; i < eng->n_tlbs; i++)
        for (uint32_t g = 0; g < eng->tlb_groups[i]; g++)
            if (eng->tlb[i][g].entries)
                mt_tlb_reset(&eng->tlb[i][g]);
}

/* The pages of elements [first, first + count) translated once each, in
 * address order, as the pool's loads translate them (the penalty is the
 * pool's, never sampled).  Steps by the smallest page of any level. */
static void evict_pool_pages(chain_ctx *cc, uint64_t first, uint64_t count)
{
    if (!cc->n_tlbs)
        return;
    uint64_t step = cc->tlb_spec[0].page;
    for (int i = 1; i < cc->n_tlbs; i++)
        step = cc->tlb_spec[i].page < step ? cc->tlb_spec[i].page : step;
    uint64_t lo = mt_chain_addr(cc->chain, first), hi = mt_chain_addr(cc->chain, first + count - 1);
    if (cc->chain->stride >= step) {
        for (uint64_t k = first; k < first + count; k++)
            tlb_penalty(cc, mt_chain_addr(cc->chain, k));
        return;
    }
    for (uint64_t a = lo - lo % step; a <= hi; a += step)
        tlb_penalty(cc, a < lo ? lo : a);
}

/* MT_KIND_EVICT (backend.h): each repeat from empty caches and TLBs, the
 * target, the pool's lines once each in address order, the target timed.
 * Without an active [tenant] (whose evictions follow our load count) only
 * the pool's lines in the target's set are loaded (evict_model.h: the
 * outcome is the same); with one, every pool line is, through one_load. */
static mt_err run_evict(mt_sim_engine *eng, const mt_experiment *e, mt_result *out,
                        mt_errinfo *ei)
{
    const mt_sequence *q = &e->u.evict;
    chain_ctx cc;
    mt_err err = setup_chain(eng, e, 0, &cc, ei);
    if (err)
        return err;
    if (cc.l2_level != 0)
        return mt_fail(ei, MT_ERR_UNSUPPORTED, "evict experiment: the cg path reaches no L2");
    uint64_t pool = 0;
    for (uint32_t k = 1; k + 1 < q->n; k += 2)
        pool += q->index[k + 1];
    int every_line = eng->tenant_active;
    if (every_line && pool * e->loads > MT_SIM_MAX_WORK)
        return mt_fail(ei, MT_ERR_UNSUPPORTED,
                       "evict experiment would simulate %llu loads; the simulator's limit is "
                       "%llu", (unsigned long long)(pool * e->loads),
                       (unsigned long long)MT_SIM_MAX_WORK);
    if (!every_line &&
        (err = mt_sim_evict_members_of(&eng->evict, cc.lv[0], &e->chain[0], cc.space, q,
                                       ei)))
        return err;
    out->cycles[0] = malloc((size_t)e->loads * sizeof *out->cycles[0]);
    if (!out->cycles[0])
        return mt_fail(ei, MT_ERR_NOMEM, "out of memory for %u samples", e->loads);
    out->n[0] = e->loads;
    mt_rng rng = {.s = mt_sim_experiment_seed(eng->spec.seed, e)};
    tenant_ctx ten = {.t = &eng->spec.tenant};
    ten.rng.s = mt_hash_mix(rng.s, 0x74656e616e74ull); /* "tenant" */
    cc.ten = every_line ? &ten : NULL;
    for (uint32_t r = 0; r < e->loads; r++) {
        double lat;
        empty_caches(eng);
        cc.pos = q->index[0];
        one_load(&cc, &rng, &lat);
        for (uint32_t k = 1; k + 1 < q->n; k += 2) {
            uint64_t first = q->index[k], end = first + q->index[k + 1];
            if (every_line) {
                for (uint64_t x = first; x < end; x++) {
                    cc.pos = x;
                    one_load(&cc, &rng, &lat);
                }
                continue;
            }
            evict_pool_pages(&cc, first, q->index[k + 1]);
            for (size_t m = mt_sim_evict_first_member(&eng->evict, first);
                 m < eng->evict.n_members && eng->evict.members[m] < end; m++) {
                uint64_t a = mt_chain_addr(cc.chain, eng->evict.members[m]) | cc.space;
                fetch(&cc, &rng, 0, a, a, 4);
            }
        }
        cc.pos = q->index[0];
        int d = one_load(&cc, &rng, &lat);
        out->cycles[0][r] = fine_sample(&eng->spec, &cc, &rng, d, lat);
    }
    out->sm_ran = e->sm >= 0 ? e->sm : 0;
    return MT_OK;
}

mt_err mt_sim_engine_run(mt_sim_engine *eng, const mt_experiment *e, mt_result *out,
                         mt_errinfo *ei)
{
    memset(out, 0, sizeof *out);
    if (e->kind == MT_KIND_CLOCK)
        return run_clock(&eng->spec, e, out, ei);
    if (e->kind == MT_KIND_BANKS)
        return run_banks(&eng->spec, e, out, ei);
    if (e->kind == MT_KIND_ACCESS)
        return run_access(&eng->spec, e, out, ei);
    if (e->kind == MT_KIND_EVICT) {
        mt_err err = run_evict(eng, e, out, ei);
        if (err)
            mt_result_free(out);
        return err;
    }
    if (e->kind != MT_KIND_CHASE && e->kind != MT_KIND_SEQUENCE)
        return mt_fail(ei, MT_ERR_UNSUPPORTED, "the simulator does not run %s experiments",
                       mt_kind_name(e->kind));
    /* A sequence: the index list (checked: one chain, no warm-up laps). */
    const mt_sequence *seq = e->kind == MT_KIND_SEQUENCE ? &e->u.seq : NULL;
    uint64_t work = 0;
    if (seq)
        work = seq->n;
    for (int i = 0; !seq && i < e->n_chains; i++)
        work += mt_chain_elements(&e->chain[i]) * (uint64_t)e->warmup_laps + e->loads;
    if (work > MT_SIM_MAX_WORK)
        return mt_fail(ei, MT_ERR_UNSUPPORTED,
                       "experiment would simulate %llu loads; the simulator's limit is %llu",
                       (unsigned long long)work, (unsigned long long)MT_SIM_MAX_WORK);

    use_carveout(eng, mt_sim_carveout_smem(&eng->spec, e->set_carveout ? e->carveout_percent : -1));
    empty_caches(eng);

    chain_ctx cc[MT_MAX_CHAINS];
    memset(cc, 0, sizeof cc);
    mt_err err = MT_OK;
    for (int i = 0; i < e->n_chains && !err; i++)
        err = setup_chain(eng, e, i, &cc[i], ei);
    uint32_t per = e->mode == MT_MODE_FINE ? e->loads : 1;
    for (int i = 0; i < e->n_chains && !err; i++) {
        out->cycles[i] = malloc((size_t)per * sizeof *out->cycles[i]);
        out->n[i] = per;
        if (!out->cycles[i])
            err = mt_fail(ei, MT_ERR_NOMEM, "out of memory for %u samples", per);
    }
    tenant_ctx ten = {.t = &eng->spec.tenant};
    if (!err) {
        for (int i = 0; i < e->n_chains; i++)
            if (cc[i].n_tlbs && cc[i].elements)
                tlb_prewarm(&cc[i]);
        mt_rng rng = {.s = mt_sim_experiment_seed(eng->spec.seed, e)};
        ten.rng.s = mt_hash_mix(rng.s, 0x74656e616e74ull); /* "tenant" */
        for (int i = 0; i < e->n_chains && eng->tenant_active; i++)
            cc[i].ten = &ten;
        if (seq) {
            /* backend.h, mt_sequence: the untimed entries only change the
             * caches' state; the timed ones are measured like chase loads. */
            for (uint32_t k = 0; k < seq->untimed; k++) {
                double lat;
                cc[0].pos = seq->index[k];
                one_load(&cc[0], &rng, &lat);
            }
            measure(&eng->spec, e, &cc[0], &rng, seq->index + seq->untimed, out->cycles[0]);
        } else {
            /* backend.h protocol: chain 0 warms, chain 1 warms, chain 0 is
             * measured, chain 1 is measured.  Full laps end where they
             * began, so measuring continues from element 0. */
            for (int i = 0; i < e->n_chains; i++)
                for (uint64_t k = 0; k < cc[i].elements * (uint64_t)e->warmup_laps; k++) {
                    double lat;
                    one_load(&cc[i], &rng, &lat);
                }
            for (int i = 0; i < e->n_chains; i++)
                measure(&eng->spec, e, &cc[i], &rng, NULL, out->cycles[i]);
        }
        out->sm_ran = e->sm >= 0 ? e->sm : 0;
    }
    for (int i = 0; i < MT_MAX_CHAINS; i++)
        free(cc[i].succ);
    if (err)
        mt_result_free(out);
    return err;
}

/* The members' loads interleaved (mt_sim_engine_run_together): at each
 * turn every member that has loads left makes one, warm-up laps first. */
static void run_turns(mt_sim_engine *eng, const mt_experiment *const *e, chain_ctx *cc,
                      mt_rng *rng, int m, mt_result *const *out)
{
    uint64_t warm[MT_SIM_MAX_TOGETHER], done[MT_SIM_MAX_TOGETHER];
    int busy = m;
    for (int k = 0; k < m; k++) {
        warm[k] = cc[k].elements * (uint64_t)e[k]->warmup_laps;
        done[k] = 0;
    }
    while (busy) {
        busy = 0;
        for (int k = 0; k < m; k++) {
            if (done[k] >= warm[k] + e[k]->loads)
                continue;
            double lat;
            int d = one_load(&cc[k], &rng[k], &lat);
            if (done[k] >= warm[k])
                out[k]->cycles[0][done[k] - warm[k]] =
                    fine_sample(&eng->spec, &cc[k], &rng[k], d, lat);
            busy += ++done[k] < warm[k] + e[k]->loads;
        }
    }
}

mt_err mt_sim_engine_run_together(mt_sim_engine *eng, const mt_experiment *exps,
                                  const size_t *member, int m, mt_result *out, mt_errinfo *ei)
{
    if (m < 1 || m > MT_SIM_MAX_TOGETHER)
        return mt_fail(ei, MT_ERR_UNSUPPORTED,
                       "a together group of %d experiments (the simulator runs 1 to %d)", m,
                       MT_SIM_MAX_TOGETHER);
    const mt_experiment *e[MT_SIM_MAX_TOGETHER];
    mt_result *res[MT_SIM_MAX_TOGETHER];
    chain_ctx cc[MT_SIM_MAX_TOGETHER];
    mt_rng rng[MT_SIM_MAX_TOGETHER];
    uint64_t work = 0;
    memset(cc, 0, sizeof cc);
    for (int k = 0; k < m; k++) {
        e[k] = &exps[member[k]];
        res[k] = &out[member[k]];
        memset(res[k], 0, sizeof *res[k]);
        work += mt_chain_elements(&e[k]->chain[0]) * (uint64_t)e[k]->warmup_laps + e[k]->loads;
    }
    if (work > MT_SIM_MAX_WORK)
        return mt_fail(ei, MT_ERR_UNSUPPORTED,
                       "together group would simulate %llu loads; the simulator's limit is %llu",
                       (unsigned long long)work, (unsigned long long)MT_SIM_MAX_WORK);
    /* Members are cg chases (the L2 only): the carveout does not matter. */
    empty_caches(eng);
    mt_err err = MT_OK;
    for (int k = 0; k < m && !err; k++) {
        err = setup_chain(eng, e[k], 0, &cc[k], ei);
        if (!err) {
            res[k]->cycles[0] = malloc((size_t)e[k]->loads * sizeof *res[k]->cycles[0]);
            res[k]->n[0] = e[k]->loads;
            res[k]->sm_ran = e[k]->sm;
            if (!res[k]->cycles[0])
                err = mt_fail(ei, MT_ERR_NOMEM, "out of memory for %u samples", e[k]->loads);
        }
        rng[k].s = mt_sim_experiment_seed(eng->spec.seed, e[k]);
    }
    if (!err) {
        for (int k = 0; k < m; k++)
            if (cc[k].n_tlbs && cc[k].elements)
                tlb_prewarm(&cc[k]);
        run_turns(eng, e, cc, rng, m, res);
    }
    for (int k = 0; k < m; k++) {
        free(cc[k].succ);
        if (err)
            mt_result_free(res[k]);
    }
    return err;
}

/* Which logical caches share one physical cache (thesis 4.5), and how many
 * slices of a cache an SM has (thesis 4.6).  Both use the two-chain
 * protocol of backend.h: chain 0 warms, chain 1 warms, chain 0 is measured.
 * If chain 1's data went into the same physical cache (slice) it evicted
 * chain 0, whose measured loads then miss; the decision is
 * mt_compare_to_reference against chain 0 measured alone. */
#include <stdlib.h>
#include <string.h>

#include "probe_internal.h"

mt_path mt_cache_path(mt_cache_id id);

#define SLICE_WARPS 16 /* warps 1..15 tested against warp 0; 4 schedulers x 4 */

static const mt_cache_id l1_level[] = {MT_CACHE_L1D, MT_CACHE_TEX, MT_CACHE_RO};

static uint64_t rdown(uint64_t v, uint64_t m) { return v / m * m; }

static uint64_t fill_footprint(const mt_cache_state *s)
{
    uint64_t fp = rdown((uint64_t)((double)s->size * MT_SHARING_FILL), s->sector);
    return fp < s->sector ? s->sector : fp;
}

static mt_experiment pair_exp(const mt_probe_ctx *c, mt_cache_id a, int ta, mt_cache_id b, int tb)
{
    const mt_cache_state *sa = &c->cs[a];
    uint64_t fa = fill_footprint(sa);
    uint32_t loads = mt_fine_loads(c, fa, sa->sector, 1.0);
    mt_experiment e = mt_exp(mt_cache_path(a), fa, sa->sector, 1, loads, MT_MODE_FINE);
    e.chain[0].thread = ta;
    if (b != MT_CACHE_COUNT) {
        const mt_cache_state *sb = &c->cs[b];
        uint64_t fb = fill_footprint(sb);
        e.n_chains = 2;
        e.chain[1] = e.chain[0];
        e.chain[1].path = mt_cache_path(b);
        e.chain[1].thread = tb;
        e.chain[1].footprint = fb;
        e.chain[1].stride = sb->sector;
        /* Disjoint data, 64 KiB-aligned so no line is shared. */
        e.chain[1].offset = (fa + 65535) / 65536 * 65536;
        uint64_t lim = c->dev.path_limit_bytes[e.chain[1].path];
        if (lim && e.chain[1].offset + fb > lim) /* constant bank: pack tighter */
            e.chain[1].offset = rdown(lim - fb, 256);
    }
    return e;
}

static bool usable(const mt_probe_ctx *c, mt_cache_id id)
{
    const mt_cache_state *s = &c->cs[id];
    return s->present && s->size && !s->size_is_bound && s->sector && s->hit_known;
}

/* Runs exps (chain 0 of each compared with ref_of[i]'s lone chain). */
static mt_err run_compare(mt_probe_ctx *c, const mt_experiment *e, const mt_cache_id *cache_of,
                          size_t n, const int *ref_of, const mt_experiment *refs, size_t nrefs,
                          mt_comparison *cmp)
{
    size_t tot = n + nrefs;
    mt_experiment *all = calloc(tot, sizeof *all);
    mt_result *r = calloc(tot, sizeof *r);
    mt_err err = MT_OK;
    if (!all || !r) {
        err = mt_fail(c->ei, MT_ERR_NOMEM, "out of memory");
        goto out;
    }
    memcpy(all, refs, nrefs * sizeof *refs);
    memcpy(all + nrefs, e, n * sizeof *e);
    if ((err = mt_run(c, all, tot, r)) != MT_OK)
        goto out;
    for (size_t i = 0; i < n; i++) {
        size_t na, nb;
        double *a = mt_fine_samples(c, &r[ref_of[i]], 0, &na);
        double *b = mt_fine_samples(c, &r[nrefs + i], 0, &nb);
        if (a && b)
            mt_compare_to_reference(a, na, b, nb, c->cs[cache_of[i]].hit_threshold, MT_KS_ALPHA,
                                    &cmp[i]);
        free(a);
        free(b);
        if (!a || !b) {
            err = mt_fail(c->ei, MT_ERR_NOMEM, "out of memory");
            break;
        }
    }
    mt_results_free(r, tot);
out:
    free(all);
    free(r);
    return err;
}

static mt_err physical_sharing(mt_probe_ctx *c)
{
    mt_experiment refs[3], e[3];
    int ref_of[3], pa[3], pb[3];
    size_t nrefs = 0, n = 0;
    int ref_index[MT_CACHE_COUNT];
    for (int i = 0; i < 3; i++) {
        mt_cache_id id = l1_level[i];
        c->topo->cache[id].sharing_tested = usable(c, id);
        if (!usable(c, id))
            continue;
        ref_index[id] = (int)nrefs;
        refs[nrefs++] = pair_exp(c, id, 0, MT_CACHE_COUNT, 0);
    }
    for (int i = 0; i < 3; i++)
        for (int j = i + 1; j < 3; j++) {
            mt_cache_id a = l1_level[i], b = l1_level[j];
            if (!usable(c, a) || !usable(c, b))
                continue;
            e[n] = pair_exp(c, a, 0, b, 1);
            ref_of[n] = ref_index[a];
            pa[n] = a;
            pb[n] = b;
            n++;
        }
    if (n == 0)
        return MT_OK;
    mt_comparison cmp[3];
    mt_cache_id cache_of[3];
    for (size_t i = 0; i < n; i++)
        cache_of[i] = (mt_cache_id)pa[i];
    mt_progress(c, "L1 / texture / read-only sharing (%zu pairs)", n);
    mt_err err = run_compare(c, e, cache_of, n, ref_of, refs, nrefs, cmp);
    if (err != MT_OK)
        return err;
    for (size_t i = 0; i < n; i++)
        if (cmp[i].differs) {
            c->topo->cache[pa[i]].shared_with |= 1u << pb[i];
            c->topo->cache[pb[i]].shared_with |= 1u << pa[i];
        }
    return MT_OK;
}

static mt_err slices(mt_probe_ctx *c, mt_cache_id id)
{
    int maxt = c->dev.max_threads_per_experiment ? c->dev.max_threads_per_experiment : 1024;
    int warps = maxt / 32 < SLICE_WARPS ? maxt / 32 : SLICE_WARPS;
    if (warps < 2)
        return MT_OK;
    mt_experiment ref = pair_exp(c, id, 0, MT_CACHE_COUNT, 0);
    mt_experiment e[SLICE_WARPS];
    int ref_of[SLICE_WARPS] = {0};
    mt_cache_id cache_of[SLICE_WARPS];
    for (int w = 1; w < warps; w++) {
        e[w - 1] = pair_exp(c, id, 0, id, 32 * w);
        cache_of[w - 1] = id;
    }
    mt_comparison cmp[SLICE_WARPS];
    mt_progress(c, "%s slices per SM (%d warps)", mt_cache_name(id), warps);
    mt_err err = run_compare(c, e, cache_of, (size_t)warps - 1, ref_of, &ref, 1, cmp);
    if (err != MT_OK)
        return err;
    bool dist[SLICE_WARPS];
    for (int w = 0; w < warps - 1; w++)
        dist[w] = cmp[w].differs;
    mt_slices sl;
    mt_count_slices(dist, (size_t)warps - 1, &sl);
    mt_cache_report *rep = &c->topo->cache[id];
    if (sl.ok)
        rep->per_sm = mt_find_value(sl.slices, "count", MT_SRC_MEASURED, "two-chain warp disturbance",
                                    0.9, "%d of %d warps evict warp 0's chain (KS alpha %g, miss "
                                    "fraction +%.0f%%)", sl.sharing_warps, sl.n_warps, MT_KS_ALPHA,
                                    100 * MT_MIN_MISS_FRACTION_INCREASE);
    else
        rep->per_sm = mt_find_range(1, warps, "count", "two-chain warp disturbance", 0.3,
                                    "%d of %d warps evict warp 0's chain: no consistent slice pattern",
                                    sl.sharing_warps, sl.n_warps);
    return MT_OK;
}

mt_err mt_probe_sharing(mt_probe_ctx *c)
{
    mt_err err = physical_sharing(c);
    if (err != MT_OK)
        return err;
    const mt_cache_id with_slices[] = {MT_CACHE_L1D, MT_CACHE_TEX, MT_CACHE_RO, MT_CACHE_CONST_L1};
    for (size_t i = 0; i < sizeof with_slices / sizeof *with_slices; i++)
        if (usable(c, with_slices[i]) && (err = slices(c, with_slices[i])) != MT_OK)
            return err;
    return MT_OK;
}

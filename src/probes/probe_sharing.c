/* Which logical caches share one physical cache (thesis 4.5), and how many
 * slices of a cache an SM has (thesis 4.6).  Both use the two-chain
 * protocol of backend.h: chain 0 warms, chain 1 warms, chain 0 is measured
 * (for sharing both chains run on thread 0, for slices on two threads).
 * If chain 1's data went into the same physical cache (slice) it evicted
 * chain 0, whose measured loads then miss; the decision is
 * mt_compare_to_reference against chain 0 measured alone. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "confidence.h"
#include "probe_internal.h"

#define SLICE_WARPS 16 /* warps 1..15 tested against warp 0: 4 schedulers x 4 */
/* Runs of the sharing batch pooled when one run leaves a pair test open:
 * a chain of 3/4 of a 2 KiB cache at 128 B sectors is 12 loads, and 8 runs
 * make ~100, enough for the binomial and Fisher tests at alpha 1e-3 to
 * tell a 2-way random cache's evictions from none. */
#define SHARING_REPEATS 8u

static const mt_cache_id l1_level[] = {MT_CACHE_L1D, MT_CACHE_TEX, MT_CACHE_RO};

static uint64_t fill_footprint(const mt_cache_state *s)
{
    uint64_t fp = mt_round_down((uint64_t)((double)s->size * MT_SHARING_FILL), s->sector);
    return fp < s->sector ? s->sector : fp;
}

static mt_experiment pair_exp(const mt_probe_ctx *c, mt_cache_id a, int ta, mt_cache_id b, int tb)
{
    const mt_cache_state *sa = &c->cs[a];
    uint64_t fa = fill_footprint(sa);
    uint32_t loads = mt_fine_loads(c, fa, sa->sector, 1.0);
    mt_experiment e = mt_exp_chase(mt_cache_path(a), fa, sa->sector, 1, loads, MT_MODE_FINE);
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
            e.chain[1].offset = mt_round_down(lim - fb, 256);
    }
    return e;
}

static bool usable(const mt_probe_ctx *c, mt_cache_id id)
{
    const mt_cache_state *s = &c->cs[id];
    return s->present && s->size && !s->size_is_bound && s->sector && s->hit_known;
}

/* Chain 0's fine samples of one experiment, over all its runs so far. */
typedef struct {
    double *x;
    size_t n;
} sample_pool;

static void pools_free(sample_pool *p, size_t n)
{
    for (size_t i = 0; p && i < n; i++)
        free(p[i].x);
    free(p);
}

/* Runs exps[0..n) once more, with order_seed `run` (a new draw of every
 * random choice, the same addresses), and appends chain 0's samples of
 * experiment i to pools[i]. */
static mt_err run_into_pools(mt_probe_ctx *c, const mt_experiment *exps, size_t n, uint32_t run,
                             sample_pool *pools)
{
    mt_experiment *all = calloc(n, sizeof *all);
    mt_result *r = calloc(n, sizeof *r);
    mt_err err = MT_OK;
    if (!all || !r) {
        err = mt_fail(c->ei, MT_ERR_NOMEM, "out of memory");
        goto out;
    }
    memcpy(all, exps, n * sizeof *exps);
    for (size_t i = 0; i < n; i++)
        all[i].order_seed += run;
    if ((err = mt_run(c, all, n, r)) != MT_OK)
        goto out;
    for (size_t i = 0; i < n && err == MT_OK; i++) {
        size_t m;
        double *x = mt_fine_samples(c, &r[i], 0, &m);
        double *grown = x ? realloc(pools[i].x, (pools[i].n + m + 1) * sizeof *grown) : NULL;
        if (!grown)
            err = mt_fail(c->ei, MT_ERR_NOMEM, "out of memory");
        else {
            memcpy(grown + pools[i].n, x, m * sizeof *x);
            pools[i].x = grown;
            pools[i].n += m;
        }
        free(x);
    }
    mt_results_free(r, n);
out:
    free(all);
    free(r);
    return err;
}

/* Did the test sample miss more than its reference? */
static mt_comparison judge(const sample_pool *ref, const sample_pool *test, double thr)
{
    /* "Disturbed" means more misses: the binomial test asks exactly that
     * and keeps its power on the short chains of small caches, where KS on
     * a few dozen samples cannot reject; the miss share must also rise by
     * MT_MIN_MISS_FRACTION_INCREASE. */
    mt_comparison cmp;
    mt_miss_excess mx;
    mt_compare_to_reference(ref->x, ref->n, test->x, test->n, thr, MT_KS_ALPHA, &cmp);
    mt_miss_excess_test(ref->x, ref->n, test->x, test->n, thr, MT_KS_ALPHA, &mx);
    cmp.differs = mx.more_misses &&
                  cmp.miss_frac_test - cmp.miss_frac_ref >= MT_MIN_MISS_FRACTION_INCREASE;
    return cmp;
}

static size_t misses_above(const sample_pool *p, double thr)
{
    size_t m = 0;
    for (size_t i = 0; i < p->n; i++)
        m += p->x[i] > thr;
    return m;
}

/* A test that did not disturb is "separate" (another cache, another
 * slice) only when its chain also missed significantly less often than the
 * disturbed positive control: on short chains neither may be significant,
 * and "no disturbance seen" is then no evidence of separation. */
static bool clearly_fewer(const sample_pool *test, const sample_pool *control, double thr)
{
    return mt_fisher_fewer(misses_above(test, thr), test->n, misses_above(control, thr),
                           control->n) < MT_KS_ALPHA;
}

/* 1 when the pair test of caches a and b (either order) saw a disturbance. */
static bool pair_shared(const mt_comparison *cmp, size_t n, const int *pa, const int *pb,
                        mt_cache_id a, mt_cache_id b)
{
    bool same = false;
    for (size_t k = 0; k < n; k++)
        same |= cmp[k].differs && ((pa[k] == (int)a && pb[k] == (int)b) ||
                                   (pb[k] == (int)a && pa[k] == (int)b));
    return same;
}

/* "Shares a physical cache" is an equivalence: when a shares with b and b
 * with c, a must share with c.  A violation means one of the pair tests
 * missed (or invented) a disturbance, and no set involving the three can be
 * trusted. */
static bool sharing_transitive(const mt_comparison *cmp, size_t n, const int *pa, const int *pb)
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 3; k++) {
                if (i == j || j == k || i == k)
                    continue;
                mt_cache_id a = l1_level[i], b = l1_level[j], d = l1_level[k];
                if (pair_shared(cmp, n, pa, pb, a, b) && pair_shared(cmp, n, pa, pb, b, d) &&
                    !pair_shared(cmp, n, pa, pb, a, d))
                    return false;
            }
    return true;
}

/* One "shared_with" finding (a set of object keys, in object order) per
 * logical cache that could be tested; an untested cache gets none (the
 * report shows "?").  seen[id] says whether the positive control of cache
 * id (two of its own chains on thread 0) disturbed: if not, the test is
 * blind for that cache and an empty set would be a guess, so its set and
 * every set naming it get confidence MT_CONF_INCONSISTENT; so do all sets
 * when the pairs are not transitive, and the sets of both caches of a pair
 * whose test stayed open (open[k]: neither shared nor separate). */
static void publish_sharing(mt_probe_ctx *c, const mt_comparison *cmp, size_t n, const int *pa,
                            const int *pb, const bool *seen, const bool *open, uint32_t runs)
{
    bool transitive = sharing_transitive(cmp, n, pa, pb);
    for (int i = 0; i < 3; i++) {
        mt_cache_id id = l1_level[i];
        if (!usable(c, id))
            continue;
        mt_finding f = mt_find_value(0, "", MT_SRC_MEASURED, "two-chain eviction, one thread",
                                     1.0 - MT_KS_ALPHA,
                                     "filling the other cache evicts this one's chain (binomial "
                                     "alpha %g, miss share +%.0f%%)", MT_KS_ALPHA,
                                     100 * MT_MIN_MISS_FRACTION_INCREASE);
        f.kind = MT_FIND_SET;
        f.text[0] = '\0';
        if (runs > 1)
            mt_finding_append_note(&f, "%u runs pooled", runs);
        bool blind = !seen[id];
        for (int j = 0; j < 3; j++) {
            mt_cache_id other = l1_level[j];
            if (other != id && usable(c, other) && !seen[other])
                blind = true;
            if (other == id || !pair_shared(cmp, n, pa, pb, id, other))
                continue;
            size_t len = strlen(f.text);
            snprintf(f.text + len, sizeof f.text - len, "%s%s", len ? "," : "",
                     mt_cache_key(other));
        }
        const char *open_with = NULL;
        for (size_t k = 0; k < n; k++)
            if (open[k] && (pa[k] == (int)id || pb[k] == (int)id))
                open_with = mt_cache_key((mt_cache_id)(pa[k] == (int)id ? pb[k] : pa[k]));
        if (blind || !transitive) {
            f.confidence = MT_CONF_INCONSISTENT;
            snprintf(f.note, sizeof f.note, "%s",
                     blind ? "two chains of one of these caches on thread 0 do not disturb each "
                             "other: the test cannot see sharing, so the set is a guess"
                           : "the pair tests are not transitive (a shares with b and b with c, "
                             "but not a with c): the set is a guess");
        } else if (open_with)
            mt_finding_doubt(&f, MT_CONF_INCONSISTENT,
                             "the pair test with %s saw neither more misses than one chain alone "
                             "nor fewer than two chains of one cache: the set is a guess",
                             open_with);
        mt_set(c, mt_cache_key(id), "shared_with", &f);
    }
}

/* Judges every pair and control from the pools (refs first, then the
 * experiments); a pair is open when it neither disturbed (shared) nor
 * missed significantly less often than its cache's disturbed positive
 * control (separate: a second chain in the same cache would have shown).
 * Returns the number of open pairs. */
static size_t judge_sharing(const mt_probe_ctx *c, const sample_pool *pools, size_t nrefs,
                            size_t n, size_t pairs, const int *ref_of, const int *pa,
                            const int *control_of, mt_comparison *cmp, bool *seen, bool *open)
{
    for (size_t i = 0; i < n; i++)
        cmp[i] = judge(&pools[ref_of[i]], &pools[nrefs + i], c->cs[pa[i]].hit_threshold);
    for (int i = 0; i < 3; i++)
        if (control_of[l1_level[i]] >= 0)
            seen[l1_level[i]] = cmp[control_of[l1_level[i]]].differs;
    size_t nopen = 0;
    for (size_t k = 0; k < pairs; k++) {
        const sample_pool *ctl = &pools[nrefs + (size_t)control_of[pa[k]]];
        bool separate = seen[pa[k]] &&
                        clearly_fewer(&pools[nrefs + k], ctl, c->cs[pa[k]].hit_threshold);
        open[k] = !cmp[k].differs && !separate;
        nopen += open[k];
    }
    return nopen;
}

static mt_err physical_sharing(mt_probe_ctx *c)
{
    mt_experiment all[9], *refs = all, *e;
    int ref_of[6], pa[6], pb[6];
    size_t nrefs = 0, n = 0;
    int ref_index[MT_CACHE_COUNT];
    bool seen[MT_CACHE_COUNT] = {false}, open[6] = {false};
    for (int i = 0; i < 3; i++) {
        mt_cache_id id = l1_level[i];
        if (!usable(c, id))
            continue;
        ref_index[id] = (int)nrefs;
        refs[nrefs++] = pair_exp(c, id, 0, MT_CACHE_COUNT, 0);
    }
    e = all + nrefs;
    for (int i = 0; i < 3; i++)
        for (int j = i + 1; j < 3; j++) {
            mt_cache_id a = l1_level[i], b = l1_level[j];
            if (!usable(c, a) || !usable(c, b))
                continue;
            /* Both chains on thread 0: the same thread sees the same slice,
             * whatever the thread-to-slice map. */
            e[n] = pair_exp(c, a, 0, b, 0);
            ref_of[n] = ref_index[a];
            pa[n] = a;
            pb[n] = b;
            n++;
        }
    if (n == 0) {
        publish_sharing(c, NULL, 0, pa, pb, seen, open, 1);
        return MT_OK;
    }
    /* Positive controls, one per cache in a pair: a second chain of the
     * same cache on thread 0 must disturb the first, or the pair tests of
     * that cache could not see sharing either (a replacement that keeps the
     * first chain, a measured size that is too large). */
    size_t pairs = n;
    int control_of[MT_CACHE_COUNT];
    for (int i = 0; i < 3; i++) {
        mt_cache_id id = l1_level[i];
        control_of[id] = -1;
        if (!usable(c, id))
            continue;
        control_of[id] = (int)n;
        e[n] = pair_exp(c, id, 0, id, 0);
        ref_of[n] = ref_index[id];
        pa[n] = pb[n] = id;
        n++;
    }
    mt_comparison cmp[6];
    sample_pool *pools = calloc(nrefs + n, sizeof *pools);
    if (!pools)
        return mt_fail(c->ei, MT_ERR_NOMEM, "out of memory");
    mt_progress(c, "L1 / texture / read-only sharing (%zu pairs)", pairs);
    uint32_t runs = 1;
    mt_err err = run_into_pools(c, all, nrefs + n, 0, pools);
    if (err == MT_OK &&
        judge_sharing(c, pools, nrefs, n, pairs, ref_of, pa, control_of, cmp, seen, open)) {
        /* A short chain (a small cache) gives a weak test: pool more runs of
         * the whole batch rather than call an open pair separate. */
        mt_progress(c, "L1 / texture / read-only sharing: %u more runs (a pair test is open)",
                    SHARING_REPEATS - 1);
        for (; runs < SHARING_REPEATS && err == MT_OK; runs++)
            err = run_into_pools(c, all, nrefs + n, runs, pools);
        if (err == MT_OK)
            judge_sharing(c, pools, nrefs, n, pairs, ref_of, pa, control_of, cmp, seen, open);
    }
    if (err == MT_OK)
        publish_sharing(c, cmp, pairs, pa, pb, seen, open, runs);
    pools_free(pools, nrefs + n);
    return err;
}

/* Slices are looked for at two granularities, because a cache can be split
 * between warps (the thesis' Maxwell: by warp scheduler) or between the
 * threads of one warp: threads 1..31 of warp 0, then thread 0 of warps
 * 1..15, each against thread 0.  Each group gives a slice count by
 * mt_count_slices; the cache has their product. */
static mt_err slices(mt_probe_ctx *c, mt_cache_id id)
{
    int maxt = c->dev.max_threads_per_experiment ? c->dev.max_threads_per_experiment : 1024;
    int ws = c->dev.warp_size > 0 ? c->dev.warp_size : 32;
    int warps = maxt / ws < SLICE_WARPS ? maxt / ws : SLICE_WARPS;
    if (warps < 2 || ws > 64)
        return MT_OK;
    enum { MAXN = 64 + SLICE_WARPS + 1 };
    mt_experiment all[MAXN + 1], *e = all + 1;
    all[0] = pair_exp(c, id, 0, MT_CACHE_COUNT, 0); /* the reference: chain 0 alone */
    size_t n = 0;
    for (int t = 1; t < ws; t++)
        e[n++] = pair_exp(c, id, 0, id, t);
    for (int w = 1; w < warps; w++)
        e[n++] = pair_exp(c, id, 0, id, ws * w);
    /* Positive control: a second chain on thread 0 itself must disturb the
     * first (one thread, one slice).  Without that the test cannot see any
     * sharing, and "nobody disturbs" would read as one slice per thread. */
    size_t control = n;
    e[n++] = pair_exp(c, id, 0, id, 0);
    mt_comparison cmp[MAXN];
    bool dist[MAXN];
    size_t open = 0;
    uint32_t runs = 0;
    double thr = c->cs[id].hit_threshold;
    sample_pool *pools = calloc(n + 1, sizeof *pools);
    if (!pools)
        return mt_fail(c->ei, MT_ERR_NOMEM, "out of memory");
    mt_progress(c, "%s slices per SM (%d threads of warp 0, %d warps)", mt_cache_name(id), ws,
                warps);
    mt_err err = MT_OK;
    /* One run; more (pooled) while a thread neither disturbed nor missed
     * clearly less than the control, or the control did not disturb. */
    do {
        if ((err = run_into_pools(c, all, n + 1, runs++, pools)) != MT_OK)
            break;
        open = 0;
        for (size_t i = 0; i < n; i++) {
            cmp[i] = judge(&pools[0], &pools[1 + i], thr);
            dist[i] = cmp[i].differs;
        }
        for (size_t i = 0; i < control; i++)
            open += !dist[i] && !(dist[control] && clearly_fewer(&pools[1 + i], &pools[1 + control], thr));
        if (runs == 1 && (open || !dist[control]))
            mt_progress(c, "%s slices: %u more runs (%zu tests open)", mt_cache_name(id),
                        SHARING_REPEATS - 1, open);
    } while ((open || !dist[control]) && runs < SHARING_REPEATS);
    pools_free(pools, n + 1);
    if (err != MT_OK)
        return err;
    mt_slices in_warp, across;
    mt_count_slices(dist, (size_t)ws - 1, &in_warp);
    mt_count_slices(dist + ws - 1, (size_t)warps - 1, &across);
    mt_finding f;
    if (!cmp[control].differs)
        f = mt_find_range(1, (double)ws * warps, "count", "two-chain thread/warp disturbance",
                          MT_CONF_INCONSISTENT,
                          "two chains on thread 0 itself do not disturb each other: the test "
                          "cannot see a shared slice, so the count is unknown");
    else if (open)
        f = mt_find_range(1, (double)ws * warps, "count", "two-chain thread/warp disturbance",
                          MT_CONF_INCONSISTENT,
                          "%zu of %zu tested threads and warps neither disturbed thread 0 nor "
                          "missed clearly less often than its own second chain: the count is "
                          "unknown", open, control);
    else if (in_warp.ok && across.ok && (in_warp.at_least || across.at_least))
        f = mt_find_bound(in_warp.slices * across.slices, "count",
                          "two-chain thread/warp disturbance", MT_CONF_SLICES,
                          "%d of %d threads of warp 0 and %d of %d warps share thread 0's slice, "
                          "all of them next to it: the pattern was not seen to repeat, so more "
                          "slices may lie beyond the tested threads", in_warp.sharing_warps,
                          in_warp.n_warps, across.sharing_warps, across.n_warps);
    else if (in_warp.ok && across.ok)
        f = mt_find_value(in_warp.slices * across.slices, "count", MT_SRC_MEASURED,
                                    "two-chain thread/warp disturbance", MT_CONF_SLICES,
                                    "%d of %d threads of warp 0 and %d of %d warps share thread 0's "
                                    "slice (binomial alpha %g, miss share +%.0f%%)", in_warp.sharing_warps,
                                    in_warp.n_warps, across.sharing_warps, across.n_warps,
                                    MT_KS_ALPHA, 100 * MT_MIN_MISS_FRACTION_INCREASE);
    else
        f = mt_find_range(1, (double)ws * warps, "count", "two-chain thread/warp disturbance",
                                    MT_CONF_INCONSISTENT, "%d of %d threads and %d of %d warps share thread 0's slice: "
                                    "no consistent slice pattern", in_warp.sharing_warps,
                                    in_warp.n_warps, across.sharing_warps, across.n_warps);
    if (runs > 1)
        mt_finding_append_note(&f, "%u runs pooled", runs);
    mt_set(c, mt_cache_key(id), "per_sm", &f);
    return MT_OK;
}

static mt_err probe_sharing(mt_probe_ctx *c)
{
    mt_note_threshold(c, "SHARING_REPEATS", SHARING_REPEATS,
                      "sharing and slices: most runs pooled while a test is neither shared nor "
                      "separate");
    mt_err err = physical_sharing(c);
    if (err != MT_OK)
        return err;
    const mt_cache_id with_slices[] = {MT_CACHE_L1D, MT_CACHE_TEX, MT_CACHE_RO, MT_CACHE_CONST_L1};
    for (size_t i = 0; i < sizeof with_slices / sizeof *with_slices; i++)
        if (usable(c, with_slices[i]) && (err = slices(c, with_slices[i])) != MT_OK)
            return err;
    return MT_OK;
}

static const mt_finding_decl provides[] = {
    {"l1d.shared_with", "shared with"}, {"texture.shared_with", "shared with"},
    {"readonly.shared_with", "shared with"},
    {"l1d.per_sm", "per SM"}, {"texture.per_sm", "per SM"}, {"readonly.per_sm", "per SM"},
    {"const_l1.per_sm", "per SM"}, {NULL}};
/* The tests fill a share of each cache at its sector stride: they need the
 * sizes (and with them the sectors and hit thresholds) of the L1-level
 * caches.  The constant L1's slices are tested when the constant probe ran
 * before (rank), not required. */
static const char *const requires[] = {"l1d.size", "texture.size", "readonly.size", NULL};
static const mt_object_decl objects[] = {{NULL}};
const mt_probe_desc mt_probe_sharing = {
    .name = "sharing", .summary = "which L1-level caches share one physical cache, and slices per "
                                  "SM (runs l1d, texture, readonly)",
    .rank = 80, .objects = objects, .provides = provides, .requires = requires,
    .run = probe_sharing,
};

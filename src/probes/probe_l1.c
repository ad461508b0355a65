/* L1-level caches reached by global data: L1 data (ld.global.ca), texture
 * and read-only (ld.global.nc).  One generic probe, run per path:
 *   presence  -> does this path hit anything faster than the L2 (ld.global.cg)?
 *   sector    -> spacing of cold misses of a stride-4 chain (thesis 4.3)
 *   size      -> capacity search at a stride of one sector
 *   line      -> capacity at a multiple of the sector vs. at one sector
 *   latency   -> aggregate chase over a resident chain, loop overhead removed
 * (the miss penalty needs the L2's partitions: probe_l1_miss.c, after the L2)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "confidence.h"
#include "probe_internal.h"

#define PRESENCE_FOOTPRINT 1024u /* fits nearly every L1-level cache, yet spans 32 sectors */
/* A chain larger than the cache thrashes it under FIFO or LRU (every load of
 * a 1 KiB loop misses a 768 B cache), which reads as "no cache": the test is
 * repeated at half the footprint down to this, 8 loads at the 32 B stride
 * (two 128 B lines), while it sees no faster level. */
#define PRESENCE_MIN_FOOTPRINT 256u
#define PRESENCE_STRIDE 32u
#define SECTOR_FOOTPRINT 4096u   /* 1024 stride-4 loads: >= 32 misses for sectors <= 128 B */
#define LATENCY_LOADS 4096u
#define LATENCY_REPS 3
/* An aggregate hit chain slower than the fine-grained hits by more than
 * this share missed: on every GPU measured the aggregate latency is at or
 * below the fine-grained median (no timer read or dependent store in it:
 * H100 33.9 vs 36.0, texture 83.1 vs 91.0), while a chain that misses to
 * the L2 is several times slower. */
#define L1_AGG_MAX_EXCESS_SHARE 0.25
#define L1_SEARCH_LIMIT (4ull << 20) /* no L1-level cache is near 4 MiB */
/* The smallest reference chain the capacity search may shrink to when its
 * 1 KiB reference does not fit (a cache of a few lines): 4 elements still
 * make a chain whose every load is a hit in any cache of >= 4 sectors. */
#define REF_MIN_ELEMENTS 4u

mt_path mt_cache_path(mt_cache_id id)
{
    switch (id) {
    case MT_CACHE_L1D: return MT_PATH_GLOBAL_CA;
    case MT_CACHE_TEX: return MT_PATH_TEXTURE;
    case MT_CACHE_RO: return MT_PATH_GLOBAL_NC;
    case MT_CACHE_CONST_L1:
    case MT_CACHE_CONST_L15: return MT_PATH_CONSTANT;
    case MT_CACHE_SHARED: return MT_PATH_SHARED;
    default: return MT_PATH_GLOBAL_CG;
    }
}

/* Presence: the path's warm small chain against the same chain through cg.
 * When present, the cache state's hit median and threshold are those of the
 * path's fast class alone (its loads below the split from the cg loads). */
static mt_err presence(mt_probe_ctx *c, mt_cache_id id, uint32_t footprint, bool *present,
                       double *conf, char *why, size_t whylen)
{
    mt_path p = mt_cache_path(id);
    mt_experiment e[2] = {
        mt_exp_chase(p, footprint, PRESENCE_STRIDE, 1, 1024, MT_MODE_FINE),
        mt_exp_chase(MT_PATH_GLOBAL_CG, footprint, PRESENCE_STRIDE, 1, 1024, MT_MODE_FINE),
    };
    mt_result r[2];
    mt_err err = mt_run(c, e, 2, r);
    if (err != MT_OK)
        return err;
    size_t na, nb;
    double *a = mt_fine_samples(c, &r[0], 0, &na);
    double *b = mt_fine_samples(c, &r[1], 0, &nb);
    double *pool = malloc((na + nb + 1) * sizeof *pool);
    if (!a || !b || !pool) {
        err = mt_fail(c->ei, MT_ERR_NOMEM, "out of memory");
        goto out;
    }
    memcpy(pool, a, na * sizeof *a);
    memcpy(pool + na, b, nb * sizeof *b);
    mt_split sp;
    mt_ks_result ks;
    /* A split or test that cannot be computed (too few samples) is no
     * evidence of a faster level: "not present", never uninitialised. */
    bool split_ok = mt_split_robust(pool, na + nb, &sp) == MT_OK;
    bool ks_ok = mt_ks_two_sample(a, na, b, nb, MT_KS_ALPHA, &ks) == MT_OK;
    if (!ks_ok)
        memset(&ks, 0, sizeof ks);
    if (!ks_ok)
        ks.p_value = 1;
    double ma = mt_median(a, na), mb = mt_median(b, nb);
    *present = split_ok && ks_ok && sp.separated && ks.reject && mb - ma >= MT_MIN_CLASS_GAP_CYCLES;
    *conf = ks.reject ? 1.0 - ks.p_value : 1.0 - MT_KS_ALPHA;
    snprintf(why, whylen, "%s median %.1f vs cg (L2) median %.1f cycles, KS D=%.3f p=%.2g",
             mt_path_name(p), ma, mb, ks.d, ks.p_value);
    if (*present) {
        /* The hits are the path's loads below the split from the cg loads:
         * in a cache of a few lines the presence chain misses in part (a
         * 768 B L1 of 64 B lines under LRU missed half of a 1 KiB chain at
         * 32 B), and a median and threshold over that mix sit among the
         * misses: the hit threshold read 757 cycles over hits of 98 and L2
         * misses of 255-368, and the L1 profile then counted every miss a
         * hit (0% misses up to 1.25 x the size at 0.9, unseen seed 3611).
         * Where the chain all hits, the fast class is all of it. */
        mt_cache_state *s = &c->cs[id];
        size_t nfast = 0;
        for (size_t i = 0; i < na; i++)
            if (a[i] <= sp.threshold)
                pool[nfast++] = a[i];
        s->hit_threshold = nfast ? mt_hit_threshold(pool, nfast) : mt_hit_threshold(a, na);
        s->hit_fine = nfast ? mt_median(pool, nfast) : ma;
        s->miss_fine = mb;
        s->hit_known = true;
    }
out:
    free(a);
    free(b);
    free(pool);
    mt_results_free(r, 2);
    return err;
}

mt_err mt_cold_stride4_samples(mt_probe_ctx *c, mt_path p, uint32_t footprint, double **x,
                               size_t *n)
{
    mt_experiment e = mt_exp_chase(p, footprint, 4, 0, footprint / 4, MT_MODE_FINE);
    if (e.loads > c->dev.max_fine_loads)
        e.loads = c->dev.max_fine_loads;
    return mt_run_fine(c, &e, x, n);
}

/* Sector (fill granularity): a cold stride-4 chain misses once per sector. */
mt_err mt_measure_sector(mt_probe_ctx *c, mt_path p, double miss_threshold, double hit_median,
                         uint32_t footprint, mt_spacing *sp)
{
    size_t n;
    double *x;
    mt_err err = mt_cold_stride4_samples(c, p, footprint, &x, &n);
    if (err != MT_OK)
        return err;
    mt_miss_spacing(x, n, 4, miss_threshold, hit_median, sp);
    free(x);
    return MT_OK;
}

/* Median per-load latency of LATENCY_REPS aggregate chases (loop overhead removed). */
mt_err mt_measure_agg_latency(mt_probe_ctx *c, mt_path p, uint64_t footprint, uint32_t stride,
                              uint32_t warm, double *lat, mt_stats *st)
{
    mt_experiment e[LATENCY_REPS];
    mt_result r[LATENCY_REPS];
    uint32_t loads = LATENCY_LOADS;
    if (warm == 0 && footprint / stride < loads) /* cold: never revisit an element */
        loads = (uint32_t)(footprint / stride);
    for (int i = 0; i < LATENCY_REPS; i++)
        e[i] = mt_exp_chase(p, footprint, stride, warm, loads, MT_MODE_AGGREGATE);
    mt_err err = mt_run(c, e, LATENCY_REPS, r);
    if (err != MT_OK)
        return err;
    double v[LATENCY_REPS];
    for (int i = 0; i < LATENCY_REPS; i++)
        v[i] = mt_agg_latency(c, &e[i], &r[i]);
    mt_results_free(r, LATENCY_REPS);
    *lat = mt_median(v, LATENCY_REPS);
    if (st)
        *st = mt_describe(v, LATENCY_REPS);
    return MT_OK;
}

static mt_err probe_l1_level(mt_probe_ctx *c, mt_cache_id id)
{
    const char *key = mt_cache_key(id);
    mt_cache_state *s = &c->cs[id];
    mt_path p = mt_cache_path(id);
    const char *pn = mt_path_name(p);
    mt_finding f;
    mt_mark_probed(c, key);

    bool present = false;
    double conf = 0;
    char why[200] = "";
    mt_progress(c, "is %s cached above the L2?", pn);
    uint32_t pfp = PRESENCE_FOOTPRINT;
    mt_err err;
    while ((err = presence(c, id, pfp, &present, &conf, why, sizeof why)) == MT_OK &&
           !present && pfp / 2 >= PRESENCE_MIN_FOOTPRINT)
        pfp /= 2;
    if (err != MT_OK)
        return err;
    mt_note_threshold(c, "PRESENCE_MIN_FOOTPRINT", PRESENCE_MIN_FOOTPRINT,
                      "L1-level presence: smallest chain tried when 1 KiB sees no faster level");
    if (pfp < PRESENCE_FOOTPRINT) { /* say which chain decided */
        size_t len = strlen(why);
        if (present)
            snprintf(why + len, sizeof why - len, "; at a %u B chain (the %u B one missed)", pfp,
                     PRESENCE_FOOTPRINT);
        else
            snprintf(why + len, sizeof why - len, "; the same at chains of %u down to %u B",
                     PRESENCE_FOOTPRINT, pfp);
    }
    if (id == MT_CACHE_L1D) {
        f = mt_find_value(present ? 1 : 0, "bool", MT_SRC_MEASURED, "pchase-fine ca-vs-cg ks+otsu",
                          conf, "%s", why);
        mt_set(c, key, "caches_global_loads", &f);
    }
    if (!present) {
        f = mt_find_absent("pchase-fine ca-vs-cg ks+otsu", conf,
                           "%s loads are served at L2 latency: not cached here (%s)", pn, why);
        mt_set(c, key, "size", &f);
        return MT_OK;
    }
    s->present = true;

    /* Sector. */
    mt_spacing sp;
    mt_progress(c, "%s sector from cold misses", pn);
    if ((err = mt_measure_sector(c, p, s->hit_threshold, s->hit_fine, SECTOR_FOOTPRINT, &sp)) != MT_OK)
        return err;
    if (sp.found) {
        s->sector = sp.spacing_bytes;
        f = mt_find_value(sp.spacing_bytes, "B", MT_SRC_MEASURED, "pchase-fine-cold miss-spacing",
                          sp.support, "%zu cold misses, %.0f%% of gaps equal, miss > %.1f cycles",
                          sp.n_misses, 100 * sp.support, sp.threshold);
        mt_note_spacing_halved(&f, &sp);
        mt_set(c, key, "sector", &f);
    } else {
        s->sector = 32; /* only used as the search stride below; the sector stays unknown */
    }

    /* Size. */
    uint64_t limit = c->dev.path_limit_bytes[p];
    if (!limit || limit > L1_SEARCH_LIMIT)
        limit = L1_SEARCH_LIMIT;
    mt_cap_request q = {
        .path = p, .thread = 0, .stride = s->sector, .start = 2048, .limit = limit,
        .granule = s->sector, .ref_footprint = 1024, .hit_threshold = NAN,
        /* The fast class's threshold (presence): a reference that misses
         * in part (a cache of a few lines) is halved. */
        .fit_threshold = s->hit_threshold, .ref_min_bytes = REF_MIN_ELEMENTS * s->sector,
        .pool_edge = 1, .next_level_median = s->miss_fine,
    };
    mt_note_threshold(c, "MT_CAP_REF_MAX_MISS_SHARE", MT_CAP_REF_MAX_MISS_SHARE,
                      "capacity search: a reference with more misses than this share is halved");
    mt_cap_result cap;
    if ((err = mt_capacity_search(c, &q, &cap)) != MT_OK)
        return err;
    f = mt_capacity_finding(&cap, pn);
    if (cap.ref_used < q.ref_footprint) /* say why the search started lower */
        mt_finding_append_note(&f, "the %llu B reference missed: searched from a %llu B one",
                               (unsigned long long)q.ref_footprint,
                               (unsigned long long)cap.ref_used);
    if (c->dev.carveout_smem_bytes) /* the L1 shares its array with shared memory */
        mt_finding_append_note(&f, "shared-memory carveout in effect: %u KiB",
                               c->dev.carveout_smem_bytes / 1024);
    mt_set(c, key, "size", &f);
    s->size = cap.lo;
    s->size_is_bound = cap.kind == MT_FIND_LOWER_BOUND;

    /* Line, from the capacity at a larger stride. */
    if (cap.kind != MT_FIND_LOWER_BOUND) {
        uint64_t lim = c->dev.path_limit_bytes[p] ? c->dev.path_limit_bytes[p] : UINT64_MAX;
        /* A capped threshold holds for the line's chains too: their own
         * reference would give the margin that reached the next level. */
        double line_thr = cap.hit_capped ? cap.hit_threshold : NAN;
        if ((err = mt_measure_line(c, id, p, cap.lo, cap.confidence, s->sector, 0, lim, 0,
                                   line_thr)) != MT_OK)
            return err;
    }

    /* Hit latency: a chain well inside the cache, many laps. */
    uint64_t fp = s->size ? s->size / 2 : 4096;
    if (fp > 16384)
        fp = 16384;
    fp = mt_hit_footprint(fp, s->sector);
    double lat;
    mt_progress(c, "%s hit latency", pn);
    if ((err = mt_measure_agg_latency(c, p, fp, s->sector, 1, &lat, NULL)) != MT_OK)
        return err;
    /* The chain must hit as the presence chain did.  A size that is not
     * established (or a cache of a few lines) can make half of it a chain
     * that misses: halve the chain until its latency agrees with the
     * presence chain's fine-grained hits, else flag the latency. */
    uint64_t fp_first = fp;
    bool missed = s->hit_known && lat > s->hit_fine * (1 + L1_AGG_MAX_EXCESS_SHARE);
    if (missed)
        mt_note_threshold(c, "L1_AGG_MAX_EXCESS_SHARE", L1_AGG_MAX_EXCESS_SHARE,
                          "hit latency: an aggregate chain this much slower than the "
                          "fine-grained hits missed; it is halved and measured again");
    while (missed && fp > s->sector) {
        fp = mt_hit_footprint(fp / 2, s->sector);
        if ((err = mt_measure_agg_latency(c, p, fp, s->sector, 1, &lat, NULL)) != MT_OK)
            return err;
        missed = lat > s->hit_fine * (1 + L1_AGG_MAX_EXCESS_SHARE);
    }
    s->latency = lat;
    f = mt_find_value(lat, "cycles", MT_SRC_MEASURED, "pchase-aggregate", MT_CONF_AGG_MEDIAN,
                      "%llu B chain, stride %u B, %u loads x %d runs, median; loop overhead "
                      "%.1f cycles subtracted; fine-grained median %.1f",
                      (unsigned long long)fp, s->sector, LATENCY_LOADS, LATENCY_REPS,
                      c->overhead_agg, s->hit_fine);
    if (fp != fp_first)
        mt_finding_append_note(&f, "the %llu B chain missed (slower than the fine-grained "
                               "hits by more than L1_AGG_MAX_EXCESS_SHARE), halved",
                               (unsigned long long)fp_first);
    if (missed)
        mt_finding_doubt(&f, MT_CONF_INCONSISTENT,
                         "even a one-stride chain is slower than the fine-grained hits: the "
                         "latency may include misses");
    mt_set(c, key, "latency", &f);

    return MT_OK;
}

static mt_err run_l1d(mt_probe_ctx *c) { return probe_l1_level(c, MT_CACHE_L1D); }
static mt_err run_texture(mt_probe_ctx *c) { return probe_l1_level(c, MT_CACHE_TEX); }
static mt_err run_readonly(mt_probe_ctx *c) { return probe_l1_level(c, MT_CACHE_RO); }

/* The three logical caches global data can go through; each may share one
 * physical cache with the others (the sharing probe tells). */
#define L1_FLAGS (MT_OBJ_IN_TABLE | MT_OBJ_SHAREABLE)
#define L1_FINDINGS(k) \
    {k ".size", "size"}, {k ".line", "line"}, {k ".sector", "sector"}, \
    {k ".latency", "latency"}

static const mt_object_decl l1d_objects[] = {
    {"l1d", "L1 Data", "L1D", MT_OBJ_CACHE, L1_FLAGS, 10}, {NULL}};
static const mt_finding_decl l1d_provides[] = {
    L1_FINDINGS("l1d"), {"l1d.caches_global_loads", "global loads (ld.global.ca) cached"}, {NULL}};
const mt_probe_desc mt_probe_l1d = {
    .name = "l1d", .summary = "L1 data cache (ld.global.ca): presence, sector, size, line, latency",
    .rank = 20, .objects = l1d_objects, .provides = l1d_provides, .run = run_l1d,
};

static const mt_object_decl texture_objects[] = {
    {"texture", "Texture", "Tex", MT_OBJ_CACHE, L1_FLAGS, 20}, {NULL}};
static const mt_finding_decl texture_provides[] = {L1_FINDINGS("texture"), {NULL}};
const mt_probe_desc mt_probe_texture = {
    .name = "texture", .summary = "texture cache (tex1Dfetch): the same findings as l1d",
    .rank = 30, .objects = texture_objects, .provides = texture_provides, .run = run_texture,
};

static const mt_object_decl readonly_objects[] = {
    {"readonly", "Read-Only", "RO", MT_OBJ_CACHE, L1_FLAGS, 30}, {NULL}};
static const mt_finding_decl readonly_provides[] = {L1_FINDINGS("readonly"), {NULL}};
const mt_probe_desc mt_probe_readonly = {
    .name = "readonly", .summary = "read-only data cache (ld.global.nc): the same findings as l1d",
    .rank = 40, .objects = readonly_objects, .provides = readonly_provides, .run = run_readonly,
};

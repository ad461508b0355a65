/* L2: size from the driver; hit latency, near/far partitions, sector and
 * line measured through ld.global.cg (which bypasses the L1). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "confidence.h"
#include "probe_internal.h"

#define L2_HIT_FOOTPRINT (4ull << 20)
#define L2_HIT_STRIDE 128u
/* A latency class holding between these shares of the loads is a far
 * partition, not noise or a handful of misses. */
#define PARTITION_MIN_SHARE 0.1
/* One SM "sees" a partition of the L2 when the capacity it can use is at
 * most this share of the driver's L2 size (a whole L2 measures ~100%). */
#define PARTITION_MAX_SHARE 0.75

/* Warm chain resident in the L2: its fine samples split into a near and a far
 * class when the L2 has partitions with different distances to this SM. */
static mt_err hit_classes(mt_probe_ctx *c, mt_cache_state *s)
{
    uint64_t fp = L2_HIT_FOOTPRINT; /* well inside one partition of up to 16 */
    if (c->dev.l2_bytes && fp > c->dev.l2_bytes / 16)
        fp = mt_round_down(c->dev.l2_bytes / 16, L2_HIT_STRIDE);
    mt_experiment e = mt_exp_chase(MT_PATH_GLOBAL_CG, fp, L2_HIT_STRIDE, 1, c->dev.max_fine_loads,
                                   MT_MODE_FINE);
    e.sm = 0;
    size_t n;
    double *x;
    mt_err err = mt_run_fine(c, &e, &x, &n);
    if (err != MT_OK)
        return err;
    mt_split sp;
    if (mt_split_robust(x, n, &sp) != MT_OK) { /* too few samples: one class */
        memset(&sp, 0, sizeof sp);
        sp.separated = false;
    }
    bool parts = sp.separated && sp.high_fraction >= PARTITION_MIN_SHARE &&
                 sp.high_fraction <= 1 - PARTITION_MIN_SHARE;
    /* Otsu halves even one bell curve; with noise above ~5 cycles the halves
     * pass the class gap.  Two partitions must be two populations (BIC test,
     * on the samples without the slowest 1% as for the split). */
    mt_bimodality bm = {0};
    if (parts) {
        double *t = malloc(n * sizeof *t);
        if (!t) {
            free(x);
            return mt_fail(c->ei, MT_ERR_NOMEM, "out of memory");
        }
        memcpy(t, x, n * sizeof *t);
        size_t keep = mt_drop_slowest_percent(t, n);
        parts = mt_bimodality_test(t, keep, sp.threshold, &bm) == MT_OK && bm.two_classes;
        free(t);
    }
    double near, far = NAN;
    if (parts) {
        size_t nl = 0, nh = 0;
        double *lo = malloc(n * sizeof *lo), *hi = malloc(n * sizeof *hi);
        if (!lo || !hi) {
            free(lo);
            free(hi);
            free(x);
            return mt_fail(c->ei, MT_ERR_NOMEM, "out of memory");
        }
        for (size_t i = 0; i < n; i++) {
            if (x[i] > sp.threshold)
                hi[nh++] = x[i];
            else
                lo[nl++] = x[i];
        }
        near = mt_median(lo, nl);
        far = mt_median(hi, nh);
        s->hit_threshold = mt_hit_threshold(hi, nh);
        free(lo);
        free(hi);
        mt_finding f = mt_find_value(
            far, "cycles", MT_SRC_MEASURED, "pchase-fine near/far split", MT_CONF_FAR_CLASS,
            "median of the slower class (%.0f%% of %zu L2-resident lines, Otsu threshold %.0f, "
            "two populations by BIC: delta %.0f >= %g), SM 0, timer overhead removed",
            100 * sp.high_fraction, n, sp.threshold, bm.delta_bic, MT_BIMODAL_MIN_DELTA_BIC);
        mt_set(c, "l2", "far_latency", &f);
        f = mt_find_value(near, "cycles", MT_SRC_MEASURED, "pchase-fine near/far split",
                          MT_CONF_NEAR_CLASS,
                          "near-partition hit latency from SM 0 (median of the faster class); "
                          "far partition %.0f cycles", far);
        mt_set(c, "l2", "latency", &f);
    } else {
        near = mt_median(x, n);
        s->hit_threshold = mt_hit_threshold(x, n);
    }
    s->hit_fine = near;
    s->hit_known = true;
    free(x);
    return MT_OK;
}

/* Findings that check each other: a far-partition class while the capacity
 * test sees no partitioning is an impossible combination.  The capacity test
 * counts evictions, the class split only latencies, so the far class loses:
 * its confidence drops and the note says why. */
static void contradict_far_class(mt_probe_ctx *c, bool no_partitioning)
{
    const mt_finding *far = mt_get(c, "l2", "far_latency");
    if (!no_partitioning || far->kind != MT_FIND_VALUE)
        return;
    mt_finding f = *far;
    if (f.confidence > MT_CONF_INCONSISTENT)
        f.confidence = MT_CONF_INCONSISTENT;
    size_t len = strlen(f.note);
    snprintf(f.note + len, sizeof f.note - len,
             "; contradicted: the partition-size test sees no partitioning");
    mt_set(c, "l2", "far_latency", &f);
}

static mt_err probe_l2(mt_probe_ctx *c)
{
    mt_cache_state *s = &c->cs[MT_CACHE_L2];
    mt_finding f;
    mt_mark_probed(c, "l2");
    s->present = true;
    f = mt_find_value((double)c->dev.l2_bytes, "B", MT_SRC_DRIVER, "driver attribute",
                      MT_CONF_DRIVER, "cudaDevAttrL2CacheSize");
    mt_set(c, "l2", "size", &f);
    mt_note_threshold(c, "PARTITION_MIN_SHARE", PARTITION_MIN_SHARE,
                      "L2: a slower latency class is a far partition if it holds this share");
    mt_note_threshold(c, "PARTITION_MAX_SHARE", PARTITION_MAX_SHARE,
                      "L2: one SM sees a partition if it can use at most this share of the L2");
    mt_note_threshold(c, "MT_BIMODAL_MIN_DELTA_BIC", MT_BIMODAL_MIN_DELTA_BIC,
                      "two latency classes are two populations if BIC prefers two Gaussians by this");
    mt_progress(c, "L2 hit latency and partitions");
    mt_err err = hit_classes(c, s);
    if (err != MT_OK)
        return err;
    /* Aggregate latency over the same kind of chain: the mean over partitions. */
    /* At most 1/32 of the L2: a quarter of one partition of up to 8, so
     * the chain cannot spill to DRAM from the part one SM can use. */
    uint64_t fp = c->dev.l2_bytes / 32 < (1u << 20) ? mt_round_down(c->dev.l2_bytes / 32, 128) : (1u << 20);
    if ((err = mt_measure_agg_latency(c, MT_PATH_GLOBAL_CG, fp, 128, 1, &s->latency, NULL)) != MT_OK)
        return err;
    s->agg_latency = s->latency;
    /* The mean over the partitions, as an aggregate chase sees it: what a
     * load that misses an upper level pays on average (the constant L1.5
     * test compares with it, derive_const_l15_is_l2.c). */
    f = mt_find_value(s->agg_latency, "cycles", MT_SRC_MEASURED, "pchase-aggregate",
                      MT_CONF_AGG_MEDIAN,
                      "%llu B chain at 128 B stride from any SM, loop overhead subtracted: the "
                      "mean over near and far lines", (unsigned long long)fp);
    mt_set(c, "l2", "mean_latency", &f);
    const mt_finding *near = mt_get(c, "l2", "latency");
    if (near->kind == MT_FIND_NONE) {
        f = mt_find_value(s->latency, "cycles", MT_SRC_MEASURED, "pchase-aggregate",
                          MT_CONF_AGG_MEDIAN, "%llu B chain at 128 B stride, loop overhead subtracted",
                          (unsigned long long)fp);
        mt_set(c, "l2", "latency", &f);
    } else {
        s->latency = near->value; /* near latency is the L2 hit latency */
    }

    mt_spacing sp;
    mt_progress(c, "L2 sector from cold misses");
    if ((err = mt_measure_sector(c, MT_PATH_GLOBAL_CG, s->hit_threshold, 4096, &sp)) != MT_OK)
        return err;
    if (sp.found) {
        s->sector = sp.spacing_bytes;
        f = mt_find_value(sp.spacing_bytes, "B", MT_SRC_MEASURED, "pchase-fine-cold miss-spacing",
                          sp.support, "%zu cold misses to DRAM, %.0f%% of gaps equal",
                          sp.n_misses, 100 * sp.support);
        mt_set(c, "l2", "sector", &f);
    } else {
        return MT_OK;
    }

    /* Line: capacity seen by one SM at the sector stride and at 384 B.  Only
     * one refinement round each (a few % precision is enough for the ratio,
     * and these chains are the longest of the run). */
    uint64_t l2 = c->dev.l2_bytes, lim = c->dev.path_limit_bytes[MT_PATH_GLOBAL_CG];
    if (!l2 || (lim && lim < 2 * l2))
        return MT_OK;
    mt_cap_request q = {
        .path = MT_PATH_GLOBAL_CG, .stride = s->sector, .start = mt_round_down(l2 / 16, s->sector),
        .limit = mt_round_down(lim && lim < 4 * l2 ? lim : 4 * l2, s->sector),
        .granule = mt_round_down(l2 / 256, s->sector), .ref_footprint = mt_round_down(l2 / 32, s->sector),
        .hit_threshold = s->hit_threshold, .max_rounds = 2, .quick = 1,
    };
    mt_cap_result small;
    mt_progress(c, "L2 capacity one SM can use, at a %u B stride", s->sector);
    if ((err = mt_capacity_search(c, &q, &small)) != MT_OK)
        return err;
    if (small.kind == MT_FIND_LOWER_BOUND) {
        f = mt_find_absent(
            "pchase-fine capacity from one SM", small.confidence,
            "one SM's chains fit up to %llu B without misses: no partition smaller than the L2",
            (unsigned long long)small.lo);
        mt_set(c, "l2", "partition_size", &f);
        contradict_far_class(c, true);
        return MT_OK;
    }
    if ((double)small.lo <= PARTITION_MAX_SHARE * (double)l2)
        f = mt_find_value(
            (double)small.lo, "B", MT_SRC_MEASURED, "pchase-fine capacity from one SM",
            small.confidence,
            "capacity one SM can use before its first L2 eviction (%llu..%llu B, %.0f%% of the "
            "driver's L2): the SM allocates in one partition of the L2", (unsigned long long)small.lo,
            (unsigned long long)small.hi, 100.0 * (double)small.lo / (double)l2);
    else
        f = mt_find_absent(
            "pchase-fine capacity from one SM", small.confidence,
            "one SM can use %llu B, %.0f%% of the driver's L2: no partitioning visible",
            (unsigned long long)small.lo, 100.0 * (double)small.lo / (double)l2);
    mt_set(c, "l2", "partition_size", &f);
    contradict_far_class(c, f.kind == MT_FIND_ABSENT);
    if ((err = mt_measure_line(c, MT_CACHE_L2, MT_PATH_GLOBAL_CG, small.lo, small.confidence,
                               s->sector, 0, lim ? lim : UINT64_MAX, 1,
                               s->hit_threshold)) != MT_OK)
        return err;
    return MT_OK;
}

static const mt_object_decl objects[] = {
    {"l2", "L2", "L2", MT_OBJ_CACHE, MT_OBJ_IN_TABLE, 70}, {NULL}};
static const mt_finding_decl provides[] = {
    {"l2.size", "size"}, {"l2.line", "line"}, {"l2.sector", "sector"}, {"l2.latency", "latency"},
    {"l2.mean_latency", "mean hit latency over partitions"},
    {"l2.far_latency", "far-partition hit latency"},
    {"l2.partition_size", "partition size (measured)"}, {NULL}};
const mt_probe_desc mt_probe_l2 = {
    .name = "l2", .summary = "L2: size (driver), near and far hit latency, partition size, sector, "
                             "line",
    .rank = 60, .objects = objects, .provides = provides, .run = probe_l2,
};

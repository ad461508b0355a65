/* L2: size from the driver; hit latency, near/far partitions, sector and
 * line measured through ld.global.cg (which bypasses the L1). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../backend/chain.h"
#include "confidence.h"
#include "l2_near_map.h"
#include "latency_precision.h"
#include "probe_internal.h"

#define L2_HIT_FOOTPRINT (4ull << 20)
#define L2_HIT_STRIDE 128u
/* A latency class holding between these shares of the loads is a far
 * partition, not noise or a handful of misses. */
#define PARTITION_MIN_SHARE 0.1
/* The near class holds the lines homed in SM 0's partition: 1/P of them.
 * The chain is sized for up to 16 partitions (1/16 = 6%), and a chain of
 * ~100 lines homed by a hash may hold a third fewer; below 2% a fast class
 * is too thin to be a partition.  (The BIC test still has to see two
 * populations.) */
#define NEAR_MIN_SHARE 0.02
/* Slowest share of the samples left out before the class split: timer
 * outliers are at most 1% of the loads (the spec format's limit, and what
 * a GPU shows), and a few thousand samples can hold up to ~1.4%; an
 * outlier class must not become the "far partition".  Only the slow end
 * is cut, so the near class is never touched. */
#define L2_SPLIT_DROP_SHARE 0.02
/* Near and far classes overlap when the tail of one, as a Gaussian of its
 * robust spread, crosses the Otsu cut into the other: the expected share
 * of foreign loads in either class must stay below this.  2% foreign loads
 * on one side move a class median by about 0.025 robust sds; a far class of
 * 7/8 whose tail crosses at 2 sds puts 16% into a near class of 1/8 and
 * moves its median by several cycles.  Overlapping classes are flagged. */
#define NEAR_FAR_MAX_FOREIGN 0.02
/* One SM "sees" a partition of the L2 when the capacity it can use is at
 * most this share of the driver's L2 size (a whole L2 measures ~100%). */
#define PARTITION_MAX_SHARE 0.75
/* The partition search runs without its Opt+KS confirmation (its chains
 * are the longest of the run), so its edge is checked another way: at the
 * next doubling footprint, about twice the capacity found, LRU and FIFO
 * miss every load and random replacement over half, while timer outliers
 * that fired the first-miss test stay below 1%.  A smaller miss share
 * there means no capacity edge was found. */
#define PARTITION_EDGE_MIN_SHARE 0.25

/* Each line of the chain is homed in one partition, so all samples of one
 * element share its class.  When the fine samples cover the chain this
 * many times, the classes are split on the per-element medians: over k
 * laps the noise of a median shrinks by about sqrt(k), which separates
 * near and far partitions that a per-sample split sees as one bell curve
 * (a 31-cycle gap under 17 cycles of noise).  3 laps are the fewest whose
 * median ignores one timer outlier. */
#define L2_ELEMENT_MIN_LAPS 3
/* The near and far latencies are stated together, each pinned by its
 * median's interval (latency_precision.h).  At MT_LATENCY_CI_LEVEL apiece
 * an L2 whose class medians are known to just +-2 cycles (a class of a
 * thousand loads under 25 cycles of noise) would state one of them wrong
 * one time in ten, confidently.  Their intervals hold both latencies at
 * this level together (Bonferroni, as the L2 map's family,
 * MAP_FAMILY_LEVEL): a class latency stated as a value is wrong about once
 * in a thousand runs, and a wider interval makes it the range it is. */
#define L2_CLASS_FAMILY_LEVEL 0.999

/* The values the near/far split runs on: the per-element medians when the
 * samples cover the chain L2_ELEMENT_MIN_LAPS times or more (*elements =
 * their count), else a copy of the samples themselves (*elements = 0).
 * Samples k, k + E, k + 2E ... are element k: the fine chase measures the
 * chain in order from element 0 after whole warm-up laps (backend.h). */
static double *split_values(const double *x, size_t n, uint64_t chain_elements, size_t *nv,
                            size_t *elements)
{
    size_t laps = chain_elements ? n / chain_elements : 0;
    *elements = laps >= L2_ELEMENT_MIN_LAPS ? (size_t)chain_elements : 0;
    *nv = *elements ? *elements : n;
    double *v = malloc((*nv ? *nv : 1) * sizeof *v);
    double *one = malloc((laps + 1) * sizeof *one);
    if (!v || !one) {
        free(v);
        free(one);
        return NULL;
    }
    if (!*elements)
        memcpy(v, x, n * sizeof *v);
    for (size_t k = 0; k < *elements; k++) {
        size_t m = 0;
        for (size_t i = k; i < n; i += *elements)
            one[m++] = x[i];
        v[k] = mt_median(one, m);
    }
    free(one);
    return v;
}

/* The near or far finding: the median of a class's samples, with its
 * precision (latency_precision.h); overlapping classes are flagged. */
static mt_err class_finding(mt_probe_ctx *c, const double *x, size_t n, double conf, bool apart,
                            mt_finding *f, double *median, const char *fmt, ...)
    __attribute__((format(printf, 8, 9)));
static mt_err class_finding(mt_probe_ctx *c, const double *x, size_t n, double conf, bool apart,
                            mt_finding *f, double *median, const char *fmt, ...)
{
    mt_median_interval ci;
    mt_err err = mt_median_ci(x, n, mt_bonferroni_level(L2_CLASS_FAMILY_LEVEL, 2), &ci);
    if (err != MT_OK)
        return mt_fail(c->ei, err, "L2 latency class: %s", mt_strerror(err));
    char note[sizeof f->note];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(note, sizeof note, fmt, ap);
    va_end(ap);
    *f = mt_find_value(ci.median, "cycles", MT_SRC_MEASURED, "pchase-fine near/far split",
                       apart ? conf : MT_CONF_INCONSISTENT, "%s", note);
    mt_finding_set_precision(f, &ci);
    *median = ci.median;
    return MT_OK;
}

/* Warm chain resident in the L2: its fine samples split into a near and a far
 * class when the L2 has partitions with different distances to this SM. */
static mt_err hit_classes(mt_probe_ctx *c, mt_cache_state *s, double *hidden)
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
    size_t nv, elements;
    double *v = split_values(x, n, mt_chain_elements(&e.chain[0]), &nv, &elements);
    double *t = malloc((nv ? nv : 1) * sizeof *t);
    if (!v || !t) {
        free(v);
        free(t);
        free(x);
        return mt_fail(c->ei, MT_ERR_NOMEM, "out of memory");
    }
    memcpy(t, v, nv * sizeof *t);
    (void)mt_drop_slowest_percent(t, nv); /* sorts; the share cut here is wider */
    size_t keep = nv - (size_t)(L2_SPLIT_DROP_SHARE * (double)nv);
    mt_split sp;
    if (keep < 2 || mt_split_two_classes(t, keep, &sp) != MT_OK) { /* one class */
        memset(&sp, 0, sizeof sp);
        sp.separated = false;
    }
    bool parts = sp.separated && sp.high_fraction >= PARTITION_MIN_SHARE &&
                 sp.high_fraction <= 1 - NEAR_MIN_SHARE;
    /* Otsu halves even one bell curve; with noise above ~5 cycles the halves
     * pass the class gap.  Two partitions must be two populations (BIC test,
     * on the same values as the split). */
    mt_bimodality bm = {0};
    if (parts)
        parts = mt_bimodality_test(t, keep, sp.threshold, &bm) == MT_OK && bm.two_classes;
    free(t);
    double near, far = NAN;
    if (parts) {
        size_t nl = 0, nh = 0;
        double *lo = malloc(n * sizeof *lo), *hi = malloc(n * sizeof *hi);
        if (!lo || !hi) {
            free(lo);
            free(hi);
            free(v);
            free(x);
            return mt_fail(c->ei, MT_ERR_NOMEM, "out of memory");
        }
        /* A sample's class is its element's (or its own value's). */
        for (size_t i = 0; i < n; i++) {
            if ((elements ? v[i % elements] : x[i]) > sp.threshold)
                hi[nh++] = x[i];
            else
                lo[nl++] = x[i];
        }
        s->hit_threshold = mt_hit_threshold(hi, nh);
        double foreign = mt_near_far_foreign_share(v, nv, sp.threshold);
        bool apart = foreign <= NEAR_FAR_MAX_FOREIGN;
        char per[64] = "";
        if (elements)
            snprintf(per, sizeof per, " (split on the medians of %zu lines)", elements);
        mt_finding f, g;
        err = class_finding(
            c, hi, nh, MT_CONF_FAR_CLASS, apart, &f, &far,
            "median of the slower class (%.0f%% of %zu L2-resident lines%s, Otsu threshold %.0f, "
            "two populations by BIC: delta %.0f >= %g), SM 0, timer overhead removed%s",
            100 * sp.high_fraction, n, per, sp.threshold, bm.delta_bic, MT_BIMODAL_MIN_DELTA_BIC,
            apart ? "" : "; the classes overlap, so their medians lean");
        if (err == MT_OK)
            err = class_finding(c, lo, nl, MT_CONF_NEAR_CLASS, apart, &g, &near,
                                "near-partition hit latency from SM 0 (median of the faster "
                                "class); far partition %.0f cycles; expected foreign share of a "
                                "class %.2g (overlap above %g)",
                                far, foreign, NEAR_FAR_MAX_FOREIGN);
        free(lo);
        free(hi);
        if (err != MT_OK) {
            free(v);
            free(x);
            return err;
        }
        mt_set(c, "l2", "far_latency", &f);
        mt_set(c, "l2", "latency", &g);
    } else {
        near = mt_median(x, n);
        s->hit_threshold = mt_hit_threshold(x, n);
        *hidden = mt_one_class_hidden_gap(v, nv);
    }
    s->hit_fine = near;
    s->hit_known = true;
    free(v);
    free(x);
    return MT_OK;
}

/* The sector from the spacing of cold misses, as mt_measure_sector finds
 * it, on the same chain (4 KiB at a 4 B stride, cold); and from the same
 * samples, the spread of single DRAM latencies (every miss of this chain
 * goes to DRAM), by which the DRAM probe judges how well its aggregate
 * chains pin the DRAM latency without running more of them (probe_dram.c). */
#define L2_SECTOR_FOOTPRINT 4096u
static mt_err sector_and_dram_spread(mt_probe_ctx *c, double miss_threshold, mt_spacing *sp)
{
    size_t n;
    double *x;
    mt_err err = mt_cold_stride4_samples(c, MT_PATH_GLOBAL_CG, L2_SECTOR_FOOTPRINT, &x, &n);
    if (err != MT_OK)
        return err;
    /* No halving: half a fill block after a DRAM miss is an L2 hit, near
     * or far, and a far hit is a class above the near ones. */
    mt_miss_spacing(x, n, 4, miss_threshold, NAN, sp);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (x[i] > miss_threshold)
            x[k++] = x[i];
    c->cs[MT_CACHE_DRAM].load_sd = k ? mt_robust_sd(x, k) : 0;
    c->cs[MT_CACHE_DRAM].load_median = k ? mt_median(x, k) : 0;
    c->cs[MT_CACHE_DRAM].load_sd_n = k;
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
    mt_finding_doubt(&f, MT_CONF_INCONSISTENT,
                     "contradicted: the partition-size test sees no partitioning");
    mt_set(c, "l2", "far_latency", &f);
}

/* The other impossible combination: the partition-size test sees one SM
 * use only a part of the L2, but the fine samples showed no near and far
 * classes (too few near lines in the chain, or noise that hides the gap).
 * The latency found is then a mean over near and far lines, not the near
 * latency: flagged, the note says why. */
static void contradict_one_class(mt_probe_ctx *c, bool partitioned)
{
    const mt_finding *near = mt_get(c, "l2", "latency");
    const mt_finding *far = mt_get(c, "l2", "far_latency");
    if (!partitioned || far->kind == MT_FIND_VALUE || near->kind != MT_FIND_VALUE)
        return;
    mt_finding f = *near;
    mt_finding_doubt(&f, MT_CONF_INCONSISTENT,
                     "the L2 is partitioned but no near/far classes were seen: a mean over "
                     "partitions");
    mt_set(c, "l2", "latency", &f);
}

/* One latency class that may hide a far class further away than a
 * latency's precision (mt_one_class_hidden_gap), and no partition test
 * ran to show that the L2 has no partitions: the latency reported may be a
 * mean over near and far lines.  Flagged, the note says why. */
static void unconfirmed_one_class(mt_probe_ctx *c, double hidden)
{
    const mt_finding *near = mt_get(c, "l2", "latency");
    const mt_finding *far = mt_get(c, "l2", "far_latency");
    if (far->kind == MT_FIND_VALUE || near->kind != MT_FIND_VALUE ||
        !(hidden > MT_LATENCY_MAX_HALF_WIDTH))
        return;
    mt_finding f = *near;
    mt_finding_doubt(&f, MT_CONF_INCONSISTENT,
                     "one latency class, which may hide a far partition up to %.0f cycles away "
                     "(%g robust sds), and no partition test ran: possibly a mean over partitions",
                     hidden, ONE_CLASS_HIDDEN_SDS);
    mt_set(c, "l2", "latency", &f);
}

/* The capacity test compares what one SM can use with the driver's L2
 * size, and that need not be the cache's (a driver may round it or count
 * what the SM cannot allocate in; the simulator's format allows a factor of
 * 2).  An SM that sees part of the driver's size is then either in one
 * partition or in the whole of a smaller L2, and one that sees all of it
 * may be in one partition of a larger one.  Only the latency classes tell
 * these apart: a partition claim without a far class, or a "no
 * partitioning" with one, is doubted, and the note says which reading the
 * other evidence leaves open. */
static void partition_needs_classes(const mt_probe_ctx *c, mt_finding *f)
{
    const mt_finding *far = mt_get(c, "l2", "far_latency");
    if ((f->kind == MT_FIND_VALUE || f->kind == MT_FIND_RANGE) && far->kind != MT_FIND_VALUE)
        mt_finding_doubt(f, MT_CONF_INCONSISTENT,
                         "but no far latency class backs a partition: this may be the whole L2, "
                         "smaller than the driver's %llu B", (unsigned long long)c->dev.l2_bytes);
    else if (f->kind == MT_FIND_ABSENT && far->kind == MT_FIND_VALUE)
        mt_finding_doubt(f, MT_CONF_INCONSISTENT,
                         "but a far latency class was seen: this may be one partition of an L2 "
                         "larger than the driver's %llu B", (unsigned long long)c->dev.l2_bytes);
}

/* The doubling footprint past a capacity edge barely missed: the edge was
 * timer outliers, not the capacity (PARTITION_EDGE_MIN_SHARE). */
static bool edge_refuted(const mt_cap_result *r)
{
    return !isnan(r->share_beyond) && r->share_beyond < PARTITION_EDGE_MIN_SHARE;
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
    mt_note_threshold(c, "NEAR_MIN_SHARE", NEAR_MIN_SHARE,
                      "L2: a faster latency class is the near partition if it holds this share");
    mt_note_threshold(c, "L2_SPLIT_DROP_SHARE", L2_SPLIT_DROP_SHARE,
                      "L2: slowest share of the hit samples left out of the near/far split");
    mt_note_threshold(c, "NEAR_FAR_MAX_FOREIGN", NEAR_FAR_MAX_FOREIGN,
                      "L2: near and far classes overlap if either may hold this share of the other");
    mt_note_threshold(c, "PARTITION_EDGE_MIN_SHARE", PARTITION_EDGE_MIN_SHARE,
                      "L2: a partition edge must make this share of a chain twice as large miss");
    mt_note_threshold(c, "PARTITION_MAX_SHARE", PARTITION_MAX_SHARE,
                      "L2: one SM sees a partition if it can use at most this share of the L2");
    mt_note_threshold(c, "L2_ELEMENT_MIN_LAPS", L2_ELEMENT_MIN_LAPS,
                      "L2: laps of the hit chain from which the near/far split uses line medians");
    mt_note_threshold(c, "ONE_CLASS_HIDDEN_SDS", ONE_CLASS_HIDDEN_SDS,
                      "L2: one latency class may hide a far class this many robust sds away");
    mt_note_threshold(c, "L2_CLASS_FAMILY_LEVEL", L2_CLASS_FAMILY_LEVEL,
                      "L2: coverage of the near and far class intervals together (Bonferroni)");
    mt_note_latency_precision(c);
    mt_note_threshold(c, "MT_BIMODAL_MIN_DELTA_BIC", MT_BIMODAL_MIN_DELTA_BIC,
                      "two latency classes are two populations if BIC prefers two Gaussians by this");
    mt_progress(c, "L2 hit latency and partitions");
    double hidden = 0; /* one class: the far gap it may hide */
    mt_err err = hit_classes(c, s, &hidden);
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
    if ((err = sector_and_dram_spread(c, s->hit_threshold, &sp)) != MT_OK)
        return err;
    if (sp.found) {
        s->sector = sp.spacing_bytes;
        f = mt_find_value(sp.spacing_bytes, "B", MT_SRC_MEASURED, "pchase-fine-cold miss-spacing",
                          sp.support, "%zu cold misses to DRAM, %.0f%% of gaps equal",
                          sp.n_misses, 100 * sp.support);
        mt_set(c, "l2", "sector", &f);
    } else {
        unconfirmed_one_class(c, hidden);
        return MT_OK;
    }

    /* Line: capacity seen by one SM at the sector stride and at 384 B.  Only
     * one refinement round each (a few % precision is enough for the ratio,
     * and these chains are the longest of the run). */
    uint64_t l2 = c->dev.l2_bytes, lim = c->dev.path_limit_bytes[MT_PATH_GLOBAL_CG];
    if (!l2 || (lim && lim < 2 * l2)) {
        unconfirmed_one_class(c, hidden);
        return MT_OK;
    }
    mt_cap_request q = {
        .path = MT_PATH_GLOBAL_CG, .stride = s->sector, .start = mt_round_down(l2 / 16, s->sector),
        .limit = mt_round_down(lim && lim < 4 * l2 ? lim : 4 * l2, s->sector),
        .granule = mt_round_down(l2 / 256, s->sector), .ref_footprint = mt_round_down(l2 / 32, s->sector),
        .hit_threshold = s->hit_threshold, .max_rounds = 2, .quick = 1, .window_at_growth = 1,
        .seek_fit_above = 1,
    };
    mt_cap_result small;
    mt_progress(c, "L2 capacity one SM can use, at a %u B stride", s->sector);
    if ((err = mt_capacity_search(c, &q, &small)) != MT_OK)
        return err;
    /* An edge the next doubling footprint refutes (timer outliers fired
     * the first-miss test, see PARTITION_EDGE_MIN_SHARE): the search goes
     * on once from that footprint, which the doubling had not found to be
     * the edge, and its edge stands if the footprint beyond it confirms. */
    uint64_t refuted = 0;
    if (small.kind == MT_FIND_VALUE && edge_refuted(&small) && 2 * small.hi < q.limit) {
        mt_cap_request again = q;
        again.start = mt_round_down(2 * small.hi, s->sector);
        mt_cap_result next;
        mt_progress(c, "L2 capacity one SM can use, beyond a refuted edge");
        if ((err = mt_capacity_search(c, &again, &next)) != MT_OK)
            return err;
        if (next.kind == MT_FIND_VALUE && !edge_refuted(&next)) {
            refuted = small.lo;
            small = next;
        }
    }
    if (small.kind == MT_FIND_LOWER_BOUND) {
        f = mt_find_absent(
            "pchase-fine capacity from one SM", small.confidence,
            "one SM's chains fit up to %llu B without misses: no partition smaller than the L2",
            (unsigned long long)small.lo);
        partition_needs_classes(c, &f);
        mt_set(c, "l2", "partition_size", &f);
        contradict_far_class(c, true);
        return MT_OK;
    }
    c->cs[MT_CACHE_L2].sm_capacity = small.lo;
    /* A footprint above the first one that missed fitted: the first
     * eviction depends on where the chain lies (a hashed L2: on an H100 a
     * 21.3 MB chain missed in one run of three while 22.9-24.4 MB fitted,
     * and the first misses read 21.1 MB there, 24.4 MB in the others, each
     * at confidence 1).  What one run shows is then the span from the last
     * fit below the first misses to the largest fit above them: a range. */
    /* A run above the first misses that missed in part yet kept more than
     * hi resident (pigeonhole, mt_held_bytes_bound) shows the same: the
     * range reaches what it held (unseen seeds 2518, 2532: hashed
     * partitions under random replacement first missed 8-10% below their
     * size, and no footprint above fitted whole).  Only a hold beyond the
     * first misses by more than MT_CAPACITY_AGREEMENT, the disagreement
     * that makes two capacity tests a range (measure_capacity.c), refutes
     * them: the H100's chains held 0.6% above their first misses (24.30 vs
     * 24.17 MB), within the search's own step, and stay a value. */
    bool held_refutes = (double)small.held_above > (double)small.hi * (1 + MT_CAPACITY_AGREEMENT);
    uint64_t top = small.fit_above;
    if (held_refutes && small.held_above > top)
        top = small.held_above;
    bool spans = top > small.hi;
    /* First misses that did not repeat (borderline) are explained by the
     * fit above them: the range holds both, at the first misses' own
     * significance. */
    double span_conf = small.borderline ? 1 - small.p_detect : small.confidence;
    /* The most one SM was seen to hold decides whether it is one
     * partition: a chain that fitted above the first misses counts (were
     * it over PARTITION_MAX_SHARE, a range "one partition" would claim a
     * partitioning the fit refutes). */
    uint64_t held = small.fit_above > small.hi ? small.fit_above : small.lo;
    bool one_partition = (double)held <= PARTITION_MAX_SHARE * (double)l2;
    if (spans && one_partition && top == small.fit_above)
        f = mt_find_range(
            (double)small.lo, (double)small.fit_above, "B", "pchase-fine capacity from one SM", span_conf,
            "capacity one SM can use before its first L2 eviction: misses from %llu B, yet %llu B "
            "fitted (%llu B missed): where the chain lies decides; %.0f-%.0f%% of the driver's L2, "
            "one partition", (unsigned long long)small.hi, (unsigned long long)small.fit_above,
            (unsigned long long)small.miss_above, 100.0 * (double)small.lo / (double)l2,
            100.0 * (double)small.fit_above / (double)l2);
    else if (spans && one_partition)
        f = mt_find_range(
            (double)small.lo, (double)top, "B", "pchase-fine capacity from one SM", span_conf,
            "capacity one SM can use before its first L2 eviction: misses from %llu B, yet a %llu B "
            "chain missed at most %.1f%% of its loads (HELD_SHARE_Z errors up), so the partition "
            "held at least %llu B of it: where the chain lies decides; %.0f-%.0f%% of the driver's "
            "L2, one partition", (unsigned long long)small.hi, (unsigned long long)small.held_fp,
            100 * small.held_share, (unsigned long long)top, 100.0 * (double)small.lo / (double)l2,
            100.0 * (double)top / (double)l2);
    else if (one_partition)
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
            (unsigned long long)held, 100.0 * (double)held / (double)l2);
    if (refuted)
        mt_finding_append_note(&f, "searched on past an edge at %llu B that twice the "
                               "footprint refuted", (unsigned long long)refuted);
    bool sized = f.kind == MT_FIND_VALUE || f.kind == MT_FIND_RANGE;
    if (sized && edge_refuted(&small)) {
        mt_finding_doubt(&f, MT_CONF_INCONSISTENT,
                         "but only %.1f%% of the loads of a chain twice as large miss: no capacity "
                         "edge, the first misses were outliers",
                         100 * small.share_beyond);
    }
    /* Without the confirmation sweep, the first-miss test alone places the
     * edge, and it takes the reference's miss count as exact: timer
     * outliers alone can make a footprint that fits look like the first to
     * miss (36 vs 58 outliers in 8192 loads).  The edge must also hold with
     * the reference's count a draw too. */
    double p_two = mt_miss_excess_two_sample_p(small.edge_misses_ref, small.edge_n_ref,
                                               small.edge_misses, small.edge_n);
    if (sized && p_two >= MT_KS_ALPHA)
        mt_finding_doubt(&f, MT_CONF_INCONSISTENT,
                         "first misses %zu vs the reference's %zu: two-sample p %.2g >= %g, the "
                         "edge may lie further",
                         small.edge_misses, small.edge_misses_ref, p_two, MT_KS_ALPHA);
    partition_needs_classes(c, &f);
    mt_set(c, "l2", "partition_size", &f);
    contradict_far_class(c, f.kind == MT_FIND_ABSENT);
    contradict_one_class(c, sized);
    /* The line is the ratio to this capacity: it is no surer than the
     * partition finding after the doubts above (an edge that timer outliers
     * placed halves the line).  Where the first misses were a conflict, the
     * largest fit is the capacity compared, as at the wider strides
     * (measure_line.c: conflicts only lower what fits). */
    if ((err = mt_measure_line(c, MT_CACHE_L2, MT_PATH_GLOBAL_CG, held, f.confidence,
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

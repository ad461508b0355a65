/* Constant caches (thesis 4.2.4): one 64 KiB constant bank is chased by
 * chains of growing footprint.  The first change is the constant L1; with
 * the L1 thrashed (chains of 3x its size at its line stride) the next
 * change is the constant L1.5, or none before the bank limit, which is then
 * reported as a bound ("> 64 KiB"). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "confidence.h"
#include "probe_internal.h"

/* Smallest fill unit a stride-4 miss-spacing test can tell (4 B words). */
#define MIN_FILL_BYTES 4
/* Fewest elements the constant L1's capacity reference is halved to when
 * it misses (the L1's REF_MIN_ELEMENTS): fewer would make a pair of
 * conflicting lines look like the size. */
#define CONST_REF_MIN_ELEMENTS 4u
/* Loads timed of each chain that thrashes the constant L1. */
#define L15_REFERENCE_LOADS 1024
/* Confidence of an L1.5 latency whose class the L1's hit threshold cut
 * into: the correction (mt_median_above_cut) assumes a symmetric class,
 * and a flat one leaves it within a few cycles only: likely, not
 * established. */
#define MT_CONF_L15_CUT 0.4
/* Shortest chain, in constant L1 sizes, that thrashes the constant L1: an
 * LRU L1 loses every element of any chain longer than itself, and 1.5x
 * leaves room for a size measured a third low (the short chain below uses
 * the same factor). */
#define L15_THRASH_MIN_FACTOR 1.5

/* Fine samples of one warm chain: the reference that defines a hit. */
static mt_err warm_reference(mt_probe_ctx *c, uint64_t fp, uint32_t stride, double *thr,
                             double *median)
{
    mt_experiment e = mt_exp_chase(MT_PATH_CONSTANT, fp, stride, 1, 1024, MT_MODE_FINE);
    size_t n;
    double *x;
    mt_err err = mt_run_fine(c, &e, &x, &n);
    if (err != MT_OK)
        return err;
    *thr = mt_hit_threshold(x, n);
    *median = mt_median(x, n);
    free(x);
    return MT_OK;
}

/* Fine samples of a chain that thrashes the constant L1: its loads that
 * miss the L1 (above its hit threshold, outliers cut) are L1.5 hits.  A
 * random-replacement L1 keeps some hits in any chain of a few times its
 * size, so the L1.5 is described by the misses only (their median: the
 * L1.5's latency; their spread: its hit threshold), never by a mean over
 * all loads. */
static mt_err l15_reference(mt_probe_ctx *c, uint64_t fp, uint32_t stride, double l1_threshold,
                            double *thr, double *median, size_t *misses, size_t *spilled,
                            double *plain)
{
    mt_experiment e = mt_exp_chase(MT_PATH_CONSTANT, fp, stride, 1, L15_REFERENCE_LOADS,
                                   MT_MODE_FINE);
    size_t n;
    double *x;
    mt_err err = mt_run_fine(c, &e, &x, &n);
    if (err != MT_OK)
        return err;
    mt_miss_mean mm;
    if ((err = mt_miss_mean_latency(x, n, l1_threshold, &mm)) != MT_OK) {
        free(x);
        return mt_fail(c->ei, err, "constant L1.5 reference: no samples");
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (x[i] > l1_threshold && x[i] <= mm.cut)
            x[k++] = x[i];
    *misses = k;
    *spilled = mm.outliers;
    /* Their median as a class: the L1's hit threshold cuts off the lowest
     * L1.5 hits where the two are noisy and close (an L1 at 60 +- 7 and an
     * L1.5 at 103 +- 9 cycles read 105.5; unseen seed 717).  *plain is the
     * median of what is left: where the two differ, the cut reached into
     * the class and the latency is uncertain. */
    *median = *plain = k ? mt_median(x, k) : NAN;
    if (k && mt_median_above_cut(x, k, l1_threshold, median) != MT_OK)
        *median = *plain;
    *thr = k ? mt_hit_threshold(x, k) : NAN;
    free(x);
    return MT_OK;
}

static void sector_finding(mt_probe_ctx *c, const char *key, const mt_spacing *sp,
                           const char *what)
{
    if (sp->found) {
        mt_finding f = mt_find_value(sp->spacing_bytes, "B", MT_SRC_MEASURED, "pchase-fine-cold miss-spacing",
                           sp->support, "%s: %zu cold misses, %.0f%% of gaps equal, miss > %.1f cycles",
                           what, sp->n_misses, 100 * sp->support, sp->threshold);
        mt_note_spacing_halved(&f, sp);
        mt_set(c, key, "sector", &f);
    }
}

/* The L1.5's line was measured at multiples of a "sector" that is really
 * the constant L1's fill unit (every L1 miss asks for that much): lines of
 * that unit or smaller all look like it.  A line at or below it, and the
 * low end of a range or bound, become a range down to the smallest fill
 * unit, with the same confidence. */
static void widen_hidden_line(mt_probe_ctx *c, uint32_t fill_lo, uint32_t unit, uint64_t limit)
{
    mt_finding f = *mt_get(c, "const_l15", "line");
    double hi;
    if (f.kind == MT_FIND_VALUE && f.value <= unit)
        hi = f.value;
    else if (f.kind == MT_FIND_RANGE || f.kind == MT_FIND_LOWER_BOUND)
        hi = f.kind == MT_FIND_RANGE ? f.hi : (double)limit;
    else
        return;
    f.kind = MT_FIND_RANGE;
    f.lo = fill_lo;
    f.hi = hi;
    f.value = 0;
    mt_finding_append_note(&f, "the constant L1's %u B fill unit hides lines below it: from %u B",
                           unit, fill_lo);
    mt_set(c, "const_l15", "line", &f);
    c->cs[MT_CACHE_CONST_L15].line = 0;
}

/* Doubts a finding of the constant L1 that rests on its measured size. */
static void doubt_l1(mt_probe_ctx *c, const char *name, uint64_t chain, uint64_t held)
{
    const mt_finding *g = mt_get(c, "const_l1", name);
    if (!g || g->kind == MT_FIND_NONE)
        return;
    mt_finding f = *g;
    mt_finding_doubt(&f, MT_CONF_INCONSISTENT,
                     "a %llu B chain (3x this size) mostly hit the constant L1, which held at "
                     "least %llu B of it: the L1 is larger than its first misses said (a hashed "
                     "index makes early conflicts)",
                     (unsigned long long)chain, (unsigned long long)held);
    mt_set(c, "const_l1", name, &f);
}

/* Bytes of a `fp` B chain at `stride` that a cache kept resident through
 * each whole lap of `loads` loads with `misses` misses (pigeonhole: every
 * hit of a lap was resident at its start); 0 without a whole lap. */
static uint64_t held_bytes(uint64_t fp, uint32_t stride, size_t loads, size_t misses)
{
    uint64_t elements = fp / stride;
    size_t laps = elements ? loads / elements : 0;
    if (!laps || (double)misses / (double)laps >= (double)elements)
        return 0;
    return (uint64_t)(((double)elements - (double)misses / (double)laps) * stride);
}

static mt_err probe_constant(mt_probe_ctx *c)
{
    mt_cache_state *s1 = &c->cs[MT_CACHE_CONST_L1], *s15 = &c->cs[MT_CACHE_CONST_L15];
    mt_finding f;
    uint64_t limit = c->dev.path_limit_bytes[MT_PATH_CONSTANT];
    if (limit < 8192)
        return mt_fail(c->ei, MT_ERR_UNSUPPORTED, "constant path limit %llu B is too small",
                       (unsigned long long)limit);
    mt_mark_probed(c, "const_l1");
    mt_mark_probed(c, "const_l15");

    /* ---- constant L1 ---- */
    double med1;
    mt_progress(c, "constant L1 hit reference");
    mt_err err = warm_reference(c, 256, 4, &s1->hit_threshold, &med1);
    if (err != MT_OK)
        return err;
    s1->present = s1->hit_known = true;
    s1->hit_fine = med1;
    mt_spacing sp;
    if ((err = mt_measure_sector(c, MT_PATH_CONSTANT, s1->hit_threshold, s1->hit_fine, 2048, &sp)) != MT_OK)
        return err;
    s1->sector = sp.found ? sp.spacing_bytes : 64;
    bool l1_fill_seen = sp.found;
    sector_finding(c, "const_l1", &sp, "constant L1");
    mt_cap_request q = {
        .path = MT_PATH_CONSTANT, .stride = s1->sector, .start = 512, .limit = limit,
        .granule = s1->sector, .ref_footprint = 256, .hit_threshold = NAN,
        /* The reference's own hit threshold passes its misses as hits: a
         * reference of a few lines that conflict (an xor index over a set
         * count no power of two, whose fold changes between two of the
         * bank's first lines) missed half its loads, no footprint missed
         * more, and a 1856 B L1 read "> 64 KiB" with confidence 1 (unseen
         * seed 1770).  The warm chain's threshold (16 loads a line, so at
         * most one in 16 misses) judges whether the reference fits; one that
         * does not is halved, and one that never fits caps the size's
         * confidence (mt_cap_result.ref_missed). */
        .fit_threshold = s1->hit_threshold, .ref_min_bytes = CONST_REF_MIN_ELEMENTS * s1->sector,
        /* A bound "> bank" rests on the misses of the bank's chain: at most
         * one fill unit (the cold misses' spacing) comes in a miss. */
        .miss_bytes = sp.found ? sp.spacing_bytes : 0,
        /* No pooled re-test of a thin edge here (the L1.5's below has one):
         * on the H100 it found stray misses down to 1728 B and turned the
         * constant L1's 2 KiB (p = 3e-183 at its first-miss edge, five runs
         * alike) into a 1728-2112 B range at 0.4 in every run of the
         * 2026-11-24 06:24 UTC fixture; no spec of a constant L1 with a
         * thin edge has failed without it. */
    };
    mt_note_threshold(c, "MT_CAP_REF_MAX_MISS_SHARE", MT_CAP_REF_MAX_MISS_SHARE,
                      "capacity search: a reference with more misses than this share is halved");
    mt_cap_result cap;
    if ((err = mt_capacity_search(c, &q, &cap)) != MT_OK)
        return err;
    f = mt_capacity_finding(&cap, "constant L1");
    mt_set(c, "const_l1", "size", &f);
    s1->size = cap.lo;
    s1->size_is_bound = cap.kind == MT_FIND_LOWER_BOUND;
    if (s1->size_is_bound)
        return MT_OK; /* nothing beyond it can be separated */
    if ((err = mt_measure_line(c, MT_CACHE_CONST_L1, MT_PATH_CONSTANT, s1->size, cap.confidence,
                               s1->sector, 0, limit, 0, NAN)) != MT_OK)
        return err;
    uint64_t fp_hit = mt_hit_footprint(s1->size / 2, s1->sector);
    if ((err = mt_measure_agg_latency(c, MT_PATH_CONSTANT, fp_hit, s1->sector, 1, &s1->latency,
                                      NULL)) != MT_OK)
        return err;
    f = mt_find_value(s1->latency, "cycles", MT_SRC_MEASURED, "pchase-aggregate",
                      MT_CONF_AGG_MEDIAN, "%llu B chain at %u B stride; loop overhead %.1f subtracted",
                      (unsigned long long)fp_hit, s1->sector, c->overhead_agg);
    mt_set(c, "const_l1", "latency", &f);

    /* ---- constant L1.5: chains that thrash the L1 ---- */
    uint32_t l1_unit = s1->line ? s1->line : s1->sector;
    /* 3x the L1: every element of an LRU L1 is evicted before it comes
     * back, while the chain still fits an L1.5 of 4x the L1 or more (the
     * thesis' GPUs: 16x). */
    uint64_t thrash = mt_round_down(3 * s1->size, l1_unit);
    /* An L1 over a third of the bank: the longest chain the bank holds,
     * while it is L15_THRASH_MIN_FACTOR times the L1 or more (still every
     * element evicted from an LRU L1; the chain of 1.5x below relies on the
     * same).  Shorter than 3x, a chain the L1 keeps proves nothing: an
     * absent L1.5 is then doubted.  Below that factor nothing beyond the L1
     * can be seen, not even whether an L1.5 exists: a bound of 0 B at 0.5
     * claimed one the spec did not have (unseen seed 1129). */
    uint64_t bank = mt_round_down(limit, l1_unit);
    bool short_thrash = thrash > bank;
    if (short_thrash)
        thrash = bank;
    if ((double)thrash < L15_THRASH_MIN_FACTOR * (double)s1->size) {
        mt_note_threshold(c, "L15_THRASH_MIN_FACTOR", L15_THRASH_MIN_FACTOR,
                          "constant L1.5: the shortest chain, in constant L1 sizes, that "
                          "thrashes the L1");
        f = mt_find_bound(0, "B", "pchase", MT_CONF_INCONSISTENT,
                          "the constant L1 fills the bank: no chain of %.1fx its size fits, so "
                          "whether an L1.5 lies beyond it is unknown",
                          L15_THRASH_MIN_FACTOR);
        mt_set(c, "const_l15", "size", &f);
        return MT_OK;
    }
    double med15 = NAN;
    size_t n15 = 0, spilled = 0;
    double plain15 = NAN;
    mt_progress(c, "constant L1.5 hit reference");
    if ((err = l15_reference(c, thrash, l1_unit, s1->hit_threshold, &s15->hit_threshold, &med15,
                             &n15, &spilled, &plain15)) != MT_OK)
        return err;
    /* Too few L1 misses: the L1 held most of a chain of 3x its measured
     * size, so that size is too small (a hashed index whose set count is no
     * power of two conflicts early in a contiguous chain).  Longer chains,
     * doubling up to the bank, find one that thrashes it; meanwhile the
     * L1's size (and the line measured from it) is doubted. */
    bool escalated = false;
    if (n15 < MT_MISS_MIN_COUNT) {
        uint64_t held = held_bytes(thrash, l1_unit, L15_REFERENCE_LOADS, n15 + spilled);
        if (held > s1->size && thrash < bank) {
            /* A size range up to `held` or beyond is not contradicted. */
            const mt_finding *sz = mt_get(c, "const_l1", "size");
            if (!(sz && sz->kind == MT_FIND_RANGE && sz->hi >= (double)held)) {
                doubt_l1(c, "size", thrash, held);
                doubt_l1(c, "line", thrash, held);
            }
            escalated = true;
        }
        while (escalated && n15 < MT_MISS_MIN_COUNT && thrash < bank) {
            thrash = 2 * thrash < bank ? 2 * thrash : bank;
            mt_progress(c, "constant L1.5 hit reference: %llu B", (unsigned long long)thrash);
            if ((err = l15_reference(c, thrash, l1_unit, s1->hit_threshold, &s15->hit_threshold,
                                     &med15, &n15, &spilled, &plain15)) != MT_OK)
                return err;
        }
    }
    if (n15 < MT_MISS_MIN_COUNT || med15 - med1 < MT_MIN_CLASS_GAP_CYCLES) {
        /* Built on the L1's size: no surer than it (an unconfirmed L1 size
         * may be far below the truth, and 3x it may still fit the L1). */
        double conf = cap.confidence < MT_CONF_ABSENT_BY_LATENCY ? cap.confidence
                                                                 : MT_CONF_ABSENT_BY_LATENCY;
        if ((escalated || short_thrash) && conf > MT_CONF_INCONSISTENT)
            conf = MT_CONF_INCONSISTENT;
        f = mt_find_absent("pchase-fine", conf,
                           "a %llu B chain (%s) is not slower than L1 hits (%zu of "
                           "1024 loads above the L1's hit threshold)%s",
                           (unsigned long long)thrash,
                           escalated ? "the longest tried"
                           : short_thrash ? "the bank, under 3x the constant L1"
                                          : "3x the constant L1", n15,
                           escalated || short_thrash ? "; the constant L1 may hold the whole "
                                                       "bank, hiding what lies beyond it"
                           : conf < MT_CONF_ABSENT_BY_LATENCY ? "; the L1 size it rests on is "
                                                                "uncertain" : "");
        mt_set(c, "const_l15", "size", &f);
        return MT_OK;
    }
    /* An L1.5 smaller than 3x the L1 loses that chain to the next level:
     * a chain of 1.5x the L1 (still thrashing an LRU L1; other policies
     * leave hits, which are not counted) whose L1 misses are faster by the
     * class gap was served by a level the longer chain left: the L1.5. */
    uint64_t short_chain = mt_round_down(3 * s1->size / 2, l1_unit);
    if (!escalated && short_chain > s1->size) {
        double med_s = NAN, thr_s = NAN, plain_s = NAN;
        size_t n_s = 0, spilled_s = 0;
        if ((err = l15_reference(c, short_chain, l1_unit, s1->hit_threshold, &thr_s, &med_s, &n_s,
                                 &spilled_s, &plain_s)) != MT_OK)
            return err;
        if (n_s >= MT_MISS_MIN_COUNT && med15 - med_s >= MT_MIN_CLASS_GAP_CYCLES &&
            med_s - med1 >= MT_MIN_CLASS_GAP_CYCLES) {
            thrash = short_chain;
            med15 = med_s;
            s15->hit_threshold = thr_s;
            n15 = n_s;
            spilled = spilled_s;
            plain15 = plain_s;
        }
    }
    s15->present = s15->hit_known = true;
    s15->hit_fine = med15;
    if ((err = mt_measure_sector(c, MT_PATH_CONSTANT, s15->hit_threshold, s15->hit_fine, 8192, &sp)) != MT_OK)
        return err;
    s15->sector = sp.found ? sp.spacing_bytes : l1_unit;
    /* Smallest fill unit the L1.5 may have: none seen, it may hide behind
     * the L1's (whose fill unit the L1.5 is then measured in). */
    uint32_t l15_fill_lo = sp.found ? s15->sector : MIN_FILL_BYTES;
    if (sp.found && (!l1_fill_seen || sp.spacing_bytes <= s1->sector)) {
        l15_fill_lo = MIN_FILL_BYTES;
        /* Each constant L1 miss asks the L1.5 for the L1's whole fill unit,
         * so L1.5 misses are at least that far apart: a spacing equal to the
         * L1's unit only bounds the L1.5's from above.  When the L1's unit
         * was not seen (64 B is then only a stride to work with), any
         * spacing may be it. */
        f = mt_find_range(MIN_FILL_BYTES, sp.spacing_bytes, "B", "pchase-fine-cold miss-spacing",
                          sp.support,
                          "constant L1.5 misses %u B apart, %s: the L1.5's cannot be seen below "
                          "it", sp.spacing_bytes,
                          l1_fill_seen ? "the constant L1's own fill unit"
                                       : "perhaps the constant L1's fill unit (not seen)");
        mt_set(c, "const_l15", "sector", &f);
    } else {
        sector_finding(c, "const_l15", &sp, "constant L1.5");
    }
    s15->latency = med15;
    f = mt_find_value(s15->latency, "cycles", MT_SRC_MEASURED, "pchase-fine miss median",
                      MT_CONF_NEAR_CLASS,
                      "%llu B chain at %u B stride (thrashing the constant L1): median of the %zu of 1024 "
                      "loads that missed the L1 (above %.1f cycles), timer overhead removed",
                      (unsigned long long)thrash, l1_unit, n15, s1->hit_threshold);
    if (med15 != plain15)
        mt_finding_doubt(&f, MT_CONF_L15_CUT,
                         "the L1's hit threshold cuts into the L1.5's latencies (median of those "
                         "above it %.1f, about its symmetric window %.1f): uncertain",
                         plain15, med15);
    mt_set(c, "const_l15", "latency", &f);
    f = mt_find_value(s15->latency - med1, "cycles", MT_SRC_DERIVED, "latency difference",
                      MT_CONF_DIFFERENCE, "constant L1.5 latency minus the L1's fine-grained hit "
                      "median (%.1f)", med1);
    mt_set(c, "const_l1", "miss_penalty", &f);

    /* More than MT_MISS_SPILL_SHARE of the 3x-L1 chain far slower than its
     * L1.5 hits: the chain does not fit the L1.5 (one smaller than 3x the
     * L1; random replacement there keeps the majority as hits, so the
     * median above is still an L1.5 hit).  The capacity search starts
     * above that chain and could only miss the L1.5: its size lies between
     * the L1's and the chain's, which is all that can be said. */
    if ((double)spilled / L15_REFERENCE_LOADS > MT_MISS_SPILL_SHARE) {
        f = mt_find_range((double)s1->size, (double)thrash, "B", "pchase-fine", MT_CONF_INCONSISTENT,
                          "%zu of 1024 loads of the %llu B chain (thrashing the constant L1) are far slower "
                          "than L1.5 hits: the L1.5 is smaller than that chain", spilled,
                          (unsigned long long)thrash);
        mt_set(c, "const_l15", "size", &f);
        f = mt_find_range(l15_fill_lo, (double)limit, "B", "miss-spacing", MT_CONF_INCONSISTENT,
                          "the L1.5 holds no chain that thrashes the L1: its line is only known to "
                          "lie between the fill unit and the bank");
        mt_set(c, "const_l15", "line", &f);
        return MT_OK;
    }
    q = (mt_cap_request){
        /* A thin edge (Fermi's fixed victim way one line over: 2 misses a
         * lap) is re-tested in pooled runs (EDGE_THIN_MISSES): it read 2
         * lines (3.2%) over a 60-line L1.5 (unseen seed 1934). */
        .pool_edge = 1,
        /* At the L1's fill-unit stride every byte of the footprint is asked
         * of the L1.5 (at its line stride only one fill unit per line is,
         * and an L1.5 with smaller lines would seem larger by line / fill). */
        .path = MT_PATH_CONSTANT, .stride = s1->sector, .start = 2 * thrash, .limit = limit,
        .granule = s1->sector, .ref_footprint = thrash,
        /* The L1.5's own hit threshold (from the loads that missed the L1),
         * not one derived from the reference: there the L1's hits are the
         * majority (several elements share an L1 line, random replacement
         * keeps some), so a threshold above them counts every L1.5 hit as a
         * miss, and L1.5 misses drown among them. */
        .hit_threshold = s15->hit_threshold,
        /* Only loads past the L1 reach the L1.5: a next level inside the
         * L1.5's hit spread shows as those loads slowing down, not as
         * loads above its threshold (unseen seeds 1143 and 1167). */
        .front_threshold = s1->hit_threshold,
        /* A bound rests on the misses of the bank's chain: at most the
         * spacing of the L1.5's cold misses comes in a miss (the L1's fill
         * unit where that was all it showed: the L1.5's is then smaller). */
        .miss_bytes = sp.found ? sp.spacing_bytes : 0,
    };
    if ((err = mt_capacity_search(c, &q, &cap)) != MT_OK)
        return err;
    f = mt_capacity_finding(&cap, "constant L1.5");
    /* A capacity edge makes the footprints beyond it miss: more than the
     * timer outliers' share (MT_MISS_SPILL_SHARE) of the next doubling
     * footprint's loads (a quarter where the L1 serves three of four).  An
     * edge beyond which hardly anything misses is a set conflict of the
     * contiguous chain (an xor index over a set count that is no power of
     * two), not the size, and an edge the bank leaves no room to test
     * beyond is not confirmed either: an L1.5 larger than the bank read as
     * 55040 and 62976 B with confidence 1. */
    if (f.kind == MT_FIND_VALUE && !(cap.share_beyond > MT_MISS_SPILL_SHARE)) {
        mt_note_threshold(c, "MT_MISS_SPILL_SHARE", MT_MISS_SPILL_SHARE,
                          "miss penalty: more loads than this share beyond the cut flag the "
                          "penalty");
        if (isnan(cap.share_beyond))
            mt_finding_doubt(&f, MT_CONF_INCONSISTENT,
                             "the bank leaves no room for a footprint beyond the edge: the misses "
                             "may be set conflicts, and the L1.5 may exceed the bank");
        else
            mt_finding_doubt(&f, MT_CONF_INCONSISTENT,
                             "only %.1f%% of the loads of the next footprint miss: a set conflict, "
                             "not a capacity edge; the L1.5 may be larger",
                             100 * cap.share_beyond);
    }
    mt_set(c, "const_l15", "size", &f);
    s15->size = cap.lo;
    s15->size_is_bound = cap.kind == MT_FIND_LOWER_BOUND;
    if (s15->size_is_bound) {
        f = mt_find_range(l15_fill_lo, (double)limit, "B", "miss-spacing", MT_CONF_RANGE_TO_LIMIT,
                          "size beyond the bank: the line is only known to lie between the "
                          "fill unit and the bank");
        mt_set(c, "const_l15", "line", &f);
        return MT_OK;
    }
    /* The big-stride reference must still thrash the L1 (LRU: more elements
     * than its lines; 25% more for other policies), yet fit the L1.5. */
    if ((err = mt_measure_line(c, MT_CACHE_CONST_L15, MT_PATH_CONSTANT, s15->size, cap.confidence,
                               s15->sector, 5 * (s1->size / l1_unit) / 4, limit, 0, NAN)) != MT_OK)
        return err;
    if (l15_fill_lo < s15->sector)
        widen_hidden_line(c, l15_fill_lo, s15->sector, limit);
    if (2 * s15->size <= limit && l1_fill_seen) {
        /* Stride of one L1.5 line (or fill unit): each load a new L1.5 line,
         * and still far more lines than the constant L1 holds.  Only with
         * the L1's fill unit seen: at a stride below it (64 B standing in
         * for an unseen one) most loads hit the L1 and the mean is no miss. */
        uint32_t st = s15->line ? s15->line : s15->sector;
        if (st < l1_unit)
            st = l1_unit;
        double l2lat;
        uint64_t fp = mt_round_down(limit, st);
        if ((err = mt_measure_agg_latency(c, MT_PATH_CONSTANT, fp, st, 1, &l2lat, NULL)) != MT_OK)
            return err;
        f = mt_find_value(l2lat - s15->latency, "cycles", MT_SRC_MEASURED,
                          "pchase-aggregate difference", MT_CONF_DIFFERENCE_ACROSS,
                          "%llu B chain at %u B stride: %.1f cycles per load minus "
                          "L1.5 latency", (unsigned long long)fp, st, l2lat);
        mt_set(c, "const_l15", "miss_penalty", &f);
    }
    return MT_OK;
}

static const mt_object_decl objects[] = {
    {"const_l1", "Constant L1", "CL1", MT_OBJ_CACHE, MT_OBJ_IN_TABLE, 40},
    {"const_l15", "Constant L1.5", "CL1.5", MT_OBJ_CACHE, MT_OBJ_IN_TABLE, 50},
    {NULL}};
static const mt_finding_decl provides[] = {
    {"const_l1.size", "size"}, {"const_l1.line", "line"}, {"const_l1.sector", "sector"},
    {"const_l1.latency", "latency"}, {"const_l1.miss_penalty", "miss penalty"},
    {"const_l15.size", "size"}, {"const_l15.line", "line"}, {"const_l15.sector", "sector"},
    {"const_l15.latency", "latency"}, {"const_l15.miss_penalty", "miss penalty"},
    {NULL}};
const mt_probe_desc mt_probe_constant = {
    .name = "constant", .summary = "constant L1 and L1.5 caches: size, line, sector, latency, "
                                   "miss penalty",
    .rank = 50, .objects = objects, .provides = provides, .run = probe_constant,
};

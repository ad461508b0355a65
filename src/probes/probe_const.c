/* Constant caches (thesis 4.2.4): one 64 KiB constant bank is chased by
 * chains of growing footprint.  The first change is the constant L1; with
 * the L1 thrashed (chains of 3x its size at its line stride) the next
 * change is the constant L1.5, or none before the bank limit, which is then
 * reported as a bound ("> 64 KiB"). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "probe_internal.h"

/* Fine samples of one warm chain: the reference that defines a hit. */
static mt_err warm_reference(mt_probe_ctx *c, uint64_t fp, uint32_t stride, double *thr,
                             double *median)
{
    mt_experiment e = mt_exp(MT_PATH_CONSTANT, fp, stride, 1, 1024, MT_MODE_FINE);
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

static void sector_finding(mt_finding *f, const mt_spacing *sp, const char *what)
{
    if (sp->found)
        *f = mt_find_value(sp->spacing_bytes, "B", MT_SRC_MEASURED, "pchase-fine-cold miss-spacing",
                           sp->support, "%s: %zu cold misses, %.0f%% of gaps equal, miss > %.1f cycles",
                           what, sp->n_misses, 100 * sp->support, sp->threshold);
}

mt_err mt_probe_constant(mt_probe_ctx *c)
{
    mt_cache_state *s1 = &c->cs[MT_CACHE_CONST_L1], *s15 = &c->cs[MT_CACHE_CONST_L15];
    mt_cache_report *r1 = &c->topo->cache[MT_CACHE_CONST_L1];
    mt_cache_report *r15 = &c->topo->cache[MT_CACHE_CONST_L15];
    uint64_t limit = c->dev.path_limit_bytes[MT_PATH_CONSTANT];
    if (limit < 8192)
        return mt_fail(c->ei, MT_ERR_UNSUPPORTED, "constant path limit %llu B is too small",
                       (unsigned long long)limit);
    r1->probed = r15->probed = true;

    /* ---- constant L1 ---- */
    double med1;
    mt_progress(c, "constant L1 hit reference");
    mt_err err = warm_reference(c, 256, 4, &s1->hit_threshold, &med1);
    if (err != MT_OK)
        return err;
    s1->present = s1->hit_known = true;
    s1->hit_fine = med1;
    mt_spacing sp;
    if ((err = mt_measure_sector(c, MT_PATH_CONSTANT, s1->hit_threshold, 2048, &sp)) != MT_OK)
        return err;
    s1->sector = sp.found ? sp.spacing_bytes : 64;
    sector_finding(&r1->sector, &sp, "constant L1");
    mt_cap_request q = {
        .path = MT_PATH_CONSTANT, .stride = s1->sector, .start = 512, .limit = limit,
        .granule = s1->sector, .ref_footprint = 256, .hit_threshold = NAN,
    };
    mt_cap_result cap;
    if ((err = mt_capacity_search(c, &q, &cap)) != MT_OK)
        return err;
    r1->size = mt_capacity_finding(&cap, "constant L1");
    s1->size = cap.lo;
    s1->size_is_bound = cap.kind == MT_FIND_LOWER_BOUND;
    if (s1->size_is_bound)
        return MT_OK; /* nothing beyond it can be separated */
    if ((err = mt_measure_line(c, MT_CACHE_CONST_L1, MT_PATH_CONSTANT, s1->size, cap.confidence,
                               s1->sector, 0, limit, 0, NAN)) != MT_OK)
        return err;
    uint64_t fp_hit = mt_round_down(s1->size / 2, s1->sector);
    if ((err = mt_measure_agg_latency(c, MT_PATH_CONSTANT, fp_hit, s1->sector, 1, &s1->latency,
                                      NULL)) != MT_OK)
        return err;
    r1->latency = mt_find_value(s1->latency, "cycles", MT_SRC_MEASURED, "pchase-aggregate", 0.95,
                                "%llu B chain at %u B stride; loop overhead %.1f subtracted",
                                (unsigned long long)fp_hit, s1->sector, c->overhead_agg);

    /* ---- constant L1.5: chains that thrash the L1 ---- */
    uint32_t l1_unit = s1->line ? s1->line : s1->sector;
    /* 3x the L1: every element of an LRU L1 is evicted before it comes
     * back, while the chain still fits an L1.5 of 4x the L1 or more (the
     * thesis' GPUs: 16x). */
    uint64_t thrash = mt_round_down(3 * s1->size, l1_unit);
    if (thrash + l1_unit > limit) {
        r15->size = mt_find_bound(0, "B", "pchase", 0.5, "constant L1 fills the bank");
        return MT_OK;
    }
    double med15;
    mt_progress(c, "constant L1.5 hit reference");
    if ((err = warm_reference(c, thrash, l1_unit, &s15->hit_threshold, &med15)) != MT_OK)
        return err;
    if (med15 - med1 < MT_MIN_CLASS_GAP_CYCLES) {
        r15->size = mt_find_absent("pchase-fine", 0.8,
                                   "chains of 3x the constant L1 are not slower than L1 hits");
        return MT_OK;
    }
    s15->present = s15->hit_known = true;
    s15->hit_fine = med15;
    if ((err = mt_measure_sector(c, MT_PATH_CONSTANT, s15->hit_threshold, 8192, &sp)) != MT_OK)
        return err;
    s15->sector = sp.found ? sp.spacing_bytes : l1_unit;
    sector_finding(&r15->sector, &sp, "constant L1.5");
    if ((err = mt_measure_agg_latency(c, MT_PATH_CONSTANT, thrash, l1_unit, 1, &s15->latency,
                                      NULL)) != MT_OK)
        return err;
    r15->latency = mt_find_value(s15->latency, "cycles", MT_SRC_MEASURED, "pchase-aggregate", 0.9,
                                 "%llu B chain at %u B stride (3x constant L1); loop overhead "
                                 "subtracted", (unsigned long long)thrash, l1_unit);
    r1->miss_penalty = mt_find_value(s15->latency - s1->latency, "cycles", MT_SRC_DERIVED,
                                     "latency difference", 0.9, "constant L1.5 minus L1 latency");

    q = (mt_cap_request){
        .path = MT_PATH_CONSTANT, .stride = l1_unit, .start = 2 * thrash, .limit = limit,
        .granule = l1_unit, .ref_footprint = thrash, .hit_threshold = NAN,
    };
    if ((err = mt_capacity_search(c, &q, &cap)) != MT_OK)
        return err;
    r15->size = mt_capacity_finding(&cap, "constant L1.5");
    s15->size = cap.lo;
    s15->size_is_bound = cap.kind == MT_FIND_LOWER_BOUND;
    if (s15->size_is_bound) {
        r15->line = mt_find_range(s15->sector, (double)limit, "B", "miss-spacing", 0.9,
                                  "size beyond the bank: the line is only known to lie between the "
                                  "fill unit and the bank");
        return MT_OK;
    }
    /* The big-stride reference must still thrash the L1 (LRU: more elements
     * than its lines; 25% more for other policies), yet fit the L1.5. */
    if ((err = mt_measure_line(c, MT_CACHE_CONST_L15, MT_PATH_CONSTANT, s15->size, cap.confidence,
                               s15->sector, 5 * (s1->size / l1_unit) / 4, limit, 0, NAN)) != MT_OK)
        return err;
    if (2 * s15->size <= limit) {
        /* Stride of one L1.5 line (or fill unit): each load a new L1.5 line,
         * and still far more lines than the constant L1 holds. */
        uint32_t st = s15->line ? s15->line : s15->sector;
        if (st < l1_unit)
            st = l1_unit;
        double l2lat;
        uint64_t fp = mt_round_down(limit, st);
        if ((err = mt_measure_agg_latency(c, MT_PATH_CONSTANT, fp, st, 1, &l2lat, NULL)) != MT_OK)
            return err;
        r15->miss_penalty = mt_find_value(l2lat - s15->latency, "cycles", MT_SRC_MEASURED,
                                          "pchase-aggregate difference", 0.85,
                                          "%llu B chain at %u B stride: %.1f cycles per load minus "
                                          "L1.5 latency", (unsigned long long)fp, st, l2lat);
    }
    return MT_OK;
}

/* Tolerance for "same latency as the L2": the class gap, or 5% of the L2
 * latency when that is larger (the constant path may add a few cycles). */
void mt_check_const_l15_is_l2(mt_probe_ctx *c)
{
    mt_cache_state *s15 = &c->cs[MT_CACHE_CONST_L15], *l2 = &c->cs[MT_CACHE_L2];
    if (!s15->present || !(l2->agg_latency > 0))
        return;
    double tol = MT_MIN_CLASS_GAP_CYCLES > 0.05 * l2->agg_latency ? MT_MIN_CLASS_GAP_CYCLES
                                                                  : 0.05 * l2->agg_latency;
    mt_note_threshold(c, "CONST_L15_IS_L2_TOLERANCE", 0.05,
                      "constant L1.5 latency within this share (or the class gap) of the L2's: "
                      "no L1.5");
    if (fabs(s15->latency - l2->agg_latency) > tol)
        return;
    mt_cache_report *r15 = &c->topo->cache[MT_CACHE_CONST_L15];
    double lat = s15->latency;
    memset(r15, 0, sizeof *r15);
    r15->probed = true;
    r15->size = mt_find_absent("pchase-aggregate vs L2", 0.8,
                               "loads missing the constant L1 take %.1f cycles, the L2's %.1f "
                               "(within %.1f): no constant L1.5", lat, l2->agg_latency, tol);
    s15->present = false;
}

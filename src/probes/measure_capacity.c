/* Capacity search (thesis 3.2 and 3.4), organised for parallel hardware:
 *  1. one batch: an all-hit reference chain plus chains of doubling
 *     footprints (start, 2 start, ... limit);
 *  2. the first footprint with significantly more misses than the reference
 *     (binomial test, analysis.h) bounds the capacity to (lo, hi];
 *  3. k-ary refinement: each batch measures up to k footprints evenly spread
 *     in (lo, hi] (one per SM on a GPU) until hi - lo <= granule;
 *  4. confirmation: Opt + KS on the geometric reduction of the widest sweep
 *     must place the change in the same place, otherwise a range is
 *     reported. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "confidence.h"
#include "probe_internal.h"

/* Footprints per k-ary refinement round (see mt_capacity_search). */
#define REFINE_K_GPU 8     /* GPU scope: experiments run alone, 8 keeps a round short */
#define REFINE_K_SM_MAX 64 /* SM scope: beyond 64 a round gains < 1 bit per batch */
#define REFINE_K_MIN 4     /* fewer than 4 points per round would need too many rounds */

#define MAX_DOUBLING 48
#define MIN_SAMPLES 512      /* enough loads that a single thrashing set shows */
#define MAX_REFINE_ROUNDS 16 /* k >= 4 shrinks 2^48 to a granule in 24; we need far fewer */
/* Timer outliers in the reference are a background the first-miss test
 * counts as misses: at 0.3% of 8192 loads (~25) the 5 misses per lap of a
 * 4-way LRU cache one line over its capacity do not stand out, and the edge
 * came out 4 lines high.  With outliers in the reference, the EDGE_SCAN
 * footprints at and below lo (one granule apart: the edge is at most a few
 * granules off) and the reference run EDGE_POOL_RUNS times more; the pooled
 * counts (8x the loads: 5 misses per lap against ~25 +- 5 become 40
 * against ~200 +- 14) are compared by a one-sided Fisher test, and lo
 * moves down to the largest footprint with no excess at or below it. */
#define EDGE_SCAN 8
#define EDGE_POOL_RUNS 8
/* The pooled runs of a footprint load the same addresses in the same order,
 * so a capacity miss recurs at the same load of every run (under LRU every
 * line of an overfull set misses each lap), while timer outliers fall
 * anywhere: a load that missed in at least EDGE_REPEAT_RUNS of the
 * EDGE_POOL_RUNS runs is a repeated miss.  At the largest outlier rate the
 * spec format allows (1%) a load repeats by chance with probability
 * C(8,5) 0.01^5 = 5.6e-9, 5e-5 over 8192 loads.  A footprint with at least
 * EDGE_REPEAT_EXCESS more repeated misses than the reference has an excess
 * too (a direct-mapped set one line over thrashes two lines; two chance
 * repeats at once are ~1e-9).  The counts alone missed 3 lines of a 4-way
 * LRU texture cache under 0.9% outliers (15 misses a lap against ~65;
 * unseen seed 666). */
#define EDGE_REPEAT_RUNS 5
#define EDGE_REPEAT_EXCESS 2
/* A thin edge: the first footprint with extra misses has fewer than
 * EDGE_THIN_MISSES of them per lap over the reference's rate.  A set one
 * line over its ways costs 2 misses a lap in a direct-mapped cache or under
 * Fermi's fixed victim way (and a few under random replacement), which one
 * lap's binomial test does not see against a reference with a miss or two:
 * the edge was found where 2-4 sets overflowed, 2 lines over a direct-mapped
 * texture cache (unseen seed 1261) and 2 lines (3.2%) over a Fermi constant
 * L1.5 of 60 lines (unseen seed 1934).  An LRU set of 8 ways or more one
 * line over misses 9 times a lap and is not thin.  A thin edge is re-tested
 * in pooled runs (whose repeated misses see 2 a lap) from EDGE_THIN_SPAN of
 * the size below it, in EDGE_SCAN steps, then bisected to the granule: the
 * span is twice the 3% tolerance a size is held to, so an edge that far high
 * is found wherever it lies in it. */
#define EDGE_THIN_MISSES 8
#define EDGE_THIN_SPAN 0.06

typedef struct {
    size_t rows, cols;
    uint64_t *fp;
    double *m;
} sweep_matrix;

static void sweep_free(sweep_matrix *s)
{
    free(s->fp);
    free(s->m);
    memset(s, 0, sizeof *s);
}

static uint32_t loads_for(const mt_probe_ctx *c, uint64_t fp, uint32_t stride)
{
    uint64_t el = fp / stride;
    uint32_t cap = c->dev.max_fine_loads; /* > 0: checked by the runner */
    uint64_t want = el < MIN_SAMPLES ? MIN_SAMPLES : el;
    return want > cap ? cap : (uint32_t)want;
}

static mt_experiment cap_exp(const mt_probe_ctx *c, const mt_cap_request *q, uint64_t fp)
{
    mt_experiment e = mt_exp_chase(q->path, fp, q->stride, 1, loads_for(c, fp, q->stride), MT_MODE_FINE);
    e.chain[0].thread = q->thread;
    if (q->window_at_growth && q->limit > fp)
        e.chain[0].offset = q->limit - fp;
    return q->set_carveout ? mt_exp_with_carveout(e, q->carveout_percent) : e;
}

/* Runs footprints fps[0..n-1]; writes the miss test of each against ref into
 * miss[] and, if keep != NULL, the samples into a matrix. */
static mt_err measure(mt_probe_ctx *c, const mt_cap_request *q, const uint64_t *fps, size_t n,
                      const double *ref, size_t nref, double thr, mt_miss_excess *miss,
                      sweep_matrix *keep)
{
    mt_experiment *e = calloc(n, sizeof *e);
    mt_result *r = calloc(n, sizeof *r);
    mt_err err = MT_OK;
    if (!e || !r) {
        err = mt_fail(c->ei, MT_ERR_NOMEM, "out of memory planning %zu experiments", n);
        goto out;
    }
    for (size_t i = 0; i < n; i++)
        e[i] = cap_exp(c, q, fps[i]);
    if ((err = mt_run(c, e, n, r)) != MT_OK)
        goto out;
    size_t cols = SIZE_MAX;
    for (size_t i = 0; i < n; i++)
        if (r[i].n[0] < cols)
            cols = r[i].n[0];
    if (keep && cols >= 16) { /* the confirmation's Opt+KS needs 4 rows: it checks */
        keep->rows = n;
        keep->cols = cols;
        keep->fp = malloc(n * sizeof *keep->fp);
        keep->m = malloc(n * cols * sizeof *keep->m);
        if (!keep->fp || !keep->m) {
            sweep_free(keep);
            err = mt_fail(c->ei, MT_ERR_NOMEM, "out of memory keeping a sweep");
            goto out_free;
        }
    }
    for (size_t i = 0; i < n; i++) {
        size_t ns;
        double *x = mt_fine_samples(c, &r[i], 0, &ns);
        if (!x) {
            err = mt_fail(c->ei, MT_ERR_NOMEM, "out of memory reading samples");
            goto out_free;
        }
        mt_miss_excess_test(ref, nref, x, ns, thr, MT_KS_ALPHA, &miss[i]);
        if (keep && keep->m) {
            keep->fp[i] = fps[i];
            memcpy(keep->m + i * keep->cols, x, keep->cols * sizeof *x);
        }
        free(x);
    }
out_free:
    mt_results_free(r, n);
out:
    free(e);
    free(r);
    return err;
}

/* Samples above the pooled 99.9th percentile are clipped to it: a single
 * interrupt-sized outlier would otherwise dominate the L2-based geometric
 * reduction, while real misses (many per missing footprint) survive. */
static void clip_outliers(sweep_matrix *s)
{
    size_t n = s->rows * s->cols;
    double *tmp = malloc(n * sizeof *tmp);
    if (!tmp)
        return; /* clipping is a refinement; without memory, use raw samples */
    memcpy(tmp, s->m, n * sizeof *tmp);
    mt_sort_doubles(tmp, n);
    double cap = tmp[(size_t)((double)(n - 1) * 0.999)];
    free(tmp);
    for (size_t i = 0; i < n; i++)
        if (s->m[i] > cap)
            s->m[i] = cap;
}

/* The confirmation sweep (CONFIRM_SIDE points each side of (lo, hi]). */
static mt_err confirm(mt_probe_ctx *c, const mt_cap_request *q, const double *ref, size_t nref,
                      double thr, uint64_t lo, uint64_t hi, mt_miss_excess *miss,
                      sweep_matrix *keep)
{
    size_t side = q->path == MT_PATH_GLOBAL_CG ? 8 : 12; /* KS needs >= 8 per side at 1e-3 */
    uint64_t g = lo / 128 / q->stride * q->stride;
    if (g < q->granule)
        g = q->granule;
    if (g < q->stride)
        g = q->stride;
    uint64_t pts[64];
    size_t n = 0;
    for (size_t i = side; i-- > 0;) {
        if (lo < i * g + q->stride)
            continue;
        pts[n++] = lo - i * g;
    }
    for (size_t i = 0; i < side; i++) {
        uint64_t f = hi + i * g;
        if (q->limit && f > q->limit)
            break;
        if (n && f <= pts[n - 1])
            continue;
        pts[n++] = f;
    }
    if (n < 4)
        return MT_OK;
    mt_progress(c, "%s capacity: confirming with %zu footprints", mt_path_name(q->path), n);
    return measure(c, q, pts, n, ref, nref, thr, miss, keep);
}

/* Pigeonhole check of an edge: a footprint over the capacity overflows some
 * set under any index function, wherever the chain starts.  The first
 * footprint with extra misses is measured once more in place and shifted
 * by a 3rd, 5th, 7th, 11th and 13th of itself.  When a shifted chain has no extra misses over
 * the reference AND significantly fewer than the same chain in place (the
 * same binomial test, the shifted run as the reference: a contradiction
 * needs power, so a barely detected edge, e.g. one set overflowing under
 * random replacement, is never overturned), the misses came from where the
 * chain lay (a hashed index whose blocks do not line up with the chain),
 * not from the capacity, which may be larger: *moved. */
static void note_recheck(mt_probe_ctx *c)
{
    mt_note_threshold(c, "MT_RECHECK_HINT_ALPHA", MT_RECHECK_HINT_ALPHA,
                      "capacity: a p-value below this on one lap reruns the footprint with "
                      "every load the backend times");
}

/* Footprint fp run with every load the backend times, tested against ref. */
static mt_err recheck_longer(mt_probe_ctx *c, const mt_cap_request *q, uint64_t fp,
                             const double *ref, size_t nref, double thr, mt_miss_excess *miss)
{
    mt_experiment e = cap_exp(c, q, fp);
    e.loads = c->dev.max_fine_loads;
    double *x = NULL;
    size_t nx = 0;
    mt_err err = mt_run_fine(c, &e, &x, &nx);
    if (err == MT_OK)
        mt_miss_excess_test(ref, nref, x, nx, thr, MT_KS_ALPHA, miss);
    free(x);
    return err;
}

typedef enum {
    PLACEMENT_SAME,  /* the shifted chain misses as much, or has extra misses itself */
    PLACEMENT_HINT,  /* no extra misses shifted, fewer than in place at the recheck level only */
    PLACEMENT_MOVED, /* no extra misses shifted, significantly fewer than in place */
} placement_test;

/* Compares one chain in place (x) and shifted (y) against the reference. */
static placement_test placement_misses(const double *ref, size_t nref, const double *x, size_t nx,
                                       const double *y, size_t ny, double thr)
{
    mt_miss_excess over_ref, over_shift;
    if (mt_miss_excess_test(ref, nref, y, ny, thr, MT_KS_ALPHA, &over_ref) != MT_OK ||
        mt_miss_excess_test(y, ny, x, nx, thr, MT_KS_ALPHA, &over_shift) != MT_OK ||
        over_ref.more_misses)
        return PLACEMENT_SAME;
    if (over_shift.more_misses)
        return PLACEMENT_MOVED;
    return over_shift.p_value < MT_RECHECK_HINT_ALPHA ? PLACEMENT_HINT : PLACEMENT_SAME;
}

/* Shifts of the residue sweep: at most this many, one batch (one launch on
 * a GPU, where each SM runs one), evenly spread up to the chain's own
 * length.  An xor index over a set count that is no power of two holds a
 * contiguous chain of its size only where the chain starts on a block
 * boundary: one start in 28 for a direct-mapped constant L1 of 28 lines,
 * none of which the five fractions above reach (unseen seeds 726, 747,
 * 973: 1728 of 1792 B, 3072 of 3584 B and 8192 of 8448 B with confidence
 * 1).  32 shifts try every start of a chain of up to 32 elements and a
 * start every 1/32 of a longer one. */
#define RESIDUE_SHIFTS 32

static size_t count_above(const double *x, size_t n, double thr)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += x[i] > thr;
    return k;
}

/* One shifted start and the chain in place, both with every load the
 * backend times (one batch), judged alone (not recorded: skipped). */
static mt_err rerun_placement(mt_probe_ctx *c, const double *ref, size_t nref, double thr,
                              const mt_experiment *shifted, bool *moved)
{
    note_recheck(c);
    mt_experiment e[2] = {*shifted, *shifted};
    e[0].chain[0].offset = 0;
    e[0].loads = e[1].loads = c->dev.max_fine_loads;
    mt_result r[2];
    memset(r, 0, sizeof r);
    mt_err err = mt_run(c, e, 2, r);
    if (err == MT_ERR_REPLAY) {
        c->ei->msg[0] = '\0';
        return MT_OK;
    }
    size_t nx = 0, ny = 0;
    double *x = err == MT_OK ? mt_fine_samples(c, &r[0], 0, &nx) : NULL;
    double *y = err == MT_OK ? mt_fine_samples(c, &r[1], 0, &ny) : NULL;
    if (err == MT_OK && (!x || !y))
        err = mt_fail(c->ei, MT_ERR_NOMEM, "out of memory reading samples");
    if (err == MT_OK)
        *moved = placement_misses(ref, nref, x, nx, y, ny, thr) == PLACEMENT_MOVED;
    free(x);
    free(y);
    mt_results_free(r, 2);
    return err;
}

/* The pigeonhole check's second round: the first-miss footprint at
 * RESIDUE_SHIFTS starts k * hi / RESIDUE_SHIFTS (k = 1..), all in one
 * batch, each judged as the shifts above; the start with the fewest
 * misses, if fewer than in place, is run again longer.  A recording made before this round has no such batch: on
 * replay it is skipped and the edge is what the recording gave. */
static mt_err residue_sweep(mt_probe_ctx *c, const mt_cap_request *q, const double *ref,
                            size_t nref, double thr, uint64_t hi, const double *x, size_t nx,
                            bool *moved)
{
    uint64_t lim = c->dev.path_limit_bytes[q->path];
    uint64_t elements = hi / q->stride;
    size_t n_shifts = elements < RESIDUE_SHIFTS ? (size_t)elements : RESIDUE_SHIFTS;
    uint64_t step = mt_round_down(hi / (n_shifts ? n_shifts : 1), q->stride);
    if (step < q->stride)
        step = q->stride;
    mt_experiment e[RESIDUE_SHIFTS];
    mt_result r[RESIDUE_SHIFTS];
    size_t n = 0;
    for (size_t k = 1; k <= n_shifts; k++) {
        uint64_t shift = k * step;
        if (lim && shift + hi > lim)
            break;
        e[n] = cap_exp(c, q, hi);
        e[n].chain[0].offset = shift;
        n++;
    }
    if (n == 0)
        return MT_OK;
    memset(r, 0, sizeof r);
    mt_progress(c, "%s capacity: the edge at %zu more starts", mt_path_name(q->path), n);
    mt_err err = mt_run(c, e, n, r);
    if (err == MT_ERR_REPLAY) {
        c->ei->msg[0] = '\0';
        return MT_OK;
    }
    /* The start with the fewest misses, when fewer than in place: one lap
     * per run rarely tells 0 misses from a direct-mapped cache's 2 per
     * lap, so that start alone is run again as the shifts above are. */
    size_t in_place = count_above(x, nx, thr), best = n, best_misses = in_place;
    for (size_t i = 0; err == MT_OK && i < n && !*moved; i++) {
        size_t ny;
        double *y = mt_fine_samples(c, &r[i], 0, &ny);
        if (!y) {
            err = mt_fail(c->ei, MT_ERR_NOMEM, "out of memory reading samples");
            break;
        }
        *moved = placement_misses(ref, nref, x, nx, y, ny, thr) == PLACEMENT_MOVED;
        size_t m = count_above(y, ny, thr);
        if (m < best_misses) {
            best_misses = m;
            best = i;
        }
        free(y);
    }
    if (err == MT_OK && !*moved && best < n && e[best].loads < c->dev.max_fine_loads)
        err = rerun_placement(c, ref, nref, thr, &e[best], moved);
    mt_results_free(r, n);
    return err;
}

static mt_err shifted_edge(mt_probe_ctx *c, const mt_cap_request *q, const double *ref,
                           size_t nref, double thr, uint64_t hi, bool *moved)
{
    /* Shifts of hi/3, hi/5, ... land on different residues of an unknown
     * set-block length; a hashed index whose blocks are not a power of two
     * lines long lets only some placements hold the chain. */
    static const unsigned divisors[] = {3, 5, 7, 11, 13};
    *moved = false;
    uint64_t lim = c->dev.path_limit_bytes[q->path];
    mt_experiment e = cap_exp(c, q, hi);
    double *x = NULL;
    size_t nx = 0;
    mt_err err = mt_run_fine(c, &e, &x, &nx);
    if (err != MT_OK)
        return err;
    bool rechecked = false;
    for (size_t i = 0; i < sizeof divisors / sizeof *divisors && !*moved; i++) {
        uint64_t shift = mt_round_down(hi / divisors[i], q->stride);
        if (shift < q->stride)
            shift = q->stride;
        if (lim && shift + hi > lim)
            continue;
        e.chain[0].offset = shift;
        double *y = NULL;
        size_t ny = 0;
        if ((err = mt_run_fine(c, &e, &y, &ny)) != MT_OK)
            break;
        placement_test verdict = placement_misses(ref, nref, x, nx, y, ny, thr);
        free(y);
        if (verdict == PLACEMENT_HINT && !rechecked && e.loads < c->dev.max_fine_loads) {
            /* Once per edge: longer runs of both placements decide alone. */
            rechecked = true;
            note_recheck(c);
            mt_experiment longer = e;
            longer.loads = c->dev.max_fine_loads;
            longer.chain[0].offset = 0;
            double *x2 = NULL, *y2 = NULL;
            size_t nx2 = 0, ny2 = 0;
            if ((err = mt_run_fine(c, &longer, &x2, &nx2)) == MT_OK) {
                longer.chain[0].offset = shift;
                if ((err = mt_run_fine(c, &longer, &y2, &ny2)) == MT_OK)
                    verdict = placement_misses(ref, nref, x2, nx2, y2, ny2, thr);
            }
            free(x2);
            free(y2);
            if (err != MT_OK)
                break;
        }
        *moved = verdict == PLACEMENT_MOVED;
    }
    if (err == MT_OK && !*moved)
        err = residue_sweep(c, q, ref, nref, thr, hi, x, nx, moved);
    free(x);
    return err;
}

/* Share of x above thr. */
static double share_above(const double *x, size_t n, double thr)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += x[i] > thr;
    return n ? (double)k / (double)n : 0;
}

/* Updates out->most_resident with the footprints just measured. */
static void note_resident(mt_cap_result *out, const mt_cap_request *q, const uint64_t *fps,
                          const mt_miss_excess *miss, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        /* Only whole laps bound anything: a sample of part of a lap (a chain
         * longer than the loads one run times, e.g. in the L2) may be the
         * part that stayed.  Each whole lap misses at least elements - lines
         * times, so lines >= elements - misses / laps. */
        uint64_t elements = fps[i] / q->stride;
        size_t laps = elements ? miss[i].n_test / elements : 0;
        if (!laps)
            continue;
        double held = (double)elements - (double)miss[i].misses_test / (double)laps;
        if (held > out->most_resident)
            out->most_resident = held;
    }
}

/* A lower bound the misses allow (mt_cap_request.miss_bytes,
 * mt_held_bytes_bound): below the largest footprint where its misses, or
 * those of a smaller one, can have brought in more than the difference. */
static void pigeonhole_bound(const mt_cap_request *q, const uint64_t *fps,
                             const mt_miss_excess *miss, size_t n, mt_cap_result *out)
{
    size_t loads[MAX_DOUBLING], misses[MAX_DOUBLING];
    if (n > MAX_DOUBLING)
        n = MAX_DOUBLING; /* the doubling's footprints: never more */
    for (size_t i = 0; i < n; i++) {
        loads[i] = miss[i].n_test;
        misses[i] = miss[i].misses_test;
    }
    mt_held_bound b =
        mt_held_bytes_bound(fps, loads, misses, n, q->stride, q->miss_bytes, false, 0);
    if (!b.found || b.bytes >= (double)out->lo)
        return;
    out->lo = mt_round_down((uint64_t)b.bytes, q->granule ? q->granule : 1);
    out->bound_misses = b.misses_per_lap;
    out->bound_misses_fp = b.footprint;
    out->bound_miss_bytes = q->miss_bytes;
}

/* The counts behind p_detect (mt_cap_result). */
static void note_edge(mt_cap_result *out, const mt_miss_excess *m, size_t nref)
{
    out->edge_misses_ref = m->misses_ref;
    out->edge_n_ref = nref;
    out->edge_misses = m->misses_test;
    out->edge_n = m->n_test;
}

/* Whether the edge at hi is thin (EDGE_THIN_MISSES): its extra misses per
 * whole lap timed, over the reference's rate, are few.  Without a whole lap
 * timed (a chain longer than a run's loads) the misses seen are a sample of
 * a lap, and the edge is not judged thin. */
static bool thin_edge(const mt_cap_result *out, const mt_cap_request *q, uint64_t hi)
{
    uint64_t elements = hi / q->stride;
    size_t laps = elements ? out->edge_n / elements : 0;
    if (!laps || !out->edge_n_ref)
        return false;
    double expected = (double)out->edge_misses_ref * (double)out->edge_n / (double)out->edge_n_ref;
    return ((double)out->edge_misses - expected) / (double)laps < EDGE_THIN_MISSES;
}

static mt_experiment ref_exp(const mt_probe_ctx *c, const mt_cap_request *q)
{
    /* As many loads as the backend times in one run: the binomial test's
     * reference miss rate is (misses + 1) / (n + 2), so 512 loads would put
     * a floor of 0.2% under it and hide the few misses one line over the
     * capacity makes (two per lap in a direct-mapped cache). */
    mt_experiment e = cap_exp(c, q, q->ref_footprint);
    e.loads = c->dev.max_fine_loads;
    return e;
}

static mt_err reference(mt_probe_ctx *c, const mt_cap_request *q, double **ref, size_t *nref)
{
    mt_experiment e = ref_exp(c, q);
    return mt_run_fine(c, &e, ref, nref);
}

/* Loads (by their index in a run) that missed in at least EDGE_REPEAT_RUNS
 * of the runs r[first], r[first + step], ... (runs of one footprint); 0
 * when out of memory (no repeat evidence, the counts still decide). */
static size_t repeated_misses(const mt_probe_ctx *c, const mt_result *r, size_t first,
                              size_t step, size_t runs, double thr)
{
    size_t len = 0;
    for (size_t i = 0; i < runs; i++)
        if (r[first + i * step].n[0] > len)
            len = r[first + i * step].n[0];
    unsigned char *missed = calloc(len ? len : 1, 1);
    if (!missed)
        return 0;
    for (size_t i = 0; i < runs; i++) {
        const mt_result *x = &r[first + i * step];
        for (size_t k = 0; k < x->n[0]; k++)
            missed[k] += (double)x->cycles[0][k] - c->overhead_fine > thr;
    }
    size_t repeated = 0;
    for (size_t k = 0; k < len; k++)
        repeated += missed[k] >= EDGE_REPEAT_RUNS;
    free(missed);
    return repeated;
}

/* Runs the reference and pts[0..np-1] EDGE_POOL_RUNS times each
 * (order_seed 1.. : the same addresses, new draws of the outliers) and sets
 * dirty[k] when footprint pts[k] has an excess over the pooled reference:
 * more misses (Fisher) or EDGE_REPEAT_EXCESS more repeated misses. */
static mt_err pooled_excess(mt_probe_ctx *c, const mt_cap_request *q, double thr,
                            const uint64_t *pts, size_t np, bool *dirty)
{
    size_t per_run = np + 1, n = per_run * EDGE_POOL_RUNS;
    mt_experiment *e = calloc(n, sizeof *e);
    mt_result *r = calloc(n, sizeof *r);
    mt_miss_count count[EDGE_SCAN + 1] = {{0}};
    size_t repeated[EDGE_SCAN + 1] = {0};
    mt_err err = MT_OK;
    if (!e || !r || np > EDGE_SCAN) {
        err = mt_fail(c->ei, MT_ERR_NOMEM, "out of memory");
        goto out;
    }
    for (size_t run = 0; run < EDGE_POOL_RUNS; run++) {
        e[run * per_run] = ref_exp(c, q);
        for (size_t k = 0; k < np; k++)
            e[run * per_run + 1 + k] = cap_exp(c, q, pts[k]);
        for (size_t k = 0; k < per_run; k++)
            e[run * per_run + k].order_seed += (uint32_t)run + 1;
    }
    if ((err = mt_run(c, e, n, r)) != MT_OK)
        goto out;
    for (size_t i = 0; i < n; i++)
        mt_count_misses(c, &r[i], thr, &count[i % per_run]);
    for (size_t k = 0; k < per_run; k++)
        repeated[k] = repeated_misses(c, r, k, per_run, EDGE_POOL_RUNS, thr);
    mt_results_free(r, n);
    for (size_t k = 0; k < np; k++)
        dirty[k] = mt_fisher_fewer(count[0].missed, count[0].timed, count[1 + k].missed,
                                   count[1 + k].timed) < MT_KS_ALPHA ||
                   repeated[1 + k] >= repeated[0] + EDGE_REPEAT_EXCESS;
out:
    free(e);
    free(r);
    return err;
}

/* The pooled re-test of the edge (EDGE_SCAN): footprints lo, lo - step,
 * ... (above the reference), pooled_excess.  Moves *lo and *hi down when
 * the pooled counts (or repeated misses) show an excess at lo and below;
 * *all_dirty when every scanned footprint has one (the edge lies lower
 * still).  A step over the granule (a thin edge's coarse scan) is followed
 * by a bisection of the step that holds the edge, one pooled footprint at a
 * time, down to the granule. */
static mt_err pooled_edge(mt_probe_ctx *c, const mt_cap_request *q, double thr, uint64_t step,
                          uint64_t *lo, uint64_t *hi, bool *all_dirty, size_t *scanned)
{
    uint64_t pts[EDGE_SCAN];
    bool dirty[EDGE_SCAN];
    size_t np = 0;
    for (size_t k = 0; k < EDGE_SCAN && *lo > q->ref_footprint + k * step; k++)
        pts[np++] = *lo - k * step;
    *all_dirty = false;
    *scanned = np;
    if (np == 0)
        return MT_OK;
    mt_progress(c, "%s capacity: re-testing the edge with %zu footprints x %d runs",
                mt_path_name(q->path), np, EDGE_POOL_RUNS);
    mt_err err = pooled_excess(c, q, thr, pts, np, dirty);
    if (err != MT_OK)
        return err;
    /* A real edge leaves every footprint above it with extra misses: from
     * lo down, the run of footprints with an excess (each against the
     * pooled reference) ends at the edge.  A lone excess further down is a
     * chance hit of one of the tests, not an edge. */
    size_t k = 0;
    while (k < np && dirty[k])
        k++;
    if (k == np) { /* below every scanned footprint: only the reference fits for sure */
        *all_dirty = true;
        *hi = pts[np - 1];
        *lo = q->ref_footprint;
        return MT_OK;
    }
    if (k == 0)
        return MT_OK;
    *hi = pts[k - 1];
    *lo = pts[k];
    while (*hi - *lo > q->granule) {
        uint64_t mid = *lo + mt_round_down((*hi - *lo) / 2, q->granule);
        bool d = false;
        if ((err = pooled_excess(c, q, thr, &mid, 1, &d)) != MT_OK)
            return err;
        (*scanned)++;
        if (d)
            *hi = mid;
        else
            *lo = mid;
    }
    return MT_OK;
}

/* A lower bound behind a cache in front (q->front_threshold): the loads
 * past that cache of each doubling footprint, in order, against the
 * reference's (mt_compare_beyond).  The first footprint whose loads are
 * slower holds misses the hit threshold passed as hits (a next level
 * inside this cache's hit spread): no bound, but a range up to it, from
 * the footprint before it, with the confidence of an unconfirmed size
 * (the range's low end rests on the same blind threshold). */
static mt_err hidden_misses(mt_probe_ctx *c, const mt_cap_request *q, const double *ref,
                            size_t nref, const sweep_matrix *rows, mt_cap_result *out)
{
    mt_note_threshold(c, "MT_MIN_MISS_FRACTION_INCREASE", MT_MIN_MISS_FRACTION_INCREASE,
                      "capacity behind a cache in front: a rise of this share above the "
                      "reference's median plus MT_MIN_CLASS_GAP_CYCLES (with KS) is a hidden miss");
    for (size_t i = 0; rows->m && i < rows->rows; i++) {
        mt_beyond_comparison b;
        mt_err err = mt_compare_beyond(ref, nref, rows->m + i * rows->cols, rows->cols,
                                       q->front_threshold, MT_KS_ALPHA, &b);
        if (err != MT_OK)
            return mt_fail(c->ei, err, "capacity: comparing the loads past the cache in front");
        if (!b.slower)
            continue;
        out->kind = MT_FIND_RANGE;
        out->hidden_lo = i ? rows->fp[i - 1] : q->ref_footprint;
        out->hidden_hi = rows->fp[i];
        out->hidden_median_ref = b.median_ref;
        out->hidden_median = b.median_test;
        out->hidden_ks_p = b.cmp.ks.p_value;
        out->lo = out->hidden_lo;
        out->hi = out->hidden_hi;
        out->confidence = MT_CONF_CAPACITY_UNCONFIRMED;
        break;
    }
    return MT_OK;
}

/* Footprints a seek_fit_above search measured and whether each had extra
 * misses.  A search measures at most MAX_DOUBLING + MAX_REFINE_ROUNDS x
 * REFINE_K_SM_MAX of them; the profile only needs those near the edge, so
 * beyond FIT_SEEN_MAX later ones are not kept (less is then known above
 * the edge, nothing is wrong). */
#define FIT_SEEN_MAX 256
typedef struct {
    uint64_t fp[FIT_SEEN_MAX];
    bool missed[FIT_SEEN_MAX];
    size_t misses[FIT_SEEN_MAX], loads[FIT_SEEN_MAX]; /* of the timed loads */
    size_t n;
} fit_seen;

static void see(fit_seen *s, const uint64_t *fps, const mt_miss_excess *miss, size_t n)
{
    for (size_t i = 0; i < n && s->n < FIT_SEEN_MAX; i++) {
        s->fp[s->n] = fps[i];
        s->misses[s->n] = miss[i].misses_test;
        s->loads[s->n] = miss[i].n_test;
        s->missed[s->n++] = miss[i].more_misses;
    }
}

/* Standard errors of a run's miss share taken above it when the share
 * bounds what the cache held (mt_held_bytes_bound): 3 hold the lap's share
 * in 99.7% of runs, so the bound stays at or below the capacity. */
#define HELD_SHARE_Z 3.0
/* Only chains up to this many times the first misses bound what was held:
 * near the edge a lap's misses are a small share, so a share undercounted
 * by e (hits and misses told apart by one threshold) moves the bound by
 * F x e, which grows with the footprint F.  Far above (32x the partition
 * of spec l2-near-class-median-interval, whose chain counted 70% misses
 * where the pigeonhole forces 97%) the bound read 10x the size; the two
 * unseen seeds it fixes took theirs from 1.14x and 1.38x. */
#define HELD_MAX_FOOTPRINT_RATIO 2.0

/* A footprint above the first one that missed fitted: the miss profile is
 * not monotone, so the first misses are where this chain happens to
 * conflict, not where the cache is full (on an H100 one SM's chains miss
 * at 23.3 MB and fit at 23.5-24.2 MB).  Refines the largest footprint that
 * fits between it and the next one that missed, with the request's rounds,
 * into out->fit_above and out->miss_above. */
static mt_err seek_fit_above(mt_probe_ctx *c, const mt_cap_request *q, const double *ref,
                             size_t nref, double thr, size_t k, fit_seen *seen,
                             mt_cap_result *out)
{
    uint64_t pts[REFINE_K_SM_MAX];
    mt_miss_excess m[REFINE_K_SM_MAX];
    mt_fit_above span = mt_largest_fit_above(seen->fp, seen->missed, seen->n, out->hi);
    uint64_t fit = span.fit, miss = span.miss;
    int rounds = q->max_rounds > 0 ? q->max_rounds : MAX_REFINE_ROUNDS;
    for (int round = 0; fit && miss && round < rounds && miss - fit > q->granule; round++) {
        size_t ns = mt_plan_sweep(fit, miss, q->granule, k, pts);
        mt_progress(c, "%s capacity: largest fit above the first misses, %llu..%llu B",
                    mt_path_name(q->path), (unsigned long long)fit, (unsigned long long)miss);
        mt_err err = measure(c, q, pts, ns, ref, nref, thr, m, NULL);
        if (err != MT_OK)
            return err;
        note_resident(out, q, pts, m, ns);
        see(seen, pts, m, ns);
        uint64_t was_fit = fit, was_miss = miss;
        span = mt_largest_fit_above(seen->fp, seen->missed, seen->n, out->hi);
        fit = span.fit;
        miss = span.miss;
        if (fit == was_fit && miss == was_miss)
            break; /* nothing new kept (FIT_SEEN_MAX) */
    }
    out->fit_above = fit;
    out->miss_above = miss;
    /* The runs that missed in part bound what the cache held too: a chain
     * above the first misses that kept more than hi resident (its misses
     * fewer than a cache full at hi forces) shows the same conflict as a
     * fit there, where no footprint fitted whole (a hashed 8 MiB partition
     * under random replacement: first misses at 7.6 MB, 19.7% of a 10.5 MB
     * chain's loads missing, so at least 8.3 MB held; unseen seed 2518). */
    mt_note_threshold(c, "HELD_SHARE_Z", HELD_SHARE_Z,
                      "capacity: standard errors above a run's miss share when it bounds what "
                      "the cache held (pigeonhole)");
    mt_note_threshold(c, "HELD_MAX_FOOTPRINT_RATIO", HELD_MAX_FOOTPRINT_RATIO,
                      "capacity: only chains up to this many times the first misses bound "
                      "what the cache held");
    uint64_t fps[FIT_SEEN_MAX];
    size_t loads[FIT_SEEN_MAX], misses[FIT_SEEN_MAX], near = 0;
    for (size_t i = 0; i < seen->n; i++)
        if ((double)seen->fp[i] <= HELD_MAX_FOOTPRINT_RATIO * (double)out->hi) {
            fps[near] = seen->fp[i];
            loads[near] = seen->loads[i];
            misses[near++] = seen->misses[i];
        }
    mt_held_bound h =
        mt_held_bytes_bound(fps, loads, misses, near, q->stride, q->stride, true, HELD_SHARE_Z);
    uint64_t held = h.found ? (uint64_t)h.bytes : 0;
    if (held > out->hi && held > fit) {
        out->held_above = held;
        out->held_fp = h.footprint;
        out->held_share = h.share_hi;
    }
    return MT_OK;
}

mt_err mt_capacity_search(mt_probe_ctx *c, const mt_cap_request *q, mt_cap_result *out)
{
    memset(out, 0, sizeof *out);
    out->share_beyond = NAN;
    double *ref = NULL;
    size_t nref = 0;
    sweep_matrix widest = {0}, doubling = {0};
    mt_miss_excess miss[MAX_DOUBLING > 64 ? MAX_DOUBLING : 64];
    memset(miss, 0, sizeof miss);
    uint64_t pts[MAX_DOUBLING > 64 ? MAX_DOUBLING : 64];
    fit_seen seen = {.n = 0};

    /* A reference that misses would make every footprint look like hits:
     * shrink it (and the doubling's start with it) until it fits. */
    mt_cap_request shrunk = *q;
    mt_err err;
    for (;;) {
        if ((err = reference(c, &shrunk, &ref, &nref)) != MT_OK)
            return err;
        if (!(shrunk.fit_threshold > 0) || shrunk.ref_footprint / 2 < shrunk.ref_min_bytes ||
            share_above(ref, nref, shrunk.fit_threshold) <= MT_CAP_REF_MAX_MISS_SHARE)
            break;
        free(ref);
        ref = NULL;
        shrunk.ref_footprint /= 2;
        shrunk.start = shrunk.start / 2 > shrunk.ref_footprint ? shrunk.start / 2 : 2 * shrunk.ref_footprint;
    }
    q = &shrunk;
    out->ref_used = q->ref_footprint;
    /* Halved down to ref_min_bytes and still missing: a cache smaller than
     * the smallest reference (a 768 B L1 of three 256 B lines against four
     * elements) makes the reference's misses the norm, so no footprint has
     * more and the search reads "> limit" (unseen seed 827, confidence 1). */
    out->ref_missed = shrunk.fit_threshold > 0 &&
                      share_above(ref, nref, shrunk.fit_threshold) > MT_CAP_REF_MAX_MISS_SHARE;
    double thr = isnan(q->hit_threshold) ? mt_hit_threshold(ref, nref) : q->hit_threshold;
    double ref_median = mt_median(ref, nref);
    if (q->next_level_median > ref_median) {
        double cut = ref_median + MT_HIT_CUT_NEXT_LEVEL * (q->next_level_median - ref_median);
        if (thr > cut) {
            mt_note_threshold(c, "MT_HIT_CUT_NEXT_LEVEL", MT_HIT_CUT_NEXT_LEVEL,
                              "capacity: the hit threshold stays this share of the way from the "
                              "hit median to the next level's");
            thr = cut;
            out->hit_capped = true;
        }
    }
    out->hit_threshold = thr;
    out->ref_miss_share = share_above(ref, nref, thr);

    size_t np = mt_plan_doubling(q->start, q->limit, pts, MAX_DOUBLING);
    if (np == 0 && q->limit > q->ref_footprint) /* start beyond the limit: the limit alone */
        pts[np++] = q->limit;
    if (np == 0) {
        out->kind = MT_FIND_LOWER_BOUND;
        out->lo = q->ref_footprint;
        out->confidence = 1.0 - MT_KS_ALPHA;
        goto done;
    }
    mt_progress(c, "%s capacity: doubling %zu footprints", mt_path_name(q->path), np);
    if ((err = measure(c, q, pts, np, ref, nref, thr, miss,
                       q->front_threshold > 0 ? &doubling : NULL)) != MT_OK)
        goto done;
    note_resident(out, q, pts, miss, np);
    see(&seen, pts, miss, np);
    size_t first = np;
    for (size_t i = 0; i < np; i++)
        if (miss[i].more_misses) {
            first = i;
            break;
        }
    if (first == np && miss[np - 1].p_value < MT_RECHECK_HINT_ALPHA &&
        loads_for(c, pts[np - 1], q->stride) < c->dev.max_fine_loads) {
        /* A lower bound rests on the largest footprint alone: a hint of
         * misses there reruns it with every load the backend times. */
        note_recheck(c);
        if ((err = recheck_longer(c, q, pts[np - 1], ref, nref, thr, &miss[np - 1])) != MT_OK)
            goto done;
        if (miss[np - 1].more_misses)
            first = np - 1;
    }
    if (first == np) {
        out->kind = MT_FIND_LOWER_BOUND;
        out->lo = out->bound_fp = pts[np - 1];
        out->confidence = 1.0 - MT_KS_ALPHA;
        if (q->miss_bytes)
            pigeonhole_bound(q, pts, miss, np, out);
        if (q->front_threshold > 0)
            err = hidden_misses(c, q, ref, nref, &doubling, out);
        goto done;
    }
    uint64_t lo = first ? pts[first - 1] : q->ref_footprint, hi = pts[first];
    out->p_detect = miss[first].p_value;
    note_edge(out, &miss[first], nref);
    out->share_beyond = first + 1 < np && miss[first + 1].n_test
                            ? (double)miss[first + 1].misses_test / (double)miss[first + 1].n_test
                            : NAN;

    /* k-ary refinement: one round is one batch.  GPU-scope experiments run
     * one after another, so their rounds stay small (REFINE_K_GPU); SM-scope
     * ones run as many at once as the backend says, up to REFINE_K_SM_MAX. */
    size_t k = REFINE_K_GPU;
    if (cap_exp(c, q, hi).scope == MT_SCOPE_SM) {
        k = REFINE_K_SM_MAX;
        size_t conc = c->dev.concurrent_experiments > 0 ? (size_t)c->dev.concurrent_experiments : k;
        if (conc < k)
            k = conc < REFINE_K_MIN ? REFINE_K_MIN : conc;
    }
    bool consistent = true;
    int rounds = q->max_rounds > 0 ? q->max_rounds : MAX_REFINE_ROUNDS;
    for (int round = 0; round < rounds && hi - lo > q->granule; round++) {
        size_t ns = mt_plan_sweep(lo, hi, q->granule, k, pts);
        mt_progress(c, "%s capacity: refining %llu..%llu B with %zu footprints",
                    mt_path_name(q->path), (unsigned long long)lo, (unsigned long long)hi, ns);
        if ((err = measure(c, q, pts, ns, ref, nref, thr, miss, NULL)) != MT_OK)
            goto done;
        note_resident(out, q, pts, miss, ns);
        see(&seen, pts, miss, ns);
        size_t j = ns;
        for (size_t i = 0; i < ns; i++)
            if (miss[i].more_misses) {
                j = i;
                break;
            }
        if (j == ns) {
            /* hi had misses before but not now: a borderline footprint.  What
             * is known: every point below hi was clean now, hi was not then. */
            consistent = false;
            for (size_t i = ns; i-- > 0;)
                if (pts[i] < hi) {
                    lo = pts[i];
                    break;
                }
            break;
        }
        if (j > 0)
            lo = pts[j - 1];
        hi = pts[j];
        out->p_detect = miss[j].p_value;
        note_edge(out, &miss[j], nref);
    }
    bool edge_all_dirty = false;
    if (q->pool_edge) {
        mt_note_threshold(c, "EDGE_SCAN", EDGE_SCAN,
                          "capacity: footprints at and below the edge re-tested when the "
                          "reference has timer outliers");
        mt_note_threshold(c, "EDGE_POOL_RUNS", EDGE_POOL_RUNS,
                          "capacity: runs pooled per footprint in that re-test");
        mt_note_threshold(c, "EDGE_REPEAT_RUNS", EDGE_REPEAT_RUNS,
                          "capacity: a load that missed in this many of the pooled runs is a "
                          "repeated miss");
        mt_note_threshold(c, "EDGE_REPEAT_EXCESS", EDGE_REPEAT_EXCESS,
                          "capacity: this many more repeated misses than the reference is an "
                          "excess");
    }
    bool thin = thin_edge(out, q, hi);
    if (q->pool_edge && thin) {
        mt_note_threshold(c, "EDGE_THIN_MISSES", EDGE_THIN_MISSES,
                          "capacity: an edge with fewer extra misses per lap than this is "
                          "re-tested in pooled runs from EDGE_THIN_SPAN below it");
        mt_note_threshold(c, "EDGE_THIN_SPAN", EDGE_THIN_SPAN,
                          "capacity: share of the size below a thin edge that its pooled "
                          "re-test scans");
    }
    if (q->pool_edge && consistent && !q->quick && (share_above(ref, nref, thr) > 0 || thin)) {
        uint64_t lo0 = lo;
        uint64_t step = q->granule;
        if (thin) {
            uint64_t span = mt_round_down((uint64_t)((double)lo * EDGE_THIN_SPAN), q->granule);
            step = span / (EDGE_SCAN - 1) / q->granule * q->granule;
            if (step < q->granule)
                step = q->granule;
        }
        if ((err = pooled_edge(c, q, thr, step, &lo, &hi, &edge_all_dirty,
                               &out->edge_scanned)) != MT_OK)
            goto done;
        out->edge_moved = lo0 - lo;
        out->edge_thin = thin;
    }
    out->lo = lo;
    out->hi = hi;
    /* Also where the first misses did not repeat (borderline): a fit above
     * them says why. */
    if (q->seek_fit_above &&
        (err = seek_fit_above(c, q, ref, nref, thr, k, &seen, out)) != MT_OK)
        goto done;

    /* Confirmation by the thesis' machinery: a sweep of evenly spaced
     * footprints, half at or below lo and half at or above hi, reduced
     * geometrically; Opt + KS must put the change between lo and hi. */
    if (!q->quick && (err = confirm(c, q, ref, nref, thr, lo, hi, miss, &widest)) != MT_OK)
        goto done;
    bool moved = false;
    if (!q->quick && consistent && (err = shifted_edge(c, q, ref, nref, thr, hi, &moved)) != MT_OK)
        goto done;
    if (widest.rows >= 4) {
        clip_outliers(&widest);
        mt_capacity cap;
        if (mt_capacity_from_sweep(widest.fp, widest.m, widest.rows, widest.cols, MT_KS_ALPHA,
                                   &cap) == MT_OK &&
            cap.found) {
            out->opt_confirmed = true;
            out->opt_lo = cap.lo;
            out->opt_hi = cap.hi;
            out->ks_d = cap.cp.ks.d;
            out->ks_p = cap.cp.ks.p_value;
        }
    }
    double conf = 1.0 - out->p_detect;
    bool agree = out->opt_confirmed &&
                 (double)out->opt_lo <= (double)hi * (1 + MT_CAPACITY_AGREEMENT) &&
                 (double)out->opt_hi >= (double)lo * (1 - MT_CAPACITY_AGREEMENT);
    if (!consistent || (out->opt_confirmed && !agree)) {
        out->kind = MT_FIND_RANGE;
        out->borderline = !consistent;
        if (out->opt_confirmed) {
            if (out->opt_lo < out->lo)
                out->lo = out->opt_lo;
            if (out->opt_hi > out->hi)
                out->hi = out->opt_hi;
        }
        /* Two tests that disagree establish neither: their union may miss
         * the truth too (a policy that keeps most of an over-full chain, as
         * Fermi's fixed victim way does, fools both the same way). */
        conf *= 0.7;
        if (conf > MT_CONF_CAPACITY_UNCONFIRMED)
            conf = MT_CONF_CAPACITY_UNCONFIRMED;
    } else if (!out->opt_confirmed && !q->quick && widest.rows >= 4) {
        /* The confirmation ran and failed: the first-miss test alone can be
         * fooled (outliers of thousands of cycles reach the binomial test as
         * misses), so this is a range, over the confirmation sweep, with a
         * confidence that says it may not hold the truth. */
        out->kind = MT_FIND_RANGE;
        out->unconfirmed = true;
        out->lo = widest.fp[0];
        out->hi = widest.fp[widest.rows - 1];
        if (conf > MT_CONF_CAPACITY_UNCONFIRMED)
            conf = MT_CONF_CAPACITY_UNCONFIRMED;
    } else if (edge_all_dirty) {
        /* The pooled re-test found extra misses at every scanned footprint:
         * the edge is lower than the scan reached; only the range is known. */
        out->kind = MT_FIND_RANGE;
        out->edge_below = true;
        /* A thin edge with extra misses all the way down its span, or one
         * whose misses move with the chain, is no capacity edge: the few
         * misses a lap are conflicts of where the chain lies (an xor index
         * over a set count no power of two conflicts long before the cache
         * is full), and the size may lie above the range (a direct-mapped
         * constant L1.5 of 52960 B read "below 49856 B" at confidence 1,
         * unseen seed 2036). */
        if ((out->edge_thin || moved) && conf > MT_CONF_CAPACITY_UNCONFIRMED) {
            conf = MT_CONF_CAPACITY_UNCONFIRMED;
            out->placement = moved;
        }
    } else if (moved) {
        /* The edge moves with the chain: the capacity is at least lo, but a
         * chain placed elsewhere holds more; how much more is not known. */
        out->kind = MT_FIND_RANGE;
        out->placement = true;
        if (conf > MT_CONF_CAPACITY_UNCONFIRMED)
            conf = MT_CONF_CAPACITY_UNCONFIRMED;
    } else {
        out->kind = MT_FIND_VALUE;
        if (!out->opt_confirmed && !q->quick)
            conf *= 0.8;
    }
    out->confidence = conf;
done:
    if (err == MT_OK && out->ref_missed && out->confidence > MT_CONF_INCONSISTENT)
        out->confidence = MT_CONF_INCONSISTENT;
    free(ref);
    sweep_free(&widest);
    sweep_free(&doubling);
    return err;
}

static mt_finding capacity_finding(const mt_cap_result *r, const char *what);

/* Why the edge was re-tested in pooled runs. */
static const char *edge_why(const mt_cap_result *r)
{
    return r->edge_thin ? "few extra misses a lap at the first-miss edge (a thin edge)"
                        : "timer outliers in the reference";
}

mt_finding mt_capacity_finding(const mt_cap_result *r, const char *what)
{
    mt_finding f = capacity_finding(r, what);
    if (r->ref_missed)
        mt_finding_append_note(&f, "even the %llu B reference missed (more than "
                               "MT_CAP_REF_MAX_MISS_SHARE): the cache may be smaller than it, or lines of it "
                               "conflict in one set, "
                               "and footprints that miss as much looked like hits",
                               (unsigned long long)r->ref_used);
    if (r->hit_capped)
        mt_finding_append_note(&f, "the hits spread as wide as the step to the next level: a "
                               "load missed above %.1f cycles (MT_HIT_CUT_NEXT_LEVEL of the way "
                               "to it)", r->hit_threshold);
    return f;
}

static mt_finding capacity_finding(const mt_cap_result *r, const char *what)
{
    const char *m = "pchase-fine+doubling+kary+binomial+opt-ks";
    switch (r->kind) {
    case MT_FIND_LOWER_BOUND:
        if (r->lo < r->bound_fp)
            return mt_find_bound((double)r->lo, "B", m, r->confidence,
                                 "%s: no significant extra misses up to the %llu B limit of "
                                 "this path, but %.1f misses a lap at %llu B, each bringing "
                                 "at most %u B (the fill unit), leave only this much held "
                                 "(pigeonhole)", what, (unsigned long long)r->bound_fp,
                                 r->bound_misses, (unsigned long long)r->bound_misses_fp,
                                 r->bound_miss_bytes);
        return mt_find_bound((double)r->lo, "B", m, r->confidence,
                             "%s: no misses up to the %llu B limit of this path", what,
                             (unsigned long long)r->lo);
    case MT_FIND_RANGE:
        if (r->hidden_hi)
            return mt_find_range((double)r->lo, (double)r->hi, "B", m, r->confidence,
                                 "%s: no footprint has extra loads above the hit threshold, "
                                 "but the loads past the cache in front are slower at %llu B "
                                 "than in the reference (median %.1f vs %.1f cycles, KS "
                                 "p=%.2g): misses to a next level inside the hit threshold; "
                                 "the size is not established", what,
                                 (unsigned long long)r->hidden_hi, r->hidden_median,
                                 r->hidden_median_ref, r->hidden_ks_p);
        if (r->placement)
            return mt_find_range((double)r->lo, (double)r->hi, "B", m, r->confidence,
                                 "%s: first extra misses at %llu B, but a chain of that size "
                                 "placed elsewhere misses significantly less: the misses "
                                 "came from where the chain lay (hashed sets), the size is not "
                                 "established", what, (unsigned long long)r->hi);
        if (r->edge_below)
            return mt_find_range((double)r->lo, (double)r->hi, "B", m, r->confidence,
                                 "%s: %s; pooled over %d runs, "
                                 "every footprint of the %zu below the first-miss edge still "
                                 "has extra misses: %s %llu B", what, edge_why(r),
                                 EDGE_POOL_RUNS, r->edge_scanned,
                                 r->edge_thin || r->placement
                                     ? "few a lap that far down (or moving with the chain) "
                                       "are set conflicts of where the chain lies, not the "
                                       "size, which is not established; the first were at"
                                     : "the size is below",
                                 (unsigned long long)r->hi);
        if (r->unconfirmed)
            return mt_find_range((double)r->lo, (double)r->hi, "B", m, r->confidence,
                                 "%s: first footprint with extra misses (binomial p=%.2g) not "
                                 "confirmed by Opt+KS over %llu..%llu B: the size is not established",
                                 what, r->p_detect, (unsigned long long)r->lo, (unsigned long long)r->hi);
        return mt_find_range((double)r->lo, (double)r->hi, "B", m, r->confidence,
                             "%s: first-miss test and Opt+KS disagree or noise; Opt change %llu..%llu B",
                             what, (unsigned long long)r->opt_lo, (unsigned long long)r->opt_hi);
    default: {
        mt_finding f = mt_find_value((double)r->lo, "B", MT_SRC_MEASURED, m, r->confidence,
                             "%s: last footprint without extra misses %llu B, first with %llu B "
                             "(binomial p=%.2g, alpha=%g); Opt+KS %s (D=%.3f)",
                             what, (unsigned long long)r->lo, (unsigned long long)r->hi, r->p_detect,
                             MT_KS_ALPHA, r->opt_confirmed ? "confirms" : "not confirmed", r->ks_d);
        if (r->edge_scanned && r->edge_moved)
            mt_finding_append_note(&f, "%s: the edge re-tested at "
                                   "%zu footprints pooled over %d runs (Fisher; repeated "
                                   "misses) moved down %llu B", edge_why(r),
                                   r->edge_scanned, EDGE_POOL_RUNS,
                                   (unsigned long long)r->edge_moved);
        else if (r->edge_scanned)
            mt_finding_append_note(&f, "%s: the edge held when "
                                   "re-tested at %zu footprints pooled over %d runs (Fisher; "
                                   "repeated misses)", edge_why(r),
                                   r->edge_scanned, EDGE_POOL_RUNS);
        return f;
    }
    }
}

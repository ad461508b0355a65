/* The largest fit above the first misses (fit_above.c) on synthetic miss
 * profiles: a hashed cache where where the chain lies decides a footprint's
 * first misses (the H100 L2's), which the simulator's chains cannot show
 * (they grow from their end, so a larger chain holds every line of a
 * smaller one and its misses are monotone under every documented policy).
 * The partition range the L2 probe builds from it (low end: the last fit
 * below the first misses; high end: this fit) must hold the capacity. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "analysis/analysis.h"

#define MB 1000000ull

/* A capacity of 24.4 MB whose chains also conflict (miss) at 20.7-21.4 MB:
 * the H100's L2 partition seen from one SM on 2026-11-24. */
static const uint64_t CAPACITY = 24371200, GRANULE = 204800;
static bool synthetic_misses(uint64_t fp)
{
    return fp > CAPACITY || (fp >= 20700000 && fp <= 21400000);
}

static void monotone_profile_has_no_fit_above(void **state)
{
    (void)state;
    const uint64_t fp[] = {3 * MB, 6 * MB, 12 * MB, 24 * MB, 48 * MB, 26 * MB, 25 * MB};
    const bool missed[] = {false, false, false, false, true, true, true};
    mt_fit_above r = mt_largest_fit_above(fp, missed, 7, 25 * MB);
    assert_int_equal(r.fit, 0);
    assert_int_equal(r.miss, 0);
}

static void fit_above_the_first_misses_is_found(void **state)
{
    (void)state;
    /* Doubling, then a refinement that first missed at 21.3 MB while
     * larger chains fitted. */
    const uint64_t fp[] = {3 * MB, 6 * MB, 12 * MB, 24 * MB, 48 * MB, 21300000, 22900000,
                           24200000, 24600000, 25600000};
    const bool missed[] = {false, false, false, false, true, true, false, false, true, true};
    mt_fit_above r = mt_largest_fit_above(fp, missed, 10, 21300000);
    assert_int_equal(r.fit, 24200000);
    assert_int_equal(r.miss, 24600000);
    /* The fit must lie above `above`: from 24.2 MB on, nothing fits. */
    r = mt_largest_fit_above(fp, missed, 10, 24200000);
    assert_int_equal(r.fit, 0);
    assert_int_equal(r.miss, 0);
}

static void a_repeat_that_missed_is_no_fit(void **state)
{
    (void)state;
    /* 24.2 MB fitted once and missed once: a conflict too, so the fit is
     * 22.9 MB and the next miss above it 24.2 MB. */
    const uint64_t fp[] = {21300000, 22900000, 24200000, 24200000};
    const bool missed[] = {true, false, false, true};
    mt_fit_above r = mt_largest_fit_above(fp, missed, 4, 21300000);
    assert_int_equal(r.fit, 22900000);
    assert_int_equal(r.miss, 24200000);
    /* A fit with nothing measured above it: no miss to bound it. */
    const bool fits[] = {true, false, false, false};
    r = mt_largest_fit_above(fp, fits, 4, 21300000);
    assert_int_equal(r.fit, 24200000);
    assert_int_equal(r.miss, 0);
    r = mt_largest_fit_above(NULL, fits, 4, 0);
    assert_int_equal(r.fit, 0);
}

/* Measures footprints on the synthetic profile, appending them to fp and
 * missed (at most 256). */
static void run_points(const uint64_t *pts, size_t np, uint64_t *fp, bool *missed, size_t *n)
{
    for (size_t i = 0; i < np && *n < 256; i++) {
        fp[*n] = pts[i];
        missed[(*n)++] = synthetic_misses(pts[i]);
    }
}

/* A search on the synthetic profile as the capacity search runs it:
 * doubling from 3.2 MB (all points in one batch), refinement rounds of 8
 * evenly spaced footprints that move the edge to the first that missed,
 * then sweeps between the largest fit above it and the next miss (8 points
 * a round, 2 rounds: the L2 probe's).  The range from the last fit below
 * the first misses to the largest fit must hold the capacity, within the
 * search's granule. */
static void the_range_holds_the_capacity(void **state)
{
    (void)state;
    uint64_t fp[256], pts[16];
    bool missed[256];
    size_t n = 0, np = 0;
    for (uint64_t f = 3200000; f <= 96 * MB; f *= 2)
        pts[np++] = f;
    run_points(pts, np, fp, missed, &n);
    uint64_t lo = 0, hi = 0;
    for (size_t i = 0; i < n && !hi; i++)
        if (missed[i])
            hi = fp[i];
        else
            lo = fp[i];
    assert_int_equal(hi, 25600000);
    while (hi - lo > GRANULE) {
        size_t from = n;
        np = mt_plan_sweep(lo, hi, GRANULE, 8, pts);
        run_points(pts, np, fp, missed, &n);
        for (size_t i = from; i < n; i++) {
            if (missed[i]) {
                hi = fp[i];
                break;
            }
            lo = fp[i];
        }
    }
    /* The edge the first misses place is the conflict, not the capacity. */
    assert_true(hi >= 20700000 && hi <= 21400000);
    mt_fit_above r = mt_largest_fit_above(fp, missed, n, hi);
    for (int round = 0; r.fit && r.miss && round < 2 && r.miss - r.fit > GRANULE; round++) {
        np = mt_plan_sweep(r.fit, r.miss, GRANULE, 8, pts);
        run_points(pts, np, fp, missed, &n);
        r = mt_largest_fit_above(fp, missed, n, hi);
    }
    assert_true(r.fit > hi);
    assert_true(lo <= CAPACITY && CAPACITY < r.fit + GRANULE);
    assert_true(r.miss > CAPACITY);
    /* Without the fit above, the first misses would have said about 21 MB
     * at full confidence: over 10% short. */
    assert_true((double)hi < 0.9 * (double)CAPACITY);
}

/* The pigeonhole bound on what partly missing chains held (unseen seed
 * 2518's 8 MiB partition: first misses at 7.64 MB, then 1042, 1484 and 1613
 * of 8192 loads missed at 9.28, 9.94 and 10.51 MB, no fit above). */
static void partly_missing_chains_bound_what_was_held(void **state)
{
    (void)state;
    const uint64_t fp[] = {7554304, 7636416, 9278656, 9935552, 10511872, 21023744};
    const size_t misses[] = {42, 172, 1042, 1484, 1613, 5857};
    const size_t n[] = {8192, 8192, 8192, 8192, 8192, 8192};
    mt_held_bound h = mt_held_lower_bound(fp, misses, n, 6, 3.0);
    /* 10.51 MB at 19.7% (+3 errors: 21.1%): at least 8.3 MB held, above
     * the first misses and at or below the true 8388608 B. */
    assert_int_equal(h.fp, 10511872);
    assert_true(h.held > 8200000 && h.held <= 8388608);
    assert_true(h.share_hi > 1613.0 / 8192 && h.share_hi < 0.22);
    /* Without the errors the share is the sample's: a larger bound. */
    mt_held_bound raw = mt_held_lower_bound(fp, misses, n, 6, 0.0);
    assert_true(raw.held > h.held);
    assert_int_equal(raw.held, (uint64_t)(10511872.0 * (1 - 1613.0 / 8192)));
}

/* No misses still leave the share's upper bound: a fit is not taken whole;
 * runs without timed loads, or NULL arrays, bound nothing. */
static void held_bound_edge_cases(void **state)
{
    (void)state;
    const uint64_t fp[] = {1000000, 2000000};
    const size_t none[] = {0, 0}, n[] = {8192, 0};
    mt_held_bound h = mt_held_lower_bound(fp, none, n, 2, 3.0);
    assert_int_equal(h.fp, 1000000);
    assert_true(h.held < 1000000 && h.held > 998000);
    assert_true(h.share_hi > 0);
    const size_t all[] = {8192, 0};
    h = mt_held_lower_bound(fp, all, n, 2, 3.0);
    assert_int_equal(h.held, 0);
    h = mt_held_lower_bound(NULL, none, n, 2, 3.0);
    assert_int_equal(h.held, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(monotone_profile_has_no_fit_above),
        cmocka_unit_test(fit_above_the_first_misses_is_found),
        cmocka_unit_test(a_repeat_that_missed_is_no_fit),
        cmocka_unit_test(the_range_holds_the_capacity),
        cmocka_unit_test(partly_missing_chains_bound_what_was_held),
        cmocka_unit_test(held_bound_edge_cases),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

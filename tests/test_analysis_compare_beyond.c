/* mt_compare_beyond: the loads past a cache in front (above its hit
 * threshold) of a test chain against a reference chain's.  A next level
 * inside the hit spread of the cache behind makes them slower; the same
 * level, or a shift smaller than a class gap, does not. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "analysis/analysis.h"
#include "analysis/thresholds.h"
#include "analysis_synth.h"

enum { NREF = 4096, NTEST = 512 };
static const double FRONT_HIT = 30.0, FLOOR = 40.0; /* the L1's hits, its hit threshold */
static const double MID = 130.0, MID_SD = 16.0;      /* the L1.5: hits spread widely */
static const double NEXT = 180.0, NEXT_SD = 2.0;     /* the L2: inside the L1.5's 5-MAD threshold */

/* A chain whose loads hit the L1 (share `front`), the L1.5, or past it
 * the next level (share `next`). */
static void chain(uint64_t seed, double *x, size_t n, double front, double next, double shift)
{
    mt_rng r = {.s = seed};
    for (size_t i = 0; i < n; i++) {
        double u = (double)i / (double)n;
        if (u < front)
            x[i] = FRONT_HIT + 0.5 * synth_gauss(&r);
        else if (u < front + next)
            x[i] = NEXT + NEXT_SD * synth_gauss(&r);
        else
            x[i] = round(MID + shift + MID_SD * synth_gauss(&r));
    }
}

static void next_level_inside_the_spread_is_slower(void **state)
{
    (void)state;
    static double ref[NREF], test[NTEST];
    chain(1, ref, NREF, 0.5, 0.0, 0.0);
    chain(2, test, NTEST, 0.3, 0.3, 0.0);
    mt_beyond_comparison b;
    assert_int_equal(mt_compare_beyond(ref, NREF, test, NTEST, FLOOR, MT_KS_ALPHA, &b), MT_OK);
    assert_true(b.tested);
    assert_true(b.slower);
    /* Only loads past the L1 are compared: half of the reference's. */
    assert_int_equal(b.n_ref, NREF / 2);
    assert_true(b.median_test > b.median_ref + MT_MIN_CLASS_GAP_CYCLES);
    /* None of the next level's loads crosses a 5-MAD threshold of the L1.5. */
    assert_true(MID + 5 * MID_SD > NEXT + 3 * NEXT_SD);
}

static void same_level_is_not_slower(void **state)
{
    (void)state;
    static double ref[NREF], test[NTEST];
    chain(3, ref, NREF, 0.5, 0.0, 0.0);
    /* Fewer L1 hits (a longer chain under random replacement): the loads
     * past the L1 are still the L1.5's. */
    chain(4, test, NTEST, 0.1, 0.0, 0.0);
    mt_beyond_comparison b;
    assert_int_equal(mt_compare_beyond(ref, NREF, test, NTEST, FLOOR, MT_KS_ALPHA, &b), MT_OK);
    assert_true(b.tested);
    assert_false(b.slower);
}

static void shift_under_a_class_gap_is_not_slower(void **state)
{
    (void)state;
    static double ref[NREF], test[NREF];
    /* A tight class moved by 2 cycles: KS resolves it on 4096 loads, but
     * no load reaches a class gap above the reference's median. */
    mt_rng r = {.s = 5};
    for (size_t i = 0; i < NREF; i++) {
        ref[i] = round(104.0 + synth_gauss(&r));
        test[i] = round(106.0 + synth_gauss(&r));
    }
    mt_beyond_comparison b;
    assert_int_equal(mt_compare_beyond(ref, NREF, test, NREF, FLOOR, MT_KS_ALPHA, &b), MT_OK);
    assert_true(b.tested);
    assert_true(b.cmp.ks.reject);
    assert_false(b.slower);
}

static void too_few_loads_past_the_front_are_not_tested(void **state)
{
    (void)state;
    static double ref[NREF], test[NTEST];
    chain(6, ref, NREF, 0.5, 0.0, 0.0);
    /* 99% L1 hits: 5 loads past the L1, all at the next level. */
    chain(7, test, NTEST, 0.99, 0.01, 0.0);
    mt_beyond_comparison b;
    assert_int_equal(mt_compare_beyond(ref, NREF, test, NTEST, FLOOR, MT_KS_ALPHA, &b), MT_OK);
    assert_true(b.n_test < MT_MISS_MIN_COUNT);
    assert_false(b.tested);
    assert_false(b.slower);
}

static void invalid_arguments(void **state)
{
    (void)state;
    double x[4] = {1, 2, 3, 4};
    mt_beyond_comparison b;
    assert_int_equal(mt_compare_beyond(NULL, 4, x, 4, FLOOR, MT_KS_ALPHA, &b), MT_ERR_INVALID_ARG);
    assert_int_equal(mt_compare_beyond(x, 4, NULL, 4, FLOOR, MT_KS_ALPHA, &b), MT_ERR_INVALID_ARG);
    assert_int_equal(mt_compare_beyond(x, 4, x, 4, NAN, MT_KS_ALPHA, &b), MT_ERR_INVALID_ARG);
    assert_int_equal(mt_compare_beyond(x, 4, x, 4, FLOOR, MT_KS_ALPHA, NULL), MT_ERR_INVALID_ARG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(next_level_inside_the_spread_is_slower),
        cmocka_unit_test(same_level_is_not_slower),
        cmocka_unit_test(shift_under_a_class_gap_is_not_slower),
        cmocka_unit_test(too_few_loads_past_the_front_are_not_tested),
        cmocka_unit_test(invalid_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

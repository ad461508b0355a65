/* Order-statistic confidence interval of a median (median_ci.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "analysis/analysis.h"
#include "analysis_synth.h"

/* 16 samples at 95%: P(Bin(16, 1/2) <= 3) = 697/65536, so [x(4), x(13)]
 * covers 1 - 2 * 697/65536; k = 5 would cover only 92%. */
static void sixteen_samples_hand_computed(void **state)
{
    (void)state;
    double x[16];
    for (int i = 0; i < 16; i++)
        x[i] = (double)(16 - i); /* 16..1, unsorted */
    mt_median_interval ci;
    assert_int_equal(mt_median_ci(x, 16, 0.95, &ci), MT_OK);
    assert_int_equal(ci.n, 16);
    assert_float_equal(ci.median, 8.5, 0);
    assert_float_equal(ci.lo, 4.0, 0);
    assert_float_equal(ci.hi, 13.0, 0);
    assert_float_equal(ci.level, 1.0 - 2.0 * 697.0 / 65536.0, 1e-12);
    assert_float_equal(x[0], 16.0, 0); /* input untouched */
}

/* Too few samples for the level: the extremes, with the coverage they have. */
static void few_samples_give_extremes(void **state)
{
    (void)state;
    const double x[5] = {3, 9, 1, 7, 5};
    mt_median_interval ci;
    assert_int_equal(mt_median_ci(x, 5, 0.95, &ci), MT_OK);
    assert_float_equal(ci.median, 5.0, 0);
    assert_float_equal(ci.lo, 1.0, 0);
    assert_float_equal(ci.hi, 9.0, 0);
    assert_float_equal(ci.level, 1.0 - 2.0 / 32.0, 1e-12);
    const double one = 4;
    assert_int_equal(mt_median_ci(&one, 1, 0.95, &ci), MT_OK);
    assert_float_equal(ci.lo, 4.0, 0);
    assert_float_equal(ci.hi, 4.0, 0);
    assert_float_equal(ci.level, 0.0, 0);
}

/* The interval holds the true median about as often as it says: 2000
 * draws of 101 Gaussian samples (standard error of the share 0.005). */
static void coverage_matches_level(void **state)
{
    (void)state;
    mt_rng r = {.s = 12345};
    double x[101];
    int held = 0, trials = 2000;
    double reached = 0;
    for (int t = 0; t < trials; t++) {
        synth_fill(&r, x, 101, 600.0, 70.0);
        mt_median_interval ci;
        assert_int_equal(mt_median_ci(x, 101, 0.95, &ci), MT_OK);
        held += ci.lo <= 600.0 && 600.0 <= ci.hi;
        reached = ci.level;
    }
    assert_true(reached >= 0.95 && reached < 0.97);
    double share = (double)held / trials;
    assert_true(share > reached - 0.02);
    assert_true(share < reached + 0.02);
}

/* A 1% share of huge timer outliers moves the interval by a rank, not by
 * their size. */
static void outliers_barely_move_it(void **state)
{
    (void)state;
    mt_rng r = {.s = 99};
    double x[1000];
    synth_fill(&r, x, 1000, 250.0, 5.0);
    mt_median_interval clean, dirty;
    assert_int_equal(mt_median_ci(x, 1000, 0.95, &clean), MT_OK);
    for (int i = 0; i < 10; i++)
        x[i * 100] = 5000.0;
    assert_int_equal(mt_median_ci(x, 1000, 0.95, &dirty), MT_OK);
    assert_true(dirty.hi - clean.hi < 0.5);
    assert_true(dirty.hi - dirty.lo < 1.5); /* ~ 2 * 1.96 * 1.25 * 5 / sqrt(1000) = 0.8 */
}

static void invalid_input_refused(void **state)
{
    (void)state;
    const double x[2] = {1, 2};
    mt_median_interval ci;
    assert_int_equal(mt_median_ci(x, 0, 0.95, &ci), MT_ERR_INVALID_ARG);
    assert_int_equal(mt_median_ci(NULL, 2, 0.95, &ci), MT_ERR_INVALID_ARG);
    assert_int_equal(mt_median_ci(x, 2, 1.0, &ci), MT_ERR_INVALID_ARG);
    assert_int_equal(mt_median_ci(x, 2, 0.0, &ci), MT_ERR_INVALID_ARG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sixteen_samples_hand_computed),
        cmocka_unit_test(few_samples_give_extremes),
        cmocka_unit_test(coverage_matches_level),
        cmocka_unit_test(outliers_barely_move_it),
        cmocka_unit_test(invalid_input_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

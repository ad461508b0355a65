/* Bank levels and the decisions over them (src/analysis/banks.c). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "analysis/banks.h"
#include "analysis/thresholds.h"
#include "core/rng.h"

static double gauss(mt_rng *r)
{
    double u1 = 1.0 - mt_rng_uniform(r), u2 = mt_rng_uniform(r);
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

/* Normal noise: the level is the mean within a few standard errors, and
 * the standard error is about 1.09 sd / sqrt(n) (plus the spike allowance). */
static void level_of_noisy_samples(void **state)
{
    (void)state;
    mt_rng r = {.s = 42};
    enum { N = 4096 };
    double *x = malloc(N * sizeof *x);
    assert_non_null(x);
    for (int i = 0; i < N; i++)
        x[i] = 100 + 10 * gauss(&r);
    mt_bank_level lv;
    mt_errinfo ei = {{0}};
    assert_int_equal(mt_bank_level_of(x, N, &lv, &ei), MT_OK);
    assert_true(fabs(lv.level - 100) < 4 * lv.se);
    double want = sqrt(1.19 * 100.0 / N + pow(MT_BANK_SPIKE_BIAS * 10, 2));
    assert_true(lv.se > 0.8 * want && lv.se < 1.25 * want);
    /* 1% spikes of 5000 cycles: dropped, the level hardly moves */
    for (int i = 0; i < N; i++)
        x[i] = 100 + 10 * gauss(&r) + (i % 100 == 0 ? 5000 : 0);
    assert_int_equal(mt_bank_level_of(x, N, &lv, &ei), MT_OK);
    assert_true(fabs(lv.level - 100) < 4 * lv.se);
    /* too few samples */
    assert_int_equal(mt_bank_level_of(x, 3, &lv, &ei), MT_ERR_INVALID_ARG);
    free(x);
}

/* Noise-free samples: the exact value, no error (a spike still goes). */
static void level_without_noise(void **state)
{
    (void)state;
    double x[8] = {30, 30, 30, 30, 30, 30, 30, 30};
    mt_bank_level lv;
    mt_errinfo ei = {{0}};
    assert_int_equal(mt_bank_level_of(x, 8, &lv, &ei), MT_OK);
    assert_true(lv.level == 30 && lv.se == 0);
}

static mt_bank_level L(double level, double se)
{
    return (mt_bank_level){level, se};
}

static void differ_needs_gap_and_errors(void **state)
{
    (void)state;
    mt_bank_level a = L(30, 0), b = L(33, 0), c = L(36, 0);
    assert_false(mt_bank_levels_differ(&a, &b, MT_BANK_MIN_GAP_CYCLES));
    assert_true(mt_bank_levels_differ(&a, &c, MT_BANK_MIN_GAP_CYCLES));
    mt_bank_level d = L(30, 2), e = L(45, 2); /* 15 apart, 4 x 2.8 = 11.3: differ */
    assert_true(mt_bank_levels_differ(&d, &e, MT_BANK_MIN_GAP_CYCLES));
    e.se = 3; /* 4 x 3.6 = 14.4 < 15 */
    assert_true(mt_bank_levels_differ(&d, &e, MT_BANK_MIN_GAP_CYCLES));
    e.se = 4; /* 4 x 4.5 = 17.9 > 15: not shown */
    assert_false(mt_bank_levels_differ(&d, &e, MT_BANK_MIN_GAP_CYCLES));
}

/* Levels of 32 x 4 B banks at 2 cycles a way: degrees 1 2 4 8 16 32 32 32
 * over strides 1..128 words; the row is at stride 32 (index 5). */
static void row_from_the_plateau(void **state)
{
    (void)state;
    mt_bank_level lv[8];
    static const int deg[8] = {1, 2, 4, 8, 16, 32, 32, 32};
    for (int i = 0; i < 8; i++)
        lv[i] = L(30 + 2 * (deg[i] - 1), 0.1);
    size_t at;
    int confirmed;
    mt_bank_row(lv, 8, MT_BANK_MIN_GAP_CYCLES, &at, &confirmed);
    assert_int_equal(at, 5);
    assert_true(confirmed);
    /* the sweep stops at the row: the plateau is not confirmed */
    mt_bank_row(lv, 6, MT_BANK_MIN_GAP_CYCLES, &at, &confirmed);
    assert_int_equal(at, 5);
    assert_false(confirmed);
    /* the small degrees are within the gap of each other, but only the
     * last levels join the plateau */
    for (int i = 0; i < 8; i++)
        lv[i] = L(30, 0.1);
    mt_bank_row(lv, 8, MT_BANK_MIN_GAP_CYCLES, &at, &confirmed);
    assert_int_equal(at, 0); /* no conflict seen */
}

static void nearer_of_two_levels(void **state)
{
    (void)state;
    mt_bank_level lo = L(60, 0.2), hi = L(92, 0.2);
    mt_bank_level x = L(61, 0.2), y = L(91, 0.2), mid = L(77, 0.2);
    assert_int_equal(mt_bank_nearer(&x, &lo, &hi, MT_BANK_MIN_GAP_CYCLES), 0);
    assert_int_equal(mt_bank_nearer(&y, &lo, &hi, MT_BANK_MIN_GAP_CYCLES), 1);
    assert_int_equal(mt_bank_nearer(&mid, &lo, &hi, MT_BANK_MIN_GAP_CYCLES), -1);
    hi = L(65, 0.2); /* references too close */
    assert_int_equal(mt_bank_nearer(&x, &lo, &hi, MT_BANK_MIN_GAP_CYCLES), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(level_of_noisy_samples),
        cmocka_unit_test(level_without_noise),
        cmocka_unit_test(differ_needs_gap_and_errors),
        cmocka_unit_test(row_from_the_plateau),
        cmocka_unit_test(nearer_of_two_levels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

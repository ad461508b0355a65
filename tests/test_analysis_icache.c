/* Plateaus of cycles per instruction against code size
 * (analysis/icache_levels.h): rises that pass both tests split levels,
 * rises that fail either do not, falls never do. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "analysis/icache_levels.h"

static void sweep(mt_icache_point *p, const double *cpi, double se, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (mt_icache_point){.code_bytes = 1024u << i, .cpi = cpi[i], .se = se};
}

static void test_three_levels(void **state)
{
    (void)state;
    /* The H100's curve (docs/method.md), with a small standard error. */
    static const double cpi[] = {1.97, 1.98, 1.99, 2.00, 2.00, 2.00, 2.21, 2.55, 5.56, 5.57};
    mt_icache_point p[10];
    sweep(p, cpi, 0.002, 10);
    mt_icache_level lv[MT_ICACHE_MAX_LEVELS];
    size_t n = 0;
    assert_int_equal(mt_icache_levels(p, 10, 0.25, 6.0, lv, &n), MT_OK);
    assert_int_equal(n, 3);
    /* 32 KiB -> 64 KiB rises 0.21: below the step, the same level. */
    assert_int_equal(lv[0].first, 0);
    assert_int_equal(lv[0].last, 6);
    assert_true(lv[0].cpi > 1.98 && lv[0].cpi < 2.01);
    assert_int_equal(lv[1].first, 7);
    assert_int_equal(lv[1].last, 7);
    assert_true(lv[1].cpi == 2.55);
    assert_true(lv[1].step > 3.0 && lv[1].step_z > 6.0);
    assert_int_equal(lv[2].first, 8);
    assert_int_equal(lv[2].last, 9);
    assert_true(lv[2].step_z == 0.0);
}

static void test_noise_and_falls(void **state)
{
    (void)state;
    static const double cpi[] = {2.0, 2.6, 2.4, 3.4, 3.4};
    mt_icache_point p[5];
    /* A rise of 0.6 with a standard error of 0.1 each: 4.2 sigma, not a
     * level; the fall after it none either; the rise of 1.0 is 7 sigma. */
    sweep(p, cpi, 0.1, 5);
    mt_icache_level lv[MT_ICACHE_MAX_LEVELS];
    size_t n = 0;
    assert_int_equal(mt_icache_levels(p, 5, 0.25, 6.0, lv, &n), MT_OK);
    assert_int_equal(n, 2);
    assert_int_equal(lv[0].last, 2);
    assert_int_equal(lv[1].first, 3);
    /* Without noise every rise of at least the step counts. */
    sweep(p, cpi, 0.0, 5);
    assert_int_equal(mt_icache_levels(p, 5, 0.25, 6.0, lv, &n), MT_OK);
    assert_int_equal(n, 3);
}

static void test_bad_input(void **state)
{
    (void)state;
    mt_icache_point p[2] = {{2048, 2, 0}, {1024, 3, 0}};
    mt_icache_level lv[MT_ICACHE_MAX_LEVELS];
    size_t n = 7;
    assert_int_equal(mt_icache_levels(p, 2, 0.25, 6, lv, &n), MT_ERR_INVALID_ARG);
    assert_int_equal(n, 0);
    assert_int_equal(mt_icache_levels(p, 0, 0.25, 6, lv, &n), MT_ERR_INVALID_ARG);
    assert_int_equal(mt_icache_levels(p, MT_ICACHE_MAX_POINTS + 1, 0.25, 6, lv, &n),
                     MT_ERR_INVALID_ARG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_three_levels),
        cmocka_unit_test(test_noise_and_falls),
        cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The least-squares line (src/analysis/linear_fit.c). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "analysis/linear_fit.h"

/* Hopper's carveouts and the sizes a 256 KiB array leaves: exactly -1. */
static void test_exact_line(void **state)
{
    (void)state;
    static const double kib[] = {0, 8, 16, 32, 64, 100, 132, 164, 196, 228};
    double x[10], y[10];
    for (int i = 0; i < 10; i++) {
        x[i] = kib[i] * 1024;
        y[i] = 262144 - x[i];
    }
    mt_line_fit f;
    mt_errinfo ei;
    assert_int_equal(mt_fit_line(x, y, 10, &f, &ei), MT_OK);
    assert_int_equal(f.n, 10);
    assert_true(fabs(f.slope + 1) < 1e-12);
    assert_true(fabs(f.offset - 262144) < 1e-6);
    assert_true(f.max_residual < 1e-6 && f.slope_se < 1e-12);
}

/* One point off the line by 1000: the residuals show it, and which. */
static void test_outlier(void **state)
{
    (void)state;
    double x[] = {0, 1000, 2000, 3000, 4000}, y[] = {5000, 4000, 3000, 3000, 1000};
    mt_line_fit f;
    mt_errinfo ei;
    assert_int_equal(mt_fit_line(x, y, 5, &f, &ei), MT_OK);
    assert_int_equal(f.worst, 3);
    assert_true(f.max_residual > 500);
    assert_true(f.slope_se > 0.1 && f.offset_se > 100);
    assert_true(f.rms_residual > 0 && f.rms_residual < f.max_residual);
}

/* Two points: a line through both, with nothing to estimate errors by. */
static void test_two_points(void **state)
{
    (void)state;
    double x[] = {0, 10}, y[] = {3, 23};
    mt_line_fit f;
    mt_errinfo ei;
    assert_int_equal(mt_fit_line(x, y, 2, &f, &ei), MT_OK);
    assert_true(fabs(f.slope - 2) < 1e-12 && fabs(f.offset - 3) < 1e-12);
    assert_true(f.slope_se == 0 && f.offset_se == 0);
}

static void test_degenerate(void **state)
{
    (void)state;
    double x[] = {5, 5, 5}, y[] = {1, 2, 3};
    mt_line_fit f;
    mt_errinfo ei;
    assert_int_equal(mt_fit_line(x, y, 1, &f, &ei), MT_ERR_INVALID_ARG);
    assert_int_equal(mt_fit_line(x, y, 3, &f, &ei), MT_ERR_INVALID_ARG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_line),
        cmocka_unit_test(test_outlier),
        cmocka_unit_test(test_two_points),
        cmocka_unit_test(test_degenerate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

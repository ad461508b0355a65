/* mt_median_above_cut: the median of a class whose lower side a threshold
 * cut off. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>

#include <cmocka.h>

#include "analysis/analysis.h"

/* Deterministic normal samples (Box-Muller on a fixed LCG). */
static double normal(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    double u = ((double)(*s >> 11) + 0.5) / 9007199254740992.0;
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    double v = ((double)(*s >> 11) + 0.5) / 9007199254740992.0;
    return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

/* A class at 103 +- 9 cut at 97: the plain median of what is left reads
 * 107, the truncation-aware one nearer the centre. */
static void test_cut_class_recovers_its_centre(void **state)
{
    (void)state;
    enum { N = 4000 };
    double *x = malloc(N * sizeof *x);
    assert_non_null(x);
    uint64_t s = 717;
    size_t k = 0;
    for (size_t i = 0; i < N; i++) {
        double v = round(103 + 9 * normal(&s));
        if (v > 97)
            x[k++] = v;
    }
    double plain = mt_median(x, k), m;
    mt_err err = mt_median_above_cut(x, k, 97, &m);
    free(x);
    assert_int_equal(err, MT_OK);
    assert_true(plain >= 106);
    /* Nearer the centre than the plain median; a class twice as wide as
     * its distance from the cut is flat over the window, so only within a
     * few cycles (the probe lowers its confidence where this moved). */
    assert_true(m < plain && fabs(m - 103) <= 2.5);
}

/* A class far above the cut keeps its plain median. */
static void test_clear_class_is_the_plain_median(void **state)
{
    (void)state;
    const double x[] = {20, 21, 22, 101, 102, 103, 104, 105, 110, 130};
    double m;
    assert_int_equal(mt_median_above_cut(x, 10, 35, &m), MT_OK);
    assert_true(m == mt_median(x + 3, 7));
}

static void test_nothing_above_the_cut(void **state)
{
    (void)state;
    const double x[] = {1, 2, 3};
    double m;
    assert_int_equal(mt_median_above_cut(x, 3, 5, &m), MT_ERR_INVALID_ARG);
    assert_int_equal(mt_median_above_cut(NULL, 3, 5, &m), MT_ERR_INVALID_ARG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cut_class_recovers_its_centre),
        cmocka_unit_test(test_clear_class_is_the_plain_median),
        cmocka_unit_test(test_nothing_above_the_cut),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

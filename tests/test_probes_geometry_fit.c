/* The geometry fits decision's outlier bound (src/probes/geometry_fit.c,
 * mt_geometry_outlier_laps): the most laps timer outliers explain, the
 * smallest c with P(Binomial(laps, q) > c) < alpha. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "probes/geometry_fit.h"

/* P(Binomial(n, q) > c) by direct summation, for the checks. */
static double tail_above(uint32_t n, double q, uint32_t c)
{
    double s = 0;
    for (uint32_t k = c + 1; k <= n; k++)
        s += exp(lgamma(n + 1.0) - lgamma(k + 1.0) - lgamma(n - k + 1.0)) * pow(q, k) *
             pow(1 - q, n - k);
    return s;
}

static void bound_is_the_smallest(void **state)
{
    (void)state;
    const double qs[] = {1e-6, 1e-4, 4e-3, 0.05, 0.3, 0.9};
    for (size_t i = 0; i < sizeof qs / sizeof *qs; i++)
        for (uint32_t n = 1; n <= 64; n++) {
            uint32_t c = mt_geometry_outlier_laps(qs[i], n, GEOMETRY_ALPHA);
            assert_true(c <= n);
            if (c < n)
                assert_true(tail_above(n, qs[i], c) < GEOMETRY_ALPHA);
            if (c > 0)
                assert_true(tail_above(n, qs[i], c - 1) >= GEOMETRY_ALPHA);
        }
}

static void edges(void **state)
{
    (void)state;
    /* No outliers: any missed lap is a miss. */
    assert_int_equal(mt_geometry_outlier_laps(0, 32, GEOMETRY_ALPHA), 0);
    /* Every lap an outlier: nothing can be decided. */
    assert_int_equal(mt_geometry_outlier_laps(1, 32, GEOMETRY_ALPHA), 32);
    /* The laps mt_geometry_laps_needed picks: only every lap missing is
     * beyond the outliers (the plain rule is the counted one there). */
    double p0 = 1e-4;
    uint32_t laps = mt_geometry_laps_needed(p0, 41);
    double q = 1 - pow(1 - p0, 41);
    assert_int_equal(mt_geometry_outlier_laps(q, laps, GEOMETRY_ALPHA), laps - 1);
    /* Over GEOMETRY_CONFIRM_LAPS a few laps may miss by outliers, while an
     * overfull list whose misses hide in a third of its laps (21 of 32
     * missed) is well beyond them. */
    uint32_t c = mt_geometry_outlier_laps(q, GEOMETRY_CONFIRM_LAPS, GEOMETRY_ALPHA);
    assert_true(c >= 1 && c < 8);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bound_is_the_smallest),
        cmocka_unit_test(edges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Two-sample p-value of a miss excess (miss_two_sample.c). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "analysis/analysis.h"

/* The L2 partition draw that fooled the one-sample test: 60 timer outliers
 * against the reference's 36, 8192 loads each.  P(Bin(96, 1/2) >= 60),
 * summed exactly in Python, is 0.0092167: not significant at 1e-3. */
static void outlier_counts_are_not_an_edge(void **state)
{
    (void)state;
    double p = mt_miss_excess_two_sample_p(36, 8192, 60, 8192);
    assert_true(fabs(p / 0.009216676465731271 - 1.0) < 1e-9);
    assert_true(p >= 1e-3);
}

/* A real edge: hundreds of misses against a few outliers. */
static void real_edge_is_significant(void **state)
{
    (void)state;
    assert_true(mt_miss_excess_two_sample_p(40, 8192, 400, 8192) < 1e-30);
    /* clean reference, equal sizes: p = 2^-k for k misses */
    assert_float_equal(mt_miss_excess_two_sample_p(0, 1000, 10, 1000), pow(0.5, 10), 1e-15);
}

/* Unequal sizes weigh the shares: one miss each, 1000 reference loads and
 * 2000 test loads, is P(Bin(2, 2/3) >= 1) = 8/9; the other way round
 * P(Bin(2, 1/3) >= 1) = 5/9. */
static void sizes_set_the_share(void **state)
{
    (void)state;
    assert_float_equal(mt_miss_excess_two_sample_p(1, 1000, 1, 2000), 8.0 / 9.0, 1e-12);
    assert_float_equal(mt_miss_excess_two_sample_p(1, 2000, 1, 1000), 5.0 / 9.0, 1e-12);
    assert_float_equal(mt_miss_excess_two_sample_p(0, 1000, 0, 1000), 1.0, 0);
    assert_float_equal(mt_miss_excess_two_sample_p(5, 1000, 0, 1000), 1.0, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(outlier_counts_are_not_an_edge),
        cmocka_unit_test(real_edge_is_significant),
        cmocka_unit_test(sizes_set_the_share),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

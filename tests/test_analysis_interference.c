/* Interference verdicts from reference measurements (analysis/interference.h). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "analysis/interference.h"

static void iqm_hand_computed(void **state)
{
    (void)state;
    /* n = 8: the middle half is the sorted elements 2..5 = 3, 4, 5, 6. */
    const double x[] = {8, 1, 7, 2, 6, 3, 5, 4};
    assert_float_equal(mt_interquartile_mean(x, 8), 4.5, 1e-12);
    assert_float_equal(mt_interquartile_mean(x, 0), 0.0, 0);
}

static void iqm_ignores_outliers(void **state)
{
    (void)state;
    /* 256 loads at 270 cycles, 1% of them spiked by 10,000 cycles (the spec
     * maxima of outlier_rate and outlier_cycles): the IQM stays 270. */
    double x[256];
    for (int i = 0; i < 256; i++)
        x[i] = (i % 100 == 0) ? 10270 : 270;
    assert_float_equal(mt_interquartile_mean(x, 256), 270.0, 1e-9);
}

static void iqm_is_continuous_between_two_classes(void **state)
{
    (void)state;
    /* Near/far L2 classes 260 and 420 in 129 : 127 and 127 : 129 shares: a
     * median would jump by 160 cycles, the IQM moves by 160 * 2 / 128. */
    double a[256], b[256];
    for (int i = 0; i < 256; i++) {
        a[i] = i < 129 ? 260 : 420;
        b[i] = i < 127 ? 260 : 420;
    }
    double d = mt_interquartile_mean(b, 256) - mt_interquartile_mean(a, 256);
    assert_true(d > 0 && d < 3.0);
}

static mt_reference ref(double l2, double dram, double clk)
{
    mt_reference r = {l2, dram, clk, -1};
    return r;
}

static void rise_beyond_threshold_is_disturbed(void **state)
{
    (void)state;
    mt_reference base = ref(270, 650, 0);
    mt_ref_verdict v;
    /* The numbers: 567 vs 270. */
    mt_reference now = ref(567, 650, 0);
    assert_int_equal(mt_reference_compare(&base, &now, &v), MT_OK);
    assert_int_equal(v.causes, MT_DISTURB_L2);
    assert_float_equal(v.l2_base, 270, 0);
    /* Just above 5% on DRAM only. */
    now = ref(270, 650 * (1 + MT_INTERFERE_RISE) + 0.5, 0);
    assert_int_equal(mt_reference_compare(&base, &now, &v), MT_OK);
    assert_int_equal(v.causes, MT_DISTURB_DRAM);
}

static void small_changes_and_drops_are_not(void **state)
{
    (void)state;
    mt_reference base = ref(270, 650, 1980);
    mt_ref_verdict v;
    mt_reference now = ref(270 * (1 + MT_INTERFERE_RISE) - 0.5, 650 * 1.04, 1980 * 1.02);
    assert_int_equal(mt_reference_compare(&base, &now, &v), MT_OK);
    assert_int_equal(v.causes, 0);
    now = ref(200, 500, 1980); /* faster than the baseline: the baseline was the disturbed one */
    assert_int_equal(mt_reference_compare(&base, &now, &v), MT_OK);
    assert_int_equal(v.causes, 0);
    /* A short latency: the absolute floor decides (5% of 30 is 1.5 cycles). */
    base = ref(30, NAN, 0);
    now = ref(30 + MT_INTERFERE_MIN_RISE_CYCLES - 0.5, NAN, 0);
    assert_int_equal(mt_reference_compare(&base, &now, &v), MT_OK);
    assert_int_equal(v.causes, 0);
}

static void clock_change_is_a_cause(void **state)
{
    (void)state;
    mt_reference base = ref(270, 650, 1980), now = ref(270, 650, 1600);
    mt_ref_verdict v;
    assert_int_equal(mt_reference_compare(&base, &now, &v), MT_OK);
    assert_int_equal(v.causes, MT_DISTURB_CLOCK);
    now.clock_mhz = 0; /* unknown: no verdict from it */
    assert_int_equal(mt_reference_compare(&base, &now, &v), MT_OK);
    assert_int_equal(v.causes, 0);
}

static void busy_neighbour_is_a_cause(void **state)
{
    (void)state;
    /* Same latencies (a neighbour there from the start), but the driver
     * saw it working. */
    mt_reference base = ref(567, 900, 0), now = ref(567, 900, 0);
    mt_ref_verdict v;
    now.busy_others = 1;
    assert_int_equal(mt_reference_compare(&base, &now, &v), MT_OK);
    assert_int_equal(v.causes, MT_DISTURB_BUSY);
    now.busy_others = 0;
    assert_int_equal(mt_reference_compare(&base, &now, &v), MT_OK);
    assert_int_equal(v.causes, 0);
}

static void least_takes_the_minimum(void **state)
{
    (void)state;
    mt_reference a = ref(567, NAN, 1980), b = ref(270, 700, 1700);
    mt_reference m = mt_reference_least(&a, &b);
    assert_float_equal(m.l2, 270, 0);
    assert_float_equal(m.dram, 700, 0);
    assert_float_equal(m.clock_mhz, 1980, 0); /* the first clock is the baseline */
    mt_ref_verdict v;
    assert_int_equal(mt_reference_compare(NULL, &a, &v), MT_ERR_INVALID_ARG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(iqm_hand_computed),
        cmocka_unit_test(iqm_ignores_outliers),
        cmocka_unit_test(iqm_is_continuous_between_two_classes),
        cmocka_unit_test(rise_beyond_threshold_is_disturbed),
        cmocka_unit_test(small_changes_and_drops_are_not),
        cmocka_unit_test(clock_change_is_a_cause),
        cmocka_unit_test(busy_neighbour_is_a_cause),
        cmocka_unit_test(least_takes_the_minimum),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

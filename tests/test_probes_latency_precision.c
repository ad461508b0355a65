/* The shared rule that turns an imprecise median latency into a range
 * (src/probes/latency_precision.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "probes/latency_precision.h"

static mt_finding value_of(double v)
{
    mt_finding f;
    memset(&f, 0, sizeof f);
    f.kind = MT_FIND_VALUE;
    f.value = f.lo = f.hi = v;
    f.confidence = 0.9;
    strcpy(f.note, "median of 8 chains");
    return f;
}

/* Within 2 cycles on both sides at 95%: the finding stays as it was. */
static void precise_median_is_untouched(void **state)
{
    (void)state;
    mt_median_interval ci = {.n = 8, .median = 600.0, .lo = 598.5, .hi = 601.9, .level = 0.992};
    assert_true(mt_latency_precise(&ci));
    mt_finding f = value_of(600.0), g = f;
    mt_finding_set_precision(&f, &ci);
    assert_memory_equal(&f, &g, sizeof f);
}

/* One side too far, or too little coverage: a range with capped confidence. */
static void imprecise_median_becomes_its_interval(void **state)
{
    (void)state;
    mt_median_interval ci = {.n = 32, .median = 600.0, .lo = 597.5, .hi = 601.0, .level = 0.82};
    assert_false(mt_latency_precise(&ci));
    mt_finding f = value_of(600.0);
    mt_finding_set_precision(&f, &ci);
    assert_int_equal(f.kind, MT_FIND_RANGE);
    assert_float_equal(f.lo, 597.5, 0);
    assert_float_equal(f.hi, 601.0, 0);
    assert_float_equal(f.confidence, 0.82, 0);
    assert_non_null(strstr(f.note, "median of 8 chains; a range"));
    mt_median_interval few = {.n = 5, .median = 600.0, .lo = 599.5, .hi = 600.5, .level = 0.9375};
    assert_false(mt_latency_precise(&few)); /* narrow, but below 95% */
}

/* The robust spread ignores a timer outlier and follows the bulk. */
static void robust_sd_ignores_an_outlier(void **state)
{
    (void)state;
    double x[41];
    for (int i = 0; i < 41; i++)
        x[i] = 600.0 + (i - 20) * 5.0; /* MAD 50 -> 1.4826 * 50 = 74.1 */
    x[40] = 9000.0;
    double sd = mt_robust_sd(x, 41);
    assert_true(sd > 60.0 && sd < 80.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(precise_median_is_untouched),
        cmocka_unit_test(imprecise_median_becomes_its_interval),
        cmocka_unit_test(robust_sd_ignores_an_outlier),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

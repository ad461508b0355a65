/* Footprint plans: doubling search and the evenly spaced sweep. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "analysis/analysis.h"

static void doubling_exact_limit(void **state)
{
    (void)state;
    uint64_t out[16];
    size_t n = mt_plan_doubling(1024, 32768, out, 16);
    assert_int_equal(n, 6);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(out[i], 1024u << i);
}

static void doubling_appends_limit(void **state)
{
    (void)state;
    uint64_t out[16];
    size_t n = mt_plan_doubling(1024, 40000, out, 16);
    assert_int_equal(n, 7);
    assert_int_equal(out[5], 32768);
    assert_int_equal(out[6], 40000);
}

static void doubling_edges(void **state)
{
    (void)state;
    uint64_t out[80];
    assert_int_equal(mt_plan_doubling(1024, 1024, out, 4), 1);
    assert_int_equal(out[0], 1024);
    assert_int_equal(mt_plan_doubling(0, 1024, out, 4), 0);    /* would never grow */
    assert_int_equal(mt_plan_doubling(2048, 1024, out, 4), 0); /* empty range */
    assert_int_equal(mt_plan_doubling(1, 1024, out, 0), 0);
    assert_int_equal(mt_plan_doubling(1, 1024, NULL, 4), 0);
    /* truncation at max */
    assert_int_equal(mt_plan_doubling(1, 1024, out, 3), 3);
    assert_int_equal(out[2], 4);
    /* no overflow near the top of the range */
    size_t n = mt_plan_doubling(1ull << 62, UINT64_MAX, out, 80);
    assert_int_equal(n, 3);
    assert_true(out[1] == 1ull << 63);
    assert_true(out[2] == UINT64_MAX);
    /* 1 .. 2^63 then UINT64_MAX: 65 points, all ascending */
    n = mt_plan_doubling(1, UINT64_MAX, out, 80);
    assert_int_equal(n, 65);
    for (size_t i = 1; i < n; i++)
        assert_true(out[i] > out[i - 1]);
}

static void sweep_all_steps_when_few(void **state)
{
    (void)state;
    uint64_t out[64];
    size_t n = mt_plan_sweep(16384, 32768, 1024, 64, out);
    assert_int_equal(n, 16);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(out[i], 16384 + 1024 * (i + 1));
    /* exactly max_points steps: still every step */
    n = mt_plan_sweep(16384, 32768, 1024, 16, out);
    assert_int_equal(n, 16);
    assert_int_equal(out[0], 17408);
}

static void sweep_subsampled(void **state)
{
    (void)state;
    uint64_t out[8];
    size_t n = mt_plan_sweep(16384, 32768, 1024, 4, out);
    assert_int_equal(n, 4);
    assert_int_equal(out[0], 20480);
    assert_int_equal(out[1], 24576);
    assert_int_equal(out[2], 28672);
    assert_int_equal(out[3], 32768);
}

static void sweep_granule_not_dividing(void **state)
{
    (void)state;
    uint64_t out[16];
    /* lo and hi not multiples of 1024: multiples in between, then hi */
    size_t n = mt_plan_sweep(1000, 5000, 1024, 10, out);
    assert_int_equal(n, 5);
    const uint64_t want[] = {1024, 2048, 3072, 4096, 5000};
    for (size_t i = 0; i < n; i++)
        assert_int_equal(out[i], want[i]);
    /* more candidates (3,6,9,10) than points: subsampled, hi last */
    n = mt_plan_sweep(0, 10, 3, 3, out);
    assert_int_equal(n, 3);
    assert_int_equal(out[0], 3);
    assert_int_equal(out[1], 6);
    assert_int_equal(out[2], 10);
    /* granule wider than the range: only hi plus the one multiple */
    n = mt_plan_sweep(100, 150, 64, 8, out);
    assert_int_equal(n, 2);
    assert_int_equal(out[0], 128);
    assert_int_equal(out[1], 150);
}

static void sweep_invariants_many_cases(void **state)
{
    (void)state;
    uint64_t out[40];
    for (uint64_t lo = 0; lo < 300; lo += 37)
        for (uint64_t hi = lo + 1; hi < lo + 700; hi += 53)
            for (uint64_t g = 1; g < 200; g += 29)
                for (size_t mp = 1; mp <= 40; mp += 3) {
                    size_t n = mt_plan_sweep(lo, hi, g, mp, out);
                    assert_true(n >= 1 && n <= mp);
                    assert_true(out[n - 1] == hi);
                    for (size_t i = 0; i < n; i++) {
                        assert_true(out[i] > lo && out[i] <= hi);
                        if (i + 1 < n)
                            assert_true(out[i] % g == 0);
                        if (i > 0)
                            assert_true(out[i] > out[i - 1]);
                    }
                    uint64_t n_mult = 0;
                    for (uint64_t v = lo + 1; v < hi; v++)
                        n_mult += v % g == 0;
                    if (n_mult + 1 <= mp)
                        assert_true(n == n_mult + 1);
                }
}

static void sweep_edges(void **state)
{
    (void)state;
    uint64_t out[4];
    assert_int_equal(mt_plan_sweep(100, 100, 1, 4, out), 0);
    assert_int_equal(mt_plan_sweep(200, 100, 1, 4, out), 0);
    assert_int_equal(mt_plan_sweep(0, 100, 1, 0, out), 0);
    assert_int_equal(mt_plan_sweep(0, 100, 1, 4, NULL), 0);
    assert_int_equal(mt_plan_sweep(0, 100, 10, 1, out), 1);
    assert_int_equal(out[0], 100);
    /* granule 0 behaves like 1 */
    assert_int_equal(mt_plan_sweep(0, 3, 0, 4, out), 3);
    assert_int_equal(out[0], 1);
    /* huge values do not overflow */
    size_t n = mt_plan_sweep(UINT64_MAX - 100, UINT64_MAX, 64, 4, out);
    assert_true(n >= 1 && out[n - 1] == UINT64_MAX);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(doubling_exact_limit),
        cmocka_unit_test(doubling_appends_limit),
        cmocka_unit_test(doubling_edges),
        cmocka_unit_test(sweep_all_steps_when_few),
        cmocka_unit_test(sweep_subsampled),
        cmocka_unit_test(sweep_granule_not_dividing),
        cmocka_unit_test(sweep_invariants_many_cases),
        cmocka_unit_test(sweep_edges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Reference-vs-test comparisons: KS + miss-fraction rule, and the exact
 * binomial miss-excess test with its log-space tail. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "analysis/analysis.h"
#include "analysis/analysis_internal.h"
#include "analysis/thresholds.h"
#include "analysis_synth.h"

enum { N = 2000 };
static const double HIT_THRESHOLD = 40.0;

/* Hits: integer latencies around 30; the first `misses` loads at 300. */
static void sample(uint64_t seed, double *x, size_t n, size_t misses, double shift)
{
    mt_rng r = {.s = seed};
    for (size_t i = 0; i < n; i++)
        x[i] = i < misses ? 300.0 : round(30.0 + shift + synth_gauss(&r));
}

static void compare_many_misses_differs(void **state)
{
    (void)state;
    static double ref[N], test[N];
    sample(1, ref, N, 0, 0.0);
    sample(2, test, N, 300, 0.0);
    mt_comparison c;
    assert_int_equal(mt_compare_to_reference(ref, N, test, N, HIT_THRESHOLD, MT_KS_ALPHA, &c),
                     MT_OK);
    assert_true(c.differs);
    assert_true(c.ks.reject);
    assert_float_equal(c.miss_frac_ref, 0.0, 0);
    assert_float_equal(c.miss_frac_test, 0.15, 1e-12);
    assert_true(c.mean_test > c.mean_ref + 30.0);
    assert_float_equal(c.hit_threshold, HIT_THRESHOLD, 0);
    assert_float_equal(c.min_increase, MT_MIN_MISS_FRACTION_INCREASE, 0);
}

static void compare_jitter_shift_does_not_count(void **state)
{
    (void)state;
    /* A one-cycle shift of every hit: KS sees it (D ~ 0.38), but no load
     * crosses the hit threshold, so it is not a disturbance. */
    static double ref[N], test[N];
    sample(3, ref, N, 0, 0.0);
    sample(4, test, N, 0, 1.0);
    mt_comparison c;
    assert_int_equal(mt_compare_to_reference(ref, N, test, N, HIT_THRESHOLD, MT_KS_ALPHA, &c),
                     MT_OK);
    assert_true(c.ks.reject);
    assert_false(c.differs);
}

static void compare_few_misses_too_small_for_ks(void **state)
{
    (void)state;
    /* 20 misses in 2000 (1 %): the fraction rule alone would pass, but KS
     * cannot resolve D = 0.01 at n = 2000 (d_crit ~ 0.06).  This is the
     * case mt_miss_excess_test exists for. */
    static double ref[N], test[N];
    sample(5, ref, N, 0, 0.0);
    sample(6, test, N, 20, 0.0);
    mt_comparison c;
    assert_int_equal(mt_compare_to_reference(ref, N, test, N, HIT_THRESHOLD, MT_KS_ALPHA, &c),
                     MT_OK);
    assert_false(c.ks.reject);
    assert_false(c.differs);
}

static void compare_invalid_args(void **state)
{
    (void)state;
    const double a[] = {1, 2};
    mt_comparison c;
    assert_int_equal(mt_compare_to_reference(NULL, 2, a, 2, 40, 0.01, &c), MT_ERR_INVALID_ARG);
    assert_int_equal(mt_compare_to_reference(a, 0, a, 2, 40, 0.01, &c), MT_ERR_INVALID_ARG);
    assert_int_equal(mt_compare_to_reference(a, 2, a, 0, 40, 0.01, &c), MT_ERR_INVALID_ARG);
    assert_int_equal(mt_compare_to_reference(a, 2, a, 2, 40, 0.0, &c), MT_ERR_INVALID_ARG);
    assert_int_equal(mt_compare_to_reference(a, 2, a, 2, 40, 0.01, NULL), MT_ERR_INVALID_ARG);
}

static void miss_excess_clean_reference(void **state)
{
    (void)state;
    static double ref[N], test[N];
    sample(7, ref, N, 0, 0.0);
    mt_miss_excess m;
    /* 20 extra misses: expected 1 at the Laplace rate 1/2002 */
    sample(8, test, N, 20, 0.0);
    assert_int_equal(mt_miss_excess_test(ref, N, test, N, HIT_THRESHOLD, MT_KS_ALPHA, &m), MT_OK);
    assert_true(m.more_misses);
    assert_int_equal(m.misses_ref, 0);
    assert_int_equal(m.misses_test, 20);
    assert_int_equal(m.n_test, N); /* the miss share is misses_test / n_test */
    assert_float_equal(m.p0, 1.0 / 2002.0, 1e-15);
    assert_true(fabs(m.p_value / 1.42917332759615e-19 - 1.0) < 1e-6);
    assert_float_equal(m.alpha, MT_KS_ALPHA, 0);
    assert_float_equal(m.hit_threshold, HIT_THRESHOLD, 0);
    /* one extra miss: P(X >= 1) = 1 - (1 - p0)^2000 ~ 0.63 */
    sample(9, test, N, 1, 0.0);
    assert_int_equal(mt_miss_excess_test(ref, N, test, N, HIT_THRESHOLD, MT_KS_ALPHA, &m), MT_OK);
    assert_false(m.more_misses);
    assert_float_equal(m.p_value, 1.0 - pow(1.0 - 1.0 / 2002.0, 2000.0), 1e-12);
    /* no misses: p = 1 */
    sample(10, test, N, 0, 0.0);
    assert_int_equal(mt_miss_excess_test(ref, N, test, N, HIT_THRESHOLD, MT_KS_ALPHA, &m), MT_OK);
    assert_false(m.more_misses);
    assert_float_equal(m.p_value, 1.0, 0);
}

static void miss_excess_noisy_reference(void **state)
{
    (void)state;
    /* 1 % outliers in both samples: only a real excess counts. */
    static double ref[N], test[N];
    mt_miss_excess m;
    sample(11, ref, N, 20, 0.0);
    sample(12, test, N, 21, 0.0);
    assert_int_equal(mt_miss_excess_test(ref, N, test, N, HIT_THRESHOLD, MT_KS_ALPHA, &m), MT_OK);
    assert_false(m.more_misses);
    assert_true(fabs(m.p_value / 0.5276539876036181 - 1.0) < 1e-6);
    sample(13, test, N, 60, 0.0);
    assert_int_equal(mt_miss_excess_test(ref, N, test, N, HIT_THRESHOLD, MT_KS_ALPHA, &m), MT_OK);
    assert_true(m.more_misses);
    assert_true(fabs(m.p_value / 1.9547083044554627e-12 - 1.0) < 1e-6);
    /* different sample sizes are fine */
    assert_int_equal(mt_miss_excess_test(ref, N, test, 500, HIT_THRESHOLD, MT_KS_ALPHA, &m),
                     MT_OK);
    assert_int_equal(m.misses_test, 60);

    assert_int_equal(mt_miss_excess_test(ref, 0, test, N, 40, 0.01, &m), MT_ERR_INVALID_ARG);
    assert_int_equal(mt_miss_excess_test(ref, N, NULL, N, 40, 0.01, &m), MT_ERR_INVALID_ARG);
    assert_int_equal(mt_miss_excess_test(ref, N, test, N, 40, 1.5, &m), MT_ERR_INVALID_ARG);
    assert_int_equal(mt_miss_excess_test(ref, N, test, N, 40, 0.01, NULL), MT_ERR_INVALID_ARG);
}

static void ln_factorial_matches_lgamma(void **state)
{
    (void)state;
    for (uint64_t k = 0; k < 200; k++)
        assert_float_equal(mt_an_ln_factorial(k), lgamma((double)k + 1.0),
                           1e-12 * (1.0 + lgamma((double)k + 1.0)));
    const uint64_t big[] = {1000, 65537, 1000000, 123456789};
    for (int i = 0; i < 4; i++) {
        double want = lgamma((double)big[i] + 1.0);
        assert_true(fabs(mt_an_ln_factorial(big[i]) - want) <= 1e-13 * want);
    }
}

static void binomial_tail_reference_values(void **state)
{
    (void)state;
    assert_float_equal(mt_an_binom_upper_tail(10, 8, 0.5), 56.0 / 1024.0, 1e-15);
    assert_float_equal(mt_an_binom_upper_tail(10, 0, 0.5), 1.0, 0);
    assert_float_equal(mt_an_binom_upper_tail(10, 11, 0.5), 0.0, 0);
    assert_float_equal(mt_an_binom_upper_tail(10, 10, 0.5), 1.0 / 1024.0, 1e-17);
    assert_float_equal(mt_an_binom_upper_tail(10, 3, 0.0), 0.0, 0);
    assert_float_equal(mt_an_binom_upper_tail(10, 3, 1.0), 1.0, 0);
    /* n = 1e6 (reference: Python, lgamma + fsum, ~1e-8 relative) */
    const struct { uint64_t k; double p; } ref[] = {
        {1000, 0.5042115548562467},
        {1050, 0.05953571723508939},
        {1100, 0.0009574669696416477},
        {1200, 4.58963860522243e-10},
    };
    for (int i = 0; i < 4; i++) {
        double v = mt_an_binom_upper_tail(1000000, ref[i].k, 1e-3);
        assert_true(fabs(v / ref[i].p - 1.0) < 1e-6);
    }
    /* monotone in k, both branches */
    double prev = 1.0;
    for (uint64_t k = 0; k <= 1300; k += 7) {
        double v = mt_an_binom_upper_tail(1000000, k, 1e-3);
        assert_true(v <= prev && v >= 0.0);
        prev = v;
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(compare_many_misses_differs),
        cmocka_unit_test(compare_jitter_shift_does_not_count),
        cmocka_unit_test(compare_few_misses_too_small_for_ks),
        cmocka_unit_test(compare_invalid_args),
        cmocka_unit_test(miss_excess_clean_reference),
        cmocka_unit_test(miss_excess_noisy_reference),
        cmocka_unit_test(ln_factorial_matches_lgamma),
        cmocka_unit_test(binomial_tail_reference_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Two-sample Kolmogorov-Smirnov test and the Kolmogorov distribution. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "analysis/analysis.h"
#include "analysis/analysis_internal.h"
#include "analysis_synth.h"

static void kolmogorov_q_reference_values(void **state)
{
    (void)state;
    /* Reference: 200 terms of the alternating series, evaluated
     * independently in Python (where it converges for these lambdas). */
    assert_float_equal(mt_an_kolmogorov_q(0.5), 0.9639452436648751, 1e-12);
    assert_float_equal(mt_an_kolmogorov_q(0.8), 0.5441424115741981, 1e-12);
    assert_float_equal(mt_an_kolmogorov_q(1.0), 0.26999967167735456, 1e-12);
    assert_float_equal(mt_an_kolmogorov_q(1.18), 0.1234538094297657, 1e-12);
    assert_float_equal(mt_an_kolmogorov_q(1.3581), 0.0499996304316674, 1e-12);
    assert_float_equal(mt_an_kolmogorov_q(1.6276), 0.010001537333060776, 1e-12);
    assert_float_equal(mt_an_kolmogorov_q(1.9495), 0.0009998019790258981, 1e-14);
    assert_true(fabs(mt_an_kolmogorov_q(3.0) / 3.045995948942526e-08 - 1.0) < 1e-10);
    assert_float_equal(mt_an_kolmogorov_q(0.0), 1.0, 0);
    assert_float_equal(mt_an_kolmogorov_q(-1.0), 1.0, 0);
    assert_float_equal(mt_an_kolmogorov_q(0.01), 1.0, 1e-15);
}

static void kolmogorov_q_monotone_across_branches(void **state)
{
    (void)state;
    double prev = 1.0;
    for (double l = 0.02; l < 4.0; l += 0.001) {
        double q = mt_an_kolmogorov_q(l);
        assert_true(q <= prev + 1e-15);
        assert_true(q >= 0.0 && q <= 1.0);
        prev = q;
    }
}

static void ks_identical_samples_do_not_reject(void **state)
{
    (void)state;
    double a[300];
    mt_rng r = {.s = 1};
    synth_fill(&r, a, 300, 100.0, 3.0);
    mt_ks_result k;
    assert_int_equal(mt_ks_two_sample(a, 300, a, 300, 1e-3, &k), MT_OK);
    assert_float_equal(k.d, 0.0, 0);
    assert_float_equal(k.p_value, 1.0, 0);
    assert_false(k.reject);
    assert_int_equal(k.n1, 300);
    assert_int_equal(k.n2, 300);
}

static void ks_shifted_samples_reject(void **state)
{
    (void)state;
    double a[500], b[500];
    mt_rng r = {.s = 2};
    synth_fill(&r, a, 500, 0.0, 1.0);
    synth_fill(&r, b, 500, 1.0, 1.0);
    mt_ks_result k;
    assert_int_equal(mt_ks_two_sample(a, 500, b, 500, 1e-3, &k), MT_OK);
    assert_true(k.reject);
    assert_true(k.d > 0.3); /* population D = 2*Phi(0.5)-1 = 0.383 */
    assert_true(k.p_value < 1e-10);
}

static void ks_hand_computed_d(void **state)
{
    (void)state;
    const double a[] = {4, 2, 3, 1}, b[] = {6, 3, 5, 4};
    mt_ks_result k;
    assert_int_equal(mt_ks_two_sample(a, 4, b, 4, 0.05, &k), MT_OK);
    assert_float_equal(k.d, 0.5, 1e-15);
    /* eq 3.3: sqrt(-ln(0.025) * 8 / 32) */
    assert_float_equal(k.d_crit, sqrt(-log(0.025) * 0.25), 1e-12);
    assert_false(k.reject);
    assert_float_equal(k.alpha, 0.05, 0);
    /* inputs are not reordered */
    assert_float_equal(a[0], 4.0, 0);
    assert_float_equal(b[0], 6.0, 0);

    const double c[] = {1, 2}, d[] = {3, 4, 5};
    assert_int_equal(mt_ks_two_sample(c, 2, d, 3, 0.05, &k), MT_OK);
    assert_float_equal(k.d, 1.0, 1e-15);
}

static void ks_ties_are_exact(void **state)
{
    (void)state;
    /* Consuming equal values one sample at a time would report 2/3 here;
     * after both samples' 1s: F = 2/3, G = 1/3; after the 2s both are 1. */
    const double a[] = {1, 1, 2}, b[] = {1, 2, 2};
    mt_ks_result k;
    assert_int_equal(mt_ks_two_sample(a, 3, b, 3, 0.05, &k), MT_OK);
    assert_float_equal(k.d, 1.0 / 3.0, 1e-15);

    const double e[] = {5, 5, 5}, f[] = {5, 5};
    assert_int_equal(mt_ks_two_sample(e, 3, f, 2, 0.05, &k), MT_OK);
    assert_float_equal(k.d, 0.0, 0);
    assert_false(k.reject);

    /* integer latencies: 90 % at 30 in both, the rest at 31 vs 32 */
    double g[100], h[100];
    for (int i = 0; i < 100; i++) {
        g[i] = i < 90 ? 30 : 31;
        h[i] = i < 90 ? 30 : 32;
    }
    assert_int_equal(mt_ks_two_sample(g, 100, h, 100, 0.05, &k), MT_OK);
    assert_float_equal(k.d, 0.1, 1e-15);
}

static void ks_symmetric(void **state)
{
    (void)state;
    double a[37], b[91];
    mt_rng r = {.s = 5};
    synth_fill(&r, a, 37, 0.0, 1.0);
    synth_fill(&r, b, 91, 0.3, 2.0);
    mt_ks_result k1, k2;
    assert_int_equal(mt_ks_two_sample(a, 37, b, 91, 0.01, &k1), MT_OK);
    assert_int_equal(mt_ks_two_sample(b, 91, a, 37, 0.01, &k2), MT_OK);
    assert_float_equal(k1.d, k2.d, 0);
    assert_float_equal(k1.p_value, k2.p_value, 0);
    assert_float_equal(k1.d_crit, k2.d_crit, 0);
}

static void ks_false_alarm_rate_near_alpha(void **state)
{
    (void)state;
    /* Same distribution, 2000 independent pairs at alpha = 0.05: the
     * asymptotic critical value is slightly conservative for n = 50, so
     * the rejection rate must not exceed alpha noticeably. */
    double a[50], b[50];
    mt_rng r = {.s = 77};
    int rejects = 0, p_below = 0;
    for (int t = 0; t < 2000; t++) {
        synth_fill(&r, a, 50, 0.0, 1.0);
        synth_fill(&r, b, 50, 0.0, 1.0);
        mt_ks_result k;
        assert_int_equal(mt_ks_two_sample(a, 50, b, 50, 0.05, &k), MT_OK);
        rejects += k.reject;
        p_below += k.p_value < 0.05;
    }
    assert_true(rejects <= 130);  /* <= 6.5 % */
    assert_true(rejects >= 40);   /* the test is not dead either */
    assert_true(p_below <= 130 && p_below >= 40);
}

static void ks_invalid_args(void **state)
{
    (void)state;
    const double a[] = {1, 2};
    mt_ks_result k;
    assert_int_equal(mt_ks_two_sample(NULL, 2, a, 2, 0.05, &k), MT_ERR_INVALID_ARG);
    assert_int_equal(mt_ks_two_sample(a, 2, NULL, 2, 0.05, &k), MT_ERR_INVALID_ARG);
    assert_int_equal(mt_ks_two_sample(a, 0, a, 2, 0.05, &k), MT_ERR_INVALID_ARG);
    assert_int_equal(mt_ks_two_sample(a, 2, a, 0, 0.05, &k), MT_ERR_INVALID_ARG);
    assert_int_equal(mt_ks_two_sample(a, 2, a, 2, 0.0, &k), MT_ERR_INVALID_ARG);
    assert_int_equal(mt_ks_two_sample(a, 2, a, 2, 1.0, &k), MT_ERR_INVALID_ARG);
    assert_int_equal(mt_ks_two_sample(a, 2, a, 2, NAN, &k), MT_ERR_INVALID_ARG);
    assert_int_equal(mt_ks_two_sample(a, 2, a, 2, 0.05, NULL), MT_ERR_INVALID_ARG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(kolmogorov_q_reference_values),
        cmocka_unit_test(kolmogorov_q_monotone_across_branches),
        cmocka_unit_test(ks_identical_samples_do_not_reject),
        cmocka_unit_test(ks_shifted_samples_reject),
        cmocka_unit_test(ks_hand_computed_d),
        cmocka_unit_test(ks_ties_are_exact),
        cmocka_unit_test(ks_symmetric),
        cmocka_unit_test(ks_false_alarm_rate_near_alpha),
        cmocka_unit_test(ks_invalid_args),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Descriptive statistics and the order-statistic helpers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analysis/analysis.h"
#include "analysis/analysis_internal.h"
#include "analysis_synth.h"

static void describe_small_hand_computed(void **state)
{
    (void)state;
    const double x[] = {4, 1, 3, 2, 5};
    mt_stats s = mt_describe(x, 5);
    assert_int_equal(s.n, 5);
    assert_float_equal(s.mean, 3.0, 1e-12);
    assert_float_equal(s.stddev, sqrt(2.5), 1e-12); /* sample sd: sum sq 10 / 4 */
    assert_float_equal(s.median, 3.0, 0);
    assert_float_equal(s.min, 1.0, 0);
    assert_float_equal(s.max, 5.0, 0);
    /* nearest rank: ceil(0.05*5) = 1 -> 1; ceil(0.95*5) = 5 -> 5 */
    assert_float_equal(s.p05, 1.0, 0);
    assert_float_equal(s.p95, 5.0, 0);
}

static void describe_percentiles_nearest_rank(void **state)
{
    (void)state;
    double x[100];
    for (int i = 0; i < 100; i++)
        x[i] = (double)(100 - i); /* 100..1, unsorted order */
    mt_stats s = mt_describe(x, 100);
    assert_float_equal(s.p05, 5.0, 0);  /* rank ceil(5) = 5 */
    assert_float_equal(s.p95, 95.0, 0); /* rank 95 */
    assert_float_equal(s.median, 50.5, 0);
    /* x itself untouched */
    assert_float_equal(x[0], 100.0, 0);
    assert_float_equal(x[99], 1.0, 0);
}

static void describe_empty_and_single(void **state)
{
    (void)state;
    mt_stats s = mt_describe(NULL, 0);
    assert_int_equal(s.n, 0);
    assert_float_equal(s.mean, 0.0, 0);
    const double one = 42.0;
    s = mt_describe(&one, 1);
    assert_float_equal(s.mean, 42.0, 0);
    assert_float_equal(s.stddev, 0.0, 0);
    assert_float_equal(s.p05, 42.0, 0);
    assert_float_equal(s.p95, 42.0, 0);
}

static void describe_large_offset_is_stable(void **state)
{
    (void)state;
    /* Values near 1e9 with spread 1: a one-pass variance would lose it. */
    double x[1000];
    mt_rng r = {.s = 3};
    synth_fill(&r, x, 1000, 1e9, 1.0);
    mt_stats s = mt_describe(x, 1000);
    assert_true(fabs(s.stddev - 1.0) < 0.1);
}

static void median_even_odd_and_const(void **state)
{
    (void)state;
    const double odd[] = {9, -1, 3};
    const double even[] = {9, -1, 3, 4};
    assert_float_equal(mt_median(odd, 3), 3.0, 0);
    assert_float_equal(mt_median(even, 4), 3.5, 0);
    assert_float_equal(mt_median(NULL, 0), 0.0, 0);
}

static void select_kth_matches_sort(void **state)
{
    (void)state;
    double x[257];
    mt_rng r = {.s = 11};
    synth_fill(&r, x, 257, 0.0, 100.0);
    x[5] = -0.0;
    x[6] = 0.0;
    x[7] = x[8]; /* a tie */
    double *s = NULL;
    assert_int_equal(mt_an_sorted_copy(x, 257, &s), MT_OK);
    for (size_t k = 0; k < 257; k++)
        assert_true(mt_an_select_kth(x, 257, k) == s[k]);
    free(s);
}

/* The selection median (order.c) must be the sorted copy's middle, for
 * odd and even sizes, runs of equal latencies (the three-way partition's
 * case), negatives, both zeros, already sorted and reversed input. */
static void median_select_matches_sort(void **state)
{
    (void)state;
    enum { N = 1001 };
    double *x = malloc(N * sizeof *x);
    assert_non_null(x);
    mt_rng r = {.s = 17};
    for (int shape = 0; shape < 5; shape++) {
        for (size_t n = 1; n <= N; n += (n < 40 ? 1 : 37)) {
            if (shape == 0)
                synth_fill(&r, x, n, -50.0, 50.0);
            for (size_t i = 0; i < n; i++) {
                if (shape == 1) /* a few integer latencies, many ties */
                    x[i] = 270 + (double)(mt_rng_next(&r) % 4) * 27;
                else if (shape == 2)
                    x[i] = (double)i;
                else if (shape == 3)
                    x[i] = (double)(n - i);
                else if (shape == 4)
                    x[i] = i % 2 ? -0.0 : 0.0;
            }
            double *s = NULL, m = NAN;
            assert_int_equal(mt_an_sorted_copy(x, n, &s), MT_OK);
            double want = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
            assert_int_equal(mt_an_median_select(x, n, &m), MT_OK);
            assert_true(m == want);
            assert_true(mt_median(x, n) == want);
            free(s);
        }
    }
    free(x);
}

/* Large sorted copies take the radix path (order.c, RADIX_MIN_N): the
 * result must be the comparison sort's, for negatives, zeros of both signs,
 * ties and latencies whose high bits are all equal (skipped passes). */
static void sorted_copy_large_matches_qsort(void **state)
{
    (void)state;
    enum { N = 20000 };
    double *x = malloc(N * sizeof *x), *ref = malloc(N * sizeof *ref);
    assert_non_null(x);
    assert_non_null(ref);
    mt_rng r = {.s = 29};
    for (int spread = 0; spread < 2; spread++) {
        if (spread)
            synth_fill(&r, x, N, -1e6, 1e6);
        else
            synth_fill(&r, x, N, 280.0, 5.0);
        x[0] = -0.0;
        x[1] = 0.0;
        x[2] = x[3]; /* a tie */
        x[4] = -1e300;
        x[5] = 1e300;
        memcpy(ref, x, N * sizeof *x);
        qsort(ref, N, sizeof *ref, mt_an_cmp_double);
        double *s = NULL;
        assert_int_equal(mt_an_sorted_copy(x, N, &s), MT_OK);
        for (size_t k = 0; k < N; k++)
            assert_true(s[k] == ref[k]);
        for (size_t k = 1; k < N; k++)
            assert_true(s[k - 1] <= s[k]);
        free(s);
    }
    free(x);
    free(ref);
}

static void nearest_rank_bounds(void **state)
{
    (void)state;
    const double s[] = {1, 2, 3, 4};
    assert_float_equal(mt_an_nearest_rank(s, 4, 0.0), 1.0, 0);
    assert_float_equal(mt_an_nearest_rank(s, 4, 0.25), 1.0, 0);
    assert_float_equal(mt_an_nearest_rank(s, 4, 0.26), 2.0, 0);
    assert_float_equal(mt_an_nearest_rank(s, 4, 1.0), 4.0, 0);
}

/* Miss mean of a mixed chain: 20% L1 hits at 30, misses half near (200)
 * and half far (300), 1% outliers of +5000: the mean must be the near/far
 * mean (250), the hits and outliers counted apart. */
static void miss_mean_mixed_chain(void **state)
{
    (void)state;
    enum { N = 1000 };
    double x[N];
    for (int i = 0; i < N; i++)
        x[i] = i % 5 == 0 ? 30 : (i % 2 ? 200 : 300);
    for (int i = 1; i < N; i += 100)
        x[i] += 5000;
    mt_miss_mean mm;
    assert_int_equal(mt_miss_mean_latency(x, N, 50, &mm), MT_OK);
    assert_int_equal(mm.hits, 200);
    assert_int_equal(mm.outliers, 10);
    assert_int_equal(mm.misses, 790);
    assert_float_equal(mm.mean, 250.0, 1.0);
    /* All hits: no misses, mean 0; invalid input refused. */
    double h[4] = {1, 2, 3, 4};
    assert_int_equal(mt_miss_mean_latency(h, 4, 10, &mm), MT_OK);
    assert_int_equal(mm.misses, 0);
    assert_int_equal(mt_miss_mean_latency(h, 0, 10, &mm), MT_ERR_INVALID_ARG);
}

/* Pooled sd: each group's own mean removed, so the offset between the
 * groups adds nothing. */
static void pooled_sd_within_groups(void **state)
{
    (void)state;
    const double x[6] = {31000, 31001, 31002, 100, 100, 104};
    /* Group 1: mean 31001, ss 2; group 2: mean 101.33, ss 10.67. */
    double ss = 2.0 + 32.0 / 3;
    assert_float_equal(mt_pooled_sd(x, 2, 3), sqrt(ss / 4), 1e-9);
    assert_float_equal(mt_pooled_sd(x, 1, 3), 1.0, 1e-9);
    assert_true(isnan(mt_pooled_sd(x, 6, 1)));
    assert_true(isnan(mt_pooled_sd(NULL, 1, 3)));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(describe_small_hand_computed),
        cmocka_unit_test(sorted_copy_large_matches_qsort),
        cmocka_unit_test(describe_percentiles_nearest_rank),
        cmocka_unit_test(describe_empty_and_single),
        cmocka_unit_test(describe_large_offset_is_stable),
        cmocka_unit_test(median_even_odd_and_const),
        cmocka_unit_test(select_kth_matches_sort),
        cmocka_unit_test(pooled_sd_within_groups),
        cmocka_unit_test(median_select_matches_sort),
        cmocka_unit_test(nearest_rank_bounds),
        cmocka_unit_test(miss_mean_mixed_chain),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

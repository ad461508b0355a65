/* The paired shift of two cyclic chains sharing their first elements
 * (analysis/paired_shift.h), the statistic the TLB probe finds levels by. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "analysis/paired_shift.h"
#include "core/rng.h"

/* Samples of a cyclic chain of `elems` elements walked from element 0:
 * element k's own latency base[k % nbase], plus `add`, plus Gaussian
 * noise of sd, plus a spike of 1000 cycles with probability spike. */
static double *chain(size_t n, uint64_t elems, const double *base, size_t nbase, double add,
                     double sd, double spike, uint64_t seed)
{
    double *x = malloc(n * sizeof *x);
    assert_non_null(x);
    mt_rng r = {.s = seed};
    for (size_t j = 0; j < n; j++) {
        double u1 = 1.0 - mt_rng_uniform(&r), u2 = mt_rng_uniform(&r);
        double g = sqrt(-2 * log(u1)) * cos(6.283185307179586 * u2);
        x[j] = base[(j % elems) % nbase] + add + sd * g;
        if (mt_rng_uniform(&r) < spike)
            x[j] += 1000;
    }
    return x;
}

/* Elements alternating near (270) and far (300): a per-element pairing
 * sees only the added 30, whatever the mix of the elements compared. */
static const double near_far[] = {270, 300, 300, 270, 270, 270, 300};

static void test_exact_step(void **state)
{
    (void)state;
    double *ref = chain(4096, 64, near_far, 7, 0, 0, 0, 1);
    double *x = chain(4096, 128, near_far, 7, 30, 0, 0, 2);
    mt_paired_shift s;
    assert_int_equal(mt_paired_shift_cyclic(ref, 4096, 64, x, 4096, 128, &s), MT_OK);
    assert_true(s.shift == 30);
    assert_true(s.se == 0);
    assert_true(s.share_up == 1);
    assert_int_equal(s.pairs, 2048); /* half of x's samples are elements 64..127 */
    free(ref);
    free(x);
}

static void test_noise_and_spikes(void **state)
{
    (void)state;
    /* sd 8 on every sample, 1% spikes: the median shift stays within a
     * few standard errors of the truth, and no step reads as none. */
    double *ref = chain(8192, 512, near_far, 7, 0, 8, 0.01, 3);
    double *step = chain(8192, 1024, near_far, 7, 12, 8, 0.01, 4);
    double *flat = chain(8192, 1024, near_far, 7, 0, 8, 0.01, 5);
    mt_paired_shift s, f;
    assert_int_equal(mt_paired_shift_cyclic(ref, 8192, 512, step, 8192, 1024, &s), MT_OK);
    assert_int_equal(mt_paired_shift_cyclic(ref, 8192, 512, flat, 8192, 1024, &f), MT_OK);
    assert_true(s.se > 0 && s.se < 1);
    assert_true(fabs(s.shift - 12) < 4 * s.se);
    assert_true(fabs(f.shift) < 4 * f.se);
    assert_true(s.share_up > 0.7);
    free(ref);
    free(step);
    free(flat);
}

/* A share of the elements stepped (a set-associative TLB level
 * overflowing set by set): the median stays, the tails tell it. */
static double *chain_part(size_t n, uint64_t elems, uint64_t stepped, double add, double sd,
                          uint64_t seed)
{
    double *x = chain(n, elems, near_far, 7, 0, sd, 0, seed);
    for (size_t j = 0; j < n; j++)
        if (j % elems < stepped)
            x[j] += add;
    return x;
}

static void test_tails(void **state)
{
    (void)state;
    /* 20% of 1000 elements step by 90 under sd 2: the median does not
     * move, the upper tail holds them and their median is the step. */
    double *ref = chain(4000, 1000, near_far, 7, 0, 2, 0, 8);
    double *part = chain_part(3600, 1200, 200, 90, 2, 9); /* three laps */
    double *flat = chain_part(3600, 1200, 0, 90, 2, 10);
    mt_paired_shift s, f;
    assert_int_equal(mt_paired_shift_cyclic(ref, 4000, 1000, part, 3600, 1200, &s), MT_OK);
    assert_int_equal(mt_paired_shift_cyclic(ref, 4000, 1000, flat, 3600, 1200, &f), MT_OK);
    assert_true(fabs(s.shift) < 1);
    assert_true(fabs(s.tail_up - 0.2) < 0.01);
    assert_true(s.tail_down < 0.01);
    assert_true(fabs(s.tail_shift - 90) < 2);
    /* Noise alone: both tails about empty (8 cycles are 2.8 sd of a
     * pair's difference), and no tail median. */
    assert_true(f.tail_up < 0.02 && f.tail_down < 0.02);
    assert_true(f.tail_up > 0 || f.tail_shift == 0);
    free(ref);
    free(part);
    free(flat);
}

static void test_reference_shorter_than_its_chain(void **state)
{
    (void)state;
    /* The reference timed only its first 100 elements of 1000: only those
     * pair, once each per lap of the test chain. */
    double *ref = chain(100, 1000, near_far, 7, 0, 0, 0, 6);
    double *x = chain(300, 150, near_far, 7, 5, 0, 0, 7);
    mt_paired_shift s;
    assert_int_equal(mt_paired_shift_cyclic(ref, 100, 1000, x, 300, 150, &s), MT_OK);
    assert_int_equal(s.pairs, 200);
    assert_true(s.shift == 5);
    free(ref);
    free(x);
}

static void test_too_few_pairs(void **state)
{
    (void)state;
    double v[32] = {0};
    mt_paired_shift s;
    assert_int_equal(mt_paired_shift_cyclic(v, 32, 4, v, MT_PAIRED_SHIFT_MIN_PAIRS - 1, 8, &s),
                     MT_ERR_INVALID_ARG);
    assert_int_equal(mt_paired_shift_cyclic(v, 32, 0, v, 32, 8, &s), MT_ERR_INVALID_ARG);
    assert_int_equal(mt_paired_shift_cyclic(v, 32, 4, v, 32, 0, &s), MT_ERR_INVALID_ARG);
    assert_int_equal(mt_paired_shift_cyclic(v, 0, 4, v, 32, 8, &s), MT_ERR_INVALID_ARG);
    /* Exactly the minimum pairs. */
    assert_int_equal(mt_paired_shift_cyclic(v, 32, 4, v, 32, 8, &s), MT_OK);
    assert_int_equal(s.pairs, MT_PAIRED_SHIFT_MIN_PAIRS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_step),
        cmocka_unit_test(test_noise_and_spikes),
        cmocka_unit_test(test_tails),
        cmocka_unit_test(test_reference_shorter_than_its_chain),
        cmocka_unit_test(test_too_few_pairs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

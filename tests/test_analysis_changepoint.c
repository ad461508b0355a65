/* Opt, KS-confirmed change points, geometric reduction and the capacity
 * sweep built from them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "analysis/analysis.h"
#include "analysis/thresholds.h"
#include "analysis_synth.h"

static void opt_thesis_example(void **state)
{
    (void)state;
    /* Thesis 3.3.4: (1,1,1,1,4,5,6,7).  Split at 4: 0 + (2.25+.25+.25+2.25). */
    const double x[] = {1, 1, 1, 1, 4, 5, 6, 7};
    size_t tau = 0;
    double cost = -1;
    assert_int_equal(mt_opt_changepoint(x, 8, &tau, &cost), MT_OK);
    assert_int_equal(tau, 4);
    assert_float_equal(cost, 5.0, 1e-12);
}

static void opt_exact_step_and_minimum_size(void **state)
{
    (void)state;
    double x[20];
    for (int i = 0; i < 20; i++)
        x[i] = i < 13 ? 7.0 : 9.0;
    size_t tau = 0;
    double cost = -1;
    assert_int_equal(mt_opt_changepoint(x, 20, &tau, &cost), MT_OK);
    assert_int_equal(tau, 13);
    assert_float_equal(cost, 0.0, 1e-12);

    const double two[] = {1, 5};
    assert_int_equal(mt_opt_changepoint(two, 2, &tau, NULL), MT_OK);
    assert_int_equal(tau, 1);
    /* constant series: every split costs 0, the earliest wins */
    const double flat[] = {3, 3, 3, 3};
    assert_int_equal(mt_opt_changepoint(flat, 4, &tau, &cost), MT_OK);
    assert_int_equal(tau, 1);
    assert_float_equal(cost, 0.0, 0);
}

static void opt_noisy_step_within_one(void **state)
{
    (void)state;
    /* Step of 5 sigma at 37 of 64, 200 seeds. */
    double x[64];
    for (uint64_t s = 0; s < 200; s++) {
        mt_rng r = {.s = 100 + s};
        synth_fill(&r, x, 64, 100.0, 2.0);
        for (int i = 37; i < 64; i++)
            x[i] += 10.0;
        size_t tau = 0;
        assert_int_equal(mt_opt_changepoint(x, 64, &tau, NULL), MT_OK);
        assert_true(tau >= 36 && tau <= 38);
    }
}

static void opt_large_offset(void **state)
{
    (void)state;
    /* A step of 1 on top of 1e9: only the centred sums resolve it. */
    double x[40];
    mt_rng r = {.s = 4};
    synth_fill(&r, x, 40, 1e9, 0.05);
    for (int i = 25; i < 40; i++)
        x[i] += 1.0;
    size_t tau = 0;
    assert_int_equal(mt_opt_changepoint(x, 40, &tau, NULL), MT_OK);
    assert_int_equal(tau, 25);
}

static void opt_invalid_args(void **state)
{
    (void)state;
    const double x[] = {1, 2};
    size_t tau;
    assert_int_equal(mt_opt_changepoint(x, 1, &tau, NULL), MT_ERR_INVALID_ARG);
    assert_int_equal(mt_opt_changepoint(NULL, 2, &tau, NULL), MT_ERR_INVALID_ARG);
    assert_int_equal(mt_opt_changepoint(x, 2, NULL, NULL), MT_ERR_INVALID_ARG);
}

static void detect_finds_step(void **state)
{
    (void)state;
    double x[64];
    for (uint64_t s = 0; s < 50; s++) {
        mt_rng r = {.s = 500 + s};
        synth_fill(&r, x, 64, 100.0, 2.0);
        for (int i = 41; i < 64; i++)
            x[i] += 10.0;
        mt_changepoint cp;
        assert_int_equal(mt_detect_changepoint(x, 64, MT_KS_ALPHA, &cp), MT_OK);
        assert_true(cp.found);
        assert_true(cp.index >= 40 && cp.index <= 42);
        assert_true(cp.ks.reject);
        assert_int_equal(cp.ks.n1 + cp.ks.n2, 64);
        assert_int_equal(cp.ks.n1, cp.index);
        assert_true(cp.ks.p_value < MT_KS_ALPHA);
    }
}

static void detect_no_change_rarely_found(void **state)
{
    (void)state;
    /* Pure noise.  Opt picks the best split, so KS on its segments rejects
     * somewhat more often than alpha (selection effect; measured about
     * 0.25 % at n = 32 over 20000 series).  Over 300 series, more than 3
     * false changes (1 %) would mean the confirmation is broken. */
    double x[32];
    int found = 0, found_int = 0;
    for (uint64_t s = 0; s < 300; s++) {
        mt_rng r = {.s = 7000 + s};
        synth_fill(&r, x, 32, 100.0, 2.0);
        mt_changepoint cp;
        assert_int_equal(mt_detect_changepoint(x, 32, MT_KS_ALPHA, &cp), MT_OK);
        found += cp.found;
        /* integer-valued latencies (ties everywhere) */
        for (int i = 0; i < 32; i++)
            x[i] = round(x[i]);
        assert_int_equal(mt_detect_changepoint(x, 32, MT_KS_ALPHA, &cp), MT_OK);
        found_int += cp.found;
    }
    assert_true(found <= 3);
    assert_true(found_int <= 3);
}

static void detect_spikes_are_not_changes(void **state)
{
    (void)state;
    /* A few huge outliers pull Opt towards them (L2 cost), but the two
     * segments still have the same distribution apart from single values,
     * and KS (rank based) weighs a 1e5 spike like any other single value.
     * Only when Opt cuts off a short segment that holds several spikes can
     * KS see a real difference (measured: 0.07 % of series, n = 64, three
     * spikes).  Over 500 series more than 5 (1 %) would be a regression. */
    double x[64];
    int found = 0;
    for (uint64_t s = 0; s < 500; s++) {
        mt_rng r = {.s = 900 + s};
        synth_fill(&r, x, 64, 100.0, 2.0);
        for (int k = 0; k < 3; k++)
            x[mt_rng_below(&r, 64)] += 1e5;
        mt_changepoint cp;
        assert_int_equal(mt_detect_changepoint(x, 64, MT_KS_ALPHA, &cp), MT_OK);
        found += cp.found;
    }
    assert_true(found <= 5);
    /* one spike in the middle: Opt does put its split at the spike */
    mt_rng r = {.s = 1};
    synth_fill(&r, x, 64, 100.0, 2.0);
    x[30] = 1e6;
    mt_changepoint cp;
    assert_int_equal(mt_detect_changepoint(x, 64, MT_KS_ALPHA, &cp), MT_OK);
    assert_true(cp.index == 30 || cp.index == 31);
    assert_false(cp.found);
}

static void detect_tiny_series(void **state)
{
    (void)state;
    mt_changepoint cp;
    const double two[] = {0, 10};
    assert_int_equal(mt_detect_changepoint(two, 2, MT_KS_ALPHA, &cp), MT_OK);
    assert_false(cp.found);
    assert_int_equal(cp.index, 1);
    /* With a lax alpha KS alone would accept a 2 + 1 split (D = 1 >
     * d_crit = 0.77), but three points are too few to call a change. */
    const double three[] = {0, 0, 10};
    assert_int_equal(mt_detect_changepoint(three, 3, 0.9, &cp), MT_OK);
    assert_true(cp.ks.reject);
    assert_false(cp.found);
    assert_int_equal(mt_detect_changepoint(three, 1, MT_KS_ALPHA, &cp), MT_ERR_INVALID_ARG);
    assert_int_equal(mt_detect_changepoint(three, 3, 0.0, &cp), MT_ERR_INVALID_ARG);
    assert_int_equal(mt_detect_changepoint(three, 3, MT_KS_ALPHA, NULL), MT_ERR_INVALID_ARG);
}

static void reduce_hand_computed(void **state)
{
    (void)state;
    const double m[] = {3, 3,
                        3, 4,
                        0, 0};
    double out[3], ang[3];
    assert_int_equal(mt_reduce_geometric(m, 3, 2, out, ang), MT_OK);
    assert_float_equal(out[0], 0.0, 0);
    assert_float_equal(out[1], 1.0 / sqrt(2.0), 1e-15);
    assert_float_equal(out[2], 3.0, 1e-15); /* sqrt(9 + 9) / sqrt(2) */
    assert_float_equal(ang[0], 0.0, 1e-7);
    assert_float_equal(ang[1], acos(7.0 / (5.0 * sqrt(2.0))), 1e-12);
    assert_float_equal(ang[2], 0.0, 0); /* zero row: defined as 0 */
    /* angle output is optional */
    assert_int_equal(mt_reduce_geometric(m, 3, 2, out, NULL), MT_OK);
}

static void reduce_miss_fraction_rows(void **state)
{
    (void)state;
    /* Hits at 30, misses at 330: a row with miss fraction f is sqrt(f)*300
     * from the reference; row 0 has one outlier that the median ignores. */
    enum { R = 5, C = 100 };
    static double m[R * C];
    const double frac[R] = {0.0, 0.0, 0.04, 0.25, 1.0};
    for (int i = 0; i < R; i++)
        for (int k = 0; k < C; k++)
            m[i * C + k] = k < frac[i] * C ? 330.0 : 30.0;
    m[7] = 5000.0; /* outlier in row 0 */
    double out[R];
    assert_int_equal(mt_reduce_geometric(m, R, C, out, NULL), MT_OK);
    assert_float_equal(out[0], 4970.0 / 10.0, 1e-9);
    assert_float_equal(out[1], 0.0, 0);
    assert_float_equal(out[2], 0.2 * 300.0, 1e-9);
    assert_float_equal(out[3], 0.5 * 300.0, 1e-9);
    assert_float_equal(out[4], 300.0, 1e-9);
}

static void reduce_invalid_args(void **state)
{
    (void)state;
    const double m[] = {1};
    double out[1];
    assert_int_equal(mt_reduce_geometric(NULL, 1, 1, out, NULL), MT_ERR_INVALID_ARG);
    assert_int_equal(mt_reduce_geometric(m, 0, 1, out, NULL), MT_ERR_INVALID_ARG);
    assert_int_equal(mt_reduce_geometric(m, 1, 0, out, NULL), MT_ERR_INVALID_ARG);
    assert_int_equal(mt_reduce_geometric(m, 1, 1, NULL, NULL), MT_ERR_INVALID_ARG);
}

enum { SWEEP_ROWS = 32, SWEEP_COLS = 256 };

/* Footprints 1..32 KiB; rows 0..19 (<= 20 KiB) all hits at 30 +- 1 cycles;
 * beyond, each load misses (300 +- 10) with probability frac(row). */
static void make_sweep(uint64_t seed, int ramp, double *m, uint64_t *fp)
{
    mt_rng r = {.s = seed};
    for (int i = 0; i < SWEEP_ROWS; i++) {
        fp[i] = 1024u * (uint64_t)(i + 1);
        double f = i < 20 ? 0.0 : (ramp ? (i - 19) / 12.0 : 0.4);
        for (int k = 0; k < SWEEP_COLS; k++)
            m[i * SWEEP_COLS + k] = mt_rng_uniform(&r) < f ? 300.0 + 10.0 * synth_gauss(&r)
                                                          : 30.0 + synth_gauss(&r);
    }
}

static void capacity_step(void **state)
{
    (void)state;
    static double m[SWEEP_ROWS * SWEEP_COLS];
    uint64_t fp[SWEEP_ROWS];
    for (uint64_t s = 0; s < 5; s++) {
        make_sweep(40 + s, 0, m, fp);
        mt_capacity cap;
        assert_int_equal(mt_capacity_from_sweep(fp, m, SWEEP_ROWS, SWEEP_COLS, MT_KS_ALPHA, &cap),
                         MT_OK);
        assert_true(cap.found);
        assert_int_equal(cap.lo, 20480);
        assert_int_equal(cap.hi, 21504);
        assert_int_equal(cap.cp.index, 20);
    }
}

static void capacity_ramp_is_late_by_a_few_rows(void **state)
{
    (void)state;
    /* Misses growing by 1/12 per row: Opt splits where the L2 cost is
     * lowest, a row or two into the ramp.  (The first eviction is the job
     * of mt_miss_excess_test.) */
    static double m[SWEEP_ROWS * SWEEP_COLS];
    uint64_t fp[SWEEP_ROWS];
    for (uint64_t s = 0; s < 5; s++) {
        make_sweep(60 + s, 1, m, fp);
        mt_capacity cap;
        assert_int_equal(mt_capacity_from_sweep(fp, m, SWEEP_ROWS, SWEEP_COLS, MT_KS_ALPHA, &cap),
                         MT_OK);
        assert_true(cap.found);
        assert_true(cap.lo >= 20480 && cap.lo <= 23552);
        assert_int_equal(cap.hi, cap.lo + 1024);
    }
}

static void capacity_no_change(void **state)
{
    (void)state;
    static double m[SWEEP_ROWS * SWEEP_COLS];
    uint64_t fp[SWEEP_ROWS];
    mt_rng r = {.s = 8};
    for (int i = 0; i < SWEEP_ROWS; i++)
        fp[i] = 1024u * (uint64_t)(i + 1);
    synth_fill(&r, m, SWEEP_ROWS * SWEEP_COLS, 30.0, 1.0);
    mt_capacity cap;
    assert_int_equal(mt_capacity_from_sweep(fp, m, SWEEP_ROWS, SWEEP_COLS, MT_KS_ALPHA, &cap),
                     MT_OK);
    assert_false(cap.found);
    assert_int_equal(cap.lo, 0);
    assert_int_equal(cap.hi, 0);
}

static void capacity_invalid_args(void **state)
{
    (void)state;
    const double m[6] = {1, 1, 1, 1, 1, 1};
    const uint64_t fp[3] = {1, 2, 3}, bad[3] = {1, 3, 3};
    mt_capacity cap;
    assert_int_equal(mt_capacity_from_sweep(fp, m, 2, 3, MT_KS_ALPHA, &cap), MT_ERR_INVALID_ARG);
    assert_int_equal(mt_capacity_from_sweep(bad, m, 3, 2, MT_KS_ALPHA, &cap), MT_ERR_INVALID_ARG);
    assert_int_equal(mt_capacity_from_sweep(fp, m, 3, 0, MT_KS_ALPHA, &cap), MT_ERR_INVALID_ARG);
    assert_int_equal(mt_capacity_from_sweep(NULL, m, 3, 2, MT_KS_ALPHA, &cap), MT_ERR_INVALID_ARG);
    assert_int_equal(mt_capacity_from_sweep(fp, m, 3, 2, 2.0, &cap), MT_ERR_INVALID_ARG);
    assert_int_equal(mt_capacity_from_sweep(fp, m, 3, 2, MT_KS_ALPHA, NULL), MT_ERR_INVALID_ARG);
    /* three rows is enough to run (and find nothing) */
    assert_int_equal(mt_capacity_from_sweep(fp, m, 3, 2, MT_KS_ALPHA, &cap), MT_OK);
    assert_false(cap.found);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(opt_thesis_example),
        cmocka_unit_test(opt_exact_step_and_minimum_size),
        cmocka_unit_test(opt_noisy_step_within_one),
        cmocka_unit_test(opt_large_offset),
        cmocka_unit_test(opt_invalid_args),
        cmocka_unit_test(detect_finds_step),
        cmocka_unit_test(detect_no_change_rarely_found),
        cmocka_unit_test(detect_spikes_are_not_changes),
        cmocka_unit_test(detect_tiny_series),
        cmocka_unit_test(reduce_hand_computed),
        cmocka_unit_test(reduce_miss_fraction_rows),
        cmocka_unit_test(reduce_invalid_args),
        cmocka_unit_test(capacity_step),
        cmocka_unit_test(capacity_ramp_is_late_by_a_few_rows),
        cmocka_unit_test(capacity_no_change),
        cmocka_unit_test(capacity_invalid_args),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

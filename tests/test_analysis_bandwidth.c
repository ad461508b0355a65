/* Bandwidth and MLP analysis (src/analysis/bandwidth.h). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "analysis/bandwidth.h"

static void slope_cancels_the_fixed_cost(void **state)
{
    (void)state;
    /* 1000 cycles of launch plus 2 bytes per cycle. */
    double c1 = 1000 + 4096 / 2.0, c2 = 1000 + 8192 / 2.0;
    assert_true(fabs(mt_bw_slope(4096, c1, 8192, c2) - 2.0) < 1e-12);
    assert_true(isnan(mt_bw_slope(4096, 500, 8192, 500)));
    assert_true(isnan(mt_bw_slope(4096, 600, 8192, 500)));
}

static void best_and_still_rising(void **state)
{
    (void)state;
    size_t best;
    int rising;
    /* Capped at 100 from 4 KiB in flight on: not rising. */
    double inflight[] = {1024, 2048, 4096, 8192, 16384};
    double capped[] = {25, 50, 100, 100.5, 99.8};
    assert_int_equal(mt_bw_best(inflight, capped, 5, &best, &rising), MT_OK);
    assert_int_equal(best, 3);
    assert_int_equal(rising, 0);
    /* Latency-bound throughout: the top doubles the half. */
    double linear[] = {10, 20, 40, 80, 160};
    assert_int_equal(mt_bw_best(inflight, linear, 5, &best, &rising), MT_OK);
    assert_int_equal(best, 4);
    assert_int_equal(rising, 1);
    /* A rise of 2% stays below MT_BW_RISE_SHARE; 4% does not. */
    double two[] = {100, 100, 100, 100, 102};
    assert_int_equal(mt_bw_best(inflight, two, 5, &best, &rising), MT_OK);
    assert_int_equal(rising, 0);
    double four[] = {100, 100, 100, 100, 104};
    assert_int_equal(mt_bw_best(inflight, four, 5, &best, &rising), MT_OK);
    assert_int_equal(rising, 1);
    /* Nothing at half the top: the top was never compared. */
    double one_in[] = {4096}, one_r[] = {7};
    assert_int_equal(mt_bw_best(one_in, one_r, 1, &best, &rising), MT_OK);
    assert_int_equal(rising, 1);
    double bad[] = {1, NAN};
    assert_int_equal(mt_bw_best(inflight, bad, 2, &best, &rising), MT_ERR_INVALID_ARG);
    assert_int_equal(mt_bw_best(inflight, bad, 0, &best, &rising), MT_ERR_INVALID_ARG);
}

/* Rates of a sweep whose SM keeps min(k, cap) loads in flight at
 * latency lat. */
static void sweep(double cap, double lat, const double *k, size_t n, double *rate)
{
    for (size_t i = 0; i < n; i++)
        rate[i] = fmin(k[i], cap) / lat;
}

static void mlp_saturates_at_the_cap(void **state)
{
    (void)state;
    double k[] = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024};
    double r[11];
    mt_mlp_fit fit;
    sweep(300, 690, k, 11, r);
    assert_int_equal(mt_mlp_from_sweep(k, r, 11, &fit), MT_OK);
    assert_true(fabs(fit.mlp - 300) < 1e-9);
    assert_true(fit.saturated);
    assert_true(fit.at_chases == 512);
    /* A power of two: the plateau starts where it is reached. */
    sweep(512, 270, k, 11, r);
    assert_int_equal(mt_mlp_from_sweep(k, r, 11, &fit), MT_OK);
    assert_true(fabs(fit.mlp - 512) < 1e-9);
    assert_true(fit.at_chases == 512);
    assert_true(fit.saturated);
    /* Just above a sweep point: 512 chases all in flight are within the
     * plateau's tolerance of 519 but only bound it; the MLP is 519. */
    sweep(519, 560, k, 11, r);
    assert_int_equal(mt_mlp_from_sweep(k, r, 11, &fit), MT_OK);
    assert_true(fabs(fit.mlp - 519) < 1e-9);
    assert_true(fit.saturated);
}

static void mlp_beyond_the_sweep_is_not_saturated(void **state)
{
    (void)state;
    double k[] = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024};
    double r[11];
    mt_mlp_fit fit;
    sweep(5000, 500, k, 11, r);
    assert_int_equal(mt_mlp_from_sweep(k, r, 11, &fit), MT_OK);
    assert_false(fit.saturated);
    assert_true(fabs(fit.mlp - 1024) < 1e-9);
    /* 95% of the chases in flight is still the rise. */
    sweep(0.95 * 1024, 500, k, 11, r);
    assert_int_equal(mt_mlp_from_sweep(k, r, 11, &fit), MT_OK);
    assert_false(fit.saturated);
}

static void mlp_rejects_bad_sweeps(void **state)
{
    (void)state;
    mt_mlp_fit fit;
    double k[] = {1, 2}, r[] = {1, 2};
    assert_int_equal(mt_mlp_from_sweep(k, r, 1, &fit), MT_ERR_INVALID_ARG);
    double k2[] = {2, 4};
    assert_int_equal(mt_mlp_from_sweep(k2, r, 2, &fit), MT_ERR_INVALID_ARG);
    double r0[] = {1, 0};
    assert_int_equal(mt_mlp_from_sweep(k, r0, 2, &fit), MT_ERR_INVALID_ARG);
    double kdown[] = {1, 1};
    assert_int_equal(mt_mlp_from_sweep(kdown, r, 2, &fit), MT_ERR_INVALID_ARG);
}

static void dram_peak_from_the_attributes(void **state)
{
    (void)state;
    /* H100 SXM5: 5120-bit bus at 2619 MHz: 3352.32 GB/s. */
    assert_true(fabs(mt_dram_peak_gbps(5120, 2619000) - 3352.32) < 1e-6);
    assert_true(mt_dram_peak_gbps(0, 2619000) == 0);
    assert_true(mt_dram_peak_gbps(5120, 0) == 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(slope_cancels_the_fixed_cost),
        cmocka_unit_test(best_and_still_rising),
        cmocka_unit_test(mlp_saturates_at_the_cap),
        cmocka_unit_test(mlp_beyond_the_sweep_is_not_saturated),
        cmocka_unit_test(mlp_rejects_bad_sweeps),
        cmocka_unit_test(dram_peak_from_the_attributes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

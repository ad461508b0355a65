/* The plot data collector and its observing backend (src/report/plot_data.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "report/plot_data.h"
#include "report/plot_render.h"

/* A fine chase result whose samples are cycles[0..n-1]. */
static mt_result result_of(const uint32_t *cycles, uint32_t n)
{
    mt_result r = {.sm_ran = 0};
    r.cycles[0] = malloc(n * sizeof(uint32_t));
    memcpy(r.cycles[0], cycles, n * sizeof(uint32_t));
    r.n[0] = n;
    return r;
}

static void test_point_and_histogram(void **state)
{
    (void)state;
    mt_plot_data *pd = mt_plot_data_new();
    assert_non_null(pd);
    mt_experiment e = mt_exp_chase(MT_PATH_GLOBAL_CA, 65536, 32, 1, 4, MT_MODE_FINE);
    const uint32_t c[] = {30, 34, 300, 34};
    mt_result r = result_of(c, 4);
    mt_errinfo ei;
    assert_int_equal(mt_plot_data_add(pd, &e, &r, &ei), MT_OK);
    const mt_plot_series *s = &pd->path[MT_PATH_GLOBAL_CA];
    assert_int_equal(s->n_points, 1);
    assert_int_equal(s->points[0].footprint, 65536);
    assert_int_equal(s->points[0].stride, 32);
    assert_true(s->points[0].median == 34.0); /* median of 30, 34, 34, 300 */
    assert_int_equal(s->n_samples, 4);
    assert_int_equal(s->hist[34], 2);
    assert_int_equal(s->hist[30], 1);
    assert_int_equal(s->hist[300], 1);
    /* A sample beyond the last bin counts in the last one. */
    const uint32_t slow[] = {100000, 5};
    mt_result r2 = result_of(slow, 2);
    assert_int_equal(mt_plot_data_add(pd, &e, &r2, &ei), MT_OK);
    assert_int_equal(s->hist[MT_PLOT_HIST_BINS - 1], 1);
    assert_int_equal(s->n_points, 2);
    mt_result_free(&r);
    mt_result_free(&r2);
    mt_plot_data_free(pd);
}

/* Only single-chain fine chases are plotted; one at a requested carveout
 * goes to the carveout series. */
static void test_left_out(void **state)
{
    (void)state;
    mt_plot_data *pd = mt_plot_data_new();
    const uint32_t c[] = {40, 41, 42};
    mt_result r = result_of(c, 3);
    mt_errinfo ei;
    mt_experiment agg = mt_exp_chase(MT_PATH_GLOBAL_CA, 4096, 32, 1, 3, MT_MODE_AGGREGATE);
    mt_experiment two = mt_exp_chase(MT_PATH_TEXTURE, 4096, 32, 1, 3, MT_MODE_FINE);
    two.n_chains = 2;
    two.chain[1] = two.chain[0];
    mt_experiment carve =
        mt_exp_with_carveout(mt_exp_chase(MT_PATH_GLOBAL_CA, 4096, 32, 1, 3, MT_MODE_FINE), 50);
    mt_experiment none = mt_exp_chase(MT_PATH_NONE, 4096, 4, 1, 3, MT_MODE_FINE);
    mt_experiment clock = mt_exp_clock(100000, 0);
    const mt_experiment *all[] = {&agg, &two, &carve, &none, &clock};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        assert_int_equal(mt_plot_data_add(pd, all[i], &r, &ei), MT_OK);
    for (int p = 0; p < MT_PATH_COUNT; p++) {
        assert_int_equal(pd->path[p].n_points, 0);
        assert_int_equal(pd->path[p].n_samples, 0);
    }
    /* The chase at a requested carveout is kept apart, with its carveout. */
    assert_int_equal(pd->carveout.n_points, 1);
    assert_int_equal(pd->carveout.points[0].carveout, 50);
    assert_true(pd->carveout.points[0].median == 41.0);
    /* At the default carveout a point says so. */
    mt_experiment plain = mt_exp_chase(MT_PATH_GLOBAL_CA, 4096, 32, 1, 3, MT_MODE_FINE);
    assert_int_equal(mt_plot_data_add(pd, &plain, &r, &ei), MT_OK);
    assert_int_equal(pd->path[MT_PATH_GLOBAL_CA].points[0].carveout, -1);
    mt_result_free(&r);
    mt_plot_data_free(pd);
}

/* ---- a fake backend: fixed samples, counts its destruction ---- */
static int fake_destroyed;
static mt_err fake_info(mt_backend *b, mt_device_info *out, mt_errinfo *ei)
{
    (void)b, (void)ei;
    memset(out, 0, sizeof *out);
    return MT_OK;
}
static mt_err fake_run(mt_backend *b, const mt_experiment *exps, size_t n, mt_result *out,
                       mt_errinfo *ei)
{
    (void)b, (void)ei;
    for (size_t i = 0; i < n; i++) {
        memset(&out[i], 0, sizeof out[i]);
        out[i].n[0] = exps[i].loads;
        out[i].cycles[0] = calloc(exps[i].loads, sizeof(uint32_t));
        for (uint32_t k = 0; k < exps[i].loads; k++)
            out[i].cycles[0][k] = 50 + (uint32_t)i;
    }
    return MT_OK;
}
static void fake_destroy(mt_backend *b)
{
    (void)b;
    fake_destroyed++;
}
static const mt_backend_ops fake_ops = {.api_version = MT_BACKEND_API_VERSION, .name = "fake",
                                        .caps = MT_CAP_CHASE, .get_info = fake_info,
                                        .run_batch = fake_run, .destroy = fake_destroy};

static void test_observer(void **state)
{
    (void)state;
    mt_backend fake = {.ops = &fake_ops, .impl = NULL};
    mt_plot_data *pd = mt_plot_data_new();
    mt_backend *obs = NULL;
    mt_errinfo ei;
    assert_int_equal(mt_plot_observe_wrap(&fake, pd, &obs, &ei), MT_OK);
    assert_string_equal(obs->ops->name, "fake");
    assert_int_equal(obs->ops->caps, MT_CAP_CHASE);
    mt_experiment e[2] = {mt_exp_chase(MT_PATH_GLOBAL_NC, 8192, 64, 1, 8, MT_MODE_FINE),
                          mt_exp_chase(MT_PATH_GLOBAL_NC, 16384, 64, 1, 8, MT_MODE_FINE)};
    mt_result r[2];
    assert_int_equal(mt_backend_run(obs, e, 2, r, &ei), MT_OK);
    /* The results pass through unchanged, and each one was collected. */
    assert_int_equal(r[1].cycles[0][0], 51);
    const mt_plot_series *s = &pd->path[MT_PATH_GLOBAL_NC];
    assert_int_equal(s->n_points, 2);
    assert_true(s->points[0].median == 50.0 && s->points[1].median == 51.0);
    assert_int_equal(s->points[1].footprint, 16384);
    assert_int_equal(s->hist[50], 8);
    mt_result_free(&r[0]);
    mt_result_free(&r[1]);
    fake_destroyed = 0;
    mt_backend_destroy(obs);
    assert_int_equal(fake_destroyed, 1); /* the wrapper owns inner */
    mt_plot_data_free(pd);
}

/* The names a plot directory may hold cover what the renderer writes. */
static void test_plot_files(void **state)
{
    (void)state;
    const char *const *f = mt_plot_files();
    int latency_svg = 0, gp = 0, n = 0;
    for (; f[n]; n++) {
        latency_svg += strcmp(f[n], "l1d-latency.svg") == 0;
        gp += strcmp(f[n], "plots.gp") == 0;
    }
    assert_int_equal(latency_svg, 1);
    assert_int_equal(gp, 1);
    assert_true(n > 10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_point_and_histogram),
        cmocka_unit_test(test_left_out),
        cmocka_unit_test(test_observer),
        cmocka_unit_test(test_plot_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

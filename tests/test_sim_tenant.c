/* The simulator's [tenant] (docs/spec-format.md): parsing, when it is
 * active, and what it does to an experiment's samples. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/interference.h"
#include "backend/backend.h"
#include "sim/sim.h"
#include "sim/spec.h"

/* The a100 preset's text plus a [tenant] section. */
static mt_err open_with(const char *tenant, mt_backend **be, mt_errinfo *ei)
{
    const char *base = mt_sim_preset_text("a100");
    assert_non_null(base);
    size_t n = strlen(base) + strlen(tenant) + 2;
    char *text = malloc(n);
    assert_non_null(text);
    snprintf(text, n, "%s\n%s", base, tenant);
    mt_err err = mt_backend_sim_open_text(text, "tenant.spec", be, ei);
    free(text);
    return err;
}

static void parse_errors_name_the_line(void **state)
{
    (void)state;
    mt_backend *be = NULL;
    mt_errinfo ei = {{0}};
    assert_int_equal(open_with("[tenant]\nperiod = 4\n", &be, &ei), MT_ERR_SPEC_PARSE);
    assert_non_null(strstr(ei.msg, "period and active go together"));
    assert_int_equal(open_with("[tenant]\nstart_batch = 5\nstop_batch = 5\n", &be, &ei),
                     MT_ERR_SPEC_PARSE);
    assert_non_null(strstr(ei.msg, "stop_batch"));
    assert_int_equal(open_with("[tenant]\npids = 12 x\n", &be, &ei), MT_ERR_SPEC_PARSE);
    assert_non_null(strstr(ei.msg, "'x' is not a process id"));
    assert_int_equal(open_with("[tenant]\nlatency = 3\n", &be, &ei), MT_ERR_SPEC_PARSE);
    assert_non_null(strstr(ei.msg, "unknown key 'latency' in [tenant]"));
    assert_int_equal(open_with("[tenant]\n[tenant]\n", &be, &ei), MT_ERR_SPEC_PARSE);
    assert_non_null(strstr(ei.msg, "duplicate section [tenant]"));
}

static void activity_follows_the_batch_counter(void **state)
{
    (void)state;
    mt_sim_tenant_spec t;
    memset(&t, 0, sizeof t);
    assert_false(mt_sim_tenant_active(&t, 0)); /* no [tenant] */
    t.present = 1;
    assert_true(mt_sim_tenant_active(&t, 0));
    assert_true(mt_sim_tenant_active(&t, 100000));
    t.start_batch = 10;
    t.stop_batch = 30;
    t.period = 8;
    t.active_batches = 3;
    int on = 0;
    for (int b = 0; b < 40; b++)
        on += mt_sim_tenant_active(&t, b);
    /* Batches 10-12, 18-20, 26-28. */
    assert_int_equal(on, 9);
    assert_true(mt_sim_tenant_active(&t, 18));
    assert_false(mt_sim_tenant_active(&t, 21));
    assert_false(mt_sim_tenant_active(&t, 34));
}

/* Interquartile mean of an L2-resident cg chase (raw cycles). */
static double l2_chase(mt_backend *be)
{
    mt_experiment e = mt_exp_chase(MT_PATH_GLOBAL_CG, 1 << 20, 128, 1, 2048, MT_MODE_FINE);
    mt_result r;
    mt_errinfo ei;
    assert_int_equal(mt_backend_run(be, &e, 1, &r, &ei), MT_OK);
    double *x = malloc(r.n[0] * sizeof *x);
    assert_non_null(x);
    for (uint32_t k = 0; k < r.n[0]; k++)
        x[k] = r.cycles[0][k];
    double m = mt_interquartile_mean(x, r.n[0]);
    free(x);
    mt_result_free(&r);
    return m;
}

static void latency_and_evictions_while_active(void **state)
{
    (void)state;
    mt_backend *idle = NULL, *busy = NULL, *evict = NULL;
    mt_errinfo ei = {{0}};
    assert_int_equal(open_with("", &idle, &ei), MT_OK);
    /* Active in batches 1 and 2 only. */
    assert_int_equal(open_with("[tenant]\nstart_batch = 1\nstop_batch = 3\nl2_latency = 100\n"
                               "pids = 4242, 4243\n",
                               &busy, &ei),
                     MT_OK);
    assert_int_equal(open_with("[tenant]\nevict_every = 1\nevict_lines = 64\n", &evict, &ei),
                     MT_OK);
    double base = l2_chase(idle);
    mt_device_info d;
    assert_int_equal(mt_backend_info(busy, &d, &ei), MT_OK);
    assert_int_equal(d.other_processes, 2);
    assert_string_equal(d.other_process_list, "4242 sim-tenant, 4243 sim-tenant");
    assert_float_equal(l2_chase(busy), base, 1e-9); /* batch 0: not yet there */
    assert_int_equal(mt_backend_info(busy, &d, &ei), MT_OK);
    assert_int_equal(d.other_busy, 0);
    assert_float_equal(l2_chase(busy), base + 100, 1e-9); /* batch 1: every L2 hit +100 */
    assert_int_equal(mt_backend_info(busy, &d, &ei), MT_OK);
    assert_int_equal(d.other_busy, 2);
    assert_float_equal(l2_chase(busy), base + 100, 1e-9);
    assert_float_equal(l2_chase(busy), base, 1e-9); /* batch 3: gone, samples as idle */
    /* Its stream evicts part of a chain that fits the L2: DRAM-served
     * loads raise the middle of the distribution. */
    assert_true(l2_chase(evict) > base + 20);
    assert_int_equal(mt_backend_info(idle, &d, &ei), MT_OK);
    assert_int_equal(d.other_processes, 0);
    mt_backend_destroy(idle);
    mt_backend_destroy(busy);
    mt_backend_destroy(evict);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parse_errors_name_the_line),
        cmocka_unit_test(activity_follows_the_batch_counter),
        cmocka_unit_test(latency_and_evictions_while_active),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

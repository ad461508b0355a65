/* The simulator's clusters and bulk copies (src/sim/spec_cluster.c,
 * src/sim/cluster_model.c; docs/spec-format.md "Clusters and TMA"): the
 * [cluster] section's keys and limits, and the MT_KIND_CLUSTER
 * experiments the model answers. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backend/backend.h"
#include "sim/cluster_model.h"
#include "sim/stream_model.h"
#include "sim/sim.h"
#include "sim/spec.h"

#define BASE_SPEC "tests/specs-cluster/cluster-pairs-only.spec"

/* The base spec up to its [cluster] section, `device_sub` replacing
 * "compute_capability = 9.0" when given, then `cluster` (the section's
 * text, header included, or ""). */
static mt_err parse_with(const char *cluster, const char *cc, mt_sim_spec *out, mt_errinfo *ei)
{
    FILE *f = fopen(BASE_SPEC, "r");
    assert_non_null(f);
    static char base[16384];
    size_t n = fread(base, 1, sizeof base - 1, f);
    fclose(f);
    base[n] = '\0';
    char *cut = strstr(base, "[cluster]");
    assert_non_null(cut);
    *cut = '\0';
    char *at = strstr(base, "compute_capability = 9.0");
    assert_non_null(at);
    static char text[20000];
    snprintf(text, sizeof text, "%.*scompute_capability = %s%s%s", (int)(at - base), base,
             cc ? cc : "9.0", at + strlen("compute_capability = 9.0"), cluster);
    return mt_sim_spec_parse(text, "cluster.spec", out, ei);
}

#define GOOD                                                                                      \
    "[cluster]\nmax_size = 16\nremote_latency = 180\nlink_bw = 20\ntma_latency = 400\n"          \
    "tma_bw = 40\ncopy_latency = 300\ncopy_bw = 12\n"

static void keys_and_defaults(void **state)
{
    (void)state;
    mt_sim_spec *s = calloc(1, sizeof *s);
    mt_errinfo ei = {{0}};
    assert_int_equal(parse_with(GOOD, NULL, s, &ei), MT_OK);
    assert_true(s->cluster.present);
    assert_int_equal(s->cluster.max_size, 16);
    assert_int_equal(s->cluster.portable_size, 8); /* default: min(8, max_size) */
    assert_true(s->cluster.remote_latency == 180);
    assert_true(s->cluster.remote_noise == s->shared.noise); /* 5 <= 180 / 8 */
    mt_device_info d;
    mt_sim_spec_device_info(s, &d);
    assert_int_equal(d.max_cluster_size, 16);
    assert_int_equal(d.max_cluster_size_portable, 8);
    /* Without the section: no clusters. */
    assert_int_equal(parse_with("", NULL, s, &ei), MT_OK);
    assert_false(s->cluster.present);
    mt_sim_spec_device_info(s, &d);
    assert_int_equal(d.max_cluster_size, 0);
    free(s);
}

static void refusals(void **state)
{
    (void)state;
    static const struct {
        const char *text, *cc, *msg;
    } bad[] = {
        {GOOD, "8.0", "compute_capability 9.0 or later"},
        {GOOD "max_size = 8\n", NULL, "duplicate key"},
        {"[cluster]\nmax_size = 17\n", NULL, "max_size"},
        {"[cluster]\nmax_size = 4\nportable_size = 8\n", NULL, "portable_size 8 exceeds"},
        {"[cluster]\nmax_size = 4\nremote_latency = 16\nremote_noise = 3\nlink_bw = 8\n"
         "tma_latency = 1\ntma_bw = 1\ncopy_latency = 1\ncopy_bw = 1\n",
         NULL, "remote_noise 3 exceeds"},
        {"[cluster]\nmax_size = 4\nremote_latency = 16\nlink_bw = 8\ntma_latency = 1\n"
         "tma_bw = 513\ncopy_latency = 1\ncopy_bw = 1\n",
         NULL, "tma_bw"},
        {"[cluster]\nmax_size = 4\nlink_bw = 8\n", NULL, "remote_latency"},
        {"[cluster]\nmax_size = 4\nspeed = 3\n", NULL, "unknown key 'speed' in [cluster]"},
        {"[cluster]\nlatency.tex = 3\n", NULL, "unknown key"},
        {GOOD "[cluster]\n", NULL, "duplicate section [cluster]"},
    };
    mt_sim_spec *s = calloc(1, sizeof *s);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        mt_errinfo ei = {{0}};
        if (parse_with(bad[i].text, bad[i].cc, s, &ei) != MT_ERR_SPEC_PARSE)
            fail_msg("case %zu parsed: %s", i, ei.msg);
        if (!strstr(ei.msg, bad[i].msg) || !strstr(ei.msg, "cluster.spec:"))
            fail_msg("case %zu: '%s' lacks '%s' or FILE:LINE", i, ei.msg, bad[i].msg);
    }
    free(s);
}

static void model(void **state)
{
    (void)state;
    mt_sim_spec *s = calloc(1, sizeof *s);
    mt_errinfo ei = {{0}};
    assert_int_equal(parse_with(GOOD, NULL, s, &ei), MT_OK);
    s->shared.noise = 0;
    s->cluster.remote_noise = 0;
    mt_backend *b;
    assert_int_equal(mt_backend_sim_from_spec(s, &b, &ei), MT_OK);
    assert_true(mt_backend_supports(b, MT_KIND_CLUSTER));
    mt_experiment e[4] = {
        mt_exp_cluster_chase(2, 1, 4096, 4, 1, 1000, MT_MODE_AGGREGATE),
        mt_exp_cluster_chase(16, 0, 4096, 4, 1, 1000, MT_MODE_AGGREGATE),
        mt_exp_cluster_stream(2, 1, 1024, 32 << 10, 100),
        mt_exp_cluster_copy(MT_CLUSTER_BULK_COPY, 1, 32, 4096, 10),
    };
    mt_result r[4];
    assert_int_equal(mt_backend_run(b, e, 4, r, &ei), MT_OK);
    /* loads x (latency + loop overhead), noise off */
    assert_int_equal(r[0].n[0], 1);
    assert_int_equal(r[0].cycles[0][0], 1000 * (180 + (uint32_t)s->loop_overhead));
    assert_int_equal(r[1].cycles[0][0], 1000 * (uint32_t)(s->shared.latency[0] + s->loop_overhead));
    /* streams and copies: the launch's start plus the busy time, 0.01% noise */
    assert_int_equal(r[2].n[0], 2);
    double want = MT_SIM_STREAM_START_CYCLES + 100.0 * 32768 / 20;
    assert_true(fabs(r[2].cycles[0][0] - want) < 1e-3 * want);
    want = MT_SIM_STREAM_START_CYCLES + 10 * mt_sim_cluster_copy_cycles(&s->cluster,
                                                                        MT_CLUSTER_BULK_COPY, 4096);
    assert_true(fabs(mt_sim_cluster_copy_cycles(&s->cluster, MT_CLUSTER_BULK_COPY, 4096) -
                     (400 + 4096 / 40.0)) < 1e-9);
    assert_true(fabs(r[3].cycles[0][0] - want) < 1e-3 * want);
    /* the ns sample at the spec's clock */
    assert_true(fabs(r[3].cycles[0][1] - r[3].cycles[0][0] * 1000.0 / s->clock_mhz) < 2);
    for (int i = 0; i < 4; i++)
        mt_result_free(&r[i]);
    /* a cluster larger than the spec's */
    e[0] = mt_exp_cluster_chase(2, 1, 4096, 4, 1, 1000, MT_MODE_AGGREGATE);
    e[0].u.cluster.cluster_size = 32;
    assert_int_equal(mt_backend_run(b, e, 1, r, &ei), MT_ERR_INVALID_ARG);
    mt_backend_destroy(b);

    /* Without [cluster]: the kind is not announced, and refused directly. */
    assert_int_equal(parse_with("", NULL, s, &ei), MT_OK);
    assert_int_equal(mt_backend_sim_from_spec(s, &b, &ei), MT_OK);
    assert_false(mt_backend_supports(b, MT_KIND_CLUSTER));
    e[0] = mt_exp_cluster_chase(2, 1, 4096, 4, 1, 1000, MT_MODE_AGGREGATE);
    assert_int_equal(b->ops->run_batch(b, e, 1, r, &ei), MT_ERR_UNSUPPORTED);
    mt_backend_destroy(b);
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(keys_and_defaults),
        cmocka_unit_test(refusals),
        cmocka_unit_test(model),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

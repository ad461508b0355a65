/* Links in the simulator and the recordings (issue 11 part 2): the
 * [link N] and [host_link] sections (values, defaults, limits, FILE:LINE
 * errors), the link experiments' shapes and hash, what the link model
 * returns (query fields, chase samples, bandwidth times), the capability,
 * and link experiments through a recording (record from the sim, replay). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backend/backend.h"
#include "recording/recording.h"
#include "sim/link_model.h"
#include "sim/sim.h"
#include "sim/spec.h"
#include "spec_error.h"
#include "tmpdir_fixture.h"

/* The turing preset, then `extra`. */
static mt_err parse(const char *extra, mt_sim_spec *out, mt_errinfo *ei)
{
    const char *base = mt_sim_preset_text("turing");
    assert_non_null(base);
    char *text = malloc(strlen(base) + strlen(extra) + 2);
    assert_non_null(text);
    sprintf(text, "%s\n%s", base, extra);
    mt_err err = mt_sim_spec_parse(text, "t.spec", out, ei);
    free(text);
    return err;
}

static void expect_error(const char *extra, const char *part)
{
    expect_spec_error(parse, "t.spec", extra, part);
}

#define BW "read_bandwidth = 20\nwrite_bandwidth = 22\ncopy_in_bandwidth = 24\n" \
           "copy_out_bandwidth = 26\n"
static const char links[] = "[host_link]\ntype = pcie\ngen = 4\nwidth = 16\nlatency = 1500\n" BW
                            "[link 3]\ntype = nvlink\nlinks = 4\nversion = 3\nlatency = 900\n"
                            "noise = 10\nperf_rank = 1\n" BW
                            "[link 5]\ntype = pcie\ngen = 3\nwidth = 8\npeer_access = no\n"
                            "latency = 2000\n" BW;

static void test_parse(void **state)
{
    (void)state;
    mt_sim_spec *s = malloc(sizeof *s);
    assert_non_null(s);
    mt_errinfo ei = {{0}};
    assert_int_equal(parse(links, s, &ei), MT_OK);
    assert_true(s->host_link.present && s->host_link.type == MT_LINK_TYPE_PCIE);
    assert_int_equal(s->host_link.pcie_gen, 4);
    assert_int_equal(s->host_link.pcie_width, 16);
    assert_true(s->host_link.latency == 1500 && s->host_link.read_gbps == 20 &&
                s->host_link.copy_out_gbps == 26);
    const mt_sim_link_spec *l = mt_sim_link_of(s, 3);
    assert_non_null(l);
    assert_int_equal(l->type, MT_LINK_TYPE_NVLINK);
    assert_int_equal(l->nvlinks, 4);
    assert_int_equal(l->nvlink_version, 3);
    /* Defaults: peer access, atomics on NVLink (off on PCIe), rank 0. */
    assert_true(l->peer_access && l->atomics && l->perf_rank == 1 && l->noise == 10);
    assert_false(mt_sim_link_of(s, 5)->peer_access);
    assert_false(mt_sim_link_of(s, 5)->atomics);
    assert_null(mt_sim_link_of(s, 4));
    assert_true(mt_sim_has_links(s));
    /* A preset has none. */
    assert_int_equal(mt_sim_spec_load("turing", s, &ei), MT_OK);
    assert_false(mt_sim_has_links(s));
    assert_null(mt_sim_link_of(s, MT_LINK_HOST));
    free(s);
}

static void test_parse_errors(void **state)
{
    (void)state;
    expect_error("[link]\ntype = pcie\n", "needs the peer GPU's index");
    expect_error("[link 16]\ntype = pcie\n", "0..15");
    expect_error("[link 01]\ntype = pcie\n", "0..15");
    expect_error("[link 1 2]\ntype = pcie\n", "unexpected '2'");
    expect_error("[host_link 1]\ntype = pcie\n", "unexpected '1'");
    expect_error("[host_link]\nlatency = 900\n", "missing required key 'type'");
    expect_error("[host_link]\ntype = infiniband\n", "unknown value 'infiniband'");
    expect_error("[host_link]\ntype = pcie\nwidth = 16\nlatency = 900\n" BW, "'gen'");
    expect_error("[host_link]\ntype = pcie\ngen = 7\nwidth = 16\nlatency = 900\n" BW, "gen");
    expect_error("[host_link]\ntype = pcie\ngen = 5\nwidth = 12\nlatency = 900\n" BW, "width = 12");
    expect_error("[host_link]\ntype = pcie\ngen = 5\nwidth = 16\nlinks = 2\n", "links is not a key");
    expect_error("[link 1]\ntype = nvlink\nlinks = 19\nversion = 4\n", "links");
    expect_error("[link 1]\ntype = nvlink\nlinks = 2\nversion = 6\n", "version");
    expect_error("[link 1]\ntype = nvlink\nlinks = 2\nversion = 4\nwidth = 16\n",
                 "width is not a key");
    expect_error("[host_link]\ntype = pcie\ngen = 5\nwidth = 16\npeer_access = no\n",
                 "peer_access is not a key of a host link");
    expect_error("[link 1]\ntype = pcie\ngen = 5\nwidth = 16\npeer_access = maybe\n", "maybe");
    expect_error("[host_link]\ntype = pcie\ngen = 5\nwidth = 16\nlatency = 40\n" BW, "latency");
    expect_error("[host_link]\ntype = pcie\ngen = 5\nwidth = 16\nlatency = 800\nnoise = 101\n" BW,
                 "latency / 8");
    expect_error("[host_link]\ntype = pcie\ngen = 5\nwidth = 16\nlatency = 800\n"
                 "read_bandwidth = 0.4\n", "read_bandwidth");
    expect_error("[host_link]\ntype = pcie\ngen = 5\nwidth = 16\nlatency = 800\n"
                 "read_bandwidth = 1\nwrite_bandwidth = 1\ncopy_in_bandwidth = 1\n",
                 "copy_out_bandwidth");
    expect_error("[host_link]\ntype = pcie\ngen = 5\nwidth = 16\nlatency.tex = 800\n",
                 "latency.tex");
    expect_error("[link 2]\ntype = pcie\n[link 2]\ntype = pcie\n", "duplicate section [link 2]");
}

static void test_shapes(void **state)
{
    (void)state;
    mt_device_info dev;
    memset(&dev, 0, sizeof dev);
    dev.sm_count = 8;
    dev.max_fine_loads = 4096;
    for (int p = 0; p < MT_PATH_COUNT; p++)
        dev.path_limit_bytes[p] = 1ull << 30;
    mt_errinfo ei = {{0}};
    mt_experiment q = mt_exp_link_query(MT_LINK_HOST), c = mt_exp_link_chase(2, 1 << 19, 2048, 1, 64),
                  b = mt_exp_link_bandwidth(MT_LINK_COPY_IN, 2, 1 << 24, 2);
    assert_int_equal(mt_experiment_check(&q, &dev, &ei), MT_OK);
    assert_int_equal(mt_experiment_check(&c, &dev, &ei), MT_OK);
    assert_int_equal(mt_experiment_check(&b, &dev, &ei), MT_OK);
    /* Each parameter is part of the experiment's identity. */
    mt_experiment b2 = mt_exp_link_bandwidth(MT_LINK_COPY_OUT, 2, 1 << 24, 2),
                  b3 = mt_exp_link_bandwidth(MT_LINK_COPY_IN, 3, 1 << 24, 2),
                  b4 = mt_exp_link_bandwidth(MT_LINK_COPY_IN, 2, 1 << 25, 2);
    uint64_t h = mt_experiment_hash(0, &b);
    assert_true(h != mt_experiment_hash(0, &b2) && h != mt_experiment_hash(0, &b3) &&
                h != mt_experiment_hash(0, &b4));
    /* Shapes the interface does not define are refused. */
    mt_experiment bad[7] = {q, c, b, b, b, b, q};
    bad[0].loads = 7;                        /* a query answers 8 fields */
    bad[1].mode = MT_MODE_AGGREGATE;         /* a chase is fine */
    bad[2].u.link.bytes = 5000;              /* not a multiple of 4096 */
    bad[3].u.link.repeats = bad[3].loads = 65; /* too many repeats */
    bad[4].u.link.peer = 16;                 /* no such peer */
    bad[5].sm = 1;                           /* any SM */
    bad[6].u.link.op = MT_LINK_OP_COUNT;
    for (int i = 0; i < 7; i++)
        if (mt_experiment_check(&bad[i], &dev, &ei) == MT_OK)
            fail_msg("bad link experiment %d accepted", i);
    for (int op = 0; op < MT_LINK_OP_COUNT; op++) {
        mt_link_op back = MT_LINK_OP_COUNT;
        assert_int_equal(mt_link_op_from_name(mt_link_op_name((mt_link_op)op), &back), 0);
        assert_int_equal(back, op);
    }
    assert_string_equal(mt_link_op_name(MT_LINK_OP_COUNT), "?");
}

static mt_backend *open_spec(const char *extra)
{
    mt_sim_spec *s = malloc(sizeof *s);
    assert_non_null(s);
    mt_errinfo ei = {{0}};
    assert_int_equal(parse(extra, s, &ei), MT_OK);
    mt_backend *b = NULL;
    assert_int_equal(mt_backend_sim_from_spec(s, &b, &ei), MT_OK);
    free(s);
    return b;
}

static void test_model(void **state)
{
    (void)state;
    mt_backend *b = open_spec(links);
    assert_true(mt_backend_supports(b, MT_KIND_LINK));
    const mt_sim_spec *s = mt_backend_sim_spec(b);
    mt_experiment e[5] = {mt_exp_link_query(3), mt_exp_link_query(4),
                          mt_exp_link_chase(MT_LINK_HOST, 1 << 19, 2048, 1, 16),
                          mt_exp_link_bandwidth(MT_LINK_COPY_OUT, MT_LINK_HOST, 1 << 26, 2),
                          mt_exp_link_bandwidth(MT_LINK_COPY_IN, 5, 1 << 24, 1)};
    mt_result r[5];
    mt_errinfo ei = {{0}};
    assert_int_equal(mt_backend_run(b, e, 5, r, &ei), MT_OK);
    const uint32_t *q = r[0].cycles[0];
    assert_int_equal(r[0].n[0], MT_LINK_QUERY_FIELDS);
    assert_int_equal(q[MT_LINK_F_TYPE], MT_LINK_TYPE_NVLINK);
    assert_int_equal(q[MT_LINK_F_NVLINKS], 4);
    assert_int_equal(q[MT_LINK_F_NVLINK_VERSION], 3);
    assert_int_equal(q[MT_LINK_F_PCIE_GEN], MT_LINK_NOT_AVAILABLE);
    assert_int_equal(q[MT_LINK_F_PERF_RANK], 1);
    assert_int_equal(q[MT_LINK_F_PEER_ACCESS], 1);
    /* A peer the spec does not describe: no link. */
    assert_int_equal(r[1].cycles[0][MT_LINK_F_TYPE], MT_LINK_TYPE_NONE);
    assert_int_equal(r[1].cycles[0][MT_LINK_F_PEER_ACCESS], 0);
    /* The host link's loads: latency + timer overhead (no noise, no
     * outliers but the preset's rare ones). */
    int exact = 0;
    for (uint32_t k = 0; k < r[2].n[0]; k++)
        exact += r[2].cycles[0][k] == (uint32_t)(1500 + s->timer_overhead + 0.5);
    assert_true(exact >= 15);
    /* 2 x (8 us + 64 MiB at 26 GB/s), within the 0.3% noise's 5 sd. */
    double want = 2 * (8000 + (double)(1 << 26) / 26.0);
    assert_int_equal(r[3].n[0], 1);
    assert_true(r[3].cycles[0][0] > want * 0.985 && r[3].cycles[0][0] < want * 1.015);
    /* Copies need no peer access. */
    assert_true(r[4].cycles[0][0] > 8000);
    for (int i = 0; i < 5; i++)
        mt_result_free(&r[i]);
    /* SM loads over a link without peer access, or to an undescribed
     * peer, are refused. */
    mt_experiment no[2] = {mt_exp_link_chase(5, 1 << 19, 2048, 1, 16),
                           mt_exp_link_bandwidth(MT_LINK_SM_READ, 4, 1 << 24, 1)};
    for (int i = 0; i < 2; i++)
        assert_int_equal(mt_backend_run(b, &no[i], 1, r, &ei), MT_ERR_UNSUPPORTED);
    mt_backend_destroy(b);
    /* A spec without links announces none. */
    b = open_spec("");
    assert_false(mt_backend_supports(b, MT_KIND_LINK));
    assert_int_equal(mt_backend_run(b, e, 1, r, &ei), MT_ERR_UNSUPPORTED);
    mt_backend_destroy(b);
}

static void test_record_replay(void **state)
{
    (void)state;
    char dir[128];
    snprintf(dir, sizeof dir, "%s/links", tmpdir);
    mt_backend *rec = NULL;
    mt_errinfo ei = {{0}};
    assert_int_equal(mt_backend_record_wrap(open_spec(links), dir, &rec, &ei), MT_OK);
    assert_true(mt_backend_supports(rec, MT_KIND_LINK));
    mt_experiment e[4] = {mt_exp_link_query(MT_LINK_HOST), mt_exp_link_query(3),
                          mt_exp_link_chase(3, 1 << 19, 2048, 1, 32),
                          mt_exp_link_bandwidth(MT_LINK_SM_WRITE, 3, 1 << 24, 3)};
    mt_result a[4], b[4];
    assert_int_equal(mt_backend_run(rec, e, 4, a, &ei), MT_OK);
    assert_int_equal(mt_record_flush(rec, &ei), MT_OK);
    mt_backend_destroy(rec);
    mt_backend *rep = NULL;
    assert_int_equal(mt_backend_replay_open(dir, &rep, &ei), MT_OK);
    assert_true(mt_backend_supports(rep, MT_KIND_LINK));
    assert_int_equal(mt_backend_run(rep, e, 4, b, &ei), MT_OK);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(a[i].n[0], b[i].n[0]);
        assert_memory_equal(a[i].cycles[0], b[i].cycles[0], a[i].n[0] * sizeof(uint32_t));
        mt_result_free(&a[i]);
        mt_result_free(&b[i]);
    }
    /* The host's query is not GPU 0's: a peer not recorded is not made up. */
    mt_experiment other = mt_exp_link_query(0);
    mt_result r;
    assert_int_equal(mt_backend_run(rep, &other, 1, &r, &ei), MT_ERR_REPLAY);
    mt_backend_destroy(rep);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_shapes),
        cmocka_unit_test(test_model),
        cmocka_unit_test(test_record_replay),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

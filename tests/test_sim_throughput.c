/* The simulator's [throughput] section and stream model
 * (docs/spec-format.md, "[throughput]"; src/sim/stream_model.h): strict
 * parsing, the roofline, Little's law, and stream experiments end to end
 * through the sim backend. */
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
#include "sim/sim.h"
#include "sim/spec.h"
#include "sim/stream_model.h"

/* The h100 preset's text without its [throughput] section, plus `tp`. */
static char *with_throughput(const char *tp)
{
    const char *base = mt_sim_preset_text("h100");
    assert_non_null(base);
    const char *cut = strstr(base, "[throughput]");
    size_t keep = cut ? (size_t)(cut - base) : strlen(base);
    size_t n = keep + strlen(tp) + 2;
    char *text = malloc(n);
    assert_non_null(text);
    snprintf(text, n, "%.*s\n%s", (int)keep, base, tp);
    return text;
}

static mt_err parse(const char *tp, mt_sim_spec *s, mt_errinfo *ei)
{
    char *text = with_throughput(tp);
    mt_err err = mt_sim_spec_parse(text, "tp.spec", s, ei);
    free(text);
    return err;
}

#define GOOD "[throughput]\nl1.read = 128\nshared.read = 128\nl2.read = 64\nl2.read_gpu = 5500\n" \
             "dram.read_gpu = 1600\nmshr = 512\n"

static void expect_error(const char *tp, const char *needle)
{
    mt_sim_spec *s = malloc(sizeof *s);
    assert_non_null(s);
    mt_errinfo ei = {{0}};
    assert_int_equal(parse(tp, s, &ei), MT_ERR_SPEC_PARSE);
    if (!strstr(ei.msg, needle))
        fail_msg("want \"%s\" in: %s", needle, ei.msg);
    assert_non_null(strstr(ei.msg, "tp.spec:"));
    free(s);
}

static void parses_and_defaults_writes(void **state)
{
    (void)state;
    mt_sim_spec *s = malloc(sizeof *s);
    assert_non_null(s);
    mt_errinfo ei = {{0}};
    assert_int_equal(parse(GOOD, s, &ei), MT_OK);
    assert_true(s->tp.present);
    assert_int_equal(s->tp.mshr, 512);
    assert_true(s->tp.cache[s->l2].read_gpu == 5500);
    assert_true(s->tp.cache[s->l2].write_gpu == 5500); /* = read_gpu */
    assert_true(s->tp.cache[0].write == 128);           /* l1: = read */
    assert_true(s->tp.shared.write == 128);
    assert_true(s->tp.dram.write_gpu == 1600);
    /* The preset has its own section; without one, no streams. */
    const char *base = mt_sim_preset_text("a100");
    assert_int_equal(mt_sim_spec_parse(base, "a100", s, &ei), MT_OK);
    assert_false(s->tp.present);
    free(s);
}

static void strict_parse_errors(void **state)
{
    (void)state;
    expect_error("[throughput]\nl1.read = 128\nshared.read = 128\nl2.read = 64\nl2.read_gpu = 5500\n"
                 "dram.read_gpu = 1600\n", "missing required key 'mshr'");
    expect_error("[throughput]\nshared.read = 128\nl2.read = 64\nl2.read_gpu = 5500\n"
                 "dram.read_gpu = 1600\nmshr = 4\n", "missing l1.read");
    expect_error(GOOD "nosuch.read = 4\n", "no level 'nosuch'");
    expect_error(GOOD "const_l1.read = 4\n", "only constant data");
    expect_error(GOOD "l1.read_gpu = 400\n", "only the L2 and dram");
    expect_error(GOOD "dram.read = 4\n", "GPU-wide figures only");
    expect_error(GOOD "l1.bogus = 4\n", "unknown key");
    expect_error("[throughput]\nl1.read = 0.5\nshared.read = 128\nl2.read = 64\nl2.read_gpu = 5500\n"
                 "dram.read_gpu = 1600\nmshr = 4\n", "l1.read");
    expect_error("[throughput]\nl1.read = 128\nshared.read = 128\nl2.read = 64\nl2.read_gpu = 100\n"
                 "dram.read_gpu = 1600\nmshr = 4\n", "at least 1 B/clk per SM");
    expect_error("[throughput]\nl1.read = 128\nshared.read = 128\nl2.read = 64\nl2.read_gpu = 5500\n"
                 "dram.read_gpu = 1600\nmshr = 70000\n", "mshr");
    expect_error(GOOD "[throughput]\nmshr = 2\n", "duplicate section");
}

static mt_sim_spec *h100(void)
{
    mt_sim_spec *s = malloc(sizeof *s);
    assert_non_null(s);
    mt_errinfo ei = {{0}};
    assert_int_equal(mt_sim_spec_load("h100", s, &ei), MT_OK);
    assert_true(s->tp.present);
    return s;
}

static void roofline_and_littles_law(void **state)
{
    (void)state;
    mt_sim_spec *s = h100();
    mt_sim_stream_level l;
    /* L1: 128 B/clk once 128 x 34 bytes are in flight, Little below. */
    mt_sim_stream_level_at(s, 0, MT_PATH_GLOBAL_CA, &l);
    assert_true(fabs(mt_sim_stream_rate(s, &l, 0, 1e6, 132) - 128) < 1e-9);
    assert_true(fabs(mt_sim_stream_rate(s, &l, 0, 1024, 132) - 1024 / 34.0) < 1e-9);
    assert_true(fabs(mt_sim_stream_rate(s, &l, 1, 16, 132) - 64) < 1e-9); /* writes: no Little */
    /* DRAM: the GPU's 1600 B/clk over 132 SMs; one SM: 512 sectors in flight. */
    mt_sim_stream_level_at(s, MT_SIM_LEVEL_DRAM, MT_PATH_GLOBAL_CG, &l);
    assert_true(fabs(mt_sim_stream_rate(s, &l, 0, 1e9, 132) - 1600 / 132.0) < 1e-9);
    assert_true(fabs(mt_sim_stream_rate(s, &l, 0, 1e9, 1) - 512 * 32 / 694.0) < 1e-9);
    /* Copy: bytes read + written over the time of both. */
    assert_true(fabs(mt_sim_copy_rate(128, 64) - 2 / (1 / 128.0 + 1 / 64.0)) < 1e-12);
    /* MLP: the miss slots, or fewer chases. */
    assert_true(fabs(mt_sim_mlp(s, MT_SIM_LEVEL_DRAM, 1024) - 512) < 1e-9);
    assert_true(fabs(mt_sim_mlp(s, MT_SIM_LEVEL_DRAM, 100) - 100) < 1e-9);
    assert_true(fabs(mt_sim_mlp(s, s->l2, 1024) - 512) < 1e-9);
    /* The L2's mean latency weighs the far partition 1 : 1. */
    mt_sim_stream_level_at(s, s->l2, MT_PATH_GLOBAL_CG, &l);
    assert_true(fabs(l.latency - (270 + 297) / 2.0) < 1e-9);
    free(s);
}

static void levels_follow_the_footprint(void **state)
{
    (void)state;
    mt_sim_spec *s = h100();
    mt_sim_stream_level l;
    mt_sim_stream_level_for(s, MT_PATH_GLOBAL_CA, 64 << 10, 132ull * (64 << 10), 132, &l);
    assert_int_equal(l.level, 0); /* the L1 (240 KiB) */
    mt_sim_stream_level_for(s, MT_PATH_GLOBAL_CA, 1 << 20, 132ull << 20, 132, &l);
    assert_int_equal(l.level, MT_SIM_LEVEL_DRAM); /* 132 MiB: beyond the 50 MiB L2 */
    mt_sim_stream_level_for(s, MT_PATH_GLOBAL_CG, 64 << 10, 132ull * (64 << 10), 132, &l);
    assert_int_equal(l.level, s->l2); /* cg skips the L1 */
    /* 33 MiB: beyond one 25 MiB partition, within the 50 MiB L2: the L2
     * when every SM streams (each partition holds its lines), DRAM for
     * fewer SMs (one SM sees its partition). */
    mt_sim_stream_level_for(s, MT_PATH_GLOBAL_CG, 256 << 10, 132ull * (256 << 10), 132, &l);
    assert_int_equal(l.level, s->l2);
    mt_sim_stream_level_for(s, MT_PATH_GLOBAL_CG, 256 << 10, 132ull * (256 << 10), 131, &l);
    assert_int_equal(l.level, MT_SIM_LEVEL_DRAM);
    mt_sim_stream_level_for(s, MT_PATH_SHARED, 1 << 30, 1ull << 40, 132, &l);
    assert_int_equal(l.level, MT_SIM_LEVEL_SHARED);
    free(s);
}

static void run(mt_backend *be, const mt_experiment *e, uint32_t *cyc, uint32_t *ns)
{
    mt_result r;
    mt_errinfo ei = {{0}};
    if (mt_backend_run(be, e, 1, &r, &ei) != MT_OK)
        fail_msg("%s", ei.msg);
    assert_int_equal(r.n[0], 2);
    *cyc = r.cycles[0][0];
    *ns = r.cycles[0][1];
    mt_result_free(&r);
}

static void streams_through_the_backend(void **state)
{
    (void)state;
    mt_backend *be = NULL;
    mt_errinfo ei = {{0}};
    assert_int_equal(mt_backend_sim_open("h100", 0, 0, &be, &ei), MT_OK);
    assert_true(mt_backend_supports(be, MT_KIND_STREAM));
    /* 264 blocks of 1024 threads: 2 per SM, 32 KiB of L1 data each SM. */
    uint64_t bytes = 132ull << 15;
    mt_experiment a = mt_exp_stream(MT_STREAM_READ, MT_PATH_GLOBAL_CA, 264, 1024, 16, 8, bytes, 100, 0);
    mt_experiment b = mt_exp_stream(MT_STREAM_READ, MT_PATH_GLOBAL_CA, 264, 1024, 16, 8, bytes, 200, 0);
    uint32_t c1, n1, c2, n2;
    run(be, &a, &c1, &n1);
    run(be, &b, &c2, &n2);
    /* The round (2 x 1024 x 16 x 8 = 256 KiB per SM) wraps around the 32 KiB. */
    double moved = 100.0 * (256 << 10);
    double rate = moved / ((double)c2 - c1);
    assert_true(fabs(rate - 128) < 0.2);
    assert_true(n2 > n1);
    /* Copy counts read + written: 2 / (1/128 + 1/64) per SM. */
    a = mt_exp_stream(MT_STREAM_COPY, MT_PATH_GLOBAL_CA, 132, 1024, 16, 1, bytes, 100, 0);
    b = mt_exp_stream(MT_STREAM_COPY, MT_PATH_GLOBAL_CA, 132, 1024, 16, 1, bytes, 200, 0);
    run(be, &a, &c1, &n1);
    run(be, &b, &c2, &n2);
    rate = 2.0 * 100 * (32 << 10) / ((double)c2 - c1);
    assert_true(fabs(rate - mt_sim_copy_rate(128, 64)) < 0.2);
    /* A chase on one SM: one load per DRAM latency. */
    a = mt_exp_stream(MT_STREAM_CHASE, MT_PATH_GLOBAL_CG, 1, 1, 4, 1, 256ull << 20, 100, 4096);
    b = mt_exp_stream(MT_STREAM_CHASE, MT_PATH_GLOBAL_CG, 1, 1, 4, 1, 256ull << 20, 200, 4096);
    run(be, &a, &c1, &n1);
    run(be, &b, &c2, &n2);
    assert_true(fabs(((double)c2 - c1) / 100 - 694) < 1);
    /* Shared data: 132 blocks over 2 shares of 64 KiB; each SM moves its
     * 64 KiB share per repeat, from the L2 (128 KiB in all). */
    a = mt_exp_stream(MT_STREAM_READ, MT_PATH_GLOBAL_CG, 132, 1024, 16, 8, 128u << 10, 100, 0);
    b = mt_exp_stream(MT_STREAM_READ, MT_PATH_GLOBAL_CG, 132, 1024, 16, 8, 128u << 10, 200, 0);
    a.chain[0].stride = b.chain[0].stride = 64u << 10;
    run(be, &a, &c1, &n1);
    run(be, &b, &c2, &n2);
    rate = 100.0 * (128 << 10) / ((double)c2 - c1); /* the round (128 KiB) wraps the share */
    mt_sim_spec *sp = h100();
    assert_true(fabs(rate - mt_sim_stream_ceiling(sp, sp->l2, MT_PATH_GLOBAL_CG, MT_STREAM_READ)) <
                0.2);
    free(sp);
    /* Too long for 32 bits: saturated. */
    a = mt_exp_stream(MT_STREAM_READ, MT_PATH_GLOBAL_CG, 132, 1024, 16, 8, 132ull << 24, 4000, 0);
    run(be, &a, &c1, &n1);
    assert_int_equal(c1, UINT32_MAX);
    mt_backend_destroy(be);
}

static void stream_checks(void **state)
{
    (void)state;
    mt_backend *be = NULL;
    mt_errinfo ei = {{0}};
    assert_int_equal(mt_backend_sim_open("h100", 0, 0, &be, &ei), MT_OK);
    mt_device_info d;
    assert_int_equal(mt_backend_info(be, &d, &ei), MT_OK);
    mt_experiment e = mt_exp_stream(MT_STREAM_READ, MT_PATH_GLOBAL_CA, 132, 1024, 16, 1, 132ull << 15, 1, 0);
    assert_int_equal(mt_experiment_check(&e, &d, &ei), MT_OK);
    mt_experiment x = e;
    x.u.stream.vector_bytes = 12;
    assert_int_equal(mt_experiment_check(&x, &d, &ei), MT_ERR_INVALID_ARG);
    x = e;
    x.u.stream.in_flight = 3;
    assert_int_equal(mt_experiment_check(&x, &d, &ei), MT_ERR_INVALID_ARG);
    x = e;
    x.u.stream.threads = 100;
    assert_int_equal(mt_experiment_check(&x, &d, &ei), MT_ERR_INVALID_ARG);
    x = mt_exp_stream(MT_STREAM_READ, MT_PATH_GLOBAL_CA, 132, 1024, 16, 1, 132ull * 3000, 1, 0);
    assert_int_equal(mt_experiment_check(&x, &d, &ei), MT_ERR_INVALID_ARG); /* no whole rounds */
    x = mt_exp_stream(MT_STREAM_WRITE, MT_PATH_TEXTURE, 132, 1024, 16, 1, 132ull << 15, 1, 0);
    assert_int_equal(mt_experiment_check(&x, &d, &ei), MT_ERR_UNSUPPORTED);
    x = mt_exp_stream(MT_STREAM_READ, MT_PATH_CONSTANT, 132, 1024, 16, 1, 132ull << 15, 1, 0);
    assert_int_equal(mt_experiment_check(&x, &d, &ei), MT_ERR_UNSUPPORTED);
    x = mt_exp_stream(MT_STREAM_CHASE, MT_PATH_GLOBAL_CG, 1, 3, 4, 1, 3u << 20, 1, 64);
    assert_int_equal(mt_experiment_check(&x, &d, &ei), MT_OK); /* a chase takes any threads */
    x = mt_exp_stream(MT_STREAM_CHASE, MT_PATH_SHARED, 1, 4, 4, 1, 4096, 1, 64);
    assert_int_equal(mt_experiment_check(&x, &d, &ei), MT_ERR_UNSUPPORTED);
    x = mt_exp_stream(MT_STREAM_READ, MT_PATH_SHARED, 1, 32, 4, 1, 1u << 20, 1, 0);
    assert_int_equal(mt_experiment_check(&x, &d, &ei), MT_ERR_INVALID_ARG); /* > a block's shared */
    /* Shared data: 264 blocks over 4 shares of 64 KiB of a 256 KiB buffer. */
    x = mt_exp_stream(MT_STREAM_READ, MT_PATH_GLOBAL_CG, 264, 1024, 16, 1, 256u << 10, 1, 0);
    x.chain[0].stride = 64u << 10;
    assert_int_equal(mt_experiment_check(&x, &d, &ei), MT_OK);
    assert_int_equal(mt_stream_block_share(&x), 64u << 10);
    mt_experiment y = x;
    y.chain[0].stride = 96u << 10; /* does not divide the data */
    assert_int_equal(mt_experiment_check(&y, &d, &ei), MT_ERR_INVALID_ARG);
    y = x;
    y.chain[0].stride = (64u << 10) + 4; /* not whole vectors */
    assert_int_equal(mt_experiment_check(&y, &d, &ei), MT_ERR_INVALID_ARG);
    y = mt_exp_stream(MT_STREAM_COPY, MT_PATH_GLOBAL_CG, 264, 1024, 16, 1, 256u << 10, 1, 0);
    y.chain[0].stride = 64u << 10; /* reads only */
    assert_int_equal(mt_experiment_check(&y, &d, &ei), MT_ERR_INVALID_ARG);
    /* Without [throughput] the sim does not stream. */
    mt_backend *old = NULL;
    assert_int_equal(mt_backend_sim_open("a100", 0, 0, &old, &ei), MT_OK);
    assert_false(mt_backend_supports(old, MT_KIND_STREAM));
    mt_result r;
    assert_int_equal(mt_backend_run(old, &e, 1, &r, &ei), MT_ERR_UNSUPPORTED);
    mt_backend_destroy(old);
    mt_backend_destroy(be);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parses_and_defaults_writes),
        cmocka_unit_test(strict_parse_errors),
        cmocka_unit_test(roofline_and_littles_law),
        cmocka_unit_test(levels_follow_the_footprint),
        cmocka_unit_test(streams_through_the_backend),
        cmocka_unit_test(stream_checks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

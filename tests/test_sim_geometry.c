/* The sim backend with the cache-geometry keys of issue 8: an L1 sharing
 * its array with shared memory follows the carveout an experiment asks
 * for (backend 2.1), and the L2's per-SM partition map decides which SMs
 * see a line as near. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backend/backend.h"
#include "sim/sim.h"
#include "sim/spec.h"

/* tests/sim-geometry.spec (its comment says what it holds). */
#define GEOMETRY_SPEC "tests/sim-geometry.spec"

#define L1_SAMPLE 40u /* latency 30 + timer 10 */

static mt_backend *open_spec(void)
{
    mt_backend *b = NULL;
    mt_errinfo ei = {{0}};
    if (mt_backend_sim_open(GEOMETRY_SPEC, 0, 0, &b, &ei))
        fail_msg("%s", ei.msg);
    return b;
}

static void run1(mt_backend *b, const mt_experiment *e, mt_result *r)
{
    mt_errinfo ei = {{0}};
    if (mt_backend_run(b, e, 1, r, &ei))
        fail_msg("%s", ei.msg);
}

/* Loads of a warmed sequential chase of `bytes` (128 B stride) that the
 * L1 served. */
static uint32_t l1_hits(mt_backend *b, uint64_t bytes, int set_carveout, int percent)
{
    mt_experiment e = mt_exp_chase(MT_PATH_GLOBAL_CA, bytes, 128, 1, (uint32_t)(bytes / 128),
                                   MT_MODE_FINE);
    if (set_carveout)
        e = mt_exp_with_carveout(e, percent);
    mt_result r;
    run1(b, &e, &r);
    uint32_t n = 0;
    for (uint32_t k = 0; k < r.n[0]; k++)
        n += r.cycles[0][k] == L1_SAMPLE;
    mt_result_free(&r);
    return n;
}

static void test_device_lists_carveouts(void **state)
{
    (void)state;
    mt_backend *b = open_spec();
    assert_true(b->ops->caps & MT_CAP_CARVEOUT);
    mt_device_info d;
    mt_errinfo ei = {{0}};
    assert_int_equal(mt_backend_info(b, &d, &ei), MT_OK);
    assert_int_equal(d.n_carveouts, 4);
    assert_int_equal(d.carveout_smem_options[1], 16384);
    assert_int_equal(d.carveout_smem_bytes, 16384);
    assert_int_equal(d.carveout_percent, 25);
    /* A preference rounds up to the next carveout, as the driver's does. */
    assert_int_equal(mt_carveout_smem(&d, 0), 0);
    assert_int_equal(mt_carveout_smem(&d, 1), 16384);
    assert_int_equal(mt_carveout_smem(&d, 50), 32768);
    assert_int_equal(mt_carveout_smem(&d, 51), 65536);
    assert_int_equal(mt_carveout_percent(&d, 0), 0);
    assert_int_equal(mt_carveout_percent(&d, 16384), 1);
    assert_int_equal(mt_carveout_percent(&d, 32768), 26);
    assert_int_equal(mt_carveout_percent(&d, 65536), 51);
    assert_int_equal(mt_carveout_percent(&d, 4096), -1);
    mt_backend_destroy(b);
}

/* The L1 holds exactly what the carveout leaves: a chase over that many
 * bytes hits throughout, one over 5/4 of it (5 lines per 4-way set, LRU)
 * never hits. */
static void test_l1_follows_carveout(void **state)
{
    (void)state;
    mt_backend *b = open_spec();
    static const struct {
        int percent;
        uint64_t l1;
    } c[] = {{0, 80 << 10}, {25, 64 << 10}, {26, 48 << 10}, {50, 48 << 10}, {100, 16 << 10}};
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        assert_int_equal(l1_hits(b, c[i].l1, 1, c[i].percent), c[i].l1 / 128);
        assert_int_equal(l1_hits(b, c[i].l1 / 4 * 5, 1, c[i].percent), 0);
    }
    /* No request: the spec's default carveout (16 KiB: a 64 KiB L1). */
    assert_int_equal(l1_hits(b, 64 << 10, 0, 0), 512);
    assert_int_equal(l1_hits(b, 80 << 10, 0, 0), 0);
    mt_backend_destroy(b);
}

/* An experiment's samples do not depend on the carveouts run before it. */
static void test_carveout_deterministic(void **state)
{
    (void)state;
    mt_backend *b = open_spec();
    mt_experiment e = mt_exp_with_carveout(
        mt_exp_chase(MT_PATH_GLOBAL_CA, 60 << 10, 128, 1, 480, MT_MODE_FINE), 50);
    mt_experiment other = mt_exp_with_carveout(e, 0);
    mt_result r1, r2, r3;
    run1(b, &e, &r1);
    run1(b, &other, &r2);
    run1(b, &e, &r3);
    assert_memory_equal(r1.cycles[0], r3.cycles[0], 480 * sizeof(uint32_t));
    /* 60 KiB: too much for the 48 KiB L1 at 50%, not for the 80 KiB at 0% */
    uint32_t hits1 = 0, hits2 = 0;
    for (int k = 0; k < 480; k++) {
        hits1 += r1.cycles[0][k] == L1_SAMPLE;
        hits2 += r2.cycles[0][k] == L1_SAMPLE;
    }
    assert_int_equal(hits2, 480);
    assert_true(hits1 < 480);
    mt_result_free(&r1);
    mt_result_free(&r2);
    mt_result_free(&r3);
    /* The request is part of the experiment's identity (the hash seeds the
     * noise and indexes recordings); without one the hash is as before 2.1. */
    mt_experiment plain = mt_exp_chase(MT_PATH_GLOBAL_CA, 60 << 10, 128, 1, 480, MT_MODE_FINE);
    assert_true(mt_experiment_hash(0, &plain) != mt_experiment_hash(0, &e));
    assert_true(mt_experiment_hash(0, &e) != mt_experiment_hash(0, &other));
    mt_experiment zeroed = plain;
    zeroed.carveout_percent = 77; /* ignored without set_carveout */
    assert_true(mt_experiment_hash(0, &plain) == mt_experiment_hash(0, &zeroed));
    mt_backend_destroy(b);
}

static void test_carveout_refused(void **state)
{
    (void)state;
    mt_backend *b = open_spec();
    mt_experiment e = mt_exp_with_carveout(
        mt_exp_chase(MT_PATH_GLOBAL_CA, 4096, 128, 1, 32, MT_MODE_FINE), 101);
    mt_result r;
    mt_errinfo ei = {{0}};
    assert_int_equal(mt_backend_run(b, &e, 1, &r, &ei), MT_ERR_INVALID_ARG);
    assert_non_null(strstr(ei.msg, "outside 0..100"));
    mt_backend_destroy(b);
    /* A spec without carveouts_kib cannot change the carveout. */
    mt_errinfo ei2 = {{0}};
    assert_int_equal(mt_backend_sim_open("kepler", 0, 0, &b, &ei2), MT_OK);
    e.carveout_percent = 50;
    assert_int_equal(mt_backend_run(b, &e, 1, &r, &ei2), MT_ERR_UNSUPPORTED);
    assert_non_null(strstr(ei2.msg, "lists no carveouts"));
    mt_backend_destroy(b);
}

/* partition_of_sm = 3*0 1: SMs 0-2 share partition 0, SM 3 sits at 1, so
 * every line near for SM 0 is far for SM 3 and the other way round. */
static void test_partition_map(void **state)
{
    (void)state;
    mt_backend *b = open_spec();
    mt_experiment e = mt_exp_chase(MT_PATH_GLOBAL_CG, 256 << 10, 128, 1, 2048, MT_MODE_FINE);
    mt_result r[4];
    for (int sm = 0; sm < 4; sm++) {
        e.sm = sm;
        run1(b, &e, &r[sm]);
    }
    uint32_t near = 0;
    for (uint32_t k = 0; k < 2048; k++) {
        uint32_t v = r[0].cycles[0][k];
        assert_true(v == 210 || v == 310);
        near += v == 210;
        assert_int_equal(r[1].cycles[0][k], v);
        assert_int_equal(r[2].cycles[0][k], v);
        assert_int_equal(r[3].cycles[0][k], v == 210 ? 310 : 210);
    }
    assert_true(near > 0 && near < 2048);
    for (int sm = 0; sm < 4; sm++)
        mt_result_free(&r[sm]);
    mt_backend_destroy(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_device_lists_carveouts),
        cmocka_unit_test(test_l1_follows_carveout),
        cmocka_unit_test(test_carveout_deterministic),
        cmocka_unit_test(test_carveout_refused),
        cmocka_unit_test(test_partition_map),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

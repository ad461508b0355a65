/* The sim backend end to end: determinism, batch-order independence, path
 * routing through the levels, slices, sharing, L2 partitions, fine versus
 * aggregate overheads, chain order, and the experiment checks.
 *
 * Most tests use a "quiet" copy of a preset (noise and outliers zeroed) so
 * every sample is exactly latency + overhead and the level that served a
 * load can be read off its value. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backend/backend.h"
#include "backend/chain.h"
#include "sim/sim.h"
#include "sim/spec.h"

static const mt_sim_spec *spec_of(mt_backend *b)
{
    const mt_sim_spec *s = mt_backend_sim_spec(b);
    assert_non_null(s);
    return s;
}

static mt_backend *open_preset(const char *name, int quiet)
{
    mt_sim_spec s;
    mt_errinfo ei = {{0}};
    if (mt_sim_spec_load(name, &s, &ei))
        fail_msg("%s", ei.msg);
    if (quiet) {
        for (int i = 0; i < s.n_caches; i++)
            s.cache[i].noise = 0;
        s.dram.noise = 0;
        s.shared.noise = 0;
        s.outlier_rate = 0;
    }
    mt_backend *b = NULL;
    if (mt_backend_sim_from_spec(&s, &b, &ei))
        fail_msg("%s", ei.msg);
    return b;
}

static mt_experiment chase(mt_path path, uint64_t footprint, uint32_t stride, uint32_t warmup,
                           uint32_t loads)
{
    return mt_exp_chase(path, footprint, stride, warmup, loads, MT_MODE_FINE);
}

static void run1(mt_backend *b, const mt_experiment *e, mt_result *r)
{
    mt_errinfo ei = {{0}};
    if (mt_backend_run(b, e, 1, r, &ei))
        fail_msg("%s", ei.msg);
}

/* Cycle value of a load served by cache `name` (or "dram"/"shared") on
 * logical path lp in fine mode: latency + timer overhead. */
static uint32_t fine_value(mt_backend *b, const char *name, mt_sim_lpath lp)
{
    const mt_sim_spec *s = spec_of(b);
    double lat = -1;
    if (strcmp(name, "dram") == 0)
        lat = s->dram.latency[lp];
    else if (strcmp(name, "shared") == 0)
        lat = s->shared.latency[0];
    for (int i = 0; i < s->n_caches; i++)
        if (strcmp(s->cache[i].name, name) == 0)
            lat = s->cache[i].latency[lp];
    assert_true(lat >= 0);
    return (uint32_t)llround(lat + s->timer_overhead);
}

static void assert_all(const mt_result *r, int chain, uint32_t v)
{
    for (uint32_t k = 0; k < r->n[chain]; k++)
        if (r->cycles[chain][k] != v)
            fail_msg("chain %d load %u: %u cycles, expected %u", chain, k, r->cycles[chain][k], v);
}

static uint32_t count_value(const mt_result *r, int chain, uint32_t v)
{
    uint32_t n = 0;
    for (uint32_t k = 0; k < r->n[chain]; k++)
        n += r->cycles[chain][k] == v;
    return n;
}

/* ------------------------------------------------------------------ */

static void test_determinism(void **state)
{
    (void)state;
    mt_errinfo ei = {{0}};
    mt_backend *a, *b, *c;
    assert_int_equal(mt_backend_sim_open("h100", 0, 0, &a, &ei), MT_OK);
    assert_int_equal(mt_backend_sim_open("h100", 0, 0, &b, &ei), MT_OK);
    assert_int_equal(mt_backend_sim_open("h100", 1, 2, &c, &ei), MT_OK);
    mt_experiment e = chase(MT_PATH_GLOBAL_CA, 300 << 10, 128, 1, 4096);
    mt_result ra, rb, rc;
    run1(a, &e, &ra);
    run1(b, &e, &rb);
    run1(c, &e, &rc);
    assert_memory_equal(ra.cycles[0], rb.cycles[0], 4096 * sizeof(uint32_t));
    assert_true(memcmp(ra.cycles[0], rc.cycles[0], 4096 * sizeof(uint32_t)) != 0);
    /* running again on the same backend gives the same samples too */
    mt_result ra2;
    run1(a, &e, &ra2);
    assert_memory_equal(ra.cycles[0], ra2.cycles[0], 4096 * sizeof(uint32_t));
    mt_result_free(&ra);
    mt_result_free(&ra2);
    mt_result_free(&rb);
    mt_result_free(&rc);
    mt_backend_destroy(a);
    mt_backend_destroy(b);
    mt_backend_destroy(c);
}

static void test_batch_order_independent(void **state)
{
    (void)state;
    mt_backend *b = open_preset("a100", 0);
    mt_experiment x[2];
    x[0] = chase(MT_PATH_GLOBAL_CA, 40 << 10, 32, 1, 1000);
    x[1] = chase(MT_PATH_GLOBAL_CG, 1 << 20, 128, 2, 2000);
    mt_experiment y[2] = {x[1], x[0]};
    mt_result rx[2], ry[2];
    mt_errinfo ei = {{0}};
    assert_int_equal(mt_backend_run(b, x, 2, rx, &ei), MT_OK);
    assert_int_equal(mt_backend_run(b, y, 2, ry, &ei), MT_OK);
    assert_int_equal(rx[0].n[0], 1000);
    assert_memory_equal(rx[0].cycles[0], ry[1].cycles[0], 1000 * sizeof(uint32_t));
    assert_memory_equal(rx[1].cycles[0], ry[0].cycles[0], 2000 * sizeof(uint32_t));
    for (int i = 0; i < 2; i++) {
        mt_result_free(&rx[i]);
        mt_result_free(&ry[i]);
    }
    mt_backend_destroy(b);
}

/* Hit latency of ld.global.ca in the cache serving it (from the spec, so the
 * tests follow preset updates). */
static double l1d_latency(const mt_sim_spec *s)
{
    for (int i = 0; i < s->n_caches; i++)
        if (!s->cache[i].is_l2 && (s->cache[i].serves & (1u << MT_SIM_LP_L1D)))
            return s->cache[i].latency[MT_SIM_LP_L1D];
    fail_msg("no L1 serving ld.global.ca");
    return 0;
}

static void test_fine_vs_aggregate_overheads(void **state)
{
    (void)state;
    mt_backend *b = open_preset("h100", 1);
    const mt_sim_spec *s = spec_of(b);
    mt_result r;
    /* fine: L1 latency + timer overhead per sample */
    mt_experiment e = chase(MT_PATH_GLOBAL_CA, 4096, 128, 1, 512);
    run1(b, &e, &r);
    assert_int_equal(r.n[0], 512);
    const double l1 = l1d_latency(s);
    assert_all(&r, 0, (uint32_t)(l1 + s->timer_overhead));
    mt_result_free(&r);
    /* aggregate: one sample, loads * (latency + loop overhead) */
    e.mode = MT_MODE_AGGREGATE;
    run1(b, &e, &r);
    assert_int_equal(r.n[0], 1);
    assert_int_equal(r.cycles[0][0], (uint32_t)(512 * (l1 + s->loop_overhead)));
    mt_result_free(&r);
    /* path none: overheads alone */
    e = chase(MT_PATH_NONE, 4096, 4, 0, 100);
    run1(b, &e, &r);
    assert_all(&r, 0, (uint32_t)s->timer_overhead);
    mt_result_free(&r);
    e.mode = MT_MODE_AGGREGATE;
    run1(b, &e, &r);
    assert_int_equal(r.cycles[0][0], (uint32_t)(100 * s->loop_overhead));
    mt_result_free(&r);
    /* shared memory */
    e = chase(MT_PATH_SHARED, 8192, 4, 0, 100);
    run1(b, &e, &r);
    assert_all(&r, 0, fine_value(b, "shared", 0));
    mt_result_free(&r);
    mt_backend_destroy(b);
}

static void test_routing_h100(void **state)
{
    (void)state;
    mt_backend *b = open_preset("h100", 1);
    mt_result r;
    mt_experiment e = chase(MT_PATH_GLOBAL_CA, 16 << 10, 128, 1, 128);
    run1(b, &e, &r);
    assert_all(&r, 0, fine_value(b, "l1", MT_SIM_LP_L1D));
    mt_result_free(&r);
    e.chain[0].path = MT_PATH_GLOBAL_NC;
    run1(b, &e, &r);
    assert_all(&r, 0, fine_value(b, "l1", MT_SIM_LP_RO));
    mt_result_free(&r);
    e.chain[0].path = MT_PATH_TEXTURE;
    run1(b, &e, &r);
    assert_all(&r, 0, fine_value(b, "l1", MT_SIM_LP_TEX));
    assert_int_not_equal(fine_value(b, "l1", MT_SIM_LP_TEX), fine_value(b, "l1", MT_SIM_LP_L1D));
    mt_result_free(&r);
    /* cg skips L1: every warm load is an L2 hit, near or far */
    e.chain[0].path = MT_PATH_GLOBAL_CG;
    run1(b, &e, &r);
    const mt_sim_spec *s = spec_of(b);
    uint32_t near = (uint32_t)(s->cache[s->l2].latency[MT_SIM_LP_CG] + s->timer_overhead);
    uint32_t far = (uint32_t)(s->cache[s->l2].far_latency[MT_SIM_LP_CG] + s->timer_overhead);
    assert_int_equal(count_value(&r, 0, near) + count_value(&r, 0, far), 128);
    mt_result_free(&r);
    /* cold: the first load comes from DRAM */
    e = chase(MT_PATH_GLOBAL_CA, 16 << 10, 128, 0, 4);
    run1(b, &e, &r);
    assert_int_equal(r.cycles[0][0], fine_value(b, "dram", MT_SIM_LP_L1D));
    mt_result_free(&r);
    /* a 200 KiB footprint still fits the 224 KiB L1 */
    e = chase(MT_PATH_GLOBAL_CA, 200 << 10, 128, 1, 1600);
    run1(b, &e, &r);
    assert_all(&r, 0, fine_value(b, "l1", MT_SIM_LP_L1D));
    mt_result_free(&r);
    mt_backend_destroy(b);
}

static void test_routing_maxwell_no_l1_for_global(void **state)
{
    (void)state;
    mt_backend *b = open_preset("maxwell", 1);
    mt_result r;
    mt_experiment e = chase(MT_PATH_GLOBAL_CA, 4096, 32, 1, 128);
    run1(b, &e, &r);
    assert_all(&r, 0, fine_value(b, "l2", MT_SIM_LP_L1D)); /* straight to L2 */
    mt_result_free(&r);
    e.chain[0].path = MT_PATH_TEXTURE;
    run1(b, &e, &r);
    assert_all(&r, 0, fine_value(b, "tex", MT_SIM_LP_TEX));
    mt_result_free(&r);
    mt_backend_destroy(b);
}

static void test_routing_const_levels(void **state)
{
    (void)state;
    mt_backend *b = open_preset("h100", 1);
    mt_result r;
    mt_experiment e = chase(MT_PATH_CONSTANT, 1024, 64, 1, 64);
    run1(b, &e, &r);
    assert_all(&r, 0, fine_value(b, "const_l1", MT_SIM_LP_CONST));
    mt_result_free(&r);
    /* 16 KiB: beyond the 2 KiB constant L1 (LRU, sequential: all miss), in L1.5 */
    e = chase(MT_PATH_CONSTANT, 16 << 10, 64, 1, 256);
    run1(b, &e, &r);
    assert_all(&r, 0, fine_value(b, "const_l15", MT_SIM_LP_CONST));
    mt_result_free(&r);
    /* cold: DRAM */
    e.warmup_laps = 0;
    run1(b, &e, &r);
    assert_int_equal(r.cycles[0][0], fine_value(b, "dram", MT_SIM_LP_CONST));
    mt_result_free(&r);
    mt_backend_destroy(b);

    /* kepler: 48 KiB of constants overflow the 32 KiB L1.5 -> L2 */
    b = open_preset("kepler", 1);
    e = chase(MT_PATH_CONSTANT, 48 << 10, 256, 1, 192);
    run1(b, &e, &r);
    assert_all(&r, 0, fine_value(b, "l2", MT_SIM_LP_CONST));
    mt_result_free(&r);
    mt_backend_destroy(b);
}

/* Two chains, 10 KiB each, on the 12 KiB texture slices of Kepler. */
static uint32_t tex_misses_kepler(mt_backend *b, int thread1)
{
    mt_experiment e = chase(MT_PATH_TEXTURE, 10 << 10, 32, 1, 320);
    e.n_chains = 2;
    e.chain[1] = e.chain[0];
    e.chain[1].offset = 1 << 20;
    e.chain[1].thread = thread1;
    mt_result r;
    run1(b, &e, &r);
    assert_int_equal(r.n[1], 320);
    uint32_t hits = count_value(&r, 0, fine_value(b, "tex", MT_SIM_LP_TEX));
    mt_result_free(&r);
    return 320 - hits;
}

static void test_slices(void **state)
{
    (void)state;
    mt_backend *b = open_preset("kepler", 1);
    /* warp_mod over 4 slices: thread 32 is on another slice, 128 and 4 on
     * thread 0's */
    assert_int_equal(tex_misses_kepler(b, 32), 0);
    assert_int_equal(tex_misses_kepler(b, 64), 0);
    assert_int_equal(tex_misses_kepler(b, 96), 0);
    assert_true(tex_misses_kepler(b, 128) > 100);
    assert_true(tex_misses_kepler(b, 4) > 100);
    mt_backend_destroy(b);

    /* pascal: "group 64" over 2 slices */
    b = open_preset("pascal", 1);
    mt_experiment e = chase(MT_PATH_GLOBAL_CA, 20 << 10, 32, 1, 640);
    e.n_chains = 2;
    e.chain[1] = e.chain[0];
    e.chain[1].offset = 1 << 20;
    mt_result r;
    int threads[] = {32, 64, 128, 192};
    int disturbed[] = {1, 0, 1, 0};
    for (int i = 0; i < 4; i++) {
        e.chain[1].thread = threads[i];
        run1(b, &e, &r);
        uint32_t misses = 640 - count_value(&r, 0, fine_value(b, "l1tex", MT_SIM_LP_L1D));
        if (disturbed[i])
            assert_true(misses > 100);
        else
            assert_int_equal(misses, 0);
        mt_result_free(&r);
    }
    mt_backend_destroy(b);
}

static void test_sharing_between_paths(void **state)
{
    (void)state;
    /* chain 0 ld.global.ca 16 KiB, chain 1 texture 16 KiB elsewhere */
    mt_experiment e = chase(MT_PATH_GLOBAL_CA, 16 << 10, 32, 1, 512);
    e.n_chains = 2;
    e.chain[1] = e.chain[0];
    e.chain[1].path = MT_PATH_TEXTURE;
    e.chain[1].offset = 1 << 20;
    mt_result r;
    /* pascal: one physical cache (24 KiB slice): the texture chain evicts */
    mt_backend *b = open_preset("pascal", 1);
    run1(b, &e, &r);
    assert_true(count_value(&r, 0, fine_value(b, "l1tex", MT_SIM_LP_L1D)) < 512);
    mt_result_free(&r);
    mt_backend_destroy(b);
    /* kepler: L1D and texture cache are separate: no disturbance */
    b = open_preset("kepler", 1);
    e.chain[0].footprint = 12 << 10;
    e.loads = 384;
    run1(b, &e, &r);
    assert_all(&r, 0, fine_value(b, "l1d", MT_SIM_LP_L1D));
    mt_result_free(&r);
    mt_backend_destroy(b);
}

static void test_global_address_space_shared(void **state)
{
    (void)state;
    mt_backend *b = open_preset("h100", 1);
    const mt_sim_spec *s = spec_of(b);
    /* cold: chain 0 (ca) pulls its data into L2; chain 1 (cg) then reads
     * the same bytes from L2, or other bytes from DRAM */
    mt_experiment e = chase(MT_PATH_GLOBAL_CA, 8192, 128, 0, 64);
    e.n_chains = 2;
    e.chain[1] = e.chain[0];
    e.chain[1].path = MT_PATH_GLOBAL_CG;
    mt_result r;
    run1(b, &e, &r);
    uint32_t dram = fine_value(b, "dram", MT_SIM_LP_CG);
    assert_int_equal(count_value(&r, 0, fine_value(b, "dram", MT_SIM_LP_L1D)), 64);
    assert_int_equal(count_value(&r, 1, dram), 0);
    mt_result_free(&r);
    e.chain[1].offset = 1 << 20;
    run1(b, &e, &r);
    assert_int_equal(count_value(&r, 1, dram), 64);
    mt_result_free(&r);
    /* constant memory is its own space: same offset, still cold */
    e.chain[1].path = MT_PATH_CONSTANT;
    e.chain[1].offset = 0;
    run1(b, &e, &r);
    mt_experiment alone = e;
    alone.n_chains = 1;
    alone.chain[0] = e.chain[1];
    mt_result ra;
    run1(b, &alone, &ra);
    assert_memory_equal(r.cycles[1], ra.cycles[0], 64 * sizeof(uint32_t));
    /* one DRAM load per 256 B constant L1.5 line, none served by L2 */
    assert_int_equal(count_value(&r, 1, (uint32_t)(s->dram.latency[MT_SIM_LP_CONST] +
                                                   s->timer_overhead)),
                     32);
    mt_result_free(&r);
    mt_result_free(&ra);
    mt_backend_destroy(b);
}

static void test_l2_near_far(void **state)
{
    (void)state;
    mt_backend *b = open_preset("h100", 1);
    const mt_sim_spec *s = spec_of(b);
    uint32_t near = (uint32_t)(s->cache[s->l2].latency[MT_SIM_LP_CG] + s->timer_overhead);
    uint32_t far = (uint32_t)(s->cache[s->l2].far_latency[MT_SIM_LP_CG] + s->timer_overhead);
    assert_true(far > near);
    mt_experiment e = chase(MT_PATH_GLOBAL_CG, 1 << 20, 128, 1, 8192);
    mt_result r[3];
    int sms[3] = {0, 1, 2};
    for (int i = 0; i < 3; i++) {
        e.sm = sms[i];
        run1(b, &e, &r[i]);
        assert_int_equal(r[i].sm_ran, sms[i]);
        uint32_t n_near = count_value(&r[i], 0, near), n_far = count_value(&r[i], 0, far);
        assert_int_equal(n_near + n_far, 8192);
        /* a hash splits lines evenly: 4096 +- 5 sigma (sigma = 45) */
        assert_true(n_near > 3870 && n_near < 4320);
    }
    /* SMs 0 and 1 sit at different partitions: near and far swap per line;
     * SM 2 sits where SM 0 does */
    for (uint32_t k = 0; k < 8192; k++) {
        assert_int_not_equal(r[0].cycles[0][k], r[1].cycles[0][k]);
        assert_int_equal(r[0].cycles[0][k], r[2].cycles[0][k]);
    }
    for (int i = 0; i < 3; i++)
        mt_result_free(&r[i]);
    /* sm = -1 runs on SM 0 */
    e.sm = -1;
    mt_result any;
    run1(b, &e, &any);
    assert_int_equal(any.sm_ran, 0);
    mt_result_free(&any);
    mt_backend_destroy(b);
}

static void test_sector_pattern_through_levels(void **state)
{
    (void)state;
    mt_backend *b = open_preset("h100", 1);
    /* cold cg, stride 32: the L2 fetches 64 B blocks, so loads alternate
     * DRAM (first sector of a block) and L2 (its second sector) */
    mt_experiment e = chase(MT_PATH_GLOBAL_CG, 4096, 32, 0, 128);
    mt_result r;
    run1(b, &e, &r);
    uint32_t dram = fine_value(b, "dram", MT_SIM_LP_CG);
    for (uint32_t k = 0; k < 128; k++)
        if ((k % 2 == 0) != (r.cycles[0][k] == dram))
            fail_msg("load %u: %u cycles", k, r.cycles[0][k]);
    mt_result_free(&r);
    /* cold ca, stride 4: a miss per 32 B L1 sector, the other 7 words hit */
    e = chase(MT_PATH_GLOBAL_CA, 4096, 4, 0, 1024);
    run1(b, &e, &r);
    uint32_t l1 = fine_value(b, "l1", MT_SIM_LP_L1D);
    for (uint32_t k = 0; k < 1024; k++)
        if ((k % 8 != 0) != (r.cycles[0][k] == l1))
            fail_msg("load %u: %u cycles", k, r.cycles[0][k]);
    mt_result_free(&r);
    mt_backend_destroy(b);
}

static void test_random_order_follows_chain(void **state)
{
    (void)state;
    /* Cold cg with stride 32 on h100: elements 2m and 2m+1 share a 64 B L2
     * fill block, so in visiting order the first of each pair comes from
     * DRAM and the second from L2.  Predict that from mt_chain_successors. */
    mt_backend *b = open_preset("h100", 1);
    mt_experiment e = chase(MT_PATH_GLOBAL_CG, 8192, 32, 0, 256);
    e.order = MT_ORDER_RANDOM;
    e.order_seed = 1234;
    mt_result r;
    run1(b, &e, &r);
    uint32_t succ[256];
    mt_errinfo ei = {{0}};
    assert_int_equal(mt_chain_successors(&e.chain[0], e.order, e.order_seed, succ, 256, &ei),
                     MT_OK);
    uint8_t seen[128] = {0};
    uint32_t dram = fine_value(b, "dram", MT_SIM_LP_CG);
    uint32_t j = 0, n_dram = 0;
    for (uint32_t k = 0; k < 256; k++) {
        int first = !seen[j / 2];
        seen[j / 2] = 1;
        if (first != (r.cycles[0][k] == dram))
            fail_msg("load %u (element %u): %u cycles", k, j, r.cycles[0][k]);
        n_dram += first;
        j = succ[j];
    }
    assert_int_equal(n_dram, 128);
    mt_result_free(&r);
    mt_backend_destroy(b);
}

static void test_noise_and_outliers(void **state)
{
    (void)state;
    mt_sim_spec s;
    mt_errinfo ei = {{0}};
    assert_int_equal(mt_sim_spec_load("h100", &s, &ei), MT_OK);
    s.outlier_rate = 0.01;
    s.outlier_cycles = 1000;
    mt_backend *b;
    assert_int_equal(mt_backend_sim_from_spec(&s, &b, &ei), MT_OK);
    mt_experiment e = chase(MT_PATH_GLOBAL_CA, 8192, 128, 1, 8192);
    mt_result r;
    run1(b, &e, &r);
    double sum = 0, sum2 = 0;
    uint32_t n = 0, outliers = 0;
    for (uint32_t k = 0; k < 8192; k++) {
        double x = r.cycles[0][k];
        if (x > 300) {
            outliers++;
            continue;
        }
        sum += x;
        sum2 += x * x;
        n++;
    }
    double mean = sum / n, sd = sqrt(sum2 / n - mean * mean);
    /* expected 82 outliers (sd 9) */
    assert_true(outliers > 40 && outliers < 130);
    assert_true(fabs(mean - (l1d_latency(&s) + s.timer_overhead)) < 0.2);
    /* noise 1.0 plus rounding (variance 1/12) */
    assert_true(sd > 0.9 && sd < 1.2);
    mt_result_free(&r);
    mt_backend_destroy(b);
}

static void test_experiment_checks(void **state)
{
    (void)state;
    mt_backend *b = open_preset("h100", 0);
    mt_experiment e[2];
    e[0] = chase(MT_PATH_GLOBAL_CA, 4096, 128, 1, 16);
    e[1] = chase(MT_PATH_GLOBAL_CA, 4096, 128, 1, 9000); /* > max_fine_loads */
    mt_result r[2];
    mt_errinfo ei = {{0}};
    assert_int_equal(mt_backend_run(b, e, 2, r, &ei), MT_ERR_INVALID_ARG);
    assert_non_null(strstr(ei.msg, "experiment 1: "));
    assert_non_null(strstr(ei.msg, "8192"));
    /* aggregate mode has no fine-load limit */
    e[1].mode = MT_MODE_AGGREGATE;
    assert_int_equal(mt_backend_run(b, e, 2, r, &ei), MT_OK);
    mt_result_free(&r[0]);
    mt_result_free(&r[1]);
    /* over the path limit */
    e[0] = chase(MT_PATH_CONSTANT, 128 << 10, 64, 1, 16);
    assert_int_equal(mt_backend_run(b, e, 1, r, &ei), MT_ERR_INVALID_ARG);
    e[0] = chase(MT_PATH_GLOBAL_CA, 4096, 128, 1, 16);
    e[0].sm = 132;
    assert_int_equal(mt_backend_run(b, e, 1, r, &ei), MT_ERR_INVALID_ARG);
    /* legal but too much work for the simulator */
    e[0] = chase(MT_PATH_GLOBAL_CG, 4ull << 30, 4, 1, 16);
    assert_int_equal(mt_backend_run(b, e, 1, r, &ei), MT_ERR_UNSUPPORTED);
    assert_non_null(strstr(ei.msg, "experiment 0: "));
    mt_backend_destroy(b);
}

static void test_every_preset_runs(void **state)
{
    (void)state;
    const char *names[] = {"h100", "a100", "v100", "turing", "pascal", "maxwell", "kepler"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        mt_backend *b = open_preset(names[i], 0);
        mt_experiment e[MT_PATH_COUNT];
        for (int p = 0; p < MT_PATH_COUNT; p++)
            e[p] = chase((mt_path)p, 8192, 64, 1, 256);
        mt_result r[MT_PATH_COUNT];
        mt_errinfo ei = {{0}};
        if (mt_backend_run(b, e, MT_PATH_COUNT, r, &ei))
            fail_msg("%s: %s", names[i], ei.msg);
        for (int p = 0; p < MT_PATH_COUNT; p++) {
            assert_int_equal(r[p].n[0], 256);
            for (uint32_t k = 0; k < 256; k++)
                assert_true(r[p].cycles[0][k] >= 1);
            mt_result_free(&r[p]);
        }
        mt_backend_destroy(b);
    }
}

/* The sim's registry entry (collected into the generated registry). */
extern const mt_backend_entry mt_backend_entry_sim;

static void test_registry_entry(void **state)
{
    (void)state;
    assert_string_equal(mt_backend_entry_sim.name, "sim");
    assert_non_null(mt_backend_entry_sim.summary);
    assert_true(strlen(mt_backend_entry_sim.summary) > 10);
    assert_null(strchr(mt_backend_entry_sim.summary, '\n'));
    mt_backend_args a = {.target = "v100", .has_seed = 1, .seed = 1234};
    mt_backend *b = NULL;
    mt_errinfo ei = {{0}};
    if (mt_backend_entry_sim.open(&a, &b, &ei))
        fail_msg("%s", ei.msg);
    assert_int_equal(spec_of(b)->seed, 1234);
    assert_non_null(strstr(spec_of(b)->name, "V100"));
    mt_backend_destroy(b);
    a.has_seed = 0;
    assert_int_equal(mt_backend_entry_sim.open(&a, &b, &ei), MT_OK);
    assert_int_not_equal(spec_of(b)->seed, 1234);
    mt_backend_destroy(b);
    a.target = "no-such-preset";
    assert_int_equal(mt_backend_entry_sim.open(&a, &b, &ei), MT_ERR_INVALID_ARG);
    assert_null(b);
    a.target = NULL;
    assert_int_equal(mt_backend_entry_sim.open(&a, &b, &ei), MT_ERR_INVALID_ARG);
    assert_null(b);
}

static void test_interface_version_2(void **state)
{
    (void)state;
    mt_backend *b = open_preset("h100", 0);
    assert_int_equal(b->ops->api_version, MT_BACKEND_API_VERSION);
    /* The h100 preset has [throughput], [cluster], [icache] and
     * [host_link] sections: it streams and runs cluster, icache and link
     * experiments too (and, as every spec, access and evict experiments,
     * and chases run together: backend 2.10), balanced reads among its
     * streams (backend 2.11). */
    assert_int_equal(b->ops->caps, MT_CAP_CHASE | MT_CAP_SEQUENCE | MT_CAP_CLOCK | MT_CAP_CARVEOUT |
                                       MT_CAP_STREAM | MT_CAP_STREAM_CHASE | MT_CAP_STREAM_SHARED_DATA |
                                       MT_CAP_STREAM_BALANCED | MT_CAP_BANKS |
                                       MT_CAP_CLUSTER | MT_CAP_ICACHE | MT_CAP_ACCESS | MT_CAP_LINK |
                                       MT_CAP_EVICT | MT_CAP_TOGETHER);
    mt_device_info d;
    mt_errinfo ei = {{0}};
    assert_int_equal(mt_backend_info(b, &d, &ei), MT_OK);
    assert_int_equal(d.sm_count, 132);
    assert_int_equal(d.concurrent_experiments, d.sm_count);
    assert_int_equal(d.max_sequence, 65536);
    /* scope only schedules: on the sim (one experiment at a time) the same
     * experiment at either scope sees the same levels */
    mt_backend *q = open_preset("h100", 1);
    mt_experiment e = chase(MT_PATH_GLOBAL_CA, 64 << 10, 128, 1, 512);
    mt_experiment g = e;
    g.scope = MT_SCOPE_GPU;
    mt_result r1, r2;
    run1(q, &e, &r1);
    run1(q, &g, &r2);
    assert_memory_equal(r1.cycles[0], r2.cycles[0], 512 * sizeof(uint32_t));
    mt_result_free(&r1);
    mt_result_free(&r2);
    mt_backend_destroy(q);
    mt_backend_destroy(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_batch_order_independent),
        cmocka_unit_test(test_fine_vs_aggregate_overheads),
        cmocka_unit_test(test_routing_h100),
        cmocka_unit_test(test_routing_maxwell_no_l1_for_global),
        cmocka_unit_test(test_routing_const_levels),
        cmocka_unit_test(test_slices),
        cmocka_unit_test(test_sharing_between_paths),
        cmocka_unit_test(test_global_address_space_shared),
        cmocka_unit_test(test_l2_near_far),
        cmocka_unit_test(test_sector_pattern_through_levels),
        cmocka_unit_test(test_random_order_follows_chain),
        cmocka_unit_test(test_noise_and_outliers),
        cmocka_unit_test(test_experiment_checks),
        cmocka_unit_test(test_every_preset_runs),
        cmocka_unit_test(test_registry_entry),
        cmocka_unit_test(test_interface_version_2),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

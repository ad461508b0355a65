/* The model's components on hand-computed cases (src/model). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "model/model.h"
#include "model/model_internal.h"
#include "model_machine.h"

static void assert_stack_sums(const mt_model_result *r)
{
    double s = 0;
    for (int c = 0; c < MT_CPI_COUNT; c++) {
        assert_true(r->stack[c] >= -1e-9);
        s += r->stack[c];
    }
    assert_true(fabs(s - r->cycles) <= 1e-9 * r->cycles);
}

/* The model's prediction for a kernel it must accept, its CPI stack
 * checked to sum to the total. */
static mt_model_result predict_ok(const mt_model_machine *m, const mt_model_kernel *k,
                                  const mt_model_options *o)
{
    mt_model_result r;
    mt_errinfo ei;
    assert_int_equal(mt_model_predict(m, k, o, &r, &ei), MT_OK);
    assert_stack_sums(&r);
    return r;
}

/* One block per SM on every SM, no memory: inst FMAs each reading the one
 * before it. */
static mt_model_kernel fma_chain(double block_threads, double inst)
{
    mt_model_kernel k = {0};
    strcpy(k.name, "fma");
    k.grid_blocks = 100;
    k.block_threads = block_threads;
    k.inst = inst;
    k.alu_dep[1] = inst;
    k.has_dep = 1;
    k.bank_ways = 1;
    k.dram_read_bytes = k.dram_write_bytes = -1;
    return k;
}

/* 8 blocks of 8 warps per SM on every SM, each warp 500 coalesced 4-B
 * loads from DRAM (4 sectors), four to an interval. */
static mt_model_kernel dram_stream(void)
{
    mt_model_kernel k = {0};
    strcpy(k.name, "stream");
    k.grid_blocks = 100 * 8;
    k.block_threads = 256;
    k.inst = 2000;
    k.ld_global = 500;
    k.ld_sectors = 4;
    k.ld_intervals = 125;
    k.use_distance = 4;
    k.bank_ways = 1;
    k.dram_read_bytes = k.dram_write_bytes = -1;
    return k;
}

static void fma_chain_cpi_is_latency_over_warps(void **state)
{
    (void)state;
    mt_model_machine m;
    tm_machine(&m);
    mt_model_options o = {0};
    for (int s = 0; s < 2; s++) {
        o.sched = s ? MT_SCHED_RR : MT_SCHED_GTO;
        /* 1, 2 and 4 warps per scheduler: each FMA waits 4 cycles, shared
         * by the warps, so a warp instruction costs 4 / warps cycles. */
        for (int w = 1; w <= 4; w *= 2) {
            mt_model_kernel k = fma_chain(4 * 32 * w, 1000);
            mt_model_result r = predict_ok(&m, &k, &o);
            double cpi = r.cycles / (w * 1000.0);
            assert_true(fabs(cpi - 4.0 / w) < 1e-9);
        }
        /* 8 warps per scheduler: issue-bound, one instruction a cycle. */
        mt_model_kernel k = fma_chain(4 * 32 * 8, 1000);
        mt_model_result r = predict_ok(&m, &k, &o);
        assert_true(fabs(r.cycles - 8000) < 1e-9);
        assert_true(fabs(r.stack[MT_CPI_BASE] - 8000) < 1e-9);
    }
}

/* A stream of DRAM loads from 64 warps per SM: once saturated, the time is
 * the bytes over the bandwidth. */
static void stream_time_is_bytes_over_bandwidth(void **state)
{
    (void)state;
    mt_model_machine m;
    tm_machine(&m);
    mt_model_options o = {0};
    mt_model_kernel k = dram_stream();
    mt_model_result r = predict_ok(&m, &k, &o);
    /* 64 warps x 500 loads x 128 B per SM at 10 B per cycle. */
    double expect = 64 * 500 * 128 / 10.0;
    assert_true(fabs(r.cycles - expect) < 1e-6 * expect);
    assert_true(r.stack[MT_CPI_BW_DRAM] > 0.5 * r.cycles);
    /* Twice the bandwidth, half the time (still saturated). */
    tm_set(&m, MT_MI_DRAM_GBPS_READ, 2000);
    r = predict_ok(&m, &k, &o);
    assert_true(fabs(r.cycles - expect / 2) < 1e-6 * expect);
}

/* Few miss slots: Little's law, misses x latency / MLP. */
static void mshr_cap_bounds_the_misses(void **state)
{
    (void)state;
    mt_model_machine m;
    tm_machine(&m);
    tm_set(&m, MT_MI_DRAM_GBPS_READ, 1e7);
    tm_set(&m, MT_MI_L2_GBPS_READ, 1e7);
    tm_set(&m, MT_MI_L1_BW_READ, 1e6);
    tm_set(&m, MT_MI_DRAM_MLP, 16);
    mt_model_options o = {0};
    mt_model_kernel k = dram_stream();
    mt_model_result r = predict_ok(&m, &k, &o);
    double expect = 64 * 500 * 4 * 600 / 16.0;
    assert_true(fabs(r.cycles - expect) < 1e-6 * expect);
    assert_true(r.stack[MT_CPI_MSHR] > 0.5 * r.cycles);
}

/* One block more than a full wave: a second wave of one block on one SM,
 * whose empty slots are the tail. */
static void tail_of_a_partial_wave(void **state)
{
    (void)state;
    mt_model_machine m;
    tm_machine(&m);
    mt_model_options o = {0};
    mt_model_kernel k = fma_chain(1024, 1000); /* 32 warps: 2 blocks per SM */
    k.grid_blocks = 200;
    mt_model_result one, two;
    one = predict_ok(&m, &k, &o);
    assert_true(fabs(one.waves - 1) < 1e-12);
    assert_true(one.stack[MT_CPI_TAIL] == 0);
    k.grid_blocks = 201;
    two = predict_ok(&m, &k, &o);
    /* Second wave: one block of 32 warps, 8 per scheduler (issue-bound:
     * 8 x 1000 cycles) on 1 of 100 SMs: 99% of that wave is tail. */
    double last = 8000;
    assert_true(fabs(two.cycles - (one.cycles + last)) < 1e-9);
    assert_true(fabs(two.stack[MT_CPI_TAIL] - last * (1 - 1.0 / 100)) < 1e-9);
}

static void occupancy_limits(void **state)
{
    (void)state;
    mt_model_machine m;
    tm_machine(&m);
    mt_model_options o = {0};
    mt_errinfo ei;
    mt_model_kernel k = fma_chain(256, 100);
    k.regs_per_thread = 255; /* 8160 registers a warp: 8 warps need 65280 */
    mt_model_result r = predict_ok(&m, &k, &o);
    assert_true(r.blocks_per_sm == 1);
    assert_string_equal(r.occupancy_limit, "registers");
    k.regs_per_thread = 32;
    k.smem_per_block = 100 * 1024; /* + 1 KiB reserved: 2 fit in 228 KiB */
    r = predict_ok(&m, &k, &o);
    assert_true(r.blocks_per_sm == 2);
    assert_string_equal(r.occupancy_limit, "shared");
    k.smem_per_block = 0;
    o.occupancy = 0.5;
    r = predict_ok(&m, &k, &o);
    assert_true(r.warps_per_sm == 32);
    k.smem_per_block = 300 * 1024;
    o.occupancy = 0;
    assert_int_equal(mt_model_predict(&m, &k, &o, &r, &ei), MT_ERR_INVALID_ARG);
    assert_non_null(strstr(ei.msg, "does not fit"));
}

static void bank_conflicts_and_barriers_show(void **state)
{
    (void)state;
    mt_model_machine m;
    tm_machine(&m);
    mt_model_options o = {0};
    mt_model_kernel k = fma_chain(128, 1000); /* 1 warp per scheduler */
    memset(k.alu_dep, 0, sizeof k.alu_dep);
    k.ld_shared = 100;
    k.sh_intervals = 100;
    k.use_distance = 1;
    k.bank_ways = 8;
    mt_model_result r = predict_ok(&m, &k, &o);
    /* One warp alone: 1000 issue + 100 x (20 + 7 x 2 - 1) stall cycles. */
    assert_true(fabs(r.cycles - (1000 + 100 * 33)) < 1e-6);
    assert_true(fabs(r.stack[MT_CPI_BANK] - 100 * 33 * 14.0 / 34) < 1e-6);
    k.barriers = 10;
    k.block_threads = 512; /* 4 warps of the block per scheduler */
    mt_model_result rb = predict_ok(&m, &k, &o);
    assert_true(rb.stack[MT_CPI_BARRIER] > 0);
}

static void round_robin_pays_interleaving(void **state)
{
    (void)state;
    /* Two intervals of 4 instructions, 10 stall cycles each, 3 warps. */
    double count[1] = {2}, stall[1] = {10};
    double rr = mt_model_multithread(MT_SCHED_RR, 3, 8, count, stall, 1);
    /* issue_prob = 8 / 28; non-overlapped = p x 2 x (8 - 2) */
    assert_true(fabs(rr - (28 + 8.0 / 28 * 2 * 6)) < 1e-9);
    double gto = mt_model_multithread(MT_SCHED_GTO, 3, 8, count, stall, 1);
    /* p_stall = min(8/28 x 10, 1) = 1: 4 x 1 x 2 = 8 < 10: none. */
    assert_true(fabs(gto - 28) < 1e-9);
    /* The issue bound: 10 warps issue 80 instructions. */
    assert_true(mt_model_multithread(MT_SCHED_GTO, 10, 8, count, stall, 1) >= 80);
}

static void mixed_traffic_cost(void **state)
{
    (void)state;
    assert_true(fabs(mt_model_mix_cost(10, 8, 5, 0) - 0.1) < 1e-12);
    assert_true(fabs(mt_model_mix_cost(10, 8, 5, 0.5) - 0.125) < 1e-12);
    assert_true(fabs(mt_model_mix_cost(10, 8, 5, 1) - 0.2) < 1e-12);
    assert_true(fabs(mt_model_mix_cost(10, 0, 0, 0.5) - 0.1) < 1e-12);
}

static void what_if_and_retarget(void **state)
{
    (void)state;
    mt_model_machine m, to;
    tm_machine(&m);
    mt_model_options o = {0};
    mt_errinfo ei;
    assert_int_equal(mt_model_what_if("l2.size=2x", &m, &o, &ei), MT_OK);
    assert_true(m.in[MT_MI_L2_SIZE].value == 100e6);
    assert_int_equal(mt_model_what_if("l1d.latency=20", &m, &o, &ei), MT_OK);
    assert_true(m.in[MT_MI_L1_LAT].value == 20);
    assert_int_equal(mt_model_what_if("occupancy=50%", &m, &o, &ei), MT_OK);
    assert_true(o.occupancy == 0.5);
    assert_int_equal(mt_model_what_if("clock=1500", &m, &o, &ei), MT_OK);
    assert_true(o.clock_mhz == 1500);
    assert_int_equal(mt_model_what_if("l2.colour=2", &m, &o, &ei), MT_ERR_INVALID_ARG);
    assert_non_null(strstr(ei.msg, "l2.colour"));
    assert_int_equal(mt_model_what_if("l2.size=-1", &m, &o, &ei), MT_ERR_INVALID_ARG);
    assert_int_equal(mt_model_what_if("occupancy=150%", &m, &o, &ei), MT_ERR_INVALID_ARG);
    assert_int_equal(mt_model_what_if("nokey", &m, &o, &ei), MT_ERR_INVALID_ARG);

    tm_machine(&m);
    tm_machine(&to);
    tm_set(&to, MT_MI_L2_SIZE, 200e6); /* four times the L2 */
    mt_model_kernel k = fma_chain(128, 10);
    k.l2_hit = 0.5;
    k.l1_hit = 0;
    k.dram_read_bytes = 100;
    assert_int_equal(mt_model_retarget(&k, &m, &to), 1);
    /* Miss ratio 0.5 x (1/4)^0.5 = 0.25. */
    assert_true(fabs(k.l2_hit - 0.75) < 1e-12);
    assert_true(fabs(k.dram_read_bytes - 50) < 1e-9);
    assert_int_equal(mt_model_retarget(&k, &to, &to), 0);
}

/* A chase of dependent L2 hits, one warp per SM: at half the SM clock the
 * L2's 200 cycles become 100 (its time stays), the issue cycles stay. */
static void clock_scales_what_lies_beyond_the_sm(void **state)
{
    (void)state;
    mt_model_machine m;
    tm_machine(&m);
    mt_model_options o = {0};
    mt_model_kernel k = fma_chain(32, 200);
    memset(k.alu_dep, 0, sizeof k.alu_dep);
    k.ld_global = 100;
    k.ld_intervals = 100;
    k.ld_sectors = 1;
    k.l2_hit = 1;
    k.use_distance = 1;
    mt_model_result r = predict_ok(&m, &k, &o);
    /* (less the small M/D/1 waits of a nearly idle L1 and L2) */
    double queue = r.stack[MT_CPI_BW_L1] + r.stack[MT_CPI_BW_L2] + r.stack[MT_CPI_BW_DRAM];
    assert_true(queue < 1);
    assert_true(fabs(r.cycles - queue - (200 + 100 * 199)) < 1e-6);
    o.clock_mhz = 500;
    r = predict_ok(&m, &k, &o);
    queue = r.stack[MT_CPI_BW_L1] + r.stack[MT_CPI_BW_L2] + r.stack[MT_CPI_BW_DRAM];
    assert_true(fabs(r.cycles - queue - (200 + 100 * 99)) < 1e-6);
    assert_true(fabs(r.seconds - r.cycles / 500e6) < 1e-15);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fma_chain_cpi_is_latency_over_warps),
        cmocka_unit_test(stream_time_is_bytes_over_bandwidth),
        cmocka_unit_test(mshr_cap_bounds_the_misses),
        cmocka_unit_test(tail_of_a_partial_wave),
        cmocka_unit_test(occupancy_limits),
        cmocka_unit_test(bank_conflicts_and_barriers_show),
        cmocka_unit_test(round_robin_pays_interleaving),
        cmocka_unit_test(mixed_traffic_cost),
        cmocka_unit_test(what_if_and_retarget),
        cmocka_unit_test(clock_scales_what_lies_beyond_the_sm),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

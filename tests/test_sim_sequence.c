/* MT_KIND_SEQUENCE in the simulator (backend.h, mt_sequence; engine.c):
 * cold caches at the start, loads in list order, untimed entries that only
 * change the caches, one sample per timed entry (fine) or one total
 * (aggregate), with the chase's latency and overhead model.
 *
 * The spec is a tiny GPU whose L1 has 4 sets of 2 ways (LRU or FIFO) over a
 * 128 B line; with a 512 B stride every element maps to set 0, so element
 * indices name lines of one 2-way set.  Without noise a fine sample reads
 * 40 (L1 hit), 210 (L2 hit) or 510 (DRAM). */
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

enum { L1 = 40, L2 = 210, DRAM = 510, TIMER = 10, LOOP = 5 };
#define STRIDE 512u          /* 4 sets x 128 B: every element in set 0 */
#define ELEMENTS 64u

static mt_backend *open_spec(const char *repl, double noise)
{
    char text[2048];
    snprintf(text, sizeof text,
             "[device]\n"
             "name = sequence test GPU\n"
             "compute_capability = 9.0\n"
             "sm_count = 4\n"
             "clock_mhz = 1000\n"
             "mem_clock_mhz = 1000\n"
             "bus_width_bits = 64\n"
             "global_mem = 1 GiB\n"
             "l2_size = 64 KiB\n"
             "smem_per_sm = 64 KiB\n"
             "smem_per_block = 48 KiB\n"
             "smem_per_block_optin = 64 KiB\n"
             "const_mem = 64 KiB\n"
             "max_threads_per_block = 1024\n"
             "max_threads_per_sm = 2048\n"
             "warp_size = 32\n"
             "seed = 1\n"
             "timer_overhead = %d\n"
             "loop_overhead = %d\n"
             "[cache l1]\n"
             "serves = l1d\n"
             "size = 1 KiB\n"
             "line = 128\n"
             "ways = 2\n"
             "replacement = %s\n"
             "latency = %d\n"
             "noise = %g\n"
             "[cache l2]\n"
             "serves = all\n"
             "size = 64 KiB\n"
             "line = 128\n"
             "ways = 16\n"
             "latency = %d\n"
             "noise = %g\n"
             "[dram]\n"
             "latency = %d\n"
             "noise = %g\n"
             "[shared]\n"
             "latency = 20\n",
             TIMER, LOOP, repl, L1 - TIMER, noise, L2 - TIMER, noise, DRAM - TIMER, noise);
    mt_backend *b = NULL;
    mt_errinfo ei = {{0}};
    if (mt_backend_sim_open_text(text, "sequence.spec", &b, &ei))
        fail_msg("%s", ei.msg);
    return b;
}

static mt_experiment seq(const uint32_t *idx, uint32_t n, uint32_t untimed, mt_mode mode)
{
    mt_experiment e = mt_exp_chase(MT_PATH_GLOBAL_CA, (uint64_t)ELEMENTS * STRIDE, STRIDE, 0,
                                   n - untimed, mode);
    e.kind = MT_KIND_SEQUENCE;
    e.u.seq = (mt_sequence){idx, n, untimed};
    return e;
}

static void run1(mt_backend *b, const mt_experiment *e, mt_result *r)
{
    mt_errinfo ei = {{0}};
    if (mt_backend_run(b, e, 1, r, &ei))
        fail_msg("%s", ei.msg);
}

/* Runs a fine sequence and compares its samples with want[0..n-untimed-1]. */
static void expect_fine(mt_backend *b, const uint32_t *idx, uint32_t n, uint32_t untimed,
                        const uint32_t *want)
{
    mt_experiment e = seq(idx, n, untimed, MT_MODE_FINE);
    mt_result r;
    run1(b, &e, &r);
    assert_int_equal(r.n[0], n - untimed);
    assert_int_equal(r.n[1], 0);
    assert_null(r.cycles[1]);
    for (uint32_t k = 0; k < n - untimed; k++)
        if (r.cycles[0][k] != want[k])
            fail_msg("timed entry %u (element %u): %u cycles, expected %u", k, idx[untimed + k],
                     r.cycles[0][k], want[k]);
    mt_result_free(&r);
}

enum { A = 0, B = 1, C = 2, D = 3 };

static void test_reuse_hits(void **state)
{
    (void)state;
    mt_backend *b = open_spec("lru", 0);
    /* A B A: the second A hits in the L1 (2 ways hold A and B). */
    static const uint32_t abA[] = {A, B, A};
    static const uint32_t w1[] = {DRAM, DRAM, L1};
    expect_fine(b, abA, 3, 0, w1);
    /* Repeats of one element: cold once, then L1 hits. */
    static const uint32_t aaa[] = {A, A, A, A};
    static const uint32_t w2[] = {DRAM, L1, L1, L1};
    expect_fine(b, aaa, 4, 0, w2);
    /* Any order: B A B A. */
    static const uint32_t baba[] = {B, A, B, A};
    static const uint32_t w3[] = {DRAM, DRAM, L1, L1};
    expect_fine(b, baba, 4, 0, w3);
    mt_backend_destroy(b);
}

static void test_exceeding_the_ways_misses(void **state)
{
    (void)state;
    mt_backend *b = open_spec("lru", 0);
    /* A B C A: C evicts A from the 2-way set; A comes back from the L2. */
    static const uint32_t abca[] = {A, B, C, A};
    static const uint32_t w1[] = {DRAM, DRAM, DRAM, L2};
    expect_fine(b, abca, 4, 0, w1);
    /* A B C B A: LRU keeps B (just used) and C; A misses the L1. */
    static const uint32_t abcba[] = {A, B, C, B, A};
    static const uint32_t w2[] = {DRAM, DRAM, DRAM, L1, L2};
    expect_fine(b, abcba, 5, 0, w2);
    mt_backend_destroy(b);
}

static void test_fifo_and_lru_differ(void **state)
{
    (void)state;
    /* A B A C A: LRU evicts B (A was used again), so the last A hits;
     * FIFO evicts A (filled first), so the last A misses to the L2. */
    static const uint32_t abaca[] = {A, B, A, C, A};
    static const uint32_t lru[] = {DRAM, DRAM, L1, DRAM, L1};
    static const uint32_t fifo[] = {DRAM, DRAM, L1, DRAM, L2};
    mt_backend *b = open_spec("lru", 0);
    expect_fine(b, abaca, 5, 0, lru);
    mt_backend_destroy(b);
    b = open_spec("fifo", 0);
    expect_fine(b, abaca, 5, 0, fifo);
    mt_backend_destroy(b);
}

static void test_untimed_prefix(void **state)
{
    (void)state;
    mt_backend *b = open_spec("lru", 0);
    /* The untimed A B A only fills the cache: no samples, but C then evicts
     * B, and A hits. */
    static const uint32_t abaca[] = {A, B, A, C, A};
    static const uint32_t w1[] = {DRAM, L1};
    expect_fine(b, abaca, 5, 3, w1);
    /* Without the prefix A is cold. */
    static const uint32_t ca[] = {C, A};
    static const uint32_t w2[] = {DRAM, DRAM};
    expect_fine(b, ca, 2, 0, w2);
    /* Everything but the last entry untimed: exactly one sample. */
    static const uint32_t w3[] = {L1};
    expect_fine(b, abaca, 5, 4, w3);
    /* Aggregate: one sample for the timed part only. */
    mt_experiment e = seq(abaca, 5, 3, MT_MODE_AGGREGATE);
    mt_result r;
    run1(b, &e, &r);
    assert_int_equal(r.n[0], 1);
    assert_int_equal(r.cycles[0][0], (DRAM - TIMER) + (L1 - TIMER) + 2 * LOOP);
    mt_result_free(&r);
    mt_backend_destroy(b);
}

static void test_cold_at_every_start(void **state)
{
    (void)state;
    mt_backend *b = open_spec("lru", 0);
    /* Two identical sequences in one batch, after a chase that filled the
     * caches: each starts cold. */
    static const uint32_t ab[] = {A, B};
    mt_experiment e[3] = {mt_exp_chase(MT_PATH_GLOBAL_CA, 2 * STRIDE, STRIDE, 2, 4, MT_MODE_FINE),
                          seq(ab, 2, 0, MT_MODE_FINE), seq(ab, 2, 0, MT_MODE_FINE)};
    mt_result r[3];
    mt_errinfo ei = {{0}};
    if (mt_backend_run(b, e, 3, r, &ei))
        fail_msg("%s", ei.msg);
    assert_int_equal(r[0].cycles[0][0], L1); /* the chase was warm */
    for (int i = 1; i < 3; i++) {
        assert_int_equal(r[i].n[0], 2);
        assert_int_equal(r[i].cycles[0][0], DRAM);
        assert_int_equal(r[i].cycles[0][1], DRAM);
    }
    for (int i = 0; i < 3; i++)
        mt_result_free(&r[i]);
    mt_backend_destroy(b);
}

static void test_aggregate_is_sum_of_fine(void **state)
{
    (void)state;
    mt_backend *b = open_spec("lru", 0);
    enum { N = 3000, UNTIMED = 500 };
    uint32_t *idx = malloc(N * sizeof *idx);
    assert_non_null(idx);
    uint64_t x = 12345;
    enum { WIDE = 4096 }; /* elements: more lines than the L2 holds */
    for (uint32_t k = 0; k < N; k++) { /* a few hot elements, many cold ones */
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        idx[k] = (uint32_t)((x >> 33) % ((x >> 20) & 1 ? 3 : WIDE));
    }
    mt_experiment f = seq(idx, N, UNTIMED, MT_MODE_FINE);
    f.chain[0].footprint = (uint64_t)WIDE * STRIDE;
    mt_experiment a = f;
    a.mode = MT_MODE_AGGREGATE;
    mt_result rf, ra;
    run1(b, &f, &rf);
    run1(b, &a, &ra);
    assert_int_equal(rf.n[0], N - UNTIMED);
    assert_int_equal(ra.n[0], 1);
    uint64_t sum = 0;
    int seen[3] = {0};
    for (uint32_t k = 0; k < rf.n[0]; k++) {
        uint32_t v = rf.cycles[0][k];
        seen[0] += v == L1;
        seen[1] += v == L2;
        seen[2] += v == DRAM;
        sum += v - TIMER + LOOP;
    }
    assert_int_equal(seen[0] + seen[1] + seen[2], N - UNTIMED);
    assert_true(seen[0] > 0 && seen[1] > 0 && seen[2] > 0); /* every level took part */
    assert_int_equal(ra.cycles[0][0], sum);
    mt_result_free(&rf);
    mt_result_free(&ra);
    free(idx);
    mt_backend_destroy(b);
}

static void test_same_model_as_a_chase(void **state)
{
    (void)state;
    /* A sequence listing a chain's elements in chain order, two laps, gives
     * the same (noise-free) samples as a cold chase of the chain. */
    mt_backend *b = open_spec("lru", 0);
    enum { LEN = 5 };
    uint32_t idx[2 * LEN];
    for (uint32_t k = 0; k < 2 * LEN; k++)
        idx[k] = k % LEN;
    mt_experiment s = seq(idx, 2 * LEN, 0, MT_MODE_FINE);
    s.chain[0].footprint = LEN * STRIDE;
    mt_experiment c = mt_exp_chase(MT_PATH_GLOBAL_CA, LEN * STRIDE, STRIDE, 0, 2 * LEN,
                                   MT_MODE_FINE);
    mt_result rs, rc;
    run1(b, &s, &rs);
    run1(b, &c, &rc);
    assert_int_equal(rs.n[0], rc.n[0]);
    assert_memory_equal(rs.cycles[0], rc.cycles[0], rc.n[0] * sizeof(uint32_t));
    assert_int_equal(rs.cycles[0][LEN], L2); /* 5 lines in a 2-way set: all evicted */
    mt_result_free(&rs);
    mt_result_free(&rc);
    mt_backend_destroy(b);
}

static void test_noise_seeded_by_the_list(void **state)
{
    (void)state;
    mt_backend *b = open_spec("lru", 3.0);
    uint32_t l1[64], l2[64];
    for (uint32_t k = 0; k < 64; k++)
        l1[k] = l2[k] = k % 2; /* A B A B ...: hits after the first two */
    mt_experiment e1 = seq(l1, 64, 0, MT_MODE_FINE);
    mt_experiment e2 = seq(l2, 64, 0, MT_MODE_FINE);
    mt_result r1, r2, r3;
    run1(b, &e1, &r1);
    run1(b, &e2, &r2); /* same content elsewhere in memory: same samples */
    assert_memory_equal(r1.cycles[0], r2.cycles[0], 64 * sizeof(uint32_t));
    int varied = 0;
    for (uint32_t k = 3; k < 64; k++) {
        varied |= r1.cycles[0][k] != r1.cycles[0][2];
        assert_true(r1.cycles[0][k] > L1 - 20 && r1.cycles[0][k] < L1 + 20);
    }
    assert_true(varied); /* the noise is there */
    l2[0] = 1;
    l2[1] = 0; /* B A B A ...: the same levels, a different experiment */
    run1(b, &e2, &r3);
    assert_memory_not_equal(r1.cycles[0] + 2, r3.cycles[0] + 2, 62 * sizeof(uint32_t));
    mt_result_free(&r1);
    mt_result_free(&r2);
    mt_result_free(&r3);
    mt_backend_destroy(b);
}

static void test_refusals_and_info(void **state)
{
    (void)state;
    mt_backend *b = open_spec("lru", 0);
    mt_device_info d;
    mt_errinfo ei = {{0}};
    assert_int_equal(mt_backend_info(b, &d, &ei), MT_OK);
    assert_int_equal(d.concurrent_experiments, 4); /* sm_count */
    assert_int_equal(d.max_sequence, MT_SIM_MAX_SEQUENCE);
    assert_int_equal(d.max_sequence, 65536);
    assert_int_equal(b->ops->api_version, MT_BACKEND_API_VERSION);
    assert_true(mt_backend_supports(b, MT_KIND_CHASE));
    assert_true(mt_backend_supports(b, MT_KIND_SEQUENCE));
    assert_false(mt_backend_supports(b, MT_KIND_STREAM));
    assert_true(mt_backend_supports(b, MT_KIND_BANKS));
    assert_false(mt_backend_supports(b, MT_KIND_CLUSTER));

    static const uint32_t ok[] = {A, B, A};
    static const uint32_t out_of_range[] = {A, ELEMENTS, A};
    mt_experiment e[2] = {seq(ok, 3, 1, MT_MODE_FINE), seq(out_of_range, 3, 1, MT_MODE_FINE)};
    mt_result r[2];
    assert_int_equal(mt_backend_run(b, e, 2, r, &ei), MT_ERR_INVALID_ARG);
    assert_non_null(strstr(ei.msg, "experiment 1: "));
    assert_non_null(strstr(ei.msg, "element 64"));
    e[1] = seq(ok, 3, 1, MT_MODE_FINE);
    e[1].warmup_laps = 1;
    assert_int_equal(mt_backend_run(b, e, 2, r, &ei), MT_ERR_INVALID_ARG);
    /* over the sim's limit (the list is never read: refused first) */
    e[1] = seq(ok, MT_SIM_MAX_SEQUENCE + 1, MT_SIM_MAX_SEQUENCE, MT_MODE_FINE);
    assert_int_equal(mt_backend_run(b, e, 2, r, &ei), MT_ERR_INVALID_ARG);
    assert_non_null(strstr(ei.msg, "65536"));
    /* a kind the sim does not announce */
    e[1] = e[0];
    e[1].kind = MT_KIND_CLUSTER;
    assert_int_equal(mt_backend_run(b, e, 2, r, &ei), MT_ERR_UNSUPPORTED);
    assert_non_null(strstr(ei.msg, "cluster"));
    /* called directly, past mt_backend_run's check, the sim still refuses */
    assert_int_equal(b->ops->run_batch(b, e, 2, r, &ei), MT_ERR_UNSUPPORTED);
    /* the longest list the sim takes runs, in aggregate mode */
    uint32_t *big = calloc(MT_SIM_MAX_SEQUENCE, sizeof *big);
    assert_non_null(big);
    e[0] = seq(big, MT_SIM_MAX_SEQUENCE, 1, MT_MODE_AGGREGATE);
    run1(b, &e[0], &r[0]);
    assert_int_equal(r[0].n[0], 1);
    assert_int_equal(r[0].cycles[0][0], (uint32_t)(MT_SIM_MAX_SEQUENCE - 1) * (L1 - TIMER + LOOP));
    mt_result_free(&r[0]);
    free(big);
    mt_backend_destroy(b);
}

static void test_other_paths(void **state)
{
    (void)state;
    mt_backend *b = open_spec("lru", 0);
    static const uint32_t idx[] = {3, 1, 3, 2};
    /* shared: no caches, every load the shared latency */
    mt_experiment e = seq(idx, 4, 1, MT_MODE_FINE);
    e.chain[0].path = MT_PATH_SHARED;
    e.chain[0].footprint = 4 * STRIDE;
    mt_result r;
    run1(b, &e, &r);
    assert_int_equal(r.n[0], 3);
    for (int k = 0; k < 3; k++)
        assert_int_equal(r.cycles[0][k], 20 + TIMER);
    mt_result_free(&r);
    /* none: only the overhead */
    e.chain[0].path = MT_PATH_NONE;
    run1(b, &e, &r);
    for (int k = 0; k < 3; k++)
        assert_int_equal(r.cycles[0][k], TIMER);
    mt_result_free(&r);
    /* cg: the L2 only, so the repeated element is an L2 hit */
    e.chain[0].path = MT_PATH_GLOBAL_CG;
    e.u.seq.untimed = 0;
    e.loads = 4;
    run1(b, &e, &r);
    assert_int_equal(r.cycles[0][0], DRAM);
    assert_int_equal(r.cycles[0][2], L2);
    mt_result_free(&r);
    mt_backend_destroy(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reuse_hits),
        cmocka_unit_test(test_exceeding_the_ways_misses),
        cmocka_unit_test(test_fifo_and_lru_differ),
        cmocka_unit_test(test_untimed_prefix),
        cmocka_unit_test(test_cold_at_every_start),
        cmocka_unit_test(test_aggregate_is_sum_of_fine),
        cmocka_unit_test(test_same_model_as_a_chase),
        cmocka_unit_test(test_noise_seeded_by_the_list),
        cmocka_unit_test(test_refusals_and_info),
        cmocka_unit_test(test_other_paths),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

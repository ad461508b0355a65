/* L2 eviction tests (MT_KIND_EVICT, backend 2.9) in the simulator and
 * through a recording: the experiment's checked shape, the outcome the
 * model promises under LRU, FIFO and tree pseudo-LRU (the target goes
 * exactly when the pool holds W lines of its set, whatever else it
 * holds), and a recording replayed with the same samples; a replay of a
 * recording without eviction tests does not announce them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backend/backend.h"
#include "recording/recording.h"
#include "sim/cache.h"
#include "sim/sim.h"
#include "sim/spec.h"
#include "tmpdir_fixture.h"

static void shape_is_checked(void **state)
{
    (void)state;
    mt_backend *be = NULL;
    mt_errinfo ei = {{0}};
    assert_int_equal(mt_backend_sim_open("h100", 0, 0, &be, &ei), MT_OK);
    assert_true(mt_backend_supports(be, MT_KIND_EVICT));
    mt_device_info d;
    assert_int_equal(mt_backend_info(be, &d, &ei), MT_OK);
    static const struct {
        uint32_t list[7], n, repeats;
        const char *want;
    } bad[] = {
        {{0, 1, 4, 9}, 4, 1, "a list of 4 entries"},          /* even */
        {{0, 1, 4, 3, 4}, 5, 1, "overlaps"},                  /* 3..6 after 1..4 */
        {{5, 1, 8}, 3, 1, "holds the target"},                /* 1..8 holds 5 */
        {{0, 1, 0}, 3, 1, "is empty"},                        /* count 0 */
        {{0, 1, 4}, 3, MT_EVICT_MAX_REPEATS + 1, "repeats"},  /* too many repeats */
        {{99, 1, 4}, 3, 1, "target 99"},                      /* outside the chain */
        {{0, 60, 10}, 3, 1, "leaves"},                        /* past the 64 elements */
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        mt_experiment e = mt_exp_evict(64, 128, bad[i].list, bad[i].n, bad[i].repeats);
        ei.msg[0] = '\0';
        assert_int_equal(mt_experiment_check(&e, &d, &ei), MT_ERR_INVALID_ARG);
        if (!strstr(ei.msg, bad[i].want))
            fail_msg("case %zu: %s", i, ei.msg);
    }
    uint32_t ok[] = {0, 1, 4, 10, 2};
    mt_experiment e = mt_exp_evict(64, 128, ok, 5, 3);
    assert_int_equal(mt_experiment_check(&e, &d, &ei), MT_OK);
    e.chain[0].path = MT_PATH_GLOBAL_CA;
    assert_int_equal(mt_experiment_check(&e, &d, &ei), MT_ERR_INVALID_ARG);
    mt_backend_destroy(be);
}

/* Lines 1.. of the partition's cache model in the target's (line 0's)
 * set: the position just after the k-th one. */
static uint32_t after_kth_member(const mt_sim_spec *s, uint32_t k)
{
    mt_sim_cache_spec cs = s->cache[s->l2];
    cs.size /= cs.partitions > 1 ? cs.partitions : 1;
    mt_cache c;
    mt_errinfo ei = {{0}};
    assert_int_equal(mt_cache_init(&c, &cs, &ei), MT_OK);
    uint32_t home = mt_cache_set_of(&c, 0), seen = 0, x = 1;
    for (; seen < k; x++)
        seen += mt_cache_set_of(&c, (uint64_t)x * cs.line) == home;
    mt_cache_free(&c);
    return x;
}

/* Every repeat misses (evicted) or every one hits. */
static void expect(mt_backend *be, const mt_sim_spec *s, uint32_t end, bool evicted)
{
    const mt_sim_cache_spec *l2 = &s->cache[s->l2];
    uint32_t list[3] = {0, 1, end - 1};
    mt_experiment e = mt_exp_evict(2 * (uint64_t)end, l2->line, list, 3, 8);
    mt_result r;
    mt_errinfo ei = {{0}};
    assert_int_equal(mt_backend_run(be, &e, 1, &r, &ei), MT_OK);
    assert_int_equal(r.n[0], 8);
    double thr = s->timer_overhead + (l2->latency[MT_SIM_LP_CG] + s->dram.latency[MT_SIM_LP_CG]) / 2;
    for (uint32_t k = 0; k < r.n[0]; k++)
        if ((r.cycles[0][k] > thr) != evicted)
            fail_msg("%s, pool 1..%u: repeat %u took %u cycles (threshold %.0f), want %s",
                     s->name, end - 1, k, r.cycles[0][k], thr, evicted ? "a miss" : "a hit");
    mt_result_free(&r);
}

static void evicts_at_the_ways(void **state)
{
    (void)state;
    static const char *const specs[] = {"tests/specs-l2geom/evict-lru-xor-12MiB-6144x16.spec",
                                        "tests/specs-l2geom/evict-fifo-xor-2x8MiB-4096x16.spec",
                                        "tests/specs-l2geom/evict-plru-xor-8MiB-8192x8.spec",
                                        "tests/specs-l2geom/evict-lru-masks-16MiB-8192x16.spec"};
    for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) {
        mt_backend *be = NULL;
        mt_errinfo ei = {{0}};
        if (mt_backend_sim_open(specs[i], 0, 0, &be, &ei) != MT_OK)
            fail_msg("%s", ei.msg);
        const mt_sim_spec *s = mt_backend_sim_spec(be);
        uint32_t ways = s->cache[s->l2].ways;
        expect(be, s, after_kth_member(s, ways), true);
        expect(be, s, after_kth_member(s, ways) - 1, false);
        expect(be, s, after_kth_member(s, 2 * ways), true);
        mt_backend_destroy(be);
    }
}

static void replays_what_was_recorded(void **state)
{
    (void)state;
    char dir[128], plain[128];
    snprintf(dir, sizeof dir, "%s/evict", tmpdir);
    snprintf(plain, sizeof plain, "%s/plain", tmpdir);
    mt_errinfo ei = {{0}};
    mt_backend *sim = NULL, *rec = NULL, *rep = NULL;
    assert_int_equal(mt_backend_sim_open("h100", 0, 0, &sim, &ei), MT_OK);
    assert_int_equal(mt_backend_record_wrap(sim, dir, &rec, &ei), MT_OK);
    assert_true(mt_backend_supports(rec, MT_KIND_EVICT));
    uint32_t a[] = {0, 1, 300000}, b[] = {3, 1, 2, 10, 5000, 20000, 100};
    mt_experiment e[2] = {mt_exp_evict(400000, 128, a, 3, 5), mt_exp_evict(400000, 128, b, 7, 3)};
    mt_result live[2], back[2];
    assert_int_equal(mt_backend_run(rec, e, 2, live, &ei), MT_OK);
    assert_int_equal(mt_record_flush(rec, &ei), MT_OK);
    mt_backend_destroy(rec);
    if (mt_backend_replay_open(dir, &rep, &ei) != MT_OK)
        fail_msg("%s", ei.msg);
    assert_true(mt_backend_supports(rep, MT_KIND_EVICT));
    assert_int_equal(mt_backend_run(rep, e, 2, back, &ei), MT_OK);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(back[i].n[0], live[i].n[0]);
        assert_memory_equal(back[i].cycles[0], live[i].cycles[0],
                            live[i].n[0] * sizeof *live[i].cycles[0]);
        mt_result_free(&live[i]);
        mt_result_free(&back[i]);
    }
    /* One interval's count different: not recorded. */
    b[6] = 101;
    assert_int_equal(mt_backend_run(rep, &e[1], 1, back, &ei), MT_ERR_REPLAY);
    assert_non_null(strstr(ei.msg, "not recorded"));
    mt_backend_destroy(rep);
    /* A recording without eviction tests: the replay does not offer them. */
    assert_int_equal(mt_backend_sim_open("h100", 0, 0, &sim, &ei), MT_OK);
    assert_int_equal(mt_backend_record_wrap(sim, plain, &rec, &ei), MT_OK);
    mt_experiment chase = mt_exp_chase(MT_PATH_GLOBAL_CG, 4096, 128, 1, 8, MT_MODE_FINE);
    assert_int_equal(mt_backend_run(rec, &chase, 1, live, &ei), MT_OK);
    mt_result_free(&live[0]);
    assert_int_equal(mt_record_flush(rec, &ei), MT_OK);
    mt_backend_destroy(rec);
    assert_int_equal(mt_backend_replay_open(plain, &rep, &ei), MT_OK);
    assert_false(mt_backend_supports(rep, MT_KIND_EVICT));
    mt_backend_destroy(rep);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(shape_is_checked),
        cmocka_unit_test(evicts_at_the_ways),
        cmocka_unit_test(replays_what_was_recorded),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

/* Balanced stream reads (mt_stream.balanced, backend 2.11): the checked
 * shape, the simulator's time for them (its SMs are all served alike, so
 * the same as a static split's), and a recording replayed with the same
 * samples, told apart from a static read of the same data; a replay of a
 * recording without balanced reads does not announce them. */
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
#include "sim/sim.h"
#include "tmpdir_fixture.h"

/* The H100's whole-L2 read: 2 blocks of 1024 threads per SM, 256 KiB per
 * SM, 16-byte vectors, 2 in flight (a block's round: 32 KiB of its 128). */
static mt_experiment whole_read(const mt_device_info *d, uint32_t balanced)
{
    uint32_t blocks = 2 * (uint32_t)d->sm_count;
    mt_experiment e = mt_exp_stream(MT_STREAM_READ, MT_PATH_GLOBAL_CG, blocks, 1024, 16, 2,
                                    (uint64_t)d->sm_count << 18, 4, 0);
    e.u.stream.balanced = balanced;
    return e;
}

static void expect_refused(mt_experiment e, const mt_device_info *d, const char *what)
{
    mt_errinfo ei = {{0}};
    assert_int_equal(mt_experiment_check(&e, d, &ei), MT_ERR_INVALID_ARG);
    if (!strstr(ei.msg, "balanced stream"))
        fail_msg("%s: %s", what, ei.msg);
}

static void shape_is_checked(void **state)
{
    (void)state;
    mt_backend *be = NULL;
    mt_errinfo ei = {{0}};
    assert_int_equal(mt_backend_sim_open("h100", 0, 0, &be, &ei), MT_OK);
    assert_true(be->ops->caps & MT_CAP_STREAM_BALANCED);
    mt_device_info d;
    assert_int_equal(mt_backend_info(be, &d, &ei), MT_OK);
    mt_experiment e = whole_read(&d, 1);
    assert_int_equal(mt_experiment_check(&e, &d, &ei), MT_OK);
    e.chain[0].path = MT_PATH_GLOBAL_NC;
    assert_int_equal(mt_experiment_check(&e, &d, &ei), MT_OK);
    e = whole_read(&d, 2);
    expect_refused(e, &d, "balanced = 2");
    e = mt_exp_stream(MT_STREAM_WRITE, MT_PATH_GLOBAL_CG, 2 * (uint32_t)d.sm_count, 1024, 16, 2,
                      (uint64_t)d.sm_count << 18, 4, 0);
    e.u.stream.balanced = 1;
    expect_refused(e, &d, "a write");
    /* Shared data: blocks b and b + 4 read the same 64 KiB. */
    e = whole_read(&d, 1);
    e.u.stream.bytes = 256 << 10;
    e.chain[0].footprint = 256 << 10;
    e.chain[0].stride = 64 << 10;
    expect_refused(e, &d, "shared data");
    /* A round of 1024 x 16 B x 8 = 128 KiB wraps around 64 KiB shares. */
    e = whole_read(&d, 0);
    e.u.stream.in_flight = 8;
    e.u.stream.bytes /= 2;
    e.chain[0].footprint /= 2;
    if (mt_experiment_check(&e, &d, &ei) != MT_OK) /* fine, unbalanced */
        fail_msg("%s", ei.msg);
    e.u.stream.balanced = 1;
    expect_refused(e, &d, "a round wrapping its share");
    mt_backend_destroy(be);
}

/* The model serves every SM alike: a balanced read takes what the static
 * split takes (within the model's 0.01% noise, each seeded apart). */
static void sim_time_is_the_static_one(void **state)
{
    (void)state;
    mt_backend *be = NULL;
    mt_errinfo ei = {{0}};
    assert_int_equal(mt_backend_sim_open("h100", 0, 0, &be, &ei), MT_OK);
    mt_device_info d;
    assert_int_equal(mt_backend_info(be, &d, &ei), MT_OK);
    mt_experiment e[2] = {whole_read(&d, 0), whole_read(&d, 1)};
    mt_result r[2];
    assert_int_equal(mt_backend_run(be, e, 2, r, &ei), MT_OK);
    double a = r[0].cycles[0][0], b = r[1].cycles[0][0];
    if (!(a > 0) || b < a * 0.999 || b > a * 1.001)
        fail_msg("static %.0f cycles, balanced %.0f", a, b);
    mt_result_free(&r[0]);
    mt_result_free(&r[1]);
    mt_backend_destroy(be);
}

static void replays_what_was_recorded(void **state)
{
    (void)state;
    char dir[128], plain[128];
    snprintf(dir, sizeof dir, "%s/balanced", tmpdir);
    snprintf(plain, sizeof plain, "%s/plain", tmpdir);
    mt_errinfo ei = {{0}};
    mt_backend *sim = NULL, *rec = NULL, *rep = NULL;
    assert_int_equal(mt_backend_sim_open("h100", 0, 0, &sim, &ei), MT_OK);
    assert_int_equal(mt_backend_record_wrap(sim, dir, &rec, &ei), MT_OK);
    mt_device_info d;
    assert_int_equal(mt_backend_info(rec, &d, &ei), MT_OK);
    mt_experiment e = whole_read(&d, 1);
    mt_result live, back;
    assert_int_equal(mt_backend_run(rec, &e, 1, &live, &ei), MT_OK);
    assert_int_equal(mt_record_flush(rec, &ei), MT_OK);
    mt_backend_destroy(rec);
    if (mt_backend_replay_open(dir, &rep, &ei) != MT_OK)
        fail_msg("%s", ei.msg);
    assert_true(rep->ops->caps & MT_CAP_STREAM_BALANCED);
    assert_true(rep->ops->caps & MT_CAP_STREAM);
    /* The static read of the same data was not recorded. */
    mt_experiment s = whole_read(&d, 0);
    assert_int_equal(mt_backend_run(rep, &s, 1, &back, &ei), MT_ERR_REPLAY);
    assert_non_null(strstr(ei.msg, "not recorded"));
    assert_int_equal(mt_backend_run(rep, &e, 1, &back, &ei), MT_OK);
    assert_int_equal(back.n[0], live.n[0]);
    assert_memory_equal(back.cycles[0], live.cycles[0], live.n[0] * sizeof *live.cycles[0]);
    mt_result_free(&live);
    mt_result_free(&back);
    mt_recording_info info;
    assert_int_equal(mt_replay_recording_info(rep, &info, &ei), MT_OK);
    mt_backend_destroy(rep);
    /* A recording of a static read only: the replay does not offer balanced ones. */
    assert_int_equal(mt_backend_sim_open("h100", 0, 0, &sim, &ei), MT_OK);
    assert_int_equal(mt_backend_record_wrap(sim, plain, &rec, &ei), MT_OK);
    assert_int_equal(mt_backend_run(rec, &s, 1, &live, &ei), MT_OK);
    mt_result_free(&live);
    assert_int_equal(mt_record_flush(rec, &ei), MT_OK);
    mt_backend_destroy(rec);
    assert_int_equal(mt_backend_replay_open(plain, &rep, &ei), MT_OK);
    assert_false(rep->ops->caps & MT_CAP_STREAM_BALANCED);
    assert_int_equal(mt_replay_recording_info(rep, &info, &ei), MT_OK);
    mt_backend_destroy(rep);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(shape_is_checked),
        cmocka_unit_test(sim_time_is_the_static_one),
        cmocka_unit_test(replays_what_was_recorded),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

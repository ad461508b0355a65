/* Record a few batches through the sim backend (h100 preset), chases and
 * explicit sequences, replay them, and check the replay gives back exactly
 * the simulator's samples and device info. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "recording/recording.h"
#include "sim/sim.h"

#include "tmpdir_fixture.h"

static mt_experiment one(mt_path p, uint64_t footprint, uint32_t stride, uint32_t loads,
                         mt_mode mode)
{
    return mt_exp_chase(p, footprint, stride, 1, loads, mode);
}

/* Sequences over a 64 KiB chain of 128-byte elements (512 elements): one
 * that touches 4 elements again and again (all hits once warm), one that
 * sweeps all 512 and then revisits the first ones, and an aggregate one. */
#define SEQ_ELEMS 512u
#define SEQ_N 1536u
static uint32_t seq_hot[SEQ_N], seq_sweep[SEQ_N];

static void make_sequences(void)
{
    for (uint32_t k = 0; k < SEQ_N; k++) {
        seq_hot[k] = (k * 7) % 4;
        seq_sweep[k] = k % SEQ_ELEMS;
    }
}

static mt_experiment sequence(const uint32_t *index, uint32_t untimed, mt_mode mode)
{
    mt_experiment e = mt_exp_chase(MT_PATH_GLOBAL_CA, SEQ_ELEMS * 128, 128, 0, SEQ_N - untimed,
                                   mode);
    e.kind = MT_KIND_SEQUENCE;
    e.u.seq.index = index;
    e.u.seq.n = SEQ_N;
    e.u.seq.untimed = untimed;
    return e;
}

#define NB 4
#define MAXE 6

/* Batches: an L1 footprint sweep, L2/DRAM aggregate runs, a sharing pair
 * and shared memory, with one experiment repeated across batches, and
 * sequences (one repeated with another untimed prefix). */
static size_t batch(int b, mt_experiment *x)
{
    size_t n = 0;
    if (b == 0) {
        for (uint64_t kib = 64; kib <= 384; kib += 64)
            x[n++] = one(MT_PATH_GLOBAL_CA, kib << 10, 128, 512, MT_MODE_FINE);
    } else if (b == 1) {
        x[n++] = one(MT_PATH_GLOBAL_CG, 8u << 20, 128, 4096, MT_MODE_AGGREGATE);
        x[n++] = one(MT_PATH_GLOBAL_CG, 96u << 20, 128, 4096, MT_MODE_AGGREGATE);
        x[n] = one(MT_PATH_TEXTURE, 16u << 10, 128, 256, MT_MODE_FINE);
        x[n].n_chains = 2;
        x[n].chain[1] = (mt_chain){.thread = 32, .path = MT_PATH_GLOBAL_NC,
                                   .footprint = 16u << 10, .stride = 128, .offset = 1u << 20};
        n++;
    } else if (b == 2) {
        x[n++] = one(MT_PATH_SHARED, 32u << 10, 4, 256, MT_MODE_FINE);
        x[n] = one(MT_PATH_GLOBAL_CA, 128u << 10, 128, 512, MT_MODE_FINE); /* repeat */
        x[n].order = MT_ORDER_RANDOM;
        x[n].order_seed = 99;
        n++;
        x[n] = x[n - 1]; /* and an exact repeat of that */
        n++;
    } else {
        x[n++] = sequence(seq_hot, 16, MT_MODE_FINE);
        x[n++] = sequence(seq_sweep, SEQ_ELEMS, MT_MODE_FINE);
        x[n++] = sequence(seq_sweep, 0, MT_MODE_FINE);
        x[n++] = sequence(seq_sweep, SEQ_ELEMS, MT_MODE_AGGREGATE);
    }
    return n;
}

static void test_sim_roundtrip(void **state)
{
    (void)state;
    mt_errinfo ei = {{0}};
    mt_backend *sim, *rec;
    make_sequences();
    mt_err e = mt_backend_sim_open("h100", 1, 42, &sim, &ei);
    if (e)
        fail_msg("sim: %s", ei.msg);
    mt_device_info live;
    assert_int_equal(mt_backend_info(sim, &live, &ei), MT_OK);
    char dir[128];
    snprintf(dir, sizeof dir, "%s/h100", tmpdir);
    if ((e = mt_backend_record_wrap(sim, dir, &rec, &ei)))
        fail_msg("%s", ei.msg);
    mt_record_set_provenance(rec, "test", "memtopo --sim h100 --record", "2024-05-01T12:00:00Z");
    assert_true(mt_backend_supports(rec, MT_KIND_SEQUENCE));

    mt_experiment x[NB][MAXE];
    mt_result r[NB][MAXE];
    size_t n[NB];
    for (int b = 0; b < NB; b++) {
        n[b] = batch(b, x[b]);
        if ((e = mt_backend_run(rec, x[b], n[b], r[b], &ei)))
            fail_msg("batch %d: %s", b, ei.msg);
    }
    if ((e = mt_record_flush(rec, &ei)))
        fail_msg("%s", ei.msg);
    mt_backend_destroy(rec);

    mt_backend *rp;
    if ((e = mt_backend_replay_open(dir, &rp, &ei)))
        fail_msg("%s", ei.msg);
    mt_device_info back;
    assert_int_equal(mt_backend_info(rp, &back, &ei), MT_OK);
    assert_memory_equal(&back, &live, sizeof back);
    assert_string_equal(back.backend, "sim");
    mt_recording_info info;
    assert_int_equal(mt_replay_recording_info(rp, &info, &ei), MT_OK);
    assert_string_equal(info.backend, "sim");
    assert_int_equal(info.n_batches, NB);
    assert_true(mt_backend_supports(rp, MT_KIND_SEQUENCE));

    /* Replay the batches in reverse order: matching is by parameters. */
    for (int b = NB - 1; b >= 0; b--) {
        mt_result out[MAXE];
        if ((e = mt_backend_run(rp, x[b], n[b], out, &ei)))
            fail_msg("replay batch %d: %s", b, ei.msg);
        for (size_t i = 0; i < n[b]; i++) {
            assert_int_equal(out[i].sm_ran, r[b][i].sm_ran);
            for (int c = 0; c < x[b][i].n_chains; c++) {
                assert_int_equal(out[i].n[c], r[b][i].n[c]);
                assert_memory_equal(out[i].cycles[c], r[b][i].cycles[c],
                                    out[i].n[c] * sizeof(uint32_t));
            }
            mt_result_free(&out[i]);
        }
    }
    /* The L1 sweep must not be trivially constant, or the comparison above
     * would prove little: the 384 KiB footprint misses in the 224 KiB L1. */
    uint64_t small = 0, big = 0;
    for (uint32_t k = 0; k < 512; k++) {
        small += r[0][0].cycles[0][k];
        big += r[0][5].cycles[0][k];
    }
    assert_true(big > small);
    /* Nor the sequences: the warmed sweep's timed loads hit (512 x 128 B =
     * 64 KiB fits the L1) while its twin without an untimed prefix pays the
     * cold misses first, and the 4-element hot list hits too: per load,
     * cold > warm and cold > hot. */
    uint64_t hot = 0, sweep_warm = 0, sweep_cold = 0;
    for (uint32_t k = 0; k < SEQ_N - SEQ_ELEMS; k++) {
        hot += r[3][0].cycles[0][k];
        sweep_warm += r[3][1].cycles[0][k];
    }
    for (uint32_t k = 0; k < SEQ_ELEMS; k++)
        sweep_cold += r[3][2].cycles[0][k];
    assert_int_equal(r[3][2].n[0], SEQ_N);
    assert_int_equal(r[3][3].n[0], 1);
    if (getenv("MT_SHOW_MESSAGES"))
        fprintf(stderr, "per load: hot %.1f warm %.1f cold %.1f\n", hot / 1024.0,
                sweep_warm / 1024.0, sweep_cold / 512.0);
    assert_true(sweep_cold * (SEQ_N - SEQ_ELEMS) > sweep_warm * SEQ_ELEMS);
    assert_true(sweep_cold * (SEQ_N - SEQ_ELEMS) > hot * SEQ_ELEMS);

    /* Everything was used once: one more of anything is refused. */
    mt_result out[1];
    assert_int_equal(mt_backend_run(rp, x[1], 1, out, &ei), MT_ERR_REPLAY);
    mt_backend_destroy(rp);
    for (int b = 0; b < NB; b++)
        for (size_t i = 0; i < n[b]; i++)
            mt_result_free(&r[b][i]);
}

/* Requested carveouts are recorded with their experiments (params
 * carveout=P) and the device's carveouts with the device: a replay answers
 * each request with what was measured under it, tells 50% from 0% and
 * from no request, and lists the same carveouts. */
static void test_carveout_roundtrip(void **state)
{
    (void)state;
    mt_errinfo ei = {{0}};
    mt_backend *sim, *rec;
    if (mt_backend_sim_open("tests/sim-geometry.spec", 0, 0, &sim, &ei))
        fail_msg("sim: %s", ei.msg);
    mt_device_info live;
    assert_int_equal(mt_backend_info(sim, &live, &ei), MT_OK);
    assert_int_equal(live.n_carveouts, 4);
    char dir[128];
    snprintf(dir, sizeof dir, "%s/carveout", tmpdir);
    if (mt_backend_record_wrap(sim, dir, &rec, &ei))
        fail_msg("%s", ei.msg);
    assert_true(rec->ops->caps & MT_CAP_CARVEOUT);
    /* 60 KiB: hits throughout in the 80 KiB L1 at 0%, not in the 48 KiB
     * one at 50% nor the 64 KiB default (LRU, 5 lines per 4-way set) */
    mt_experiment base = mt_exp_chase(MT_PATH_GLOBAL_CA, 60 << 10, 128, 1, 480, MT_MODE_FINE);
    mt_experiment x[3] = {mt_exp_with_carveout(base, 50), mt_exp_with_carveout(base, 0), base};
    mt_result r[3];
    if (mt_backend_run(rec, x, 3, r, &ei))
        fail_msg("%s", ei.msg);
    assert_memory_not_equal(r[0].cycles[0], r[1].cycles[0], 480 * sizeof(uint32_t));
    if (mt_record_flush(rec, &ei))
        fail_msg("%s", ei.msg);
    mt_backend_destroy(rec);

    mt_backend *rp;
    if (mt_backend_replay_open(dir, &rp, &ei))
        fail_msg("%s", ei.msg);
    mt_device_info back;
    assert_int_equal(mt_backend_info(rp, &back, &ei), MT_OK);
    assert_memory_equal(&back, &live, sizeof back);
    assert_true(rp->ops->caps & MT_CAP_CARVEOUT);
    for (int i = 2; i >= 0; i--) { /* matching is by parameters, carveout included */
        mt_result out;
        if (mt_backend_run(rp, &x[i], 1, &out, &ei))
            fail_msg("replay %d: %s", i, ei.msg);
        assert_memory_equal(out.cycles[0], r[i].cycles[0], 480 * sizeof(uint32_t));
        mt_result_free(&out);
    }
    /* A carveout that was never asked for was never measured. */
    mt_experiment other = mt_exp_with_carveout(base, 100);
    mt_result out;
    assert_int_equal(mt_backend_run(rp, &other, 1, &out, &ei), MT_ERR_REPLAY);
    mt_backend_destroy(rp);
    for (int i = 0; i < 3; i++)
        mt_result_free(&r[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sim_roundtrip),
        cmocka_unit_test(test_carveout_roundtrip),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

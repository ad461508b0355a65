/* Record through a fake backend (tests/replay_fake.h), replay, and compare:
 * samples identical, repeats served in recorded order, provenance and the
 * device read back, unrecorded experiments refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "replay/record.h"
#include "replay_fake.h"

static char tmpdir[64];

static int setup(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/mt_replay_rt_XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

#define N_BATCH1 4
#define N_BATCH2 2

static void batch1(mt_experiment *x)
{
    x[0] = fx_exp(MT_PATH_GLOBAL_CA, 4096, 128, 64, MT_MODE_FINE);
    x[1] = fx_exp(MT_PATH_GLOBAL_CG, 1 << 20, 32, 1000, MT_MODE_AGGREGATE);
    x[2] = fx_exp(MT_PATH_TEXTURE, 8192, 64, 100, MT_MODE_FINE);
    x[2].n_chains = 2; /* sharing protocol: two chains on two threads */
    x[2].chain[1] = (mt_chain){.thread = 32, .path = MT_PATH_GLOBAL_NC, .footprint = 4096,
                               .stride = 32, .offset = 1 << 16};
    x[2].order = MT_ORDER_RANDOM;
    x[2].order_seed = 1234;
    x[3] = x[0]; /* an exact repeat inside one batch */
}

static void batch2(mt_experiment *x)
{
    x[0] = fx_exp(MT_PATH_GLOBAL_CA, 4096, 128, 64, MT_MODE_FINE); /* repeat of batch 1 */
    x[1] = fx_exp(MT_PATH_SHARED, 2048, 4, 16, MT_MODE_FINE);
    x[1].sm = 2;
    x[1].exclusive = 1;
}

static void assert_same(const mt_experiment *x, const mt_result *a, const mt_result *b)
{
    assert_int_equal(a->sm_ran, b->sm_ran);
    for (int c = 0; c < x->n_chains; c++) {
        assert_int_equal(a->n[c], b->n[c]);
        assert_memory_equal(a->cycles[c], b->cycles[c], a->n[c] * sizeof(uint32_t));
    }
}

static void free_results(mt_result *r, size_t n)
{
    for (size_t i = 0; i < n; i++)
        mt_result_free(&r[i]);
}

/* Records the two batches into dir, keeping copies of the live results. */
static void record_run(const char *dir, mt_result *r1, mt_result *r2, int flush_explicitly)
{
    mt_errinfo ei = {{0}};
    mt_backend *rec;
    int destroyed = 0;
    mt_backend *inner = fake_open(&destroyed); /* owned by rec, valid while rec lives */
    mt_err e = mt_backend_record_wrap(inner, dir, &rec, &ei);
    if (e)
        fail_msg("%s", ei.msg);
    mt_record_set_provenance(rec, "0.9.1", "memtopo --record x --sim h100", "2024-05-01T12:00:00Z");
    mt_device_info d;
    assert_int_equal(mt_backend_info(rec, &d, &ei), MT_OK);
    assert_string_equal(d.backend, "cuda");

    mt_experiment x1[N_BATCH1], x2[N_BATCH2];
    batch1(x1);
    batch2(x2);
    if ((e = mt_backend_run(rec, x1, N_BATCH1, r1, &ei)))
        fail_msg("%s", ei.msg);
    /* A failing batch in between records nothing and breaks nothing. */
    fake_fail_next(inner);
    mt_result junk[1];
    assert_int_equal(mt_backend_run(rec, x2, 1, junk, &ei), MT_ERR_DEVICE);
    if ((e = mt_backend_run(rec, x2, N_BATCH2, r2, &ei)))
        fail_msg("%s", ei.msg);
    assert_int_equal(mt_record_count(rec), N_BATCH1 + N_BATCH2);
    /* The in-batch repeat got different samples from the live backend. */
    assert_memory_not_equal(r1[0].cycles[0], r1[3].cycles[0], 64 * sizeof(uint32_t));
    if (flush_explicitly) {
        if ((e = mt_record_flush(rec, &ei)))
            fail_msg("%s", ei.msg);
    }
    mt_backend_destroy(rec); /* flushes when not flushed since the last batch */
    assert_true(destroyed);  /* inner destroyed too */
}

static void replay_and_compare(const char *dir, mt_result *r1, mt_result *r2)
{
    mt_errinfo ei = {{0}};
    mt_backend *rp;
    mt_err e = mt_backend_replay_open(dir, &rp, &ei);
    if (e)
        fail_msg("%s", ei.msg);

    mt_device_info d, want;
    assert_int_equal(mt_backend_info(rp, &d, &ei), MT_OK);
    fake_device(&want);
    assert_memory_equal(&d, &want, sizeof d);
    assert_string_equal(d.backend, "cuda"); /* the original backend, not "replay" */
    assert_string_equal(rp->ops->name, "replay");

    mt_recording_info info;
    assert_int_equal(mt_replay_recording_info(rp, &info, &ei), MT_OK);
    assert_string_equal(info.dir, dir);
    assert_string_equal(info.backend, "cuda");
    assert_string_equal(info.tool_version, "0.9.1");
    assert_string_equal(info.command_line, "memtopo --record x --sim h100");
    assert_string_equal(info.time_utc, "2024-05-01T12:00:00Z");
    assert_int_equal(info.n_experiments, N_BATCH1 + N_BATCH2);
    assert_int_equal(info.n_batches, 3);
    assert_int_equal(info.n_samples, 64 + 1 + 200 + 64 + 64 + 16);

    /* Same batches, different grouping and order: matching is by parameters. */
    mt_experiment x1[N_BATCH1], x2[N_BATCH2];
    batch1(x1);
    batch2(x2);
    mt_result out[N_BATCH1];
    if ((e = mt_backend_run(rp, &x2[1], 1, out, &ei)))
        fail_msg("%s", ei.msg);
    assert_same(&x2[1], &out[0], &r2[1]);
    free_results(out, 1);

    if ((e = mt_backend_run(rp, x1, N_BATCH1, out, &ei)))
        fail_msg("%s", ei.msg);
    for (int i = 0; i < N_BATCH1; i++)
        assert_same(&x1[i], &out[i], &r1[i]);
    free_results(out, N_BATCH1);

    /* The third copy of the repeated experiment is the one from batch 2. */
    if ((e = mt_backend_run(rp, x2, 1, out, &ei)))
        fail_msg("%s", ei.msg);
    assert_same(&x2[0], &out[0], &r2[0]);
    free_results(out, 1);

    /* A fourth copy was never recorded. */
    ei.msg[0] = '\0';
    assert_int_equal(mt_backend_run(rp, x2, 1, out, &ei), MT_ERR_REPLAY);
    assert_non_null(strstr(ei.msg, "recorded only 3 time(s), all already used"));
    assert_non_null(strstr(ei.msg, dir));

    mt_backend_destroy(rp);
}

static void test_roundtrip(void **state)
{
    (void)state;
    char dir[128];
    snprintf(dir, sizeof dir, "%s/rec1/nested", tmpdir); /* created like mkdir -p */
    mt_result r1[N_BATCH1], r2[N_BATCH2];
    record_run(dir, r1, r2, 1);
    replay_and_compare(dir, r1, r2);
    free_results(r1, N_BATCH1);
    free_results(r2, N_BATCH2);
}

/* destroy alone writes the recording. */
static void test_destroy_flushes(void **state)
{
    (void)state;
    char dir[128];
    snprintf(dir, sizeof dir, "%s/rec2", tmpdir);
    mt_result r1[N_BATCH1], r2[N_BATCH2];
    record_run(dir, r1, r2, 0);
    replay_and_compare(dir, r1, r2);
    free_results(r1, N_BATCH1);
    free_results(r2, N_BATCH2);
}

static void test_not_recorded(void **state)
{
    (void)state;
    char dir[128];
    snprintf(dir, sizeof dir, "%s/rec3", tmpdir);
    mt_result r1[N_BATCH1], r2[N_BATCH2];
    record_run(dir, r1, r2, 1);
    free_results(r1, N_BATCH1);
    free_results(r2, N_BATCH2);

    mt_errinfo ei = {{0}};
    mt_backend *rp;
    assert_int_equal(mt_backend_replay_open(dir, &rp, &ei), MT_OK);
    mt_experiment x[2];
    batch2(x);
    x[1].chain[0].footprint = 4096; /* differs in one parameter */
    mt_result out[2];
    assert_int_equal(mt_backend_run(rp, x, 2, out, &ei), MT_ERR_REPLAY);
    assert_null(strchr(ei.msg, '\n'));
    assert_non_null(strstr(ei.msg, "experiment 1 of the batch"));
    assert_non_null(strstr(ei.msg, "path=shared footprint=4096 stride=4"));
    assert_non_null(strstr(ei.msg, "was not recorded"));
    assert_non_null(strstr(ei.msg, dir));

    /* The failed batch consumed nothing: x[0] can still be served 3 times. */
    for (int i = 0; i < 3; i++) {
        assert_int_equal(mt_backend_run(rp, x, 1, out, &ei), MT_OK);
        free_results(out, 1);
    }

    /* An experiment the device would refuse fails like on the device. */
    x[0].chain[0].stride = 6;
    assert_int_equal(mt_backend_run(rp, x, 1, out, &ei), MT_ERR_INVALID_ARG);

    /* Not a replay / not a record backend. */
    mt_recording_info info;
    mt_backend *fake = fake_open(NULL);
    assert_int_equal(mt_replay_recording_info(fake, &info, &ei), MT_ERR_INVALID_ARG);
    assert_int_equal(mt_record_flush(fake, &ei), MT_ERR_INVALID_ARG);
    assert_int_equal(mt_record_count(fake), 0);
    mt_record_set_provenance(fake, "x", "y", "z"); /* ignored */
    mt_backend_destroy(fake);
    mt_backend_destroy(rp);
}

/* A record whose directory cannot be created fails at wrap time and
 * leaves the inner backend to the caller. */
static void test_record_bad_dir(void **state)
{
    (void)state;
    char file[128], dir[160];
    snprintf(file, sizeof file, "%s/afile", tmpdir);
    FILE *f = fopen(file, "w");
    assert_non_null(f);
    fclose(f);
    snprintf(dir, sizeof dir, "%s/sub", file);
    int destroyed = 0;
    mt_backend *rec = (mt_backend *)1;
    mt_errinfo ei = {{0}};
    mt_backend *inner = fake_open(&destroyed);
    assert_int_equal(mt_backend_record_wrap(inner, dir, &rec, &ei), MT_ERR_IO);
    assert_null(rec);
    assert_false(destroyed);
    assert_non_null(strstr(ei.msg, "afile"));
    mt_backend_destroy(inner);
    assert_true(destroyed);
}

/* discard: destroy then writes nothing. */
static void test_discard(void **state)
{
    (void)state;
    char dir[128], path[200];
    snprintf(dir, sizeof dir, "%s/discarded", tmpdir);
    mt_errinfo ei = {{0}};
    mt_backend *rec;
    assert_int_equal(mt_backend_record_wrap(fake_open(NULL), dir, &rec, &ei), MT_OK);
    mt_experiment x = fx_exp(MT_PATH_GLOBAL_CA, 4096, 128, 64, MT_MODE_FINE);
    mt_result out;
    assert_int_equal(mt_backend_run(rec, &x, 1, &out, &ei), MT_OK);
    mt_result_free(&out);
    assert_int_equal(mt_record_count(rec), 1);
    mt_record_discard(rec);
    assert_int_equal(mt_record_count(rec), 0);
    mt_backend_destroy(rec);
    snprintf(path, sizeof path, "%s/manifest.json", dir);
    assert_int_not_equal(access(path, F_OK), 0);
    snprintf(path, sizeof path, "%s/samples.csv", dir);
    assert_int_not_equal(access(path, F_OK), 0);
}

/* A recording without any batch still replays its device info. */
static void test_empty_recording(void **state)
{
    (void)state;
    char dir[128];
    snprintf(dir, sizeof dir, "%s/empty", tmpdir);
    mt_errinfo ei = {{0}};
    mt_backend *rec;
    assert_int_equal(mt_backend_record_wrap(fake_open(NULL), dir, &rec, &ei), MT_OK);
    assert_int_equal(mt_record_flush(rec, &ei), MT_OK);
    mt_backend_destroy(rec);
    mt_backend *rp;
    if (mt_backend_replay_open(dir, &rp, &ei))
        fail_msg("%s", ei.msg);
    mt_device_info d;
    assert_int_equal(mt_backend_info(rp, &d, &ei), MT_OK);
    assert_int_equal(d.sm_count, 4);
    mt_recording_info info;
    assert_int_equal(mt_replay_recording_info(rp, &info, &ei), MT_OK);
    assert_int_equal(info.n_experiments, 0);
    assert_string_equal(info.tool_version, "");
    mt_experiment x = fx_exp(MT_PATH_GLOBAL_CA, 4096, 128, 64, MT_MODE_FINE);
    mt_result out;
    assert_int_equal(mt_backend_run(rp, &x, 1, &out, &ei), MT_ERR_REPLAY);
    mt_backend_destroy(rp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip),       cmocka_unit_test(test_destroy_flushes),
        cmocka_unit_test(test_not_recorded),    cmocka_unit_test(test_record_bad_dir),
        cmocka_unit_test(test_empty_recording), cmocka_unit_test(test_discard),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

/* Record through a fake backend (tests/replay_fake.h), replay, and compare:
 * samples identical (chases and sequences), repeats served in recorded
 * order, provenance, the probe list and the device read back, unrecorded
 * experiments refused, caps passed through, failed flushes leaving no
 * manifest. */
#include <dirent.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "recording/recording.h"
#include "replay_fake.h"

#include "tmpdir_fixture.h"

#define N_BATCH1 4
#define N_BATCH2 3

/* The index lists of batch 2's sequence, and of one never recorded. */
static const uint32_t seq_a[] = {0, 5, 1, 5, 2, 5, 3, 63, 0};
static const uint32_t seq_b[] = {0, 5, 1, 5, 2, 5, 3, 62, 0};
#define SEQ_N (uint32_t)(sizeof seq_a / sizeof seq_a[0])
#define SEQ_UNTIMED 3

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
    x[1].scope = MT_SCOPE_GPU;
    /* A sequence over 64 elements of 128 bytes, element 5 repeated. */
    x[2] = fx_seq(MT_PATH_GLOBAL_CA, 8192, 128, seq_a, SEQ_N, SEQ_UNTIMED, MT_MODE_FINE);
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
    static const char *const probes[] = {"calibrate", "l1d", "assoc_l1"};
    mt_record_set_probes(rec, probes, 3);
    /* The wrapper runs what the inner backend runs. */
    assert_int_equal(rec->ops->api_version, MT_BACKEND_API_VERSION);
    assert_int_equal(rec->ops->caps, MT_CAP_CHASE | MT_CAP_SEQUENCE);
    assert_true(mt_backend_supports(rec, MT_KIND_SEQUENCE));
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
    assert_int_equal(info.n_samples, 64 + 1 + 200 + 64 + 64 + 16 + (SEQ_N - SEQ_UNTIMED));
    assert_int_equal(info.format_version, MT_RECORD_FORMAT_VERSION);
    assert_true(info.probes_known);
    assert_int_equal(info.n_probes, 3);
    assert_string_equal(info.probes[0], "calibrate");
    assert_string_equal(info.probes[1], "l1d");
    assert_string_equal(info.probes[2], "assoc_l1");
    assert_true(mt_recording_has_probe(&info, "assoc_l1"));
    assert_false(mt_recording_has_probe(&info, "l2"));
    /* Replay answers chases, sequences, clocks, streams, banks and
     * cluster, icache, access and link experiments, with or without a requested carveout, whatever
     * the recording holds (evict experiments only when it holds some:
     * test_recording_evict.c), and chases run together (since 2.10: one
     * not recorded is "not recorded"). */
    assert_int_equal(rp->ops->caps, MT_CAP_CHASE | MT_CAP_SEQUENCE | MT_CAP_CLOCK |
                                         MT_CAP_CARVEOUT | MT_CAP_STREAM | MT_CAP_STREAM_CHASE |
                                         MT_CAP_STREAM_SHARED_DATA | MT_CAP_BANKS | MT_CAP_CLUSTER | MT_CAP_ICACHE |
                                         MT_CAP_ACCESS | MT_CAP_LINK | MT_CAP_TOGETHER);
    assert_int_equal(rp->ops->api_version, MT_BACKEND_API_VERSION);

    /* The sequence, asked with a copy of its index list (matching is by
     * content), first of all: its samples are the recorded ones. */
    uint32_t copy[SEQ_N];
    memcpy(copy, seq_a, sizeof copy);
    mt_experiment xs = fx_seq(MT_PATH_GLOBAL_CA, 8192, 128, copy, SEQ_N, SEQ_UNTIMED,
                              MT_MODE_FINE);
    mt_result one;
    if ((e = mt_backend_run(rp, &xs, 1, &one, &ei)))
        fail_msg("%s", ei.msg);
    assert_int_equal(one.n[0], SEQ_N - SEQ_UNTIMED);
    assert_same(&xs, &one, &r2[2]);
    mt_result_free(&one);
    /* A sequence differing in one index was never recorded. */
    mt_experiment xb = fx_seq(MT_PATH_GLOBAL_CA, 8192, 128, seq_b, SEQ_N, SEQ_UNTIMED,
                              MT_MODE_FINE);
    assert_int_equal(mt_backend_run(rp, &xb, 1, &one, &ei), MT_ERR_REPLAY);
    assert_non_null(strstr(ei.msg, "kind=sequence"));
    assert_non_null(strstr(ei.msg, "was not recorded"));
    /* Nor one with another untimed prefix. */
    xs.u.seq.untimed = 2;
    xs.loads = SEQ_N - 2;
    assert_int_equal(mt_backend_run(rp, &xs, 1, &one, &ei), MT_ERR_REPLAY);

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

    /* The sequence was recorded once and has been used. */
    xs.u.seq.untimed = SEQ_UNTIMED;
    xs.loads = SEQ_N - SEQ_UNTIMED;
    assert_int_equal(mt_backend_run(rp, &xs, 1, out, &ei), MT_ERR_REPLAY);
    assert_non_null(strstr(ei.msg, "recorded only 1 time(s), all already used"));

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
    mt_experiment x[N_BATCH2];
    batch2(x);
    x[1].chain[0].footprint = 4096; /* differs in one parameter */
    mt_result out[N_BATCH2];
    assert_int_equal(mt_backend_run(rp, x, 2, out, &ei), MT_ERR_REPLAY);
    assert_null(strchr(ei.msg, '\n'));
    assert_non_null(strstr(ei.msg, "experiment 1 of the batch"));
    assert_non_null(strstr(ei.msg, "path=shared footprint=4096 stride=4"));
    assert_non_null(strstr(ei.msg, "scope=gpu"));
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

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        fail_msg("cannot open %s", path);
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

/* --record over --raw: the probe list set on the outer recorder reaches
 * both manifests; a recording whose writer never named its probes says so
 * (probes_known 0) and then claims every probe. */
static void test_probes_stacked(void **state)
{
    (void)state;
    char raw_dir[128], rec_dir[128], path[200];
    snprintf(raw_dir, sizeof raw_dir, "%s/stack-raw", tmpdir);
    snprintf(rec_dir, sizeof rec_dir, "%s/stack-rec", tmpdir);
    mt_errinfo ei = {{0}};
    mt_backend *raw, *rec;
    assert_int_equal(mt_backend_record_wrap(fake_open(NULL), raw_dir, &raw, &ei), MT_OK);
    assert_int_equal(mt_backend_record_wrap(raw, rec_dir, &rec, &ei), MT_OK);
    static const char *const probes[] = {"shared", "l2"};
    mt_record_set_probes(rec, probes, 2);
    mt_experiment x = fx_exp(MT_PATH_SHARED, 1024, 4, 8, MT_MODE_FINE);
    mt_result out;
    assert_int_equal(mt_backend_run(rec, &x, 1, &out, &ei), MT_OK);
    mt_result_free(&out);
    assert_int_equal(mt_record_flush(rec, &ei), MT_OK);
    assert_int_equal(mt_record_flush(raw, &ei), MT_OK);
    mt_backend_destroy(rec);

    const char *dirs[2] = {raw_dir, rec_dir};
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/manifest.json", dirs[i]);
        const char *m = slurp(path);
        assert_non_null(strstr(m, "\"format_version\": 2"));
        assert_non_null(strstr(m, "\"probes\": [\n    \"shared\",\n    \"l2\"\n  ]"));
        mt_backend *rp;
        if (mt_backend_replay_open(dirs[i], &rp, &ei))
            fail_msg("%s", ei.msg);
        mt_recording_info info;
        assert_int_equal(mt_replay_recording_info(rp, &info, &ei), MT_OK);
        assert_true(info.probes_known);
        assert_int_equal(info.n_probes, 2);
        assert_string_equal(info.probes[1], "l2");
        assert_false(mt_recording_has_probe(&info, "dram"));
        mt_backend_destroy(rp);
    }

    /* No list given: the manifest has none, and nothing is known. */
    char dir[128];
    snprintf(dir, sizeof dir, "%s/noprobes", tmpdir);
    assert_int_equal(mt_backend_record_wrap(fake_open(NULL), dir, &rec, &ei), MT_OK);
    assert_int_equal(mt_record_flush(rec, &ei), MT_OK);
    mt_backend_destroy(rec);
    snprintf(path, sizeof path, "%s/manifest.json", dir);
    assert_null(strstr(slurp(path), "\"probes\""));
    mt_backend *rp;
    if (mt_backend_replay_open(dir, &rp, &ei))
        fail_msg("%s", ei.msg);
    mt_recording_info info;
    assert_int_equal(mt_replay_recording_info(rp, &info, &ei), MT_OK);
    assert_false(info.probes_known);
    assert_int_equal(info.n_probes, 0);
    assert_true(mt_recording_has_probe(&info, "anything"));
    mt_backend_destroy(rp);

    /* An empty list is a known list: no probe ran. */
    snprintf(dir, sizeof dir, "%s/zeroprobes", tmpdir);
    assert_int_equal(mt_backend_record_wrap(fake_open(NULL), dir, &rec, &ei), MT_OK);
    mt_record_set_probes(rec, NULL, 0);
    assert_int_equal(mt_record_flush(rec, &ei), MT_OK);
    mt_backend_destroy(rec);
    if (mt_backend_replay_open(dir, &rp, &ei))
        fail_msg("%s", ei.msg);
    assert_int_equal(mt_replay_recording_info(rp, &info, &ei), MT_OK);
    assert_true(info.probes_known);
    assert_int_equal(info.n_probes, 0);
    assert_false(mt_recording_has_probe(&info, "l1d"));
    mt_backend_destroy(rp);

    /* Set on something that is not a recorder: ignored. */
    mt_backend *fake = fake_open(NULL);
    mt_record_set_probes(fake, probes, 2);
    mt_backend_destroy(fake);
}

/* A list the format cannot hold fails the flush and writes nothing. */
static void test_probes_invalid(void **state)
{
    (void)state;
    static const char *const too_long[] = {"l1d", "a_probe_name_longer_than_thirty_one_bytes"};
    static const char *const with_space[] = {"l1 d"};
    const char *many[MT_RECORDING_MAX_PROBES + 1];
    for (int i = 0; i <= MT_RECORDING_MAX_PROBES; i++)
        many[i] = "p";
    struct {
        const char *const *names;
        size_t n;
        const char *want;
    } cases[] = {
        {too_long, 2, "a_probe_name_longer"},
        {with_space, 1, "\"l1 d\""},
        {many, MT_RECORDING_MAX_PROBES + 1, "65 probes"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char dir[128], path[200];
        snprintf(dir, sizeof dir, "%s/badprobes%zu", tmpdir, c);
        mt_errinfo ei = {{0}};
        mt_backend *rec;
        assert_int_equal(mt_backend_record_wrap(fake_open(NULL), dir, &rec, &ei), MT_OK);
        mt_record_set_probes(rec, cases[c].names, cases[c].n);
        assert_int_equal(mt_record_flush(rec, &ei), MT_ERR_INVALID_ARG);
        assert_null(strchr(ei.msg, '\n'));
        if (!strstr(ei.msg, cases[c].want) || !strstr(ei.msg, "manifest.json"))
            fail_msg("case %zu: \"%s\"", c, ei.msg);
        /* A valid list set afterwards replaces the bad one. */
        static const char *const fine[] = {"l1d"};
        mt_record_set_probes(rec, fine, 1);
        assert_int_equal(mt_record_flush(rec, &ei), MT_OK);
        mt_record_set_probes(rec, cases[c].names, cases[c].n);
        mt_backend_destroy(rec); /* its flush fails: the good recording stays */
        snprintf(path, sizeof path, "%s/manifest.json", dir);
        assert_non_null(strstr(slurp(path), "\"l1d\""));
    }
}

/* Entries of dir whose names start with prefix. */
static int count_prefixed(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *de; (de = readdir(d));)
        n += strncmp(de->d_name, prefix, strlen(prefix)) == 0;
    closedir(d);
    return n;
}

/* Nothing exists before the flush; a flush that fails (here: the directory
 * gained a file memtopo did not write, so it may not be replaced) leaves the
 * previous recording exactly as it was and no temporary directory beside
 * it; once the way is clear the next flush replaces the recording whole. */
static void test_flush_failure(void **state)
{
    (void)state;
    char dir[128], path[200], before[1 << 12];
    snprintf(dir, sizeof dir, "%s/failing", tmpdir);
    mt_errinfo ei = {{0}};
    mt_backend *rec;
    assert_int_equal(mt_backend_record_wrap(fake_open(NULL), dir, &rec, &ei), MT_OK);
    assert_int_not_equal(access(dir, F_OK), 0); /* created only by the flush */
    mt_experiment x = fx_exp(MT_PATH_GLOBAL_CA, 4096, 128, 8, MT_MODE_FINE);
    mt_result out;
    assert_int_equal(mt_backend_run(rec, &x, 1, &out, &ei), MT_OK);
    mt_result_free(&out);
    assert_int_equal(mt_record_flush(rec, &ei), MT_OK);
    snprintf(path, sizeof path, "%s/experiments.csv", dir);
    snprintf(before, sizeof before, "%s", slurp(path));

    snprintf(path, sizeof path, "%s/notes.txt", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fclose(f);
    x.loads = 9;
    assert_int_equal(mt_backend_run(rec, &x, 1, &out, &ei), MT_OK);
    mt_result_free(&out);
    assert_int_equal(mt_record_flush(rec, &ei), MT_ERR_INVALID_ARG);
    assert_non_null(strstr(ei.msg, "notes.txt"));
    snprintf(path, sizeof path, "%s/experiments.csv", dir);
    assert_string_equal(slurp(path), before);
    assert_int_equal(count_prefixed(tmpdir, ".memtopo-"), 0);
    mt_backend *rp = NULL;
    if (mt_backend_replay_open(dir, &rp, &ei))
        fail_msg("%s", ei.msg);
    mt_recording_info info;
    assert_int_equal(mt_replay_recording_info(rp, &info, &ei), MT_OK);
    assert_int_equal(info.n_experiments, 1);
    mt_backend_destroy(rp);

    /* Once the way is clear, the next flush replaces the recording. */
    snprintf(path, sizeof path, "%s/notes.txt", dir);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(mt_record_flush(rec, &ei), MT_OK);
    mt_backend_destroy(rec);
    assert_int_equal(count_prefixed(tmpdir, ".memtopo-"), 0);
    if (mt_backend_replay_open(dir, &rp, &ei))
        fail_msg("%s", ei.msg);
    assert_int_equal(mt_replay_recording_info(rp, &info, &ei), MT_OK);
    assert_int_equal(info.n_experiments, 2);
    mt_backend_destroy(rp);
}

/* An interrupted run's recording says so, and its replay stops where the
 * run stopped with MT_ERR_INTERRUPTED (not MT_ERR_REPLAY). */
static void test_interrupted_recording(void **state)
{
    (void)state;
    char dir[128];
    snprintf(dir, sizeof dir, "%s/interrupted", tmpdir);
    mt_errinfo ei = {{0}};
    mt_backend *rec;
    assert_int_equal(mt_backend_record_wrap(fake_open(NULL), dir, &rec, &ei), MT_OK);
    mt_experiment x = fx_exp(MT_PATH_GLOBAL_CA, 4096, 128, 8, MT_MODE_FINE);
    mt_result out;
    assert_int_equal(mt_backend_run(rec, &x, 1, &out, &ei), MT_OK);
    mt_result_free(&out);
    mt_record_set_interrupted(rec, SIGTERM);
    assert_int_equal(mt_record_flush(rec, &ei), MT_OK);
    mt_backend_destroy(rec);

    mt_backend *rp = NULL;
    if (mt_backend_replay_open(dir, &rp, &ei))
        fail_msg("%s", ei.msg);
    mt_recording_info info;
    assert_int_equal(mt_replay_recording_info(rp, &info, &ei), MT_OK);
    assert_string_equal(info.interrupted, "SIGTERM");
    assert_int_equal(mt_backend_run(rp, &x, 1, &out, &ei), MT_OK); /* what was recorded */
    mt_result_free(&out);
    assert_int_equal(mt_backend_run(rp, &x, 1, &out, &ei), MT_ERR_INTERRUPTED);
    assert_non_null(strstr(ei.msg, "interrupted by SIGTERM"));
    mt_backend_destroy(rp);
}

/* The wrapper passes the inner backend's caps through, and refuses (before
 * running anything) a kind the format cannot store. */
static void test_caps_passthrough(void **state)
{
    (void)state;
    char dir[128];
    snprintf(dir, sizeof dir, "%s/caps", tmpdir);
    mt_errinfo ei = {{0}};
    mt_backend *rec;
    /* Cluster experiments are stored since backend 2.3; a kind the inner
     * backend does not announce is refused. */
    unsigned caps = MT_CAP_CHASE | MT_CAP_SEQUENCE | MT_CAP_CLUSTER;
    assert_int_equal(mt_backend_record_wrap(fake_open_caps(NULL, caps), dir, &rec, &ei), MT_OK);
    assert_int_equal(rec->ops->caps, caps);
    assert_true(mt_backend_supports(rec, MT_KIND_CLUSTER));
    assert_false(mt_backend_supports(rec, MT_KIND_BANKS));
    mt_experiment x[2];
    x[0] = fx_exp(MT_PATH_GLOBAL_CA, 4096, 128, 8, MT_MODE_FINE);
    uint32_t word[1] = {0};
    x[1] = mt_exp_banks(4, word, 1, 8);
    mt_result out[2];
    assert_int_equal(mt_backend_run(rec, x, 2, out, &ei), MT_ERR_UNSUPPORTED);
    assert_non_null(strstr(ei.msg, "banks"));
    assert_int_equal(mt_record_count(rec), 0);
    mt_backend_destroy(rec);

    /* A backend without sequences: the wrapper has none either. */
    assert_int_equal(mt_backend_record_wrap(fake_open_caps(NULL, MT_CAP_CHASE), dir, &rec, &ei),
                     MT_OK);
    assert_false(mt_backend_supports(rec, MT_KIND_SEQUENCE));
    mt_backend_destroy(rec);
}

/* Many sequences that differ only in their last index: each is answered
 * with its own samples and unrecorded variants are refused, however the
 * hash index happens to group them (this is what matching by content
 * means). */
#define N_VARIANTS 300
static void test_sequence_identity(void **state)
{
    (void)state;
    char dir[128];
    snprintf(dir, sizeof dir, "%s/variants", tmpdir);
    mt_errinfo ei = {{0}};
    mt_backend *rec;
    assert_int_equal(mt_backend_record_wrap(fake_open(NULL), dir, &rec, &ei), MT_OK);
    static uint32_t idx[N_VARIANTS + 50][4];
    static mt_experiment x[N_VARIANTS + 50];
    static mt_result live[N_VARIANTS];
    for (uint32_t v = 0; v < N_VARIANTS + 50; v++) {
        idx[v][0] = 1;
        idx[v][1] = 2;
        idx[v][2] = 1;
        idx[v][3] = v; /* of 512 elements */
        x[v] = fx_seq(MT_PATH_GLOBAL_CA, 512 * 128, 128, idx[v], 4, 1, MT_MODE_FINE);
    }
    if (mt_backend_run(rec, x, N_VARIANTS, live, &ei))
        fail_msg("%s", ei.msg);
    assert_int_equal(mt_record_flush(rec, &ei), MT_OK);
    mt_backend_destroy(rec);

    mt_backend *rp;
    if (mt_backend_replay_open(dir, &rp, &ei))
        fail_msg("%s", ei.msg);
    mt_result out;
    for (uint32_t v = N_VARIANTS; v < N_VARIANTS + 50; v++)
        assert_int_equal(mt_backend_run(rp, &x[v], 1, &out, &ei), MT_ERR_REPLAY);
    for (uint32_t v = N_VARIANTS; v-- > 0;) { /* in reverse: no reliance on order */
        if (mt_backend_run(rp, &x[v], 1, &out, &ei))
            fail_msg("variant %u: %s", v, ei.msg);
        assert_same(&x[v], &out, &live[v]);
        mt_result_free(&out);
        mt_result_free(&live[v]);
    }
    mt_backend_destroy(rp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip),       cmocka_unit_test(test_destroy_flushes),
        cmocka_unit_test(test_not_recorded),    cmocka_unit_test(test_record_bad_dir),
        cmocka_unit_test(test_empty_recording), cmocka_unit_test(test_discard),
        cmocka_unit_test(test_probes_stacked),  cmocka_unit_test(test_probes_invalid),
        cmocka_unit_test(test_flush_failure),
        cmocka_unit_test(test_interrupted_recording),
        cmocka_unit_test(test_caps_passthrough),
        cmocka_unit_test(test_sequence_identity),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

/* The real H100 run in tests/fixtures/h100-sxm5 (a format-version-1
 * recording) keeps opening and answering: unpacked with tar into a
 * temporary directory, its manifest reads as version 1 with the version-1
 * probe set, and recorded experiments are served with the samples in its
 * samples.csv.  (tests/sh/test_h100_replay.sh replays the whole run.) */
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

#define FIXTURE "tests/fixtures/h100-sxm5/recording.tar.xz"

static char tmpdir[64];
static char recdir[128];

static int setup(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/mt_rec_h100_XXXXXX");
    if (!mkdtemp(tmpdir))
        return -1;
    /* The tests run from the repository root (make test); MT_SRCDIR
     * overrides that. */
    const char *src = getenv("MT_SRCDIR") ? getenv("MT_SRCDIR") : ".";
    char cmd[512];
    snprintf(cmd, sizeof cmd, "tar -C '%s' -xJf '%s/%s'", tmpdir, src, FIXTURE);
    if (system(cmd) != 0) {
        fprintf(stderr, "cannot unpack %s/%s\n", src, FIXTURE);
        return -1;
    }
    snprintf(recdir, sizeof recdir, "%s/rec", tmpdir);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

/* Cycles of experiment `exp` chain 0 as samples.csv lists them. */
static uint32_t *recorded_samples(uint64_t exp, uint32_t *n)
{
    char path[200];
    snprintf(path, sizeof path, "%s/samples.csv", recdir);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    uint32_t *v = NULL, cap = 0;
    *n = 0;
    char line[128];
    while (fgets(line, sizeof line, f)) {
        unsigned long long e, i, c;
        unsigned ch;
        if (sscanf(line, "%llu,%u,%llu,%llu", &e, &ch, &i, &c) != 4 || e < exp || ch != 0)
            continue;
        if (e > exp)
            break;
        if (*n == cap) {
            cap = cap ? 2 * cap : 1024;
            v = realloc(v, cap * sizeof *v);
            assert_non_null(v);
        }
        v[(*n)++] = (uint32_t)c;
    }
    fclose(f);
    return v;
}

static void test_h100_opens(void **state)
{
    (void)state;
    mt_backend *rp;
    mt_errinfo ei = {{0}};
    if (mt_backend_replay_open(recdir, &rp, &ei))
        fail_msg("%s", ei.msg);
    mt_recording_info info;
    assert_int_equal(mt_replay_recording_info(rp, &info, &ei), MT_OK);
    assert_string_equal(info.backend, "cuda");
    assert_int_equal(info.format_version, 1);
    assert_string_equal(info.tool_version, "0.1.0");
    assert_string_equal(info.time_utc, "2026-11-21T03:41:19Z");
    assert_int_equal(info.n_experiments, 1577);
    assert_int_equal(info.n_samples, 3905475);
    assert_int_equal(info.n_batches, 102);
    assert_true(info.probes_known);
    assert_int_equal(info.n_probes, 9);
    static const char *const v1[] = {"calibrate", "shared", "l1d",  "texture", "readonly",
                                     "constant",  "l2",     "dram", "sharing"};
    for (int i = 0; i < 9; i++) {
        assert_string_equal(info.probes[i], v1[i]);
        assert_true(mt_recording_has_probe(&info, v1[i]));
    }
    assert_false(mt_recording_has_probe(&info, "assoc_l1"));

    mt_device_info d;
    assert_int_equal(mt_backend_info(rp, &d, &ei), MT_OK);
    assert_string_equal(d.name, "NVIDIA H100 80GB HBM3");
    assert_int_equal(d.sm_count, 132);
    assert_true(mt_backend_supports(rp, MT_KIND_CHASE));
    assert_true(mt_backend_supports(rp, MT_KIND_SEQUENCE));

    /* Experiment 0, the timer calibration (path none, SM scope) and
     * experiment 8 (cg, recorded with exclusive = 1: GPU scope), asked the
     * way version-2 probes build them. */
    mt_experiment x[2] = {
        mt_exp_chase(MT_PATH_NONE, 4096, 4, 1, 1024, MT_MODE_FINE),
        mt_exp_chase(MT_PATH_GLOBAL_CG, 1024, 32, 1, 1024, MT_MODE_FINE),
    };
    assert_int_equal(x[1].scope, MT_SCOPE_GPU);
    mt_result out[2];
    if (mt_backend_run(rp, x, 2, out, &ei))
        fail_msg("%s", ei.msg);
    const uint64_t ids[2] = {0, 8};
    for (int i = 0; i < 2; i++) {
        uint32_t n;
        uint32_t *want = recorded_samples(ids[i], &n);
        assert_int_equal(n, 1024);
        assert_int_equal(out[i].n[0], 1024);
        assert_memory_equal(out[i].cycles[0], want, n * sizeof *want);
        free(want);
        mt_result_free(&out[i]);
    }

    /* A probe the H100 run never had asks for something else: refused. */
    static const uint32_t idx[] = {0, 1, 0};
    mt_experiment s = mt_exp_chase(MT_PATH_GLOBAL_CA, 4096, 128, 0, 2, MT_MODE_FINE);
    s.kind = MT_KIND_SEQUENCE;
    s.u.seq = (mt_sequence){.index = idx, .n = 3, .untimed = 1};
    assert_int_equal(mt_backend_run(rp, &s, 1, out, &ei), MT_ERR_REPLAY);
    assert_non_null(strstr(ei.msg, "was not recorded"));
    assert_null(strchr(ei.msg, '\n'));
    mt_backend_destroy(rp);
}

/* The registry entry ("replay") opens its target as the directory. */
extern const mt_backend_entry mt_backend_entry_replay;

static void test_registry_entry(void **state)
{
    (void)state;
    assert_string_equal(mt_backend_entry_replay.name, "replay");
    assert_non_null(mt_backend_entry_replay.summary);
    mt_backend_args a = {.target = recdir};
    mt_backend *rp;
    mt_errinfo ei = {{0}};
    if (mt_backend_entry_replay.open(&a, &rp, &ei))
        fail_msg("%s", ei.msg);
    assert_string_equal(rp->ops->name, "replay");
    mt_recording_info info;
    assert_int_equal(mt_replay_recording_info(rp, &info, &ei), MT_OK);
    assert_string_equal(info.dir, recdir);
    mt_backend_destroy(rp);
    a.target = NULL;
    assert_int_equal(mt_backend_entry_replay.open(&a, &rp, &ei), MT_ERR_INVALID_ARG);
    assert_null(rp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_h100_opens),
        cmocka_unit_test(test_registry_entry),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

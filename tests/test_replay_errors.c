/* Replay refuses damaged recordings with MT_ERR_REPLAY and a one-line
 * message naming the file (and line) at fault.  Each case copies a good
 * recording (made through tests/replay_fake.h) and damages one thing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "replay/record.h"
#include "replay_fake.h"

static char tmpdir[64];
static char good[128];
static int case_no;

static void run_cmd(const char *fmt, ...)
{
    char cmd[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    if (system(cmd) != 0)
        fail_msg("command failed: %s", cmd);
}

/* The good recording: 3 experiments, 11 samples.
 * experiments.csv lines: 1 header, 2 exp0, 3 exp1 chain 0, 4 exp1 chain 1, 5 exp2
 * samples.csv lines: 1 header, 2-5 exp0 (fine, 4), 6-8 exp1 chain 0,
 *                    9-11 exp1 chain 1, 12 exp2 (aggregate) */
static int setup(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/mt_replay_err_XXXXXX");
    if (!mkdtemp(tmpdir))
        return -1;
    snprintf(good, sizeof good, "%s/good", tmpdir);
    mt_errinfo ei;
    mt_backend *rec;
    if (mt_backend_record_wrap(fake_open(NULL), good, &rec, &ei))
        return -1;
    mt_experiment x[3];
    x[0] = fx_exp(MT_PATH_GLOBAL_CA, 4096, 128, 4, MT_MODE_FINE);
    x[1] = fx_exp(MT_PATH_TEXTURE, 4096, 64, 3, MT_MODE_FINE);
    x[1].n_chains = 2;
    x[1].chain[1] = (mt_chain){.thread = 32, .path = MT_PATH_GLOBAL_NC, .footprint = 2048,
                               .stride = 32, .offset = 8192};
    x[2] = fx_exp(MT_PATH_GLOBAL_CG, 1 << 20, 32, 500, MT_MODE_AGGREGATE);
    mt_result r[3];
    if (mt_backend_run(rec, x, 3, r, &ei))
        return -1;
    for (int i = 0; i < 3; i++)
        mt_result_free(&r[i]);
    int bad = mt_record_flush(rec, &ei) != MT_OK;
    mt_backend_destroy(rec);
    return bad ? -1 : 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

/* A fresh copy of the good recording. */
static const char *copy_good(char *dir, size_t n)
{
    snprintf(dir, n, "%s/case%d", tmpdir, ++case_no);
    run_cmd("cp -r '%s' '%s'", good, dir);
    return dir;
}

/* Line `lineno` (1-based) of DIR/file replaced by text (NULL deletes it;
 * lineno past the end appends). */
static void edit_line(const char *dir, const char *file, int lineno, const char *text)
{
    char path[256], tmp[272];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    snprintf(tmp, sizeof tmp, "%s.edit", path);
    FILE *in = fopen(path, "r"), *out = fopen(tmp, "w");
    assert_non_null(in);
    assert_non_null(out);
    char *line = NULL;
    size_t cap = 0;
    int no = 0, done = 0;
    while (getline(&line, &cap, in) > 0) {
        if (++no == lineno) {
            done = 1;
            if (text)
                fprintf(out, "%s\n", text);
        } else {
            fputs(line, out);
        }
    }
    if (!done && text)
        fprintf(out, "%s\n", text);
    free(line);
    fclose(in);
    fclose(out);
    assert_int_equal(rename(tmp, path), 0);
}

/* Every occurrence of `from` in DIR/file replaced by `to` (sed, no regex chars used). */
static void replace(const char *dir, const char *file, const char *from, const char *to)
{
    run_cmd("sed -i 's|%s|%s|g' '%s/%s'", from, to, dir, file);
}

/* Opening dir fails with MT_ERR_REPLAY and a one-line message containing
 * every one of the given fragments. */
static void expect_fail(const char *dir, const char *frag1, const char *frag2)
{
    mt_backend *rp = (mt_backend *)1;
    mt_errinfo ei = {{0}};
    mt_err e = mt_backend_replay_open(dir, &rp, &ei);
    if (e != MT_ERR_REPLAY)
        fail_msg("expected MT_ERR_REPLAY, got %d (%s)", e, e ? ei.msg : "opened");
    assert_null(rp);
    assert_null(strchr(ei.msg, '\n'));
    if (getenv("MT_SHOW_MESSAGES")) /* for reviewing the wording */
        fprintf(stderr, "%s\n", ei.msg);
    if (!strstr(ei.msg, frag1) || (frag2 && !strstr(ei.msg, frag2)))
        fail_msg("message \"%s\" lacks \"%s\" / \"%s\"", ei.msg, frag1, frag2 ? frag2 : "");
}

static void test_good_opens(void **state)
{
    (void)state;
    mt_backend *rp;
    mt_errinfo ei = {{0}};
    if (mt_backend_replay_open(good, &rp, &ei))
        fail_msg("%s", ei.msg);
    mt_backend_destroy(rp);

    /* CRLF line endings (a recording passed through Windows) still read. */
    char dir[128];
    copy_good(dir, sizeof dir);
    run_cmd("sed -i 's/$/\\r/' '%s/experiments.csv' '%s/samples.csv'", dir, dir);
    if (mt_backend_replay_open(dir, &rp, &ei))
        fail_msg("%s", ei.msg);
    mt_backend_destroy(rp);
}

static void test_missing_files(void **state)
{
    (void)state;
    char dir[128], want[200];
    copy_good(dir, sizeof dir);
    run_cmd("rm '%s/samples.csv'", dir);
    snprintf(want, sizeof want, "%s/samples.csv: cannot open: No such file", dir);
    expect_fail(dir, want, NULL);

    copy_good(dir, sizeof dir);
    run_cmd("rm '%s/experiments.csv'", dir);
    snprintf(want, sizeof want, "%s/experiments.csv: cannot open", dir);
    expect_fail(dir, want, NULL);

    copy_good(dir, sizeof dir);
    run_cmd("rm '%s/manifest.json'", dir);
    snprintf(want, sizeof want, "%s/manifest.json: cannot open", dir);
    expect_fail(dir, want, NULL);

    snprintf(dir, sizeof dir, "%s/does-not-exist", tmpdir);
    expect_fail(dir, "manifest.json: cannot open", NULL);

    copy_good(dir, sizeof dir);
    run_cmd(": > '%s/samples.csv'", dir);
    expect_fail(dir, "samples.csv:1: empty file", NULL);
}

static void test_bad_manifest(void **state)
{
    (void)state;
    char dir[128];
    copy_good(dir, sizeof dir);
    run_cmd("head -c 40 '%s/manifest.json' > '%s/m' && mv '%s/m' '%s/manifest.json'", dir, dir,
            dir, dir);
    expect_fail(dir, "manifest.json:", "not valid JSON");

    copy_good(dir, sizeof dir);
    replace(dir, "manifest.json", "memtopo-record", "something-else");
    expect_fail(dir, "manifest.json", "\"format\"");

    copy_good(dir, sizeof dir);
    replace(dir, "manifest.json", "\"format_version\": 1", "\"format_version\": 2");
    expect_fail(dir, "manifest.json", "format_version");

    copy_good(dir, sizeof dir);
    replace(dir, "manifest.json", "\"sm_count\"", "\"sm_cnt\"");
    expect_fail(dir, "manifest.json: device", "sm_count");

    copy_good(dir, sizeof dir);
    replace(dir, "manifest.json", "\"experiments\": 3", "\"experiments\": 4");
    expect_fail(dir, "3 experiments", "says 4");

    copy_good(dir, sizeof dir);
    replace(dir, "manifest.json", "\"samples\": 11", "\"samples\": 12");
    expect_fail(dir, "11 samples", "says 12");
}

static void test_bad_experiments(void **state)
{
    (void)state;
    char dir[128];
    copy_good(dir, sizeof dir);
    replace(dir, "experiments.csv", ",tex,", ",texture,");
    expect_fail(dir, "experiments.csv:3:", "unknown path \"texture\"");

    copy_good(dir, sizeof dir);
    replace(dir, "experiments.csv", ",4096,128,", ",40x6,128,");
    expect_fail(dir, "experiments.csv:2:", "footprint \"40x6\"");

    copy_good(dir, sizeof dir);
    edit_line(dir, "experiments.csv", 5, "2,0,1,0,0,cg,1048576");
    expect_fail(dir, "experiments.csv:5:", "7 fields, expected 17");

    copy_good(dir, sizeof dir);
    edit_line(dir, "experiments.csv", 1, "id,batch");
    expect_fail(dir, "experiments.csv:1:", "bad header");

    copy_good(dir, sizeof dir);
    replace(dir, "experiments.csv", "^2,", "7,");
    expect_fail(dir, "experiments.csv:5:", "out of sequence");

    copy_good(dir, sizeof dir); /* a two-chain experiment cut after chain 0 */
    edit_line(dir, "experiments.csv", 5, NULL);
    edit_line(dir, "experiments.csv", 4, NULL);
    expect_fail(dir, "experiments.csv:", "ends inside experiment 1");

    copy_good(dir, sizeof dir);
    replace(dir, "experiments.csv", ",4096,128,", ",4096,6,");
    expect_fail(dir, "experiments.csv:2:", "invalid for the recorded device");

    copy_good(dir, sizeof dir);
    replace(dir, "experiments.csv", ",fine,", ",coarse,");
    expect_fail(dir, "experiments.csv:2:", "unknown mode");

    copy_good(dir, sizeof dir); /* chain rows of one experiment disagree */
    edit_line(dir, "experiments.csv", 4, NULL);
    run_cmd("sed -n 3p '%s/experiments.csv' | sed 's/^1,0,2,0,0,tex,4096,64,0,/1,0,2,1,32,nc,2048,"
            "32,8192,/; s/,-1,0,/,2,0,/' > '%s/l4'",
            dir, dir);
    run_cmd("sed -i '3r %s/l4' '%s/experiments.csv'", dir, dir);
    expect_fail(dir, "experiments.csv:4:", "disagrees with chain 0");
}

static void test_bad_samples(void **state)
{
    (void)state;
    char dir[128];
    copy_good(dir, sizeof dir);
    edit_line(dir, "samples.csv", 5, NULL); /* exp0 loses its last of 4 samples */
    expect_fail(dir, "samples.csv:5:", "sample count mismatch: experiment 0 chain 0 has 3 "
                                       "samples, expected 4");

    copy_good(dir, sizeof dir);
    edit_line(dir, "samples.csv", 4, NULL); /* a gap in the indices */
    expect_fail(dir, "samples.csv:4:", "index 3, expected 2");

    copy_good(dir, sizeof dir);
    edit_line(dir, "samples.csv", 12, NULL); /* the last experiment has none */
    expect_fail(dir, "samples.csv:12:", "sample count mismatch: experiment 2 chain 0 has 0 samples, expected 1");

    copy_good(dir, sizeof dir);
    edit_line(dir, "samples.csv", 99, "2,0,1,5");
    expect_fail(dir, "samples.csv:13:", "beyond");

    copy_good(dir, sizeof dir);
    edit_line(dir, "samples.csv", 3, "0,0,2,100");
    expect_fail(dir, "samples.csv:3:", "index 2, expected 1");

    copy_good(dir, sizeof dir);
    edit_line(dir, "samples.csv", 3, "0,0,1,-5");
    expect_fail(dir, "samples.csv:3:", "cycles \"-5\"");

    copy_good(dir, sizeof dir);
    edit_line(dir, "samples.csv", 6, "1,1,0,50");
    expect_fail(dir, "samples.csv:6:", "expected a sample of experiment 1 chain 0");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good_opens),      cmocka_unit_test(test_missing_files),
        cmocka_unit_test(test_bad_manifest),    cmocka_unit_test(test_bad_experiments),
        cmocka_unit_test(test_bad_samples),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

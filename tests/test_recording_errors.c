/* Replay refuses damaged recordings with MT_ERR_REPLAY and a one-line
 * message naming the file (and line) at fault.  Each case copies a good
 * recording (made through tests/replay_fake.h, format version 2, or
 * written by hand in format version 1) and damages one thing. */
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

#include "recording/recording.h"
#include "replay_fake.h"

static char tmpdir[64];
static char good[128];
static char good_v1[128];
static int case_no;

static const uint32_t seq[] = {0, 3, 1, 3, 2};

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

/* The good recording (version 2): 4 experiments, 14 samples.
 * experiments.csv lines: 1 header, 2 exp0, 3 exp1 chain 0, 4 exp1 chain 1,
 *                        5 exp2, 6 exp3 (a sequence of 5 entries, 2 untimed)
 * sequences.csv lines: 1 header, 2-6 exp3's entries 0-4
 * samples.csv lines: 1 header, 2-5 exp0 (fine, 4), 6-8 exp1 chain 0,
 *                    9-11 exp1 chain 1, 12 exp2 (aggregate), 13-15 exp3 */
static int make_good(void)
{
    mt_errinfo ei;
    mt_backend *rec;
    if (mt_backend_record_wrap(fake_open(NULL), good, &rec, &ei))
        return -1;
    static const char *const probes[] = {"calibrate", "l1d"};
    mt_record_set_probes(rec, probes, 2);
    mt_experiment x[4];
    x[0] = fx_exp(MT_PATH_GLOBAL_CA, 4096, 128, 4, MT_MODE_FINE);
    x[1] = fx_exp(MT_PATH_TEXTURE, 4096, 64, 3, MT_MODE_FINE);
    x[1].n_chains = 2;
    x[1].chain[1] = (mt_chain){.thread = 32, .path = MT_PATH_GLOBAL_NC, .footprint = 2048,
                               .stride = 32, .offset = 8192};
    x[2] = fx_exp(MT_PATH_GLOBAL_CG, 1 << 20, 32, 500, MT_MODE_AGGREGATE);
    x[3] = fx_seq(MT_PATH_GLOBAL_CA, 512, 128, seq, 5, 2, MT_MODE_FINE);
    mt_result r[4];
    if (mt_backend_run(rec, x, 4, r, &ei))
        return -1;
    for (int i = 0; i < 4; i++)
        mt_result_free(&r[i]);
    int bad = mt_record_flush(rec, &ei) != MT_OK;
    mt_backend_destroy(rec);
    return bad ? -1 : 0;
}

/* A version-1 recording as memtopo 0.1 wrote it: 2 experiments (the
 * second exclusive, i.e. GPU scope), 5 samples.
 * experiments.csv lines: 1 header, 2 exp0, 3 exp1
 * samples.csv lines: 1 header, 2-4 exp0 (fine, 3), 5-6 exp1 (fine, 2) */
static const char v1_manifest[] =
    "{\n"
    "  \"format\": \"memtopo-record\",\n"
    "  \"format_version\": 1,\n"
    "  \"provenance\": {\"tool_version\": \"0.1.0\", \"time_utc\": \"2026-11-21T03:41:19Z\"},\n"
    "  \"device\": {\"name\": \"Old GPU\", \"backend\": \"cuda\", \"ordinal\": 0,\n"
    "    \"cc_major\": 9, \"cc_minor\": 0, \"sm_count\": 4, \"clock_khz\": 1500000,\n"
    "    \"mem_clock_khz\": 0, \"bus_width_bits\": 0, \"global_mem_bytes\": 17179869184,\n"
    "    \"l2_bytes\": 4194304, \"persisting_l2_max_bytes\": 0, \"smem_per_block_bytes\": 0,\n"
    "    \"smem_per_block_optin_bytes\": 0, \"smem_per_sm_bytes\": 102400,\n"
    "    \"const_mem_bytes\": 0, \"max_threads_per_block\": 0, \"max_threads_per_sm\": 0,\n"
    "    \"warp_size\": 32, \"regs_per_sm\": 0, \"carveout_percent\": -1,\n"
    "    \"carveout_smem_bytes\": 0, \"driver_version\": \"12.4\", \"runtime_version\": \"\",\n"
    "    \"max_fine_loads\": 2048, \"max_threads_per_experiment\": 64,\n"
    "    \"path_limit_bytes\": {\"ca\": 268435456, \"cg\": 268435456, \"nc\": 268435456,\n"
    "      \"tex\": 268435456, \"const\": 65536, \"shared\": 65536, \"none\": 0}},\n"
    "  \"experiments\": 2,\n"
    "  \"samples\": 5,\n"
    "  \"batches\": 1\n"
    "}\n";
static const char v1_experiments[] =
    "id,batch,n_chains,chain,thread,path,footprint,stride,offset,order,order_seed,warmup_laps,"
    "loads,mode,sm,exclusive,sm_ran\n"
    "0,0,1,0,0,ca,4096,128,0,sequential,0,1,3,fine,-1,0,2\n"
    "1,0,1,0,0,cg,8192,32,0,sequential,0,1,2,fine,-1,1,0\n";
static const char v1_samples[] =
    "experiment,chain,index,cycles\n0,0,0,30\n0,0,1,31\n0,0,2,32\n1,0,0,400\n1,0,1,401\n";

static void write_file(const char *dir, const char *name, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) == EOF || fclose(f) != 0)
        fail_msg("cannot write %s", path);
}

static int setup(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/mt_replay_err_XXXXXX");
    if (!mkdtemp(tmpdir))
        return -1;
    snprintf(good, sizeof good, "%s/good", tmpdir);
    snprintf(good_v1, sizeof good_v1, "%s/good_v1", tmpdir);
    if (mkdir(good_v1, 0700) != 0)
        return -1;
    write_file(good_v1, "manifest.json", v1_manifest);
    write_file(good_v1, "experiments.csv", v1_experiments);
    write_file(good_v1, "samples.csv", v1_samples);
    return make_good();
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

/* A fresh copy of the good recording (of the version-1 one). */
static const char *copy_of(const char *src, char *dir, size_t n)
{
    snprintf(dir, n, "%s/case%d", tmpdir, ++case_no);
    run_cmd("cp -r '%s' '%s'", src, dir);
    return dir;
}

static const char *copy_good(char *dir, size_t n)
{
    return copy_of(good, dir, n);
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
    run_cmd("sed -i 's/$/\\r/' '%s/experiments.csv' '%s/samples.csv' '%s/sequences.csv'", dir,
            dir, dir);
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

    copy_good(dir, sizeof dir); /* a version from the future */
    replace(dir, "manifest.json", "\"format_version\": 2", "\"format_version\": 3");
    char want[200];
    snprintf(want, sizeof want, "%s/manifest.json: format_version 3 is not supported", dir);
    expect_fail(dir, want, "reads versions 1 to 2");

    copy_good(dir, sizeof dir); /* and from the past */
    replace(dir, "manifest.json", "\"format_version\": 2", "\"format_version\": 0");
    expect_fail(dir, "manifest.json: format_version 0 is not supported", NULL);

    copy_good(dir, sizeof dir);
    replace(dir, "manifest.json", "\"format_version\": 2", "\"format_version\": \"2\"");
    expect_fail(dir, "manifest.json", "\"format_version\" missing or not an integer");

    copy_good(dir, sizeof dir);
    replace(dir, "manifest.json", "\"probes\": \\[", "\"probes\": \"x\", \"old\": [");
    expect_fail(dir, "manifest.json", "\"probes\" is not an array");

    copy_good(dir, sizeof dir);
    replace(dir, "manifest.json", "\"l1d\"", "\"calibrate\"");
    expect_fail(dir, "manifest.json", "probe \"calibrate\" listed twice");

    copy_good(dir, sizeof dir);
    replace(dir, "manifest.json", "\"l1d\"", "\"\"");
    expect_fail(dir, "manifest.json", "\"probes\"[1] is not a name");

    copy_good(dir, sizeof dir);
    replace(dir, "manifest.json", "\"l1d\"", "7");
    expect_fail(dir, "manifest.json", "\"probes\"[1] is not a name");

    copy_good(dir, sizeof dir);
    replace(dir, "manifest.json", "\"sm_count\"", "\"sm_cnt\"");
    expect_fail(dir, "manifest.json: device", "sm_count");

    copy_good(dir, sizeof dir);
    replace(dir, "manifest.json", "\"experiments\": 4", "\"experiments\": 5");
    expect_fail(dir, "4 experiments", "says 5");

    copy_good(dir, sizeof dir);
    replace(dir, "manifest.json", "\"samples\": 14", "\"samples\": 15");
    expect_fail(dir, "14 samples", "says 15");
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
    expect_fail(dir, "experiments.csv:5:", "7 fields, expected 19");

    copy_good(dir, sizeof dir); /* a version-1 header in a version-2 recording */
    edit_line(dir, "experiments.csv", 1,
              "id,batch,n_chains,chain,thread,path,footprint,stride,offset,order,order_seed,"
              "warmup_laps,loads,mode,sm,exclusive,sm_ran");
    expect_fail(dir, "experiments.csv:1:", "bad header");

    copy_good(dir, sizeof dir);
    replace(dir, "experiments.csv", ",-1,gpu,", ",-1,l2,");
    expect_fail(dir, "experiments.csv:5:", "unknown scope \"l2\"");

    copy_good(dir, sizeof dir);
    replace(dir, "experiments.csv", ",sequence,", ",tensor,");
    expect_fail(dir, "experiments.csv:6:", "unknown kind \"tensor\"");

    /* A cluster row needs a cluster experiment's params (backend 2.3). */
    copy_good(dir, sizeof dir);
    replace(dir, "experiments.csv", ",sequence,", ",cluster,");
    expect_fail(dir, "experiments.csv:6:", "for a cluster experiment");

    /* A stream row needs a stream's params (backend 2.2). */
    copy_good(dir, sizeof dir);
    replace(dir, "experiments.csv", ",sequence,", ",stream,");
    expect_fail(dir, "experiments.csv:6:", "for a stream");

    copy_good(dir, sizeof dir);
    replace(dir, "experiments.csv", "n=5 untimed=2", "n=5");
    expect_fail(dir, "experiments.csv:6:", "params \"n=5\"");

    copy_good(dir, sizeof dir);
    replace(dir, "experiments.csv", "n=5 untimed=2", "n=5 untimed=2 n=5");
    expect_fail(dir, "experiments.csv:6:", "expected \"n=N untimed=U\"");

    copy_good(dir, sizeof dir);
    replace(dir, "experiments.csv", "n=5 untimed=2", "n=5 untimed=-2");
    expect_fail(dir, "experiments.csv:6:", "params");

    copy_good(dir, sizeof dir);
    replace(dir, "experiments.csv", "n=5 untimed=2", "n=5 untimed=2 ways=4");
    expect_fail(dir, "experiments.csv:6:", "params");

    copy_good(dir, sizeof dir);
    replace(dir, "experiments.csv", ",chase,$", ",chase,n=5");
    expect_fail(dir, "experiments.csv:2:", "for a chase, which has none");

    /* carveout=P (backend 2.1): 0..100, once, on any kind; and only on a
     * device that lists carveouts (this recording's does not). */
    copy_good(dir, sizeof dir);
    replace(dir, "experiments.csv", "n=5 untimed=2", "n=5 untimed=2 carveout=101");
    expect_fail(dir, "experiments.csv:6:", "carveout=P (P 0..100) optional");

    copy_good(dir, sizeof dir);
    replace(dir, "experiments.csv", "n=5 untimed=2", "carveout=5 n=5 untimed=2 carveout=5");
    expect_fail(dir, "experiments.csv:6:", "params");

    copy_good(dir, sizeof dir);
    replace(dir, "experiments.csv", ",chase,$", ",chase,carveout=x");
    expect_fail(dir, "experiments.csv:2:", "params \"carveout=x\"");

    copy_good(dir, sizeof dir);
    replace(dir, "experiments.csv", ",chase,$", ",chase,carveout=50");
    expect_fail(dir, "experiments.csv", "lists no carveouts");

    copy_good(dir, sizeof dir);
    edit_line(dir, "experiments.csv", 1, "id,batch");
    expect_fail(dir, "experiments.csv:1:", "bad header");

    copy_good(dir, sizeof dir);
    replace(dir, "experiments.csv", "^2,", "7,");
    expect_fail(dir, "experiments.csv:5:", "out of sequence");

    copy_good(dir, sizeof dir); /* a two-chain experiment cut after chain 0 */
    edit_line(dir, "experiments.csv", 6, NULL);
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
            "32,8192,/; s/,-1,sm,/,2,sm,/' > '%s/l4'",
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
    edit_line(dir, "samples.csv", 12, NULL); /* exp2 has none */
    expect_fail(dir, "samples.csv:12:", "expected a sample of experiment 2 chain 0, found "
                                        "experiment 3");

    copy_good(dir, sizeof dir); /* the last experiment loses its last sample */
    edit_line(dir, "samples.csv", 15, NULL);
    expect_fail(dir, "samples.csv:15:", "sample count mismatch: experiment 3 chain 0 has 2 "
                                        "samples, expected 3 (fine mode, loads=3); the file "
                                        "ends there");

    copy_good(dir, sizeof dir);
    edit_line(dir, "samples.csv", 99, "3,0,3,5");
    expect_fail(dir, "samples.csv:16:", "beyond");

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

static void test_bad_sequences(void **state)
{
    (void)state;
    char dir[128], want[200];
    copy_good(dir, sizeof dir);
    run_cmd("rm '%s/sequences.csv'", dir);
    snprintf(want, sizeof want, "%s/sequences.csv: cannot open: No such file", dir);
    expect_fail(dir, want, NULL);

    copy_good(dir, sizeof dir);
    edit_line(dir, "sequences.csv", 1, "experiment,index");
    expect_fail(dir, "sequences.csv:1:", "bad header");

    copy_good(dir, sizeof dir); /* one entry short */
    edit_line(dir, "sequences.csv", 6, NULL);
    expect_fail(dir, "sequences.csv:6:", "sequence length mismatch: experiment 3 has 4 entries, "
                                         "expected n=5; the file ends there");

    copy_good(dir, sizeof dir); /* one entry too many */
    edit_line(dir, "sequences.csv", 99, "3,5,0");
    expect_fail(dir, "sequences.csv:7:", "beyond the sequence experiments");

    copy_good(dir, sizeof dir);
    edit_line(dir, "sequences.csv", 3, "3,2,3");
    expect_fail(dir, "sequences.csv:3:", "experiment 3: entry 2, expected 1");

    copy_good(dir, sizeof dir);
    edit_line(dir, "sequences.csv", 2, "2,0,0");
    expect_fail(dir, "sequences.csv:2:", "expected an entry of sequence experiment 3, found "
                                         "experiment 2");

    copy_good(dir, sizeof dir);
    edit_line(dir, "sequences.csv", 4, "3,2,x");
    expect_fail(dir, "sequences.csv:4:", "index \"x\"");

    copy_good(dir, sizeof dir);
    edit_line(dir, "sequences.csv", 4, "3,2");
    expect_fail(dir, "sequences.csv:4:", "2 fields, expected 3");

    copy_good(dir, sizeof dir); /* element 4 of a 4-element chain (512 / 128) */
    edit_line(dir, "sequences.csv", 4, "3,2,4");
    expect_fail(dir, "sequences.csv: sequence experiment 3 invalid for the recorded device",
                "element 4");

    copy_good(dir, sizeof dir); /* n and loads disagree */
    replace(dir, "experiments.csv", "n=5 untimed=2", "n=5 untimed=1");
    expect_fail(dir, "sequence experiment 3 invalid for the recorded device", "loads");
}

/* Version 1: reads (kinds all chase, exclusive as scope, the version-1
 * probe list), and its own damage is refused like version 2's. */
static void test_version1(void **state)
{
    (void)state;
    mt_backend *rp;
    mt_errinfo ei = {{0}};
    if (mt_backend_replay_open(good_v1, &rp, &ei))
        fail_msg("%s", ei.msg);
    mt_recording_info info;
    assert_int_equal(mt_replay_recording_info(rp, &info, &ei), MT_OK);
    assert_int_equal(info.format_version, 1);
    assert_string_equal(info.backend, "cuda");
    assert_string_equal(info.tool_version, "0.1.0");
    assert_int_equal(info.n_experiments, 2);
    assert_true(info.probes_known);
    static const char *const v1[] = {"calibrate", "shared",   "l1d", "texture", "readonly",
                                     "constant",  "l2",       "dram", "sharing"};
    assert_int_equal(info.n_probes, 9);
    for (int i = 0; i < 9; i++)
        assert_string_equal(info.probes[i], v1[i]);
    assert_false(mt_recording_has_probe(&info, "assoc_l1"));
    mt_device_info d;
    assert_int_equal(mt_backend_info(rp, &d, &ei), MT_OK);
    assert_int_equal(d.max_sequence, 0); /* not in a version-1 device */

    /* exclusive = 1 is GPU scope: the cg chase (scope gpu) is answered... */
    mt_experiment x = fx_exp(MT_PATH_GLOBAL_CG, 8192, 32, 2, MT_MODE_FINE);
    assert_int_equal(x.scope, MT_SCOPE_GPU);
    mt_result out;
    if (mt_backend_run(rp, &x, 1, &out, &ei))
        fail_msg("%s", ei.msg);
    assert_int_equal(out.n[0], 2);
    assert_int_equal(out.cycles[0][0], 400);
    assert_int_equal(out.cycles[0][1], 401);
    assert_int_equal(out.sm_ran, 0);
    mt_result_free(&out);
    /* ... and exclusive = 0 is SM scope. */
    x = fx_exp(MT_PATH_GLOBAL_CA, 4096, 128, 3, MT_MODE_FINE);
    x.scope = MT_SCOPE_GPU;
    assert_int_equal(mt_backend_run(rp, &x, 1, &out, &ei), MT_ERR_REPLAY);
    x.scope = MT_SCOPE_SM;
    if (mt_backend_run(rp, &x, 1, &out, &ei))
        fail_msg("%s", ei.msg);
    assert_int_equal(out.cycles[0][2], 32);
    mt_result_free(&out);
    mt_backend_destroy(rp);

    char dir[128];
    copy_of(good_v1, dir, sizeof dir);
    replace(dir, "experiments.csv", ",-1,1,0$", ",-1,2,0");
    expect_fail(dir, "experiments.csv:3:", "exclusive \"2\"");

    copy_of(good_v1, dir, sizeof dir); /* a version-2 header in a version-1 recording */
    edit_line(dir, "experiments.csv", 1,
              "id,batch,n_chains,chain,thread,path,footprint,stride,offset,order,order_seed,"
              "warmup_laps,loads,mode,sm,scope,sm_ran,kind,params");
    expect_fail(dir, "experiments.csv:1:", "bad header");

    copy_of(good_v1, dir, sizeof dir);
    edit_line(dir, "experiments.csv", 2, "0,0,1,0,0,ca,4096,128,0,sequential,0,1,3,fine,-1,0,2,"
                                         "chase,");
    expect_fail(dir, "experiments.csv:2:", "19 fields, expected 17");

    copy_of(good_v1, dir, sizeof dir);
    edit_line(dir, "samples.csv", 6, NULL);
    expect_fail(dir, "samples.csv:6:", "experiment 1 chain 0 has 1 samples, expected 2");

    copy_of(good_v1, dir, sizeof dir);
    replace(dir, "manifest.json", "\"batches\": 1", "\"batches\": 1, \"probes\": [\"l1d\"]");
    expect_fail(dir, "manifest.json", "\"probes\" in a version-1 manifest");

    copy_of(good_v1, dir, sizeof dir); /* version 1 has no sequences.csv: one there is ignored */
    write_file(dir, "sequences.csv", "garbage\n");
    if (mt_backend_replay_open(dir, &rp, &ei))
        fail_msg("%s", ei.msg);
    mt_backend_destroy(rp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good_opens),      cmocka_unit_test(test_missing_files),
        cmocka_unit_test(test_bad_manifest),    cmocka_unit_test(test_bad_experiments),
        cmocka_unit_test(test_bad_samples),     cmocka_unit_test(test_bad_sequences),
        cmocka_unit_test(test_version1),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

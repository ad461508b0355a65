/* The recording's CSV writer (src/recording/csv_write.c, used by --raw and
 * --record): content of the three files, mkdir -p, all-or-nothing writes,
 * kinds it cannot store refused. */
#include <dirent.h>
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

#include "recording/csv_write.h"

#include "tmpdir_fixture.h"

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        fail_msg("cannot open %s", path);
    char *buf = NULL;
    size_t cap = 0, len = 0;
    char chunk[4096];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) {
        buf = realloc(buf, cap = len + got + 1);
        assert_non_null(buf);
        memcpy(buf + len, chunk, got);
        len += got;
    }
    fclose(f);
    if (!buf)
        buf = calloc(1, 1);
    buf[len] = '\0';
    (void)cap;
    return buf;
}

static void test_content(void **state)
{
    (void)state;
    mt_experiment x[3];
    memset(x, 0, sizeof x);
    x[0].n_chains = 1;
    x[0].chain[0] = (mt_chain){.thread = 0, .path = MT_PATH_GLOBAL_CA, .footprint = 4096,
                               .stride = 128, .offset = 0};
    x[0].order = MT_ORDER_SEQUENTIAL;
    x[0].warmup_laps = 1;
    x[0].loads = 3;
    x[0].mode = MT_MODE_FINE;
    x[0].sm = -1;
    x[1].n_chains = 2;
    x[1].chain[0] = (mt_chain){.thread = 0, .path = MT_PATH_TEXTURE, .footprint = 1024,
                               .stride = 32, .offset = 0};
    x[1].chain[1] = (mt_chain){.thread = 32, .path = MT_PATH_GLOBAL_NC, .footprint = 2048,
                               .stride = 64, .offset = 1u << 20};
    x[1].order = MT_ORDER_RANDOM;
    x[1].order_seed = 77;
    x[1].loads = 10;
    x[1].mode = MT_MODE_AGGREGATE;
    x[1].sm = 3;
    x[1].scope = MT_SCOPE_GPU;

    static const uint32_t seq[] = {3, 0, 3, 1};
    x[2] = mt_exp_chase(MT_PATH_GLOBAL_NC, 512, 128, 0, 2, MT_MODE_FINE);
    x[2].kind = MT_KIND_SEQUENCE;
    x[2].u.seq = (mt_sequence){.index = seq, .n = 4, .untimed = 2};

    uint32_t a[3] = {33, 34, 260}, b0[1] = {1234}, b1[1] = {4294967295u}, c[2] = {40, 41};
    mt_result r[3];
    memset(r, 0, sizeof r);
    r[0].cycles[0] = a;
    r[0].n[0] = 3;
    r[0].sm_ran = 5;
    r[1].cycles[0] = b0;
    r[1].n[0] = 1;
    r[1].cycles[1] = b1;
    r[1].n[1] = 1;
    r[1].sm_ran = 3;
    r[2].cycles[0] = c;
    r[2].n[0] = 2;
    r[2].sm_ran = 0;
    unsigned batches[3] = {0, 7, 8};

    char dir[128];
    snprintf(dir, sizeof dir, "%s/a/b/c", tmpdir); /* parents created */
    mt_errinfo ei = {{0}};
    mt_err e = mt_raw_csv_write(dir, x, r, 3, batches, &ei);
    if (e)
        fail_msg("%s", ei.msg);

    char path[256];
    snprintf(path, sizeof path, "%s/experiments.csv", dir);
    char *s = slurp(path);
    assert_string_equal(s,
        "id,batch,n_chains,chain,thread,path,footprint,stride,offset,order,order_seed,"
        "warmup_laps,loads,mode,sm,scope,sm_ran,kind,params\n"
        "0,0,1,0,0,ca,4096,128,0,sequential,0,1,3,fine,-1,sm,5,chase,\n"
        "1,7,2,0,0,tex,1024,32,0,random,77,0,10,aggregate,3,gpu,3,chase,\n"
        "1,7,2,1,32,nc,2048,64,1048576,random,77,0,10,aggregate,3,gpu,3,chase,\n"
        "2,8,1,0,0,nc,512,128,0,sequential,0,0,2,fine,-1,sm,0,sequence,n=4 untimed=2\n");
    free(s);
    snprintf(path, sizeof path, "%s/samples.csv", dir);
    s = slurp(path);
    assert_string_equal(s, "experiment,chain,index,cycles\n"
                           "0,0,0,33\n0,0,1,34\n0,0,2,260\n"
                           "1,0,0,1234\n1,1,0,4294967295\n"
                           "2,0,0,40\n2,0,1,41\n");
    free(s);
    snprintf(path, sizeof path, "%s/sequences.csv", dir);
    s = slurp(path);
    assert_string_equal(s, "experiment,entry,index\n2,0,3\n2,1,0\n2,2,3\n2,3,1\n");
    free(s);
    snprintf(path, sizeof path, "%s/samples.csv.tmp", dir);
    assert_int_not_equal(access(path, F_OK), 0);

    /* Rewriting into the existing directory works; no batch ids: all 0. */
    e = mt_raw_csv_write(dir, x, r, 1, NULL, &ei);
    if (e)
        fail_msg("%s", ei.msg);
    snprintf(path, sizeof path, "%s/experiments.csv", dir);
    s = slurp(path);
    assert_non_null(strstr(s, "\n0,0,1,0,0,ca,"));
    assert_null(strstr(s, "\n1,"));
    free(s);
}

static void test_dir_is_file(void **state)
{
    (void)state;
    char dir[128];
    snprintf(dir, sizeof dir, "%s/plainfile", tmpdir);
    FILE *f = fopen(dir, "w");
    assert_non_null(f);
    fclose(f);
    mt_errinfo ei = {{0}};
    assert_int_equal(mt_raw_csv_write(dir, NULL, NULL, 0, NULL, &ei), MT_ERR_IO);
    assert_non_null(strstr(ei.msg, "plainfile"));

    char sub[160];
    snprintf(sub, sizeof sub, "%s/plainfile/sub", tmpdir);
    assert_int_equal(mt_raw_csv_write(sub, NULL, NULL, 0, NULL, &ei), MT_ERR_IO);
}

static void test_empty(void **state)
{
    (void)state;
    char dir[128];
    snprintf(dir, sizeof dir, "%s/empty", tmpdir);
    mt_errinfo ei = {{0}};
    assert_int_equal(mt_raw_csv_write(dir, NULL, NULL, 0, NULL, &ei), MT_OK);
    char path[256];
    snprintf(path, sizeof path, "%s/samples.csv", dir);
    char *s = slurp(path);
    assert_string_equal(s, "experiment,chain,index,cycles\n");
    free(s);
    snprintf(path, sizeof path, "%s/sequences.csv", dir);
    s = slurp(path);
    assert_string_equal(s, "experiment,entry,index\n");
    free(s);
}

/* One file that cannot be written: none of the three is replaced, and no
 * temporary is left behind. */
static void test_all_or_nothing(void **state)
{
    (void)state;
    char dir[128], path[256];
    snprintf(dir, sizeof dir, "%s/aon", tmpdir);
    mt_experiment x = mt_exp_chase(MT_PATH_GLOBAL_CA, 4096, 128, 1, 1, MT_MODE_FINE);
    uint32_t c[1] = {7};
    mt_result r;
    memset(&r, 0, sizeof r);
    r.cycles[0] = c;
    r.n[0] = 1;
    mt_errinfo ei = {{0}};
    assert_int_equal(mt_raw_csv_write(dir, NULL, NULL, 0, NULL, &ei), MT_OK);
    const char *names[] = {"experiments.csv", "sequences.csv", "samples.csv"};
    for (int blocked = 0; blocked < 3; blocked++) {
        /* A symbolic link to nothing cannot be written through. */
        char aside[300];
        snprintf(path, sizeof path, "%s/%s", dir, names[blocked]);
        snprintf(aside, sizeof aside, "%s.aside", path);
        assert_int_equal(rename(path, aside), 0);
        assert_int_equal(symlink("/nonexistent/memtopo-test", path), 0);
        assert_int_equal(mt_raw_csv_write(dir, &x, &r, 1, NULL, &ei), MT_ERR_IO);
        assert_non_null(strstr(ei.msg, path));
        assert_int_equal(unlink(path), 0);
        assert_int_equal(rename(aside, path), 0);
        for (int i = 0; i < 3; i++) {
            snprintf(path, sizeof path, "%s/%s", dir, names[i]);
            char *s = slurp(path); /* still the empty recording's: a header only */
            char *nl = strchr(s, '\n');
            assert_non_null(nl);
            assert_string_equal(nl, "\n");
            free(s);
        }
        assert_int_equal(count_temporaries(dir), 0);
    }
    assert_int_equal(mt_raw_csv_write(dir, &x, &r, 1, NULL, &ei), MT_OK);
    snprintf(path, sizeof path, "%s/samples.csv", dir);
    char *s = slurp(path);
    assert_string_equal(s, "experiment,chain,index,cycles\n0,0,0,7\n");
    free(s);
}

/* Kinds the format does not store, and sequences without their list, are
 * refused before anything is written. */
static void test_refused(void **state)
{
    (void)state;
    char dir[128], path[256];
    snprintf(dir, sizeof dir, "%s/refused", tmpdir);
    mt_experiment x = mt_exp_chase(MT_PATH_GLOBAL_CA, 4096, 128, 1, 1, MT_MODE_FINE);
    x.kind = MT_KIND_COUNT; /* every kind there is can be stored (since backend 2.3) */
    uint32_t c[1] = {7};
    mt_result r;
    memset(&r, 0, sizeof r);
    r.cycles[0] = c;
    r.n[0] = 1;
    mt_errinfo ei = {{0}};
    assert_int_equal(mt_raw_csv_write(dir, &x, &r, 1, NULL, &ei), MT_ERR_INVALID_ARG);
    assert_non_null(strstr(ei.msg, "cannot store"));
    snprintf(path, sizeof path, "%s/experiments.csv", dir);
    assert_int_not_equal(access(path, F_OK), 0);

    x.kind = MT_KIND_SEQUENCE;
    x.u.seq = (mt_sequence){.index = NULL, .n = 3, .untimed = 2};
    assert_int_equal(mt_raw_csv_write(dir, &x, &r, 1, NULL, &ei), MT_ERR_INVALID_ARG);
    assert_non_null(strstr(ei.msg, "no index list"));

    x.kind = MT_KIND_CHASE;
    r.cycles[0] = NULL;
    assert_int_equal(mt_raw_csv_write(dir, &x, &r, 1, NULL, &ei), MT_ERR_INVALID_ARG);
    assert_non_null(strstr(ei.msg, "claims 1 samples"));
    assert_int_not_equal(access(path, F_OK), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_content),
        cmocka_unit_test(test_dir_is_file),
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_all_or_nothing),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

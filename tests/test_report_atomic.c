/* The output writers (report/atomic_file.c, atomic_dir.c, output_check.c):
 * temporaries never go through a planted symlink, a 255-byte name works,
 * modes are kept or derived from the umask, a symlink to a file stays a
 * link, what is not a regular file is written in place, and directories
 * are replaced only when memtopo wrote them. */
#include <dirent.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "report/atomic_dir.h"
#include "report/atomic_file.h"
#include "report/output_check.h"

#include "tmpdir_fixture.h"

static void write_text(const char *path, const char *text)
{
    mt_atomic_file af;
    mt_errinfo ei = {{0}};
    if (mt_atomic_open(&af, path, &ei) != MT_OK)
        fail_msg("%s", ei.msg);
    fputs(text, af.f);
    if (mt_atomic_commit(&af, &ei) != MT_OK)
        fail_msg("%s", ei.msg);
}

static char *slurp(const char *path)
{
    static char buf[256];
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* The old writer used "<path>.tmp" with fopen("w"): a symlink planted
 * there made it overwrite the file the link pointed to. */
static void test_planted_symlink_not_followed(void **state)
{
    (void)state;
    char victim[128], out[128], planted[160];
    snprintf(victim, sizeof victim, "%s/victim", tmpdir);
    snprintf(out, sizeof out, "%s/out.json", tmpdir);
    snprintf(planted, sizeof planted, "%s.tmp", out);
    FILE *f = fopen(victim, "w");
    assert_non_null(f);
    fputs("precious\n", f);
    fclose(f);
    assert_int_equal(symlink(victim, planted), 0);
    write_text(out, "report\n");
    assert_string_equal(slurp(victim), "precious\n");
    assert_string_equal(slurp(out), "report\n");
    assert_int_equal(count_temporaries(tmpdir), 0);
}

static void test_modes(void **state)
{
    (void)state;
    char path[128];
    snprintf(path, sizeof path, "%s/modes", tmpdir);
    mode_t old = umask(022);
    write_text(path, "a\n");
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0644); /* 0666 minus the umask */
    assert_int_equal(chmod(path, 0600), 0);
    write_text(path, "b\n");
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600); /* a replaced file keeps its mode */
    umask(old);
}

/* The temporary's name does not grow with the target's. */
static void test_longest_name(void **state)
{
    (void)state;
    char name[256], path[400];
    memset(name, 'n', 255);
    name[255] = '\0';
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    mt_errinfo ei = {{0}};
    assert_int_equal(mt_output_check("--json", path, MT_OUTPUT_FILE, NULL, &ei), MT_OK);
    write_text(path, "long\n");
    assert_string_equal(slurp(path), "long\n");
    /* One byte more does not fit the file system: refused up front. */
    char longer[300], lpath[450];
    memset(longer, 'n', 256);
    longer[256] = '\0';
    snprintf(lpath, sizeof lpath, "%s/%s", tmpdir, longer);
    assert_int_equal(mt_output_check("--json", lpath, MT_OUTPUT_FILE, NULL, &ei),
                     MT_ERR_INVALID_ARG);
    assert_non_null(strstr(ei.msg, "longer than"));
    unlink(path);
}

/* A link to a regular file stays a link; the file behind it is replaced. */
static void test_symlink_to_file_kept(void **state)
{
    (void)state;
    char real[128], link[128];
    snprintf(real, sizeof real, "%s/real.json", tmpdir);
    snprintf(link, sizeof link, "%s/link.json", tmpdir);
    write_text(real, "old\n");
    assert_int_equal(symlink("real.json", link), 0);
    write_text(link, "new\n");
    struct stat st;
    assert_int_equal(lstat(link, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    assert_string_equal(slurp(real), "new\n");
}

/* A FIFO is written in place: never replaced by a regular file. */
static void test_fifo_in_place(void **state)
{
    (void)state;
    char fifo[128];
    snprintf(fifo, sizeof fifo, "%s/fifo", tmpdir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    int rd = open(fifo, O_RDONLY | O_NONBLOCK); /* a reader, so opening for writing does not wait */
    assert_true(rd >= 0);
    write_text(fifo, "through\n");
    char buf[32] = {0};
    assert_int_equal(read(rd, buf, sizeof buf - 1), 8);
    assert_string_equal(buf, "through\n");
    close(rd);
    struct stat st;
    assert_int_equal(lstat(fifo, &st), 0);
    assert_true(S_ISFIFO(st.st_mode));
}

static void test_refusals(void **state)
{
    (void)state;
    char path[128];
    mt_errinfo ei = {{0}};
    mt_atomic_file af;
    /* A directory. */
    assert_int_equal(mt_atomic_open(&af, tmpdir, &ei), MT_ERR_IO);
    assert_int_equal(mt_output_check("--csv", tmpdir, MT_OUTPUT_FILE, NULL, &ei),
                     MT_ERR_INVALID_ARG);
    assert_non_null(strstr(ei.msg, "is a directory"));
    /* A link to nothing: following it would create a file elsewhere. */
    snprintf(path, sizeof path, "%s/dangling", tmpdir);
    assert_int_equal(symlink("/nonexistent/memtopo", path), 0);
    assert_int_equal(mt_atomic_open(&af, path, &ei), MT_ERR_IO);
    assert_non_null(strstr(ei.msg, "symbolic link to nothing"));
    /* A missing parent directory. */
    snprintf(path, sizeof path, "%s/no/such/r.json", tmpdir);
    assert_int_equal(mt_output_check("--json", path, MT_OUTPUT_FILE, NULL, &ei),
                     MT_ERR_INVALID_ARG);
    assert_non_null(strstr(ei.msg, "--json"));
    assert_int_equal(count_temporaries(tmpdir), 0);
}

/* Directories: created whole, replaced only when they hold what memtopo
 * writes, and a failed install leaves the old one. */
static void test_directories(void **state)
{
    (void)state;
    static const char *const own[] = {"a.csv", NULL};
    char target[128], path[200];
    snprintf(target, sizeof target, "%s/rec", tmpdir);
    mt_errinfo ei = {{0}};
    for (int round = 0; round < 2; round++) {
        char *tmp = NULL;
        assert_int_equal(mt_dir_tmp_create(target, &tmp, &ei), MT_OK);
        snprintf(path, sizeof path, "%s/a.csv", tmp);
        write_text(path, round ? "second\n" : "first\n");
        if (mt_dir_install(tmp, target, own, &ei) != MT_OK)
            fail_msg("%s", ei.msg);
        free(tmp);
        snprintf(path, sizeof path, "%s/a.csv", target);
        assert_string_equal(slurp(path), round ? "second\n" : "first\n");
        assert_int_equal(count_temporaries(tmpdir), 0);
    }
    /* A file memtopo did not write: refused, before and at install. */
    snprintf(path, sizeof path, "%s/mine.txt", target);
    write_text(path, "user\n");
    assert_int_equal(mt_output_check("--record", target, MT_OUTPUT_DIR, own, &ei),
                     MT_ERR_INVALID_ARG);
    assert_non_null(strstr(ei.msg, "mine.txt"));
    char *tmp = NULL;
    assert_int_equal(mt_dir_tmp_create(target, &tmp, &ei), MT_OK);
    assert_int_equal(mt_dir_install(tmp, target, own, &ei), MT_ERR_INVALID_ARG);
    mt_dir_remove(tmp);
    free(tmp);
    assert_string_equal(slurp(path), "user\n");
    assert_int_equal(count_temporaries(tmpdir), 0);
    /* A regular file where the directory should go. */
    snprintf(path, sizeof path, "%s/plain", tmpdir);
    write_text(path, "x\n");
    assert_int_equal(mt_output_check("--record", path, MT_OUTPUT_DIR, own, &ei),
                     MT_ERR_INVALID_ARG);
    assert_non_null(strstr(ei.msg, "not a directory"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_planted_symlink_not_followed),
        cmocka_unit_test(test_modes),
        cmocka_unit_test(test_longest_name),
        cmocka_unit_test(test_symlink_to_file_kept),
        cmocka_unit_test(test_fifo_in_place),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_directories),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

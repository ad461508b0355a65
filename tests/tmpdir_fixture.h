/* A private temporary directory for a test file's group: `tmpdir` is made
 * by setup() and removed with everything in it by teardown(), the group
 * fixtures these tests pass to cmocka_run_group_tests.  Include it after
 * cmocka.h. */
#ifndef MT_TEST_TMPDIR_FIXTURE_H
#define MT_TEST_TMPDIR_FIXTURE_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char tmpdir[64];

static int setup(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/memtopo_test_XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

/* Entries of dir named like the output writers' temporaries
 * (".memtopo-XXXXXX", src/report/atomic_file.c and atomic_dir.c). */
static inline int count_temporaries(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *de; (de = readdir(d));)
        n += strncmp(de->d_name, ".memtopo-", 9) == 0;
    closedir(d);
    return n;
}

#endif

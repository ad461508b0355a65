/* A private temporary directory for a test file's group: `tmpdir` is made
 * by setup() and removed with everything in it by teardown(), the group
 * fixtures these tests pass to cmocka_run_group_tests. */
#ifndef MT_TEST_TMPDIR_FIXTURE_H
#define MT_TEST_TMPDIR_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
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

#endif

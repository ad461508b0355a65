/* Every "*.spec" file of a directory, for the end-to-end tests that run
 * each spec they find (tests/specs, tests/specs-tenant, MT_SPEC_DIR). */
#ifndef MT_TEST_SPEC_DIR_H
#define MT_TEST_SPEC_DIR_H

#include <dirent.h>
#include <stdio.h>
#include <string.h>

/* Calls fn with the path of each spec file in dir (directory order) and
 * `user`; returns how many, or -1 when dir cannot be opened. */
static int for_each_spec(const char *dir, void (*fn)(const char *path, void *user), void *user)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        size_t len = strlen(de->d_name);
        if (len < 6 || strcmp(de->d_name + len - 5, ".spec") != 0)
            continue;
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        fn(path, user);
        n++;
    }
    closedir(d);
    return n;
}

#endif

/* The files of a directory whose names end in a suffix, in name order:
 * the reports `memtopo compare DIR` reads and the specs of --sim-per-rank. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), t = strlen(tail);
    return n >= t && strcmp(s + n - t, tail) == 0;
}

void mt_cli_free_list(char **paths, size_t n)
{
    for (size_t i = 0; paths && i < n; i++)
        free(paths[i]);
    free(paths);
}

mt_err mt_cli_list_dir(const char *dir, const char *suffix, char ***paths, size_t *n,
                       mt_errinfo *ei)
{
    *paths = NULL;
    *n = 0;
    DIR *d = opendir(dir);
    if (!d)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "cannot read directory %s", dir);
    char **names = NULL;
    size_t count = 0;
    mt_err e = MT_OK;
    for (struct dirent *de; (de = readdir(d));) {
        if (de->d_name[0] == '.' || !ends_with(de->d_name, suffix))
            continue;
        char **nn = realloc(names, (count + 1) * sizeof *nn);
        if (!nn) {
            e = mt_fail(ei, MT_ERR_NOMEM, "out of memory");
            break;
        }
        names = nn;
        size_t len = strlen(dir) + strlen(de->d_name) + 2;
        if (!(names[count] = malloc(len))) {
            e = mt_fail(ei, MT_ERR_NOMEM, "out of memory");
            break;
        }
        snprintf(names[count++], len, "%s/%s", dir, de->d_name);
    }
    closedir(d);
    if (e == MT_OK && count == 0)
        e = mt_fail(ei, MT_ERR_INVALID_ARG, "no *%s file in %s", suffix, dir);
    if (e != MT_OK) {
        mt_cli_free_list(names, count);
        return e;
    }
    qsort(names, count, sizeof *names, by_name);
    *paths = names;
    *n = count;
    return MT_OK;
}

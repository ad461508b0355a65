/* Temporary-then-rename file writing, and mkdir -p. */
#include "atomic_file.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void release(mt_atomic_file *af)
{
    free(af->path);
    free(af->tmp_path);
    af->f = NULL;
    af->path = af->tmp_path = NULL;
}

mt_err mt_atomic_open(mt_atomic_file *af, const char *path, mt_errinfo *ei)
{
    memset(af, 0, sizeof *af);
    if (!path || !path[0])
        return mt_fail(ei, MT_ERR_INVALID_ARG, "empty output path");
    size_t n = strlen(path);
    af->path = strdup(path);
    af->tmp_path = malloc(n + 5);
    if (!af->path || !af->tmp_path) {
        release(af);
        return mt_fail(ei, MT_ERR_NOMEM, "%s: out of memory", path);
    }
    memcpy(af->tmp_path, path, n);
    memcpy(af->tmp_path + n, ".tmp", 5);
    af->f = fopen(af->tmp_path, "w");
    if (!af->f) {
        mt_err e = mt_fail(ei, MT_ERR_IO, "%s: cannot create: %s", af->tmp_path, strerror(errno));
        release(af);
        return e;
    }
    return MT_OK;
}

mt_err mt_atomic_commit(mt_atomic_file *af, mt_errinfo *ei)
{
    if (!af->f)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "atomic file not open");
    errno = 0;
    int bad = fflush(af->f) != 0 || ferror(af->f);
    int err = errno;
    if (fclose(af->f) != 0 && !bad) {
        bad = 1;
        err = errno;
    }
    af->f = NULL;
    if (bad) {
        mt_err e = mt_fail(ei, MT_ERR_IO, "%s: write failed: %s", af->tmp_path,
                           err ? strerror(err) : "stream error");
        remove(af->tmp_path);
        release(af);
        return e;
    }
    if (rename(af->tmp_path, af->path) != 0) {
        mt_err e = mt_fail(ei, MT_ERR_IO, "%s: cannot replace with %s: %s", af->path,
                           af->tmp_path, strerror(errno));
        remove(af->tmp_path);
        release(af);
        return e;
    }
    release(af);
    return MT_OK;
}

void mt_atomic_abort(mt_atomic_file *af)
{
    if (af->f) {
        fclose(af->f);
        remove(af->tmp_path);
    }
    release(af);
}

mt_err mt_mkdir_p(const char *dir, mt_errinfo *ei)
{
    if (!dir || !dir[0])
        return mt_fail(ei, MT_ERR_INVALID_ARG, "empty directory name");
    char *p = strdup(dir);
    if (!p)
        return mt_fail(ei, MT_ERR_NOMEM, "%s: out of memory", dir);
    /* Create each prefix ending before a '/', then the whole path. */
    for (char *s = p + 1;; s++) {
        int end = (*s == '\0');
        if (*s == '/' || end) {
            char saved = *s;
            *s = '\0';
            if (mkdir(p, 0777) != 0 && errno != EEXIST) {
                mt_err e = mt_fail(ei, MT_ERR_IO, "%s: cannot create directory: %s", p,
                                   strerror(errno));
                free(p);
                return e;
            }
            *s = saved;
            if (end)
                break;
        }
    }
    struct stat st;
    if (stat(p, &st) != 0 || !S_ISDIR(st.st_mode)) {
        mt_err e = mt_fail(ei, MT_ERR_IO, "%s: not a directory", p);
        free(p);
        return e;
    }
    free(p);
    return MT_OK;
}

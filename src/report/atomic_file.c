/* Temporary-then-rename file writing (or in place for what is not a
 * regular file), and mkdir -p. */
#include "atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The temporary's name in the target's directory: short, so any target
 * name that fits the file system fits, and hidden from a plain ls. */
#define TMP_TEMPLATE ".memtopo-XXXXXX"

static void release(mt_atomic_file *af)
{
    free(af->path);
    free(af->tmp_path);
    af->f = NULL;
    af->path = af->tmp_path = NULL;
}

char *mt_parent_dir(const char *path)
{
    /* "a/b/" names b: trailing slashes are not a component. */
    size_t len = strlen(path);
    while (len > 1 && path[len - 1] == '/')
        len--;
    const char *slash = NULL;
    for (size_t i = 0; i < len; i++)
        if (path[i] == '/')
            slash = path + i;
    if (!slash)
        return strdup(".");
    size_t n = (size_t)(slash - path);
    if (n == 0)
        n = 1; /* "/name": the root */
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, path, n);
        d[n] = '\0';
    }
    return d;
}

unsigned mt_mode_after_umask(unsigned base)
{
    mode_t mask = umask(0); /* umask can only be read by setting it */
    umask(mask);
    return base & ~(unsigned)mask;
}

/* The temporary for target, created exclusively with `mode`. */
static mt_err open_temporary(mt_atomic_file *af, unsigned mode, mt_errinfo *ei)
{
    char *dir = mt_parent_dir(af->path);
    size_t n = dir ? strlen(dir) + sizeof TMP_TEMPLATE + 1 : 0;
    af->tmp_path = dir ? malloc(n) : NULL;
    if (!af->tmp_path) {
        free(dir);
        return mt_fail(ei, MT_ERR_NOMEM, "%s: out of memory", af->path);
    }
    snprintf(af->tmp_path, n, "%s/%s", dir, TMP_TEMPLATE);
    free(dir);
    int fd = mkstemp(af->tmp_path); /* O_CREAT|O_EXCL, mode 0600 */
    if (fd < 0)
        return mt_fail(ei, MT_ERR_IO, "%s: cannot create a temporary file beside it: %s",
                       af->path, strerror(errno));
    if (fchmod(fd, (mode_t)mode) != 0 || !(af->f = fdopen(fd, "w"))) {
        mt_err e = mt_fail(ei, MT_ERR_IO, "%s: cannot prepare a temporary file: %s", af->path,
                           strerror(errno));
        close(fd);
        unlink(af->tmp_path);
        return e;
    }
    return MT_OK;
}

/* A device, a FIFO, a terminal: written where it is, never created. */
static mt_err open_in_place(mt_atomic_file *af, mt_errinfo *ei)
{
    int fd = open(af->path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return mt_fail(ei, MT_ERR_IO, "%s: cannot open for writing: %s", af->path,
                       strerror(errno));
    af->f = fdopen(fd, "w");
    if (!af->f) {
        mt_err e = mt_fail(ei, MT_ERR_IO, "%s: cannot open for writing: %s", af->path,
                           strerror(errno));
        close(fd);
        return e;
    }
    return MT_OK;
}

mt_err mt_atomic_open(mt_atomic_file *af, const char *path, mt_errinfo *ei)
{
    memset(af, 0, sizeof *af);
    if (!path || !path[0])
        return mt_fail(ei, MT_ERR_INVALID_ARG, "empty output path");
    struct stat lst, st;
    int exists = lstat(path, &lst) == 0;
    if (!exists && errno != ENOENT)
        return mt_fail(ei, MT_ERR_IO, "%s: %s", path, strerror(errno));
    st = lst;
    if (exists && S_ISLNK(lst.st_mode) && stat(path, &st) != 0)
        return mt_fail(ei, MT_ERR_IO, "%s: symbolic link to nothing (%s)", path, strerror(errno));
    if (exists && S_ISDIR(st.st_mode))
        return mt_fail(ei, MT_ERR_IO, "%s: is a directory", path);
    int regular = !exists || S_ISREG(st.st_mode);
    /* A link to a regular file: replace the file, keep the link. */
    af->path = (exists && S_ISLNK(lst.st_mode) && regular) ? realpath(path, NULL) : strdup(path);
    if (!af->path)
        return mt_fail(ei, MT_ERR_NOMEM, "%s: cannot resolve: %s", path, strerror(errno));
    mt_err e = regular ? open_temporary(af, exists ? (unsigned)(st.st_mode & 07777)
                                                   : mt_mode_after_umask(0666), ei)
                       : open_in_place(af, ei);
    if (e)
        release(af);
    return e;
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
    mt_err e = MT_OK;
    if (bad)
        e = mt_fail(ei, MT_ERR_IO, "%s: write failed: %s", af->path,
                    err ? strerror(err) : "stream error");
    else if (af->tmp_path && rename(af->tmp_path, af->path) != 0)
        e = mt_fail(ei, MT_ERR_IO, "%s: cannot replace: %s", af->path, strerror(errno));
    if (e && af->tmp_path)
        unlink(af->tmp_path);
    release(af);
    return e;
}

void mt_atomic_abort(mt_atomic_file *af)
{
    if (af->f) {
        fclose(af->f);
        if (af->tmp_path)
            unlink(af->tmp_path);
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

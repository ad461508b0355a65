/* Output paths checked up front (output_check.h). */
#include "output_check.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic_dir.h"
#include "atomic_file.h"

/* The last component's length (trailing slashes ignored). */
static size_t name_length(const char *path)
{
    size_t len = strlen(path);
    while (len > 1 && path[len - 1] == '/')
        len--;
    size_t start = len;
    while (start > 0 && path[start - 1] != '/')
        start--;
    return len - start;
}

/* The directory the output (or its temporary) is created in. */
static mt_err check_parent(const char *option, const char *path, mt_errinfo *ei)
{
    char *dir = mt_parent_dir(path);
    if (!dir)
        return mt_fail(ei, MT_ERR_NOMEM, "out of memory");
    struct stat st;
    mt_err e = MT_OK;
    if (stat(dir, &st) != 0)
        e = mt_fail(ei, MT_ERR_INVALID_ARG, "%s %s: directory %s: %s", option, path, dir,
                    strerror(errno));
    else if (!S_ISDIR(st.st_mode))
        e = mt_fail(ei, MT_ERR_INVALID_ARG, "%s %s: %s is not a directory", option, path, dir);
    else if (access(dir, W_OK | X_OK) != 0)
        e = mt_fail(ei, MT_ERR_INVALID_ARG, "%s %s: cannot create files in %s: %s", option, path,
                    dir, strerror(errno));
    free(dir);
    return e;
}

/* The name must fit the file system of its directory (NAME_MAX when that
 * cannot be asked); checked first, so the message says why. */
static mt_err check_name_length(const char *option, const char *path, mt_errinfo *ei)
{
    char *dir = mt_parent_dir(path);
    if (!dir)
        return mt_fail(ei, MT_ERR_NOMEM, "out of memory");
    long max = pathconf(dir, _PC_NAME_MAX);
    free(dir);
    if (max <= 0)
        max = NAME_MAX;
    if (name_length(path) > (size_t)max)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "%s %.60s...: file name longer than %ld bytes",
                       option, path, max);
    return MT_OK;
}

mt_err mt_output_check(const char *option, const char *path, mt_output_kind kind,
                       const char *const *own, mt_errinfo *ei)
{
    if (!path || !path[0])
        return mt_fail(ei, MT_ERR_INVALID_ARG, "%s needs a name", option);
    if (strlen(path) >= PATH_MAX)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "%s: path longer than %d bytes", option,
                       PATH_MAX - 1);
    mt_err len_err = check_name_length(option, path, ei);
    if (len_err)
        return len_err;
    if (kind == MT_OUTPUT_DIR) {
        mt_err e = mt_dir_check_replaceable(path, own, ei);
        if (e) {
            char why[sizeof ei->msg];
            snprintf(why, sizeof why, "%s", ei->msg);
            return mt_fail(ei, MT_ERR_INVALID_ARG, "%s %s", option, why);
        }
        return check_parent(option, path, ei);
    }
    struct stat lst, st;
    if (lstat(path, &lst) != 0) {
        if (errno != ENOENT)
            return mt_fail(ei, MT_ERR_INVALID_ARG, "%s %s: %s", option, path, strerror(errno));
        return check_parent(option, path, ei); /* a new file */
    }
    if (stat(path, &st) != 0)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "%s %s: symbolic link to nothing", option, path);
    if (S_ISDIR(st.st_mode))
        return mt_fail(ei, MT_ERR_INVALID_ARG, "%s %s: is a directory", option, path);
    if (!S_ISREG(st.st_mode)) {
        /* Written in place (a device, a FIFO): it must be writable. */
        if (access(path, W_OK) != 0)
            return mt_fail(ei, MT_ERR_INVALID_ARG, "%s %s: %s", option, path, strerror(errno));
        return MT_OK;
    }
    /* A regular file is replaced through a temporary beside it (beside the
     * file a symbolic link points to). */
    if (!S_ISLNK(lst.st_mode))
        return check_parent(option, path, ei);
    char *real = realpath(path, NULL);
    if (!real)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "%s %s: %s", option, path, strerror(errno));
    mt_err e = check_parent(option, real, ei);
    free(real);
    return e;
}

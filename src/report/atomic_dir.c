/* Temporary-sibling-then-rename directory writing (atomic_dir.h). */
#include "atomic_dir.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic_file.h"

#define TMP_TEMPLATE ".memtopo-XXXXXX"

/* A new temporary directory beside target, malloc'ed; NULL + errno. */
static char *sibling(const char *target)
{
    char *dir = mt_parent_dir(target);
    if (!dir)
        return NULL;
    size_t n = strlen(dir) + sizeof TMP_TEMPLATE + 1;
    char *t = malloc(n);
    if (t)
        snprintf(t, n, "%s/%s", dir, TMP_TEMPLATE);
    free(dir);
    if (t && !mkdtemp(t)) {
        int err = errno;
        free(t);
        errno = err;
        return NULL;
    }
    return t;
}

mt_err mt_dir_tmp_create(const char *target, char **tmp, mt_errinfo *ei)
{
    *tmp = sibling(target);
    if (!*tmp)
        return mt_fail(ei, errno == ENOMEM ? MT_ERR_NOMEM : MT_ERR_IO,
                       "%s: cannot create a temporary directory beside it: %s", target,
                       strerror(errno));
    /* mkdtemp makes it 0700; the recording gets what mkdir would give. */
    if (chmod(*tmp, (mode_t)mt_mode_after_umask(0777)) != 0) {
        mt_err e = mt_fail(ei, MT_ERR_IO, "%s: %s", *tmp, strerror(errno));
        rmdir(*tmp);
        free(*tmp);
        *tmp = NULL;
        return e;
    }
    return MT_OK;
}

static int is_own(const char *name, const char *const *own)
{
    for (; own && *own; own++)
        if (strcmp(name, *own) == 0)
            return 1;
    return 0;
}

mt_err mt_dir_check_replaceable(const char *target, const char *const *own, mt_errinfo *ei)
{
    struct stat st;
    if (lstat(target, &st) != 0)
        return errno == ENOENT ? MT_OK : mt_fail(ei, MT_ERR_IO, "%s: %s", target, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return mt_fail(ei, MT_ERR_IO, "%s: exists and is not a directory", target);
    DIR *d = opendir(target);
    if (!d)
        return mt_fail(ei, MT_ERR_IO, "%s: cannot read: %s", target, strerror(errno));
    mt_err e = MT_OK;
    for (struct dirent *de; !e && (de = readdir(d));) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        if (!is_own(de->d_name, own))
            e = mt_fail(ei, MT_ERR_INVALID_ARG,
                        "%s: exists and holds '%.80s', which memtopo did not write; "
                        "refusing to replace it",
                        target, de->d_name);
    }
    closedir(d);
    return e;
}

void mt_dir_remove(const char *dir)
{
    if (!dir)
        return;
    DIR *d = opendir(dir);
    if (d) {
        size_t n = strlen(dir);
        for (struct dirent *de; (de = readdir(d));) {
            if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
                continue;
            char *p = malloc(n + strlen(de->d_name) + 2);
            if (!p)
                continue;
            sprintf(p, "%s/%s", dir, de->d_name);
            unlink(p);
            free(p);
        }
        closedir(d);
    }
    rmdir(dir);
}

mt_err mt_dir_install(const char *tmp, const char *target, const char *const *own,
                      mt_errinfo *ei)
{
    mt_err e = mt_dir_check_replaceable(target, own, ei);
    if (e)
        return e;
    /* rename(2) replaces an empty directory, and only that. */
    if (rename(tmp, target) == 0)
        return MT_OK;
    if (errno != ENOTEMPTY && errno != EEXIST)
        return mt_fail(ei, MT_ERR_IO, "%s: cannot move the new directory into place: %s", target,
                       strerror(errno));
    /* A previous recording: move it aside (onto a fresh empty sibling),
     * put the new one in, then remove the old. */
    char *aside = sibling(target);
    if (!aside)
        return mt_fail(ei, MT_ERR_IO, "%s: cannot create a directory beside it: %s", target,
                       strerror(errno));
    if (rename(target, aside) != 0) {
        e = mt_fail(ei, MT_ERR_IO, "%s: cannot move the old directory aside: %s", target,
                    strerror(errno));
        rmdir(aside);
    } else if (rename(tmp, target) != 0) {
        e = mt_fail(ei, MT_ERR_IO, "%s: cannot move the new directory into place: %s", target,
                    strerror(errno));
        rename(aside, target); /* best effort: put the old one back */
    } else {
        mt_dir_remove(aside);
    }
    free(aside);
    return e;
}

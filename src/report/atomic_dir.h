/* Writing an output directory (a recording) so that it appears whole or
 * not at all: its files are written into a fresh temporary sibling
 * directory (".memtopo-XXXXXX" beside the target, from mkdtemp) that is
 * renamed into place at the end and removed on failure, so a failed or
 * killed run never leaves a half-written or empty directory under the
 * target's name.
 *
 * An existing target is replaced only when it holds nothing but files the
 * caller names as its own (e.g. a previous recording's four files), or
 * nothing at all; any other directory is refused, so a mistyped --record
 * never deletes someone's files. */
#ifndef MT_ATOMIC_DIR_H
#define MT_ATOMIC_DIR_H

#include "../core/error.h"

/* Creates the temporary sibling of target (mode 0777 minus the umask);
 * *tmp is malloc'ed.  MT_ERR_IO naming target, or MT_ERR_NOMEM. */
mt_err mt_dir_tmp_create(const char *target, char **tmp, mt_errinfo *ei);

/* MT_OK when target does not exist, or is a directory holding only files
 * named in own[] (NULL-terminated); MT_ERR_INVALID_ARG naming target and
 * the first other entry when it holds another; MT_ERR_IO when it is not a
 * directory or cannot be read. */
mt_err mt_dir_check_replaceable(const char *target, const char *const *own, mt_errinfo *ei);

/* Renames tmp to target.  An existing target (checked as above) is moved
 * aside first and removed once tmp is in place; if tmp cannot be moved in,
 * the old target is put back.  MT_ERR_IO / MT_ERR_INVALID_ARG naming
 * target; tmp is left for the caller to remove. */
mt_err mt_dir_install(const char *tmp, const char *target, const char *const *own,
                      mt_errinfo *ei);

/* Removes dir and the plain files in it (no recursion: the directories
 * this module writes hold none).  Best effort; NULL is ignored. */
void mt_dir_remove(const char *dir);

#endif

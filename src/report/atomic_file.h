/* Writing an output file so that readers never see half of it, and so that
 * nothing but the named file is ever touched:
 *
 *   - a regular file, or a name that does not exist yet, is replaced
 *     atomically: the content goes to a temporary created with mkstemp
 *     (O_CREAT|O_EXCL: never through a planted symlink) in the same
 *     directory under a short hidden name (".memtopo-XXXXXX", so a target
 *     name of 255 bytes still works), which is renamed over the target only
 *     once everything was written and closed without error.  A new file
 *     gets mode 0666 minus the umask, a replaced one keeps its mode.  A
 *     symbolic link to a regular file stays a link: the file it points to
 *     is replaced.
 *   - anything else (a device such as /dev/null, a FIFO, /dev/stdout when it
 *     is a pipe or a terminal) is opened for writing in place (never
 *     created, never renamed over), and its write errors are reported.
 *   - a directory, or a symbolic link to nothing, is refused.
 * On any failure the temporary is removed and the target left as it was. */
#ifndef MT_ATOMIC_FILE_H
#define MT_ATOMIC_FILE_H

#include <stdio.h>

#include "../core/error.h"

typedef struct {
    FILE *f;
    char *path;     /* the file being written (a symlink's target resolved) */
    char *tmp_path; /* its temporary; NULL when written in place */
} mt_atomic_file;

/* Opens path for writing as above.  MT_ERR_IO (message names the file) or
 * MT_ERR_NOMEM on failure; af is then empty and needs no abort. */
mt_err mt_atomic_open(mt_atomic_file *af, const char *path, mt_errinfo *ei);

/* Flushes and closes; renames the temporary over path.  On failure
 * (MT_ERR_IO naming path and the system's reason, e.g. "No space left on
 * device") the temporary is removed.  af is released either way. */
mt_err mt_atomic_commit(mt_atomic_file *af, mt_errinfo *ei);

/* Closes and removes the temporary; af is released.  Safe on an empty af. */
void mt_atomic_abort(mt_atomic_file *af);

/* mkdir -p: creates dir and missing parents (mode 0777 before umask). */
mt_err mt_mkdir_p(const char *dir, mt_errinfo *ei);

/* The directory part of path ("." when it has none), malloc'ed; NULL when
 * out of memory.  Shared by the file and directory writers. */
char *mt_parent_dir(const char *path);

/* The mode a new file or directory gets: base (0666 or 0777) minus the
 * process's umask. */
unsigned mt_mode_after_umask(unsigned base);

#endif

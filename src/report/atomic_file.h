/* Writing a file so that readers never see half of it: the content goes to
 * "<path>.tmp", which is renamed over path only once everything was written
 * and closed without error.  On any failure the temporary is removed. */
#ifndef MT_ATOMIC_FILE_H
#define MT_ATOMIC_FILE_H

#include <stdio.h>

#include "../core/error.h"

typedef struct {
    FILE *f;
    char *path;
    char *tmp_path;
} mt_atomic_file;

/* Opens "<path>.tmp" for writing.  MT_ERR_IO (message names the file) or
 * MT_ERR_NOMEM on failure; af is then empty and needs no abort. */
mt_err mt_atomic_open(mt_atomic_file *af, const char *path, mt_errinfo *ei);

/* Flushes, closes and renames the temporary over path.  On failure the
 * temporary is removed.  af is released either way. */
mt_err mt_atomic_commit(mt_atomic_file *af, mt_errinfo *ei);

/* Closes and removes the temporary; af is released.  Safe on an empty af. */
void mt_atomic_abort(mt_atomic_file *af);

/* mkdir -p: creates dir and missing parents (mode 0777 before umask). */
mt_err mt_mkdir_p(const char *dir, mt_errinfo *ei);

#endif

/* Checking an output path before any measuring starts, so that a run of
 * minutes never ends with "cannot write": the parent directory exists and
 * is writable, the name fits the file system, and what exists under the
 * name can be written (a file that is not a directory, a directory that
 * memtopo may replace). */
#ifndef MT_OUTPUT_CHECK_H
#define MT_OUTPUT_CHECK_H

#include "../core/error.h"

typedef enum {
    MT_OUTPUT_FILE, /* --json, --csv: written by mt_atomic_open */
    MT_OUTPUT_DIR,  /* --record, --raw: written through atomic_dir.h */
} mt_output_kind;

/* MT_OK, or MT_ERR_INVALID_ARG with one line "OPTION PATH: why".  own[]
 * (directories only, NULL-terminated) lists the files an existing directory
 * may hold to be replaced (mt_dir_check_replaceable). */
mt_err mt_output_check(const char *option, const char *path, mt_output_kind kind,
                       const char *const *own, mt_errinfo *ei);

#endif

/* Writing a JSON document to a file (atomically, atomic_file.h) or to
 * standard output ("-"): the report's writer (report_json.c) and the fleet
 * report's (src/fleet) share it. */
#ifndef MT_JSON_FILE_H
#define MT_JSON_FILE_H

#include <jansson.h>

#include "../core/error.h"

/* Writes root (borrowed) indented, reals to 10 significant digits.  `what`
 * names the document in messages ("JSON report").  MT_ERR_IO on failure,
 * nothing left behind. */
mt_err mt_json_write_doc(json_t *root, const char *path, const char *what, mt_errinfo *ei);

#endif

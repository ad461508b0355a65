/* The JSON report file: the document of topology_json.c, written to stdout
 * or atomically to a path. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "../topology/topology_json.h"
#include "atomic_file.h"
#include "json_file.h"
#include "report.h"

/* JSON_REAL_PRECISION: 10 significant digits keep every measured quantity
 * (cycles, seconds, confidences) exact to far below its noise while
 * avoiding binary-fraction tails like 0.94999999999999996. */
#define REAL_PRECISION 10

mt_err mt_json_write_doc(json_t *root, const char *path, const char *what, mt_errinfo *ei)
{
    const size_t flags = JSON_INDENT(2) | JSON_REAL_PRECISION(REAL_PRECISION);

    if (strcmp(path, "-") == 0) {
        errno = 0;
        int bad = json_dumpf(root, stdout, flags) != 0 || fputc('\n', stdout) == EOF ||
                  fflush(stdout) != 0 || ferror(stdout);
        int err = errno;
        return bad ? mt_fail(ei, MT_ERR_IO, "%s: cannot write to standard output: %s", what,
                             err ? strerror(err) : "stream error")
                   : MT_OK;
    }

    mt_atomic_file af;
    mt_err e = mt_atomic_open(&af, path, ei);
    if (e)
        return e;
    errno = 0;
    if (json_dumpf(root, af.f, flags) != 0 || fputc('\n', af.f) == EOF) {
        e = mt_fail(ei, MT_ERR_IO, "%s: cannot write the %s: %s", af.path, what,
                    errno ? strerror(errno) : "stream error");
        mt_atomic_abort(&af);
        return e;
    }
    return mt_atomic_commit(&af, ei); /* reports a failed flush or rename */
}

mt_err mt_report_json(const mt_topology *t, const char *path, mt_errinfo *ei)
{
    if (!t || !path || !path[0])
        return mt_fail(ei, MT_ERR_INVALID_ARG, "JSON report: no topology or no output path");
    json_t *root;
    mt_err e = mt_topology_build_json(t, &root, ei);
    if (e)
        return e; /* nothing written: an existing report stays as it was */
    e = mt_json_write_doc(root, path, "JSON report", ei);
    json_decref(root);
    return e;
}

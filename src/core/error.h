/* One error enum for the whole library, in the style of curl's CURLcode.
 * Library code never prints or exits: it returns an mt_err and, where it has
 * one, fills an mt_errinfo with a one-line human message naming the problem. */
#ifndef MT_ERROR_H
#define MT_ERROR_H

#include <stdarg.h>

typedef enum {
    MT_OK = 0,
    MT_ERR_NOMEM,              /* host allocation failed */
    MT_ERR_INVALID_ARG,        /* caller passed something out of range */
    MT_ERR_SPEC_PARSE,         /* malformed simulator spec file (message has file:line) */
    MT_ERR_IO,                 /* a file could not be read or written */
    MT_ERR_REPLAY,             /* replay data missing, malformed or not matching */
    MT_ERR_NO_DEVICE,          /* no GPU / no CUDA driver */
    MT_ERR_UNSUPPORTED_DEVICE, /* GPU older than the kernels were built for */
    MT_ERR_DEVICE_OOM,         /* GPU memory allocation failed */
    MT_ERR_DEVICE,             /* any other CUDA error (message has call and file:line) */
    MT_ERR_TIMEOUT,            /* a kernel did not finish before the watchdog */
    MT_ERR_NOT_BUILT,          /* backend not compiled into this binary */
    MT_ERR_UNSUPPORTED,        /* the backend cannot run this experiment */
    MT_ERR_JSON,               /* JSON encode/decode failure */
    MT_ERR_INTERRUPTED,        /* stopped by SIGINT/SIGTERM (or a recording that was) */
    MT_ERR_COUNT
} mt_err;

/* Detail for the last failure: a single line, no trailing newline (mt_fail
 * escapes control characters, so quoting user input keeps it one line). */
typedef struct {
    char msg[512];
} mt_errinfo;

const char *mt_strerror(mt_err e);

/* Fill ei (if not NULL) with a printf-style message and return code. */
mt_err mt_fail(mt_errinfo *ei, mt_err code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Process exit code documented in the README for a given error.
 * MT_ERR_INTERRUPTED gives 130 (128 + SIGINT); the CLI, which knows the
 * signal, uses 128 + that signal (143 for SIGTERM). */
int mt_exit_code(mt_err e);

#endif

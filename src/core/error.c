#include "error.h"

#include <signal.h>
#include <stdio.h>

#include "text.h"

const char *mt_strerror(mt_err e)
{
    switch (e) {
    case MT_OK: return "success";
    case MT_ERR_NOMEM: return "out of host memory";
    case MT_ERR_INVALID_ARG: return "invalid argument";
    case MT_ERR_SPEC_PARSE: return "malformed spec file";
    case MT_ERR_IO: return "file input/output error";
    case MT_ERR_REPLAY: return "bad replay data";
    case MT_ERR_NO_DEVICE: return "no CUDA GPU available";
    case MT_ERR_UNSUPPORTED_DEVICE: return "unsupported GPU";
    case MT_ERR_DEVICE_OOM: return "out of GPU memory";
    case MT_ERR_DEVICE: return "CUDA error";
    case MT_ERR_TIMEOUT: return "GPU kernel timed out";
    case MT_ERR_NOT_BUILT: return "backend not built into this binary";
    case MT_ERR_UNSUPPORTED: return "experiment not supported by backend";
    case MT_ERR_JSON: return "JSON error";
    case MT_ERR_INTERRUPTED: return "interrupted";
    case MT_ERR_COUNT: break;
    }
    return "unknown error";
}

mt_err mt_fail(mt_errinfo *ei, mt_err code, const char *fmt, ...)
{
    if (ei) {
        char raw[sizeof ei->msg];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(raw, sizeof raw, fmt, ap);
        va_end(ap);
        mt_escape_line(raw, ei->msg, sizeof ei->msg);
    }
    return code;
}

/* Exit codes (README "Exit codes"): 0 ok, 1 internal, 2 usage/bad input,
 * 3 no/unsupported device or backend, 4 GPU failure, 5 output I/O,
 * 130 interrupted (128 + SIGINT; the CLI adds the actual signal). */
int mt_exit_code(mt_err e)
{
    switch (e) {
    case MT_OK: return 0;
    case MT_ERR_INVALID_ARG:
    case MT_ERR_SPEC_PARSE:
    case MT_ERR_REPLAY: return 2;
    case MT_ERR_NO_DEVICE:
    case MT_ERR_UNSUPPORTED_DEVICE:
    case MT_ERR_NOT_BUILT: return 3;
    case MT_ERR_DEVICE_OOM:
    case MT_ERR_DEVICE:
    case MT_ERR_TIMEOUT:
    case MT_ERR_UNSUPPORTED: return 4;
    case MT_ERR_IO:
    case MT_ERR_JSON: return 5;
    case MT_ERR_INTERRUPTED: return 128 + SIGINT;
    default: return 1;
    }
}

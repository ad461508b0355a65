#include "error.h"

#include <stdio.h>
#include <string.h>

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
    case MT_ERR_COUNT: break;
    }
    return "unknown error";
}

/* Copies in to out (cap bytes, always terminated) with every control byte
 * written as an escape (\n, \r, \t, \xNN), so a message that echoes input
 * (a spec value, a file name, a JSON parser's complaint) stays one printable
 * line whatever the input held.  An escape that does not fit is dropped
 * whole rather than cut. */
static void escape_controls(const char *in, char *out, size_t cap)
{
    size_t o = 0;
    for (const unsigned char *p = (const unsigned char *)in; *p; p++) {
        char esc[5];
        if (*p == '\n' || *p == '\r' || *p == '\t')
            snprintf(esc, sizeof esc, "\\%c", *p == '\n' ? 'n' : *p == '\r' ? 'r' : 't');
        else if (*p < 0x20 || *p == 0x7f)
            snprintf(esc, sizeof esc, "\\x%02x", *p);
        else
            esc[0] = (char)*p, esc[1] = '\0';
        size_t n = strlen(esc);
        if (o + n >= cap)
            break;
        memcpy(out + o, esc, n);
        o += n;
    }
    out[o] = '\0';
}

mt_err mt_fail(mt_errinfo *ei, mt_err code, const char *fmt, ...)
{
    if (ei) {
        char raw[sizeof ei->msg];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(raw, sizeof raw, fmt, ap);
        va_end(ap);
        escape_controls(raw, ei->msg, sizeof ei->msg);
    }
    return code;
}

/* Exit codes (README "Exit codes"): 0 ok, 1 internal, 2 usage/bad input,
 * 3 no/unsupported device or backend, 4 GPU failure, 5 output I/O. */
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
    default: return 1;
    }
}

/* What to do next, by error code: the library says what failed, the CLI
 * (the composition root) says what the user can do about it.  One table,
 * so no message is inspected for words. */
#include <stddef.h>

#include "cli.h"

const char *mt_cli_hint(mt_err e, const mt_cli *o)
{
    switch (e) {
    case MT_ERR_NO_DEVICE:
    case MT_ERR_NOT_BUILT:
    case MT_ERR_UNSUPPORTED_DEVICE:
        /* Only when the user asked for a real GPU (explicitly or by default). */
        return o->sim || o->replay ? NULL : "to try memtopo without a GPU use --sim h100";
    case MT_ERR_DEVICE_OOM:
        return "free GPU memory held by other processes, or measure fewer probes with --only";
    case MT_ERR_TIMEOUT:
        return "another process may be using the GPU; try again when it is idle";
    default:
        return NULL;
    }
}

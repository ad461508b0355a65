/* --device all: the GPUs of this node are the devices the cuda backend
 * counts, asked through the backend registry (no CUDA header here), so a
 * binary built without CUDA answers "not built" as --device N would. */
#include "cli.h"

#include "../backend/backend.h"

mt_err mt_cli_resolve_all_devices(mt_cli *o, mt_errinfo *ei)
{
    int n = 0;
    mt_err e = mt_backend_count_devices("cuda", &n, ei);
    if (e != MT_OK)
        return e;
    if (n <= 0)
        return mt_fail(ei, MT_ERR_NO_DEVICE, "--device all: the CUDA driver lists no GPU");
    if (n > MT_CLI_MAX_NODE_GPUS)
        return mt_fail(ei, MT_ERR_INVALID_ARG,
                       "--device all: the driver lists %d GPUs, one run measures at most %d "
                       "(name them: --device 0,1,...)",
                       n, MT_CLI_MAX_NODE_GPUS);
    for (int i = 0; i < n; i++)
        o->devices[i] = i;
    o->n_devices = n;
    o->device = 0;
    return MT_OK;
}

/* Linked when the binary is built without nvcc (or for sanitizer builds):
 * the CUDA backend exists in the interface but reports it is not built. */
#include "../backend/backend.h"

mt_err mt_backend_cuda_open(int device, mt_backend **out, mt_errinfo *ei)
{
    (void)device;
    *out = NULL;
    return mt_fail(ei, MT_ERR_NOT_BUILT,
                   "this memtopo was built without the CUDA backend (nvcc not found at build time); "
                   "use --sim PRESET|FILE or rebuild with nvcc on PATH");
}

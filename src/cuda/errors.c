/* CUDA errors of the cuda backend as mt_err codes with one-line messages
 * naming the failed call and its file:line.  CLI advice (such as trying
 * the simulator) is the CLI's to give, chosen by the code. */
#include <cuda_runtime_api.h>

#include "cuda_impl.h"

mt_err mtc_cuda_err(mt_errinfo *ei, cudaError_t e, const char *call, const char *file, int line)
{
    mt_err code = MT_ERR_DEVICE;
    const char *why = "";
    switch (e) {
    case cudaErrorMemoryAllocation: code = MT_ERR_DEVICE_OOM; break;
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorInitializationError:
    case cudaErrorDevicesUnavailable:
    case cudaErrorSystemDriverMismatch:
    case cudaErrorCompatNotSupportedOnDevice:
        code = MT_ERR_NO_DEVICE;
        why = " (no usable CUDA GPU or driver)";
        break;
    case cudaErrorNoKernelImageForDevice:
    case cudaErrorUnsupportedPtxVersion:
    case cudaErrorInvalidDeviceFunction:
        code = MT_ERR_UNSUPPORTED_DEVICE;
        why = " (the GPU is older or newer than the architectures this memtopo was built for)";
        break;
    default: break;
    }
    (void)cudaGetLastError(); /* clear a non-sticky error so later calls are not blamed */
    return mt_fail(ei, code, "%s failed at %s:%d: %s%s", call, file, line, cudaGetErrorString(e),
                   why);
}

// gpu_load: a memory-bound neighbour for testing memtopo's interference
// checks on a real GPU (issue 7).  Streams over a buffer of MIB mebibytes
// (default 4096) with every SM, reading one half and writing the other,
// for SECONDS seconds (default 30), then exits.
//
//   build/gpu_load [MIB] [SECONDS] [DEVICE]
//   build/gpu_load 4096 30 & build/memtopo
//
// Every CUDA call is checked; a failure prints one line and exits 1.
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

#define CK(call)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            std::fprintf(stderr, "gpu_load: %s failed: %s (%s:%d)\n", #call,                        \
                         cudaGetErrorString(e_), __FILE__, __LINE__);                              \
            std::exit(1);                                                                          \
        }                                                                                          \
    } while (0)

// Grid-stride copy of src into dst in 16-byte vectors: one read and one
// write stream per thread, which keeps DRAM and the L2 as busy as a
// memory-bound job does.
__global__ void stream_copy(const int4 *__restrict__ src, int4 *__restrict__ dst, size_t n)
{
    size_t step = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) {
        int4 v = src[i];
        v.x += 1; // the data changes, so no pass can be elided
        dst[i] = v;
    }
}

static long arg(int argc, char **argv, int i, long dflt, long lo, long hi, const char *what)
{
    if (argc <= i)
        return dflt;
    char *end;
    long v = std::strtol(argv[i], &end, 10);
    if (*end || v < lo || v > hi) {
        std::fprintf(stderr, "gpu_load: %s must be an integer in [%ld, %ld], not '%s'\n", what, lo,
                     hi, argv[i]);
        std::exit(2);
    }
    return v;
}

int main(int argc, char **argv)
{
    long mib = arg(argc, argv, 1, 4096, 2, 1L << 20, "MIB");
    long seconds = arg(argc, argv, 2, 30, 1, 86400, "SECONDS");
    int device = (int)arg(argc, argv, 3, 0, 0, 1024, "DEVICE");
    CK(cudaSetDevice(device));
    int sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    size_t bytes = (size_t)mib << 20;
    size_t half = bytes / 2 / sizeof(int4); // elements per half
    int4 *buf = nullptr;
    CK(cudaMalloc(&buf, bytes));
    CK(cudaMemset(buf, 0, bytes));
    std::printf("gpu_load: streaming over %ld MiB on %d SMs of device %d for %ld s\n", mib, sms,
                device, seconds);
    std::fflush(stdout);
    auto until = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    unsigned long passes = 0;
    // 4 blocks of 256 threads per SM: enough loads in flight to saturate
    // the memory system, few enough that other processes' kernels still get
    // SMs.  One pass per launch; the clock is checked between launches.
    while (std::chrono::steady_clock::now() < until) {
        stream_copy<<<4 * sms, 256>>>(buf, buf + half, half);
        CK(cudaGetLastError());
        stream_copy<<<4 * sms, 256>>>(buf + half, buf, half);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        passes += 2;
    }
    CK(cudaFree(buf));
    std::printf("gpu_load: %lu passes (%.1f GiB moved)\n", passes,
                (double)passes * (double)bytes / (1u << 30));
    return 0;
}

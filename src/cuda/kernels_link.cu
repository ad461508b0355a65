// Kernels of the link experiments (MT_KIND_LINK, src/cuda/link.c): a
// pointer chase of one thread over memory behind a link (a peer GPU's, or
// pinned mapped host memory), with loads no cache of this GPU keeps, and
// every SM streaming such memory, read or written.
#include <cuda_runtime.h>
#include <stdint.h>

#include "kernels.h"

// ld.volatile: each load goes to the memory's owner (no L1 or L2 of this
// GPU answers it again), so every timed load crosses the link.
__device__ __forceinline__ uint32_t load_volatile(const uint32_t *p)
{
    uint32_t v;
    asm volatile("ld.volatile.global.u32 %0, [%1];" : "=r"(v) : "l"(p));
    return v;
}

// The SM clock, ordered after every memory access before it (the
// "memory" clobber keeps the compiler from hoisting it above the store
// that waits for the load).
__device__ __forceinline__ uint32_t clock_after()
{
    uint32_t t;
    asm volatile("mov.u32 %0, %%clock;" : "=r"(t) : : "memory");
    return t;
}

// One thread: `warm` untimed loads, then `loads` timed ones, each sample
// the clock read, the load and a dependent shared store (the fine timer
// overhead the calibrate probe measures for the chase kernels).
__global__ void mtk_link_chase_kernel(const uint32_t *chain, uint32_t warm, uint32_t loads,
                                      uint32_t *out)
{
    volatile __shared__ uint32_t sink[1];
    uint32_t j = 0;
    for (uint32_t w = 0; w < warm; w++)
        j = load_volatile(chain + j);
    for (uint32_t k = 0; k < loads; k++) {
        uint32_t t0 = clock_after();
        j = load_volatile(chain + j);
        sink[0] = j;
        uint32_t t1 = clock_after();
        out[k] = t1 - t0;
    }
}

// Grid-stride over `words` 16-byte words: read (sum kept alive by a store
// no data can trigger) or write.
__global__ void mtk_link_stream_kernel(uint4 *buf, uint64_t words, int write, uint32_t *never)
{
    uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    uint32_t acc = 0;
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < words; i += stride) {
        if (write) {
            buf[i] = make_uint4((uint32_t)i, 1u, 2u, 3u);
        } else {
            uint4 v = buf[i];
            acc ^= v.x ^ v.y ^ v.z ^ v.w;
        }
    }
    if (acc == 0xFFFFFFFFu && threadIdx.x == 1023u)
        never[0] = acc;
}

extern "C" cudaError_t mtk_launch_link_chase(const uint32_t *chain, uint32_t warm, uint32_t loads,
                                             uint32_t *out, cudaStream_t s)
{
    mtk_link_chase_kernel<<<1, 1, 0, s>>>(chain, warm, loads, out);
    return cudaGetLastError();
}

extern "C" cudaError_t mtk_launch_link_stream(void *buf, uint64_t bytes, int write, unsigned blocks,
                                              unsigned threads, uint32_t *never, cudaStream_t s)
{
    mtk_link_stream_kernel<<<blocks, threads, 0, s>>>((uint4 *)buf, bytes / 16, write, never);
    return cudaGetLastError();
}

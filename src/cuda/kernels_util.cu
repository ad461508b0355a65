/* Utility kernels of the cuda backend: writing chains into device memory,
 * evicting the L2, and the architectures this build carries. */
#include <stdint.h>

#include <cuda_runtime.h>

#include "kernel_abi.h"
#include "kernels.h"

/* Writes chains: one row of blocks (blockIdx.y) per descriptor. */
__global__ void mtk_build_kernel(const mtk_build *d)
{
    const mtk_build b = d[blockIdx.y];
    char *buf = (char *)b.buf;
    const uint32_t *succ = (const uint32_t *)b.succ;
    for (uint32_t k = blockIdx.x * blockDim.x + threadIdx.x; k < b.n; k += gridDim.x * blockDim.x) {
        uint32_t s = succ ? succ[k] : (k + 1 == b.n ? 0u : k + 1);
        uint64_t at = ((uint64_t)b.start_w + (uint64_t)k * b.stride_w) << b.shift;
        *(uint32_t *)(buf + at) = b.start_w + s * b.stride_w;
    }
}

/* Evicts L2: read-modify-write of every 16 bytes of a buffer twice the L2. */
__global__ void mtk_flush_kernel(uint4 *p, size_t n)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        uint4 v = p[i];
        v.x += 1u;
        p[i] = v;
    }
}

extern "C" cudaError_t mtk_launch_build(const mtk_build *d_desc, unsigned n_desc, uint32_t max_n,
                                        cudaStream_t s)
{
    const unsigned threads = 256;
    unsigned bx = (max_n + threads - 1) / threads;
    if (bx > 1024)
        bx = 1024; /* grid-stride beyond that */
    if (bx == 0)
        bx = 1;
    mtk_build_kernel<<<dim3(bx, n_desc), threads, 0, s>>>(d_desc);
    return cudaGetLastError();
}

extern "C" cudaError_t mtk_launch_flush(void *buf, size_t bytes, unsigned blocks, cudaStream_t s)
{
    mtk_flush_kernel<<<blocks, 512, 0, s>>>((uint4 *)buf, bytes / sizeof(uint4));
    return cudaGetLastError();
}

/* __CUDA_ARCH_LIST__ (nvcc >= 11.5) lists the virtual architectures this
 * file was compiled for, ascending, e.g. 750,800,860,890,900. */
#ifndef __CUDA_ARCH_LIST__
#error "nvcc 11.5 or newer is required (__CUDA_ARCH_LIST__)"
#endif
static const int arch_list[] = {__CUDA_ARCH_LIST__};

extern "C" int mtk_oldest_arch(void)
{
    return arch_list[0] / 10;
}

extern "C" int mtk_newest_arch(void)
{
    return arch_list[sizeof arch_list / sizeof arch_list[0] - 1] / 10;
}

/* MT_KIND_CLOCK (backend.h): thread 0 of the block that claims the
 * experiment (on SM `target`, or the first block when target < 0) times
 * `ns` of the global nanosecond timer in SM cycles.  Both ends are taken
 * right after the global timer ticks, so its update granularity (up to
 * 1 us on some GPUs) does not enter the interval. */
__global__ void mtk_clock_kernel(uint32_t ns, int target, uint32_t *claim, uint32_t *out)
{
    uint32_t smid;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
    if (threadIdx.x != 0 || (target >= 0 && (int)smid != target) || atomicCAS(claim, 0u, 1u) != 0u)
        return;
    uint64_t g, g0, g1, c0, c1;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g));
    do
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g0));
    while (g0 == g);
    c0 = clock64();
    do
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g1));
    while (g1 - g0 < ns);
    g = g1;
    do
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g1));
    while (g1 == g);
    c1 = clock64();
    uint64_t dc = c1 - c0;
    __stcg(&out[0], dc > 0xffffffffull ? 0xffffffffu : (uint32_t)dc);
    __stcg(&out[1], (uint32_t)(g1 - g0));
    __stcg(&out[2], smid);
}

extern "C" cudaError_t mtk_launch_clock(uint32_t ns, int target, unsigned blocks, uint32_t *claim,
                                        uint32_t *out, cudaStream_t s)
{
    mtk_clock_kernel<<<blocks, 32, 0, s>>>(ns, target, claim, out);
    return cudaGetLastError();
}

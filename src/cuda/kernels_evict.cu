/* MT_KIND_EVICT on the GPU (backend.h): one block of MTK_EVICT_THREADS
 * threads on the wanted SM runs one repeat of an eviction test.
 *
 *  1. The pool's intervals are staged in shared memory (their lines pass
 *     through the L2 before the target's first load, so under LRU and
 *     FIFO they are older than the target and leave it the last to go).
 *  2. Thread 0 loads the target (ld.global.cg).
 *  3. Every thread reads its share of the pool, one 4-byte cg load per
 *     line, MTK_EVICT_IN_FLIGHT independent loads at a time; a thread's
 *     positions rise, so its interval cursor only moves forward.  The
 *     values are folded into a word stored in shared memory, so every load
 *     has returned before the barrier that follows.
 *  4. Thread 0 times the target as a chase times a fine load (clock,
 *     load, dependent shared store, clock; kernels_device.h).
 * Blocks on other SMs return at once without touching global memory; a
 * second block on the wanted SM (the scheduler places one per SM as a
 * rule) only touches the claim word, a line already in the L2 since the
 * first block claimed before the target's load. */
#include <stdint.h>

#include <cuda_runtime.h>

#include "kernels_device.h"
#include "kernels.h"

#define MTK_EVICT_IN_FLIGHT 8

__global__ void __launch_bounds__(MTK_EVICT_THREADS)
mtk_evict_kernel(mtk_evict_args a)
{
    extern __shared__ uint32_t iv[]; /* (first element, end position) per interval */
    __shared__ uint32_t sink[MTK_EVICT_THREADS];
    __shared__ int go;
    uint32_t smid;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
    if ((int)smid != a.sm)
        return;
    if (threadIdx.x == 0)
        go = atomicCAS(a.claim, 0u, 1u) == 0u;
    __syncthreads();
    if (!go)
        return;
    for (uint32_t i = threadIdx.x; i < 2 * a.n_intervals; i += blockDim.x)
        iv[i] = __ldcg(a.intervals + i);
    __syncthreads();
    const uint64_t target = a.base + (uint64_t)a.target * a.stride;
    if (threadIdx.x == 0)
        sink[0] = __ldcg((const uint32_t *)target);
    __syncthreads();

    const uint32_t total = iv[2 * a.n_intervals - 1];
    uint32_t acc = 0, cur = 0;
    for (uint32_t p = threadIdx.x; p < total; p += blockDim.x * MTK_EVICT_IN_FLIGHT) {
        uint32_t v[MTK_EVICT_IN_FLIGHT];
#pragma unroll
        for (int u = 0; u < MTK_EVICT_IN_FLIGHT; u++) {
            uint32_t q = p + (uint32_t)u * blockDim.x;
            v[u] = 0;
            if (q < total) {
                while (iv[2 * cur + 1] <= q)
                    cur++;
                uint32_t start = cur ? iv[2 * cur - 1] : 0u;
                uint64_t elem = (uint64_t)iv[2 * cur] + (q - start);
                v[u] = __ldcg((const uint32_t *)(a.base + elem * a.stride));
            }
        }
#pragma unroll
        for (int u = 0; u < MTK_EVICT_IN_FLIGHT; u++)
            acc ^= v[u];
    }
    /* Thread 0's word holds the target's value too (kept for the sink). */
    if (threadIdx.x == 0)
        sink[0] ^= acc;
    else
        sink[threadIdx.x] = acc;
    __syncthreads();

    if (threadIdx.x == 0) {
        uint32_t sa = (uint32_t)__cvta_generic_to_shared(&sink[0]);
        uint64_t addr = target;
        uint32_t t0 = clock_bind(addr);
        uint32_t j;
        asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(j) : "l"(addr) : "memory");
        uint32_t t1 = clock_after(sa, j);
        __stcg(&a.out[0], t1 - t0);
        __stcg(&a.out[1], smid);
        __stcg(&a.out[2], sink[0] ^ j);
    }
}

extern "C" cudaError_t mtk_launch_evict(const mtk_evict_args *a, unsigned blocks, cudaStream_t s)
{
    size_t smem = (size_t)2 * a->n_intervals * sizeof(uint32_t);
    mtk_evict_kernel<<<blocks, MTK_EVICT_THREADS, smem, s>>>(*a);
    return cudaGetLastError();
}

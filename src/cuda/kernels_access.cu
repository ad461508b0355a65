/* MT_KIND_ACCESS on the GPU (backend.h): one block of one warp runs every
 * access experiment of a batch, one after another, so one SM serves them
 * all (the same L1, and the same L2 partition for the same line).  For
 * each: thread t < n_threads loads the 4-byte global word word_index[t]
 * of the buffer (ld.global.ca or ld.global.cg, the others predicated off
 * so they issue no access), all in one instruction, loads + 1 times (the
 * first untimed: it brings the lines into the level measured).  Thread 0
 * times each load with %clock64: t0, load, dependent shared store of the
 * loaded value, t1, as the chase kernels time a fine load (one asm block,
 * so nothing else lands between the clock reads).  The words are
 * all zero and the value is added to the next address, so each load
 * depends on the one before. */
#include <stdint.h>

#include <cuda_runtime.h>

#include "kernels.h"

/* One timed warp load: the predicate is set before the first clock read,
 * so the timed window holds only the load, its dependent shared store and
 * the clock reads (as a chase's fine sample).  *dt = t1 - t0. */
#define ACCESS_TIMED(OP)                                                                          \
    asm volatile("{\n\t.reg .pred p;\n\t.reg .u64 t0, t1;\n\t"                                  \
                 "setp.ne.u32 p, %3, 0;\n\t"                                                     \
                 "mov.u64 t0, %%clock64;\n\t"                                                    \
                 "@p " OP " %0, [%2];\n\t"                                                        \
                 "st.shared.u32 [%4], %0;\n\t"                                                   \
                 "mov.u64 t1, %%clock64;\n\t"                                                    \
                 "sub.u64 %1, t1, t0;\n\t}"                                                      \
                 : "+r"(x), "=l"(dt)                                                             \
                 : "l"(a), "r"(on), "r"(sink)                                                    \
                 : "memory")

__device__ __forceinline__ uint32_t access_load(uint64_t a, uint32_t on, uint32_t cg,
                                                uint32_t sink, uint64_t *cycles)
{
    uint32_t x = 0;
    uint64_t dt;
    if (cg)
        ACCESS_TIMED("ld.global.cg.u32");
    else
        ACCESS_TIMED("ld.global.ca.u32");
    *cycles = dt;
    return x;
}

extern "C" __global__ void mtk_access_kernel(const mtk_access_desc *descs, unsigned n,
                                             const uint32_t *buf, uint32_t stride,
                                             uint32_t *samples, uint32_t *smids)
{
    __shared__ uint32_t sinks[32]; /* one word per thread: distinct banks */
    uint32_t sink = (uint32_t)__cvta_generic_to_shared(&sinks[threadIdx.x]);
    for (unsigned k = 0; k < n; k++) {
        const mtk_access_desc *d = &descs[k];
        uint32_t nt = __ldcg(&d->n_threads), loads = __ldcg(&d->loads), cg = __ldcg(&d->cg);
        uint32_t on = threadIdx.x < nt;
        uint64_t a = (uint64_t)(uintptr_t)buf + __ldcg(&d->offset_bytes) +
                     (on ? (uint64_t)__ldcg(&d->word_index[threadIdx.x]) * 4 : 0);
        uint32_t *out = samples + (size_t)k * stride;
        for (uint32_t j = 0; j <= loads; j++) {
            __syncwarp();
            uint64_t dt;
            uint32_t v = access_load(a, on, cg, sink, &dt);
            a += v;
            if (threadIdx.x == 0 && j > 0)
                __stcg(&out[j - 1], (uint32_t)dt);
        }
        if (threadIdx.x == 0) {
            uint32_t smid;
            asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
            __stcg(&smids[k], smid);
        }
    }
}

extern "C" cudaError_t mtk_launch_access(const mtk_access_desc *descs, unsigned n,
                                         const uint32_t *buf, uint32_t stride, uint32_t *samples,
                                         uint32_t *smids, cudaStream_t s)
{
    mtk_access_kernel<<<1, 32, 0, s>>>(descs, n, buf, stride, samples, smids);
    return cudaGetLastError();
}

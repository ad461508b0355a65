/* MT_KIND_BANKS on the GPU (backend.h, mt_banks): one block of one warp per
 * experiment.  Thread t < n_threads loads shared word word_index[t] of
 * word_bytes (ld.shared.u32 / .v2.u32 / .v4.u32) in the same instruction
 * as every other thread (the others are predicated off, so they issue no
 * access); thread 0 times that instruction as the chase kernels time a
 * fine load (kernels_device.h): t0 = %clock, load, dependent shared store
 * of the loaded value, t1 = %clock.  The loaded words are all zero, and
 * the value is added to the next address, so each load depends on the one
 * before.  One untimed load first warms the instruction path. */
#include <stdint.h>

#include <cuda_runtime.h>

#include "kernels.h"

__device__ __forceinline__ uint32_t banks_clock_bind(uint32_t &a)
{
    uint32_t t;
    asm volatile("mov.u32 %0, %%clock;" : "=r"(t), "+r"(a)::"memory");
    return t;
}

__device__ __forceinline__ uint32_t banks_clock_after(uint32_t sink, uint32_t v)
{
    uint32_t t;
    asm volatile("st.shared.u32 [%1], %2;\n\t"
                 "mov.u32 %0, %%clock;"
                 : "=r"(t)
                 : "r"(sink), "r"(v)
                 : "memory");
    return t;
}

/* One predicated shared load of W bytes at shared address a; returns the
 * sum of its 32-bit parts (0: the words are zero). */
template <int W> __device__ __forceinline__ uint32_t banks_load(uint32_t a, uint32_t on);

template <> __device__ __forceinline__ uint32_t banks_load<4>(uint32_t a, uint32_t on)
{
    uint32_t x = 0;
    asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.u32 p, %2, 0;\n\t"
                 "@p ld.shared.u32 %0, [%1];\n\t}"
                 : "+r"(x)
                 : "r"(a), "r"(on)
                 : "memory");
    return x;
}

template <> __device__ __forceinline__ uint32_t banks_load<8>(uint32_t a, uint32_t on)
{
    uint32_t x = 0, y = 0;
    asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.u32 p, %3, 0;\n\t"
                 "@p ld.shared.v2.u32 {%0, %1}, [%2];\n\t}"
                 : "+r"(x), "+r"(y)
                 : "r"(a), "r"(on)
                 : "memory");
    return x + y;
}

template <> __device__ __forceinline__ uint32_t banks_load<16>(uint32_t a, uint32_t on)
{
    uint32_t x = 0, y = 0, z = 0, w = 0;
    asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.u32 p, %5, 0;\n\t"
                 "@p ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];\n\t}"
                 : "+r"(x), "+r"(y), "+r"(z), "+r"(w)
                 : "r"(a), "r"(on)
                 : "memory");
    return x + y + z + w;
}

template <int W>
__device__ __forceinline__ void banks_run(uint32_t a, uint32_t on, uint32_t sink, uint32_t loads,
                                          uint32_t *out)
{
    for (uint32_t k = 0; k <= loads; k++) {
        __syncwarp();
        uint32_t t0 = banks_clock_bind(a);
        uint32_t v = banks_load<W>(a, on);
        uint32_t t1 = banks_clock_after(sink, v);
        a += v;
        if (threadIdx.x == 0 && k > 0)
            __stcg(&out[k - 1], t1 - t0);
    }
}

extern "C" __global__ void mtk_banks_kernel(const mtk_banks_desc *descs, uint32_t span_words,
                                            uint32_t stride, uint32_t *samples, uint32_t *smids)
{
    extern __shared__ uint32_t mtk_banks_smem[];
    const mtk_banks_desc *d = &descs[blockIdx.x];
    uint32_t word_bytes = __ldcg(&d->word_bytes), n = __ldcg(&d->n_threads);
    uint32_t loads = __ldcg(&d->loads);
    /* The span, then one sink word per thread (distinct banks: the closing
     * store never conflicts). */
    for (uint32_t i = threadIdx.x; i < span_words + 32; i += blockDim.x)
        mtk_banks_smem[i] = 0;
    __syncthreads();
    uint32_t base = (uint32_t)__cvta_generic_to_shared(mtk_banks_smem);
    uint32_t on = threadIdx.x < n;
    uint32_t a = base + (on ? __ldcg(&d->word_index[threadIdx.x]) * word_bytes : 0);
    uint32_t sink = base + (span_words + threadIdx.x) * 4;
    uint32_t *out = samples + (size_t)blockIdx.x * stride;
    if (word_bytes == 16)
        banks_run<16>(a, on, sink, loads, out);
    else if (word_bytes == 8)
        banks_run<8>(a, on, sink, loads, out);
    else
        banks_run<4>(a, on, sink, loads, out);
    if (threadIdx.x == 0) {
        uint32_t smid;
        asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
        __stcg(&smids[blockIdx.x], smid);
    }
}

extern "C" cudaError_t mtk_launch_banks(const mtk_banks_desc *descs, unsigned n,
                                        uint32_t span_words, uint32_t stride, uint32_t *samples,
                                        uint32_t *smids, cudaStream_t s)
{
    size_t smem = ((size_t)span_words + 32) * 4;
    cudaError_t e = cudaFuncSetAttribute(mtk_banks_kernel,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    if (e != cudaSuccess)
        return e;
    mtk_banks_kernel<<<n, 32, smem, s>>>(descs, span_words, stride, samples, smids);
    return cudaGetLastError();
}

/* Device code shared by the probe-kernel families (kernels_chase.cu,
 * kernels_sequence.cu): the block's shared header, the timer primitives,
 * one load operation per path and the claim of an experiment.  Included
 * only by .cu files.
 *
 * Timing follows the thesis (ch. 4.2) and Mei & Chu:
 *   FINE:      t0 = %clock; j = load(j); st.shared [sink], j; t1 = %clock
 *              The dependent shared store keeps the second clock read from
 *              issuing before the load has returned.
 *   AGGREGATE: %clock64 around the whole dependent loop, one sample.
 * The address of a load is computed before t0, and is passed through the
 * t0 asm as a read-write operand, so the compiler can neither hoist the
 * load above the first clock read nor fold the address arithmetic into the
 * timed window.  Every load is an asm volatile with a memory clobber except
 * texture and constant loads (intrinsics / plain C), which are ordered by
 * that operand dependency alone.  Verified in the SASS (cuobjdump):
 *   ca  -> LDG.E.STRONG.SM   cg -> LDG.E.STRONG.GPU   nc -> LDG.E.CONSTANT
 *   tex -> TLD.LZ (bindless) const -> LDC c[0x3][R]    shared -> LDS
 * and no constant-bank (c[0x0], c[0x2]) reads after the first barrier. */
#ifndef MT_CUDA_KERNELS_DEVICE_H
#define MT_CUDA_KERNELS_DEVICE_H

#ifndef __CUDACC__
#error "kernels_device.h is device code: include it from .cu files only"
#endif

#include <stdint.h>

#include <cuda_runtime.h>

#include "kernel_abi.h"
#include "kernels.h"

extern "C" {
#include "../backend/backend.h"
}

/* The constant-path chain: the whole 64 KiB constant bank of the module
 * (the .cu file) that includes this header.  No other __constant__ object
 * may exist in such a file.  Static: each kernel family has its own. */
static __constant__ uint32_t mtk_c_chain[MTK_CONST_WORDS];

/* Shared header layout (bytes inside MTK_SMEM_HDR). */
#define HDR_EXP 0      /* int: claimed experiment, -1 none */
#define HDR_ABORT 4    /* int: a warm-up ran past the deadline */
#define HDR_DESC 16    /* descriptor copy (mtk_exp: 112 bytes, mtk_seq: 72) */
#define HDR_SINK 128   /* dependent-store target of the fine timer */
#define HDR_PARAMS 160 /* status pointer, sample pointer, deadline, blockDim.x */

/* Kernel parameters and blockDim live in constant bank 0, and ptxas re-reads
 * them wherever convenient (also between the timed phases).  Those reads
 * would put lines into the constant cache that the constant-path
 * experiments measure, so thread 0 copies what is needed after the claim
 * into the shared header and everyone reads it from there. */
struct HdrParams {
    mtk_status *st;
    uint32_t *samples;
    uint64_t deadline;
    uint32_t nthreads;
};

static_assert(HDR_DESC + sizeof(mtk_exp) <= HDR_SINK, "descriptor overlaps sink");
static_assert(HDR_DESC + sizeof(mtk_seq) <= HDR_SINK, "descriptor overlaps sink");
static_assert(sizeof(mtk_desc) == sizeof(mtk_exp), "descriptor slots changed size");
static_assert(HDR_SINK + 4 <= HDR_PARAMS, "sink overlaps parameters");
static_assert(HDR_PARAMS + sizeof(HdrParams) <= MTK_SMEM_HDR, "parameters outside header");
static_assert(MT_PATH_COUNT == 7, "path list changed: update the dispatch of every family");

struct Ctx {
    const uint32_t *g;       /* word 0 of the path buffer (global paths) */
    cudaTextureObject_t tex; /* texture path */
    uint32_t sbase;          /* shared address of word 0 of the shared chain */
    uint32_t one;            /* 1, unknown to the compiler */
};

/* Clock reads that also "modify" the next load's address operand. */
__device__ __forceinline__ uint32_t clock_bind(uint32_t &a)
{
    uint32_t t;
    asm volatile("mov.u32 %0, %%clock;" : "=r"(t), "+r"(a)::"memory");
    return t;
}
__device__ __forceinline__ uint32_t clock_bind(uint64_t &a)
{
    uint32_t t;
    asm volatile("mov.u32 %0, %%clock;" : "=r"(t), "+l"(a)::"memory");
    return t;
}
__device__ __forceinline__ uint64_t clock64_bind(uint32_t &j)
{
    uint64_t t;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(t), "+r"(j)::"memory");
    return t;
}
/* Dependent shared store of the loaded value, then the closing clock read. */
__device__ __forceinline__ uint32_t clock_after(uint32_t sink, uint32_t j)
{
    uint32_t t;
    asm volatile("st.shared.u32 [%1], %2;\n\t"
                 "mov.u32 %0, %%clock;"
                 : "=r"(t)
                 : "r"(sink), "r"(j)
                 : "memory");
    return t;
}
__device__ __forceinline__ uint64_t clock64_after(uint32_t sink, uint32_t j)
{
    uint64_t t;
    asm volatile("st.shared.u32 [%1], %2;\n\t"
                 "mov.u64 %0, %%clock64;"
                 : "=l"(t)
                 : "r"(sink), "r"(j)
                 : "memory");
    return t;
}

/* One struct per path: A is the address operand, addr() computes it from
 * the word index j, load() performs the access and returns the next j. */
template <int P> struct Op;

template <> struct Op<MT_PATH_GLOBAL_CA> {
    typedef uint64_t A;
    static __device__ __forceinline__ A addr(const Ctx &c, uint32_t j) { return (uint64_t)(c.g + j); }
    static __device__ __forceinline__ uint32_t load(const Ctx &, A a)
    {
        uint32_t r;
        asm volatile("ld.global.ca.u32 %0, [%1];" : "=r"(r) : "l"(a) : "memory");
        return r;
    }
};
template <> struct Op<MT_PATH_GLOBAL_CG> {
    typedef uint64_t A;
    static __device__ __forceinline__ A addr(const Ctx &c, uint32_t j) { return (uint64_t)(c.g + j); }
    static __device__ __forceinline__ uint32_t load(const Ctx &, A a)
    {
        uint32_t r;
        asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(r) : "l"(a) : "memory");
        return r;
    }
};
template <> struct Op<MT_PATH_GLOBAL_NC> {
    typedef uint64_t A;
    static __device__ __forceinline__ A addr(const Ctx &c, uint32_t j) { return (uint64_t)(c.g + j); }
    static __device__ __forceinline__ uint32_t load(const Ctx &, A a)
    {
        uint32_t r;
        asm volatile("ld.global.nc.u32 %0, [%1];" : "=r"(r) : "l"(a) : "memory");
        return r;
    }
};
template <> struct Op<MT_PATH_TEXTURE> {
    typedef uint32_t A; /* element index of the 32-bit texture */
    static __device__ __forceinline__ A addr(const Ctx &, uint32_t j) { return j; }
    static __device__ __forceinline__ uint32_t load(const Ctx &c, A a)
    {
        return (uint32_t)tex1Dfetch<int>(c.tex, (int)a);
    }
};
template <> struct Op<MT_PATH_CONSTANT> {
    typedef uint32_t A; /* byte offset into the constant chain */
    static __device__ __forceinline__ A addr(const Ctx &, uint32_t j) { return j * 4u; }
    static __device__ __forceinline__ uint32_t load(const Ctx &, A a)
    {
        return *(const uint32_t *)((const char *)mtk_c_chain + a);
    }
};
template <> struct Op<MT_PATH_SHARED> {
    typedef uint32_t A; /* shared-window address */
    static __device__ __forceinline__ A addr(const Ctx &c, uint32_t j) { return c.sbase + j * 4u; }
    static __device__ __forceinline__ uint32_t load(const Ctx &, A a)
    {
        uint32_t r;
        asm volatile("ld.shared.u32 %0, [%1];" : "=r"(r) : "r"(a) : "memory");
        return r;
    }
};
/* `none`, FINE: a register move (ptxas removes it), so the timed window
 * holds exactly the clock reads and the dependent store.
 * `none`, AGGREGATE: ptxas deletes a loop of moves (and folds simple
 * arithmetic across unrolled steps), so each step is j = j * one + 0 with
 * `one` read at run time: one dependent IMAD per load, the same pipe and
 * latency as the IMAD.WIDE that forms a global path's address, so
 * aggregate(path) - aggregate(none) leaves the load itself. */
template <> struct Op<MT_PATH_NONE> {
    typedef uint32_t A;
    static __device__ __forceinline__ A addr(const Ctx &, uint32_t j) { return j; }
    static __device__ __forceinline__ uint32_t load(const Ctx &, A a)
    {
        uint32_t r;
        asm volatile("mov.u32 %0, %1;" : "=r"(r) : "r"(a));
        return r;
    }
    static __device__ __forceinline__ uint32_t step(const Ctx &c, uint32_t j)
    {
        return j * c.one + (uint32_t)(uintptr_t)c.g; /* c.g is 0 for `none` */
    }
};

/* Kernel WIDE's global paths (kernel_abi.h): the same loads, with the
 * element index in units of MTK_WIDE_UNIT bytes.  Ids past the mt_path
 * values, so the templates of the other kernels never see them. */
enum { MTK_WIDE_CA = 16 + MT_PATH_GLOBAL_CA, MTK_WIDE_CG = 16 + MT_PATH_GLOBAL_CG,
       MTK_WIDE_NC = 16 + MT_PATH_GLOBAL_NC };
template <int W, int P> struct OpWide {
    typedef uint64_t A;
    static __device__ __forceinline__ A addr(const Ctx &c, uint32_t j)
    {
        return (uint64_t)(uintptr_t)c.g + ((uint64_t)j << MTK_WIDE_SHIFT);
    }
    static __device__ __forceinline__ uint32_t load(const Ctx &c, A a) { return Op<P>::load(c, a); }
};
template <> struct Op<MTK_WIDE_CA> : OpWide<MTK_WIDE_CA, MT_PATH_GLOBAL_CA> {};
template <> struct Op<MTK_WIDE_CG> : OpWide<MTK_WIDE_CG, MT_PATH_GLOBAL_CG> {};
template <> struct Op<MTK_WIDE_NC> : OpWide<MTK_WIDE_NC, MT_PATH_GLOBAL_NC> {};

/* Claims an experiment for this block (thread 0 only); -1 = nothing to do.
 * Tables are read and written in L2 (atomics, .cg) so the L1 stays clean. */
__device__ __forceinline__ int claim(const mtk_launch &L)
{
    uint32_t smid;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
    if (smid >= MTK_MAX_SMID || atomicCAS(&L.sm_claim[smid], 0u, 1u) != 0u)
        return -1;
    int e = -1;
    int p = __ldcg(&L.plan[smid]);
    if (p >= 0) {
        if (atomicCAS(&L.st[p].claimed, 0u, 1u) == 0u)
            e = p;
    } else {
        for (int i = 0; i < L.n_any && e < 0; i++) {
            int q = __ldcg(&L.any[i]);
            if (atomicCAS(&L.st[q].claimed, 0u, 1u) == 0u)
                e = q;
        }
    }
    if (e >= 0)
        __stcg(&L.st[e].sm_ran, (int32_t)smid);
    return e;
}

/* Thread 0 of a block: claims an experiment, copies its descriptor
 * (`words` 32-bit words) through L2 only (no L1 line for it) into the
 * shared header, and the launch parameters the block needs later.  Returns
 * (to every thread, after a barrier) the experiment index or -1. */
__device__ __forceinline__ int claim_and_stage(const mtk_launch &L, uint32_t *smem, unsigned words)
{
    volatile int *hdr = (volatile int *)smem;
    volatile HdrParams *hp = (volatile HdrParams *)((char *)smem + HDR_PARAMS);
    if (threadIdx.x == 0) {
        int e = claim(L);
        hdr[HDR_EXP / 4] = e;
        hdr[HDR_ABORT / 4] = 0;
        if (e >= 0) {
            const uint32_t *src = (const uint32_t *)&L.descs[e];
            uint32_t *dst = (uint32_t *)((char *)smem + HDR_DESC);
            for (unsigned w = 0; w < words; w++)
                dst[w] = __ldcg(src + w);
            hp->st = L.st;
            hp->samples = L.samples;
            hp->deadline = L.deadline_cycles;
            hp->nthreads = blockDim.x;
        }
    }
    __syncthreads();
    return hdr[HDR_EXP / 4];
}

/* Host side of a family: attributes of one kernel function. */
static inline cudaError_t mtk_fn_info(const void *f, mtk_func_info *out)
{
    cudaFuncAttributes a;
    cudaError_t e = cudaFuncGetAttributes(&a, f);
    if (e != cudaSuccess)
        return e;
    out->static_smem = a.sharedSizeBytes;
    out->regs = a.numRegs;
    out->binary_version = a.binaryVersion;
    out->ptx_version = a.ptxVersion;
    out->carveout_percent = a.preferredShmemCarveout;
    return cudaSuccess;
}

static inline cudaError_t mtk_fn_set_attrs(const void *f, int carveout_percent, int max_dyn_smem)
{
    cudaError_t e = cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, max_dyn_smem);
    if (e != cudaSuccess)
        return e;
    return cudaFuncSetAttribute(f, cudaFuncAttributePreferredSharedMemoryCarveout, carveout_percent);
}

#endif

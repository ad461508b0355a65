/* Pointer-chase kernels of the CUDA backend (see backend.h for the batch
 * semantics and kernels.h for the descriptors).
 *
 * One block runs one experiment.  The grid has one block per SM; each block
 * reads %smid and claims the experiment planned for that SM (or, on an SM
 * without a plan, one of the "any SM" experiments).  A block that finds its
 * SM already claimed, or nothing to do, exits at once.
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
 * that operand dependency alone.  Fine loops are "#pragma unroll 1" (ptxas
 * still unrolls some, but every copy has the same timed window); aggregate
 * loops are unrolled 8x (see AGG_UNROLL).  The `none` path has the same
 * code with no load: its fine sample is the timer overhead (3 cycles on
 * H100), its aggregate per-load cost one dependent IMAD, the cost of the
 * address formation of a global load.  Verified in the SASS (cuobjdump):
 *   ca  -> LDG.E.STRONG.SM   cg -> LDG.E.STRONG.GPU   nc -> LDG.E.CONSTANT
 *   tex -> TLD.LZ (bindless) const -> LDC c[0x3][R]    shared -> LDS
 * and no constant-bank (c[0x0], c[0x2]) reads after the first barrier. */
#include <stdint.h>

#include <cuda_runtime.h>

#include "kernels.h"

extern "C" {
#include "../backend/backend.h"
}

/* The constant-path chain: the whole 64 KiB constant bank of this module.
 * No other __constant__ object may exist in this file. */
__constant__ uint32_t mtk_c_chain[MTK_CONST_WORDS];

/* Shared header layout (bytes inside MTK_SMEM_HDR). */
#define HDR_EXP 0      /* int: claimed experiment, -1 none */
#define HDR_ABORT 4    /* int: a warm-up ran past the deadline */
#define HDR_DESC 16    /* mtk_exp copy (96 bytes) */
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
static_assert(HDR_SINK + 4 <= HDR_PARAMS, "sink overlaps parameters");
static_assert(HDR_PARAMS + sizeof(HdrParams) <= MTK_SMEM_HDR, "parameters outside header");
static_assert(MT_PATH_COUNT == 7, "path list changed: update the dispatch below");

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

/* One untimed step of the chase (warm-up and aggregate loops). */
template <int P> __device__ __forceinline__ uint32_t step(const Ctx &c, uint32_t j)
{
    return Op<P>::load(c, Op<P>::addr(c, j));
}
template <> __device__ __forceinline__ uint32_t step<MT_PATH_NONE>(const Ctx &c, uint32_t j)
{
    return Op<MT_PATH_NONE>::step(c, j);
}

enum { PH_WARM = 0, PH_FINE, PH_AGG };

/* Warm-up loads, checked against the block's deadline every WARM_CHUNK
 * loads (outside any timed region) so a runaway warm-up ends by itself. */
#define WARM_CHUNK 256u

template <int P>
__device__ __forceinline__ uint32_t warm(const Ctx &c, uint32_t j, uint64_t n, uint64_t t_start,
                                         uint64_t deadline, int &abort)
{
    while (n) {
        uint32_t m = n > WARM_CHUNK ? WARM_CHUNK : (uint32_t)n;
#pragma unroll 1
        for (uint32_t k = 0; k < m; k++)
            j = step<P>(c, j);
        n -= m;
        if (clock64() - t_start > deadline) {
            abort = 1;
            break;
        }
    }
    return j;
}

template <int P>
__device__ __forceinline__ uint32_t fine(const Ctx &c, uint32_t j, uint32_t loads, uint32_t samp,
                                         uint32_t sink)
{
#pragma unroll 1
    for (uint32_t k = 0; k < loads; k++) {
        typename Op<P>::A a = Op<P>::addr(c, j);
        uint32_t t0 = clock_bind(a);
        j = Op<P>::load(c, a);
        uint32_t t1 = clock_after(sink, j);
        asm volatile("st.shared.u32 [%0], %1;" ::"r"(samp + 4u * k), "r"(t1 - t0) : "memory");
    }
    return j;
}

/* Aggregate loops are unrolled AGG_UNROLL times: a loop run by one thread
 * of a warp costs ~31 cycles per iteration on H100 in branch and counter
 * alone (measured), which would otherwise floor every per-load figure.
 * Unrolled, the loop control runs in the shadow of the chain. */
#define AGG_UNROLL 8u

template <int P>
__device__ __forceinline__ uint32_t aggregate(const Ctx &c, uint32_t j, uint32_t loads,
                                              uint32_t sink, uint64_t &total)
{
    const uint32_t blocks = loads / AGG_UNROLL, rest = loads % AGG_UNROLL;
    uint64_t t0 = clock64_bind(j);
#pragma unroll 1
    for (uint32_t k = 0; k < blocks; k++) {
#pragma unroll
        for (uint32_t u = 0; u < AGG_UNROLL; u++)
            j = step<P>(c, j);
    }
#pragma unroll 1
    for (uint32_t k = 0; k < rest; k++)
        j = step<P>(c, j);
    uint64_t t1 = clock64_after(sink, j);
    total = t1 - t0;
    return j;
}

struct PhaseArgs {
    uint64_t warm_loads, t_start, deadline;
    uint32_t loads, samp, sink;
};

template <int P>
__device__ __forceinline__ uint32_t phase_p(int ph, const Ctx &c, uint32_t j, const PhaseArgs &a,
                                            uint64_t &total, int &abort)
{
    if (ph == PH_WARM)
        return warm<P>(c, j, a.warm_loads, a.t_start, a.deadline, abort);
    if (ph == PH_FINE)
        return fine<P>(c, j, a.loads, a.samp, a.sink);
    return aggregate<P>(c, j, a.loads, a.sink, total);
}

/* An if-chain, not a switch: nvcc turns a switch into a jump table in
 * constant bank 2, and reading it between two phases would put a line
 * into the constant cache that the constant-path experiments measure. */
__device__ __forceinline__ uint32_t phase(int ph, int path, const Ctx &c, uint32_t j,
                                          const PhaseArgs &a, uint64_t &total, int &abort)
{
    if (path == MT_PATH_GLOBAL_CA)
        return phase_p<MT_PATH_GLOBAL_CA>(ph, c, j, a, total, abort);
    if (path == MT_PATH_GLOBAL_CG)
        return phase_p<MT_PATH_GLOBAL_CG>(ph, c, j, a, total, abort);
    if (path == MT_PATH_GLOBAL_NC)
        return phase_p<MT_PATH_GLOBAL_NC>(ph, c, j, a, total, abort);
    if (path == MT_PATH_TEXTURE)
        return phase_p<MT_PATH_TEXTURE>(ph, c, j, a, total, abort);
    if (path == MT_PATH_CONSTANT)
        return phase_p<MT_PATH_CONSTANT>(ph, c, j, a, total, abort);
    if (path == MT_PATH_SHARED)
        return phase_p<MT_PATH_SHARED>(ph, c, j, a, total, abort);
    return phase_p<MT_PATH_NONE>(ph, c, j, a, total, abort);
}

/* Claims an experiment for this block (thread 0 only); -1 = nothing to do.
 * Tables are read and written in L2 (atomics, .cg) so the L1 stays clean. */
__device__ int claim(const mtk_launch &L)
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

/* SMEM: the experiment may hold shared-path chains (kernel B). */
template <bool SMEM>
__global__ void __launch_bounds__(MTK_MAX_THREADS, 1) mtk_probe(const mtk_launch L)
{
    extern __shared__ __align__(16) uint32_t smem[];
    volatile int *hdr = (volatile int *)smem;
    volatile HdrParams *hp = (volatile HdrParams *)((char *)smem + HDR_PARAMS);
    const uint32_t sh = (uint32_t)__cvta_generic_to_shared(smem);
    const unsigned tid = threadIdx.x;
    mtk_exp *xs = (mtk_exp *)((char *)smem + HDR_DESC);

    if (tid == 0) {
        int e = claim(L);
        hdr[HDR_EXP / 4] = e;
        hdr[HDR_ABORT / 4] = 0;
        if (e >= 0) {
            /* Copy the descriptor through L2 only (no L1 line for it). */
            const uint32_t *src = (const uint32_t *)&L.exps[e];
            uint32_t *dst = (uint32_t *)xs;
            for (unsigned w = 0; w < sizeof(mtk_exp) / 4; w++)
                dst[w] = __ldcg(src + w);
            hp->st = L.st;
            hp->samples = L.samples;
            hp->deadline = L.deadline_cycles;
            hp->nthreads = blockDim.x;
        }
    }
    __syncthreads();
    const int e = hdr[HDR_EXP / 4];
    if (e < 0)
        return;
    mtk_status *const st = hp->st;
    uint32_t *const samples = hp->samples;
    const uint32_t nthreads = hp->nthreads;
    const uint64_t t_start = clock64();
    const unsigned nch = xs->n_chains;
    const uint32_t mode = xs->mode;

    if (SMEM) {
        /* Chains of one experiment on the same path share one buffer: copy it once. */
        for (unsigned i = 0; i < nch; i++) {
            if (xs->c[i].path != MT_PATH_SHARED || (i == 1 && xs->c[0].path == MT_PATH_SHARED))
                continue;
            const uint32_t *src = (const uint32_t *)xs->c[i].buf;
            uint32_t *dst = smem + MTK_SMEM_CHAIN / 4;
            for (uint32_t w = tid; w < xs->c[i].smem_words; w += nthreads)
                dst[w] = __ldcg(src + w);
        }
        __syncthreads();
    }

    PhaseArgs pa;
    pa.t_start = t_start;
    pa.deadline = hp->deadline;
    pa.loads = xs->loads;
    pa.samp = sh + MTK_SMEM_SAMPLES;
    pa.sink = sh + HDR_SINK;
    uint32_t j0 = xs->c[0].start, j1 = xs->c[1].start;

    /* Step 1 and 2 of the sharing protocol: warm chain 0, then chain 1. */
#pragma unroll 1
    for (unsigned i = 0; i < nch; i++) {
        const mtk_chain *c = &xs->c[i];
        if (tid == c->thread && c->warm_loads && !hdr[HDR_ABORT / 4]) {
            Ctx ctx = {(const uint32_t *)c->buf, (cudaTextureObject_t)c->tex, sh + MTK_SMEM_CHAIN,
                       c->one};
            pa.warm_loads = c->warm_loads;
            uint64_t unused = 0;
            int abort = 0;
            uint32_t j = phase(PH_WARM, (int)c->path, ctx, i ? j1 : j0, pa, unused, abort);
            if (i)
                j1 = j;
            else
                j0 = j;
            if (abort)
                hdr[HDR_ABORT / 4] = 1;
        }
        __syncthreads();
    }
    /* Step 3 and 4: measure chain 0, then chain 1. */
#pragma unroll 1
    for (unsigned i = 0; i < nch; i++) {
        const mtk_chain *c = &xs->c[i];
        if (hdr[HDR_ABORT / 4])
            break;
        if (tid == c->thread) {
            Ctx ctx = {(const uint32_t *)c->buf, (cudaTextureObject_t)c->tex, sh + MTK_SMEM_CHAIN,
                       c->one};
            uint64_t total = 0;
            int abort = 0;
            uint32_t j = phase(mode == MT_MODE_FINE ? PH_FINE : PH_AGG, (int)c->path, ctx,
                               i ? j1 : j0, pa, total, abort);
            __stcg(&st[e].final_j[i], j);
            __stcg((unsigned long long *)&st[e].total[i], (unsigned long long)total);
        }
        __syncthreads();
        if (mode == MT_MODE_FINE) {
            /* Samples leave shared memory before the next chain reuses it;
             * .cg stores keep them out of the L1. */
            uint32_t *out = samples + c->out_off;
            for (uint32_t k = tid; k < pa.loads; k += nthreads)
                __stcg(out + k, smem[MTK_SMEM_SAMPLES / 4 + k]);
            __syncthreads();
        }
    }
    if (tid == 0)
        __stcg(&st[e].aborted, (uint32_t)hdr[HDR_ABORT / 4]);
}

/* Writes chains: one row of blocks (blockIdx.y) per descriptor. */
__global__ void mtk_build_kernel(const mtk_build *d)
{
    const mtk_build b = d[blockIdx.y];
    uint32_t *buf = (uint32_t *)b.buf;
    const uint32_t *succ = (const uint32_t *)b.succ;
    for (uint32_t k = blockIdx.x * blockDim.x + threadIdx.x; k < b.n; k += gridDim.x * blockDim.x) {
        uint32_t s = succ ? succ[k] : (k + 1 == b.n ? 0u : k + 1);
        buf[(uint64_t)b.start_w + (uint64_t)k * b.stride_w] = b.start_w + s * b.stride_w;
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

static const void *probe_fn(int which)
{
    return which == MTK_KERNEL_B ? (const void *)mtk_probe<true> : (const void *)mtk_probe<false>;
}

extern "C" cudaError_t mtk_probe_info(int which, mtk_func_info *out)
{
    cudaFuncAttributes a;
    cudaError_t e = cudaFuncGetAttributes(&a, probe_fn(which));
    if (e != cudaSuccess)
        return e;
    out->static_smem = a.sharedSizeBytes;
    out->regs = a.numRegs;
    out->binary_version = a.binaryVersion;
    out->ptx_version = a.ptxVersion;
    return cudaSuccess;
}

extern "C" cudaError_t mtk_probe_occupancy(int which, int block, size_t dyn_smem, int *blocks)
{
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, probe_fn(which), block, dyn_smem);
}

extern "C" cudaError_t mtk_probe_set_attrs(int which, int carveout_percent, int max_dyn_smem)
{
    const void *f = probe_fn(which);
    cudaError_t e = cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, max_dyn_smem);
    if (e != cudaSuccess)
        return e;
    return cudaFuncSetAttribute(f, cudaFuncAttributePreferredSharedMemoryCarveout, carveout_percent);
}

extern "C" cudaError_t mtk_launch_probe(int which, unsigned grid, unsigned block, size_t dyn_smem,
                                        cudaStream_t s, const mtk_launch *l)
{
    if (which == MTK_KERNEL_B)
        mtk_probe<true><<<grid, block, dyn_smem, s>>>(*l);
    else
        mtk_probe<false><<<grid, block, dyn_smem, s>>>(*l);
    return cudaGetLastError();
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

extern "C" cudaError_t mtk_const_upload(const void *src, size_t bytes, cudaStream_t s)
{
    return cudaMemcpyToSymbolAsync(mtk_c_chain, src, bytes, 0, cudaMemcpyHostToDevice, s);
}

extern "C" size_t mtk_const_bytes(void)
{
    return sizeof mtk_c_chain;
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

/* The pointer-chase kernels of the cuda backend (kernels A and B; see
 * backend.h for the batch semantics, kernel_abi.h for the descriptors and
 * kernels_device.h for the timer and the per-path loads).
 *
 * One block runs one experiment.  The grid has one block per SM; each block
 * reads %smid and claims the experiment planned for that SM (or, on an SM
 * without a plan, one of the "any SM" experiments).  A block that finds its
 * SM already claimed, or nothing to do, exits at once.
 *
 * Fine loops are "#pragma unroll 1" (ptxas still unrolls some, but every
 * copy has the same timed window); aggregate loops are unrolled 8x (see
 * AGG_UNROLL).  The `none` path has the same code with no load: its fine
 * sample is the timer overhead (3 cycles on H100), its aggregate per-load
 * cost one dependent IMAD, the cost of the address formation of a global
 * load. */
#include "kernels_device.h"

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

/* Parallel warm-up (MTK_EXP_PARALLEL_WARM): thread t loads elements t,
 * t + nthreads, ... of a sequential chain, independently.  Element k is
 * word start + k * stride_w; the stride is read from element 0, whose
 * value is element 1's word.  The loaded values are folded into the
 * result so every load has completed when the caller stores it. */
template <int P>
__device__ __forceinline__ uint32_t warm_parallel(const Ctx &c, uint32_t start, uint64_t n,
                                                  unsigned tid, unsigned nthreads)
{
    const uint32_t stride_w = Op<P>::load(c, Op<P>::addr(c, start)) - start;
    uint32_t acc = 0;
#pragma unroll 1
    for (uint64_t k = tid; k < n; k += nthreads)
        acc ^= Op<P>::load(c, Op<P>::addr(c, start + (uint32_t)k * stride_w));
    return acc;
}

template <bool WIDE>
__device__ __forceinline__ uint32_t warm_parallel_path(int path, const Ctx &c, uint32_t start,
                                                       uint64_t n, unsigned tid, unsigned nthreads)
{
    if (WIDE) {
        if (path == MT_PATH_GLOBAL_CA)
            return warm_parallel<MTK_WIDE_CA>(c, start, n, tid, nthreads);
        if (path == MT_PATH_GLOBAL_CG)
            return warm_parallel<MTK_WIDE_CG>(c, start, n, tid, nthreads);
        return warm_parallel<MTK_WIDE_NC>(c, start, n, tid, nthreads);
    }
    if (path == MT_PATH_GLOBAL_CA)
        return warm_parallel<MT_PATH_GLOBAL_CA>(c, start, n, tid, nthreads);
    if (path == MT_PATH_GLOBAL_CG)
        return warm_parallel<MT_PATH_GLOBAL_CG>(c, start, n, tid, nthreads);
    if (path == MT_PATH_TEXTURE) /* never wide (layout.c) */
        return warm_parallel<MT_PATH_TEXTURE>(c, start, n, tid, nthreads);
    return warm_parallel<MT_PATH_GLOBAL_NC>(c, start, n, tid, nthreads);
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

/* Kernel WIDE's dispatch: global paths only (its experiments have no
 * other chains, layout.c), their element indices in wide units. */
__device__ __forceinline__ uint32_t phase_wide(int ph, int path, const Ctx &c, uint32_t j,
                                               const PhaseArgs &a, uint64_t &total, int &abort)
{
    if (path == MT_PATH_GLOBAL_CA)
        return phase_p<MTK_WIDE_CA>(ph, c, j, a, total, abort);
    if (path == MT_PATH_GLOBAL_CG)
        return phase_p<MTK_WIDE_CG>(ph, c, j, a, total, abort);
    return phase_p<MTK_WIDE_NC>(ph, c, j, a, total, abort);
}

template <bool WIDE>
__device__ __forceinline__ uint32_t phase_of(int ph, int path, const Ctx &c, uint32_t j,
                                             const PhaseArgs &a, uint64_t &total, int &abort)
{
    return WIDE ? phase_wide(ph, path, c, j, a, total, abort) : phase(ph, path, c, j, a, total, abort);
}

/* SMEM: the experiment may hold shared-path chains (kernel B).  WIDE:
 * kernel WIDE (kernel_abi.h). */
template <bool SMEM, bool WIDE>
__global__ void __launch_bounds__(MTK_MAX_THREADS, 1) mtk_probe(const mtk_launch L)
{
    extern __shared__ __align__(16) uint32_t smem[];
    volatile int *hdr = (volatile int *)smem;
    volatile HdrParams *hp = (volatile HdrParams *)((char *)smem + HDR_PARAMS);
    const uint32_t sh = (uint32_t)__cvta_generic_to_shared(smem);
    const unsigned tid = threadIdx.x;
    mtk_exp *xs = (mtk_exp *)((char *)smem + HDR_DESC);

    const int e = claim_and_stage(L, smem, sizeof(mtk_exp) / 4);
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
        if ((xs->flags & MTK_EXP_PARALLEL_WARM) && c->warm_loads) {
            /* One lap by every thread; the chain is back at element 0. */
            Ctx ctx = {(const uint32_t *)c->buf, (cudaTextureObject_t)c->tex, 0, c->one};
            uint32_t acc = warm_parallel_path<WIDE>((int)c->path, ctx, c->start, c->warm_loads,
                                                    tid, nthreads);
            asm volatile("st.shared.u32 [%0], %1;" ::"r"(pa.sink), "r"(acc) : "memory");
        } else if (tid == c->thread && c->warm_loads && !hdr[HDR_ABORT / 4]) {
            Ctx ctx = {(const uint32_t *)c->buf, (cudaTextureObject_t)c->tex, sh + MTK_SMEM_CHAIN,
                       c->one};
            pa.warm_loads = c->warm_loads;
            uint64_t unused = 0;
            int abort = 0;
            uint32_t j = phase_of<WIDE>(PH_WARM, (int)c->path, ctx, i ? j1 : j0, pa, unused, abort);
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
            uint32_t j = phase_of<WIDE>(mode == MT_MODE_FINE ? PH_FINE : PH_AGG, (int)c->path, ctx,
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

/* smem: 0 = kernel A, 1 = B, MTK_VARIANT_WIDE = WIDE. */
static const void *probe_fn(int smem)
{
    if (smem == MTK_VARIANT_WIDE)
        return (const void *)mtk_probe<false, true>;
    return smem ? (const void *)mtk_probe<true, false> : (const void *)mtk_probe<false, false>;
}

static cudaError_t chase_info(int smem, mtk_func_info *out)
{
    return mtk_fn_info(probe_fn(smem), out);
}

static cudaError_t chase_occupancy(int smem, int block, size_t dyn_smem, int *blocks)
{
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, probe_fn(smem), block, dyn_smem);
}

static cudaError_t chase_set_attrs(int smem, int carveout_percent, int max_dyn_smem)
{
    return mtk_fn_set_attrs(probe_fn(smem), carveout_percent, max_dyn_smem);
}

static cudaError_t chase_launch(int smem, unsigned grid, unsigned block, size_t dyn_smem,
                                cudaStream_t s, const mtk_launch *l)
{
    if (smem == MTK_VARIANT_WIDE)
        mtk_probe<false, true><<<grid, block, dyn_smem, s>>>(*l);
    else if (smem)
        mtk_probe<true, false><<<grid, block, dyn_smem, s>>>(*l);
    else
        mtk_probe<false, false><<<grid, block, dyn_smem, s>>>(*l);
    return cudaGetLastError();
}

static cudaError_t chase_const_upload(const void *src, size_t bytes, cudaStream_t s)
{
    return cudaMemcpyToSymbolAsync(mtk_c_chain, src, bytes, 0, cudaMemcpyHostToDevice, s);
}

extern "C" const mtk_family mtk_family_chase = {
    "chase", chase_info, chase_occupancy, chase_set_attrs, chase_launch, chase_const_upload,
};

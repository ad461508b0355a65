/* The explicit-sequence kernels of the cuda backend (MT_KIND_SEQUENCE;
 * kernels SEQ_A and SEQ_B, descriptor mtk_seq in kernel_abi.h).
 *
 * Claiming, the shared header and the per-path loads are the chase
 * kernels' (kernels_device.h).  A block that claimed an experiment first
 * stages the index list into shared memory (and, for SEQ_B, the
 * shared-path element array), then the experiment's thread runs it:
 *
 *   The element array is a sequential chase chain (element k holds the
 *   word index of element k+1), and the host turned the index list into
 *   int32 deltas: the word index of load i is v + list[i], v being the
 *   value load i-1 returned (0 before the first).  Every address therefore
 *   depends on the previous load's value, exactly like j = a[j] in a
 *   chase, and ptxas cannot overlap two loads.  The address is formed so
 *   that one instruction depends on v (an IMAD.WIDE for the global paths,
 *   as in the chase): the delta is added to the base first.
 *
 *   untimed entries: plain dependent loads (#pragma unroll 1).
 *   FINE:      per entry: delta from shared memory, address, then the
 *              chase's window: t0 = %clock; v = load; st.shared [sink], v;
 *              t1 = %clock.  The delta is read before the window (the
 *              address needs it before t0 can be read).  The sample is
 *              stored over the entry just used, so list and samples share
 *              the words.  `none` runs the chase's own fine loop.  On
 *              sm_90 every window holds the chase's instructions (checked
 *              with cuobjdump); ptxas's stall counts differ by one NOP
 *              cycle for the global and shared paths, so on H100 (runs of
 *              tools/cuda_selftest) a sequence sample equals the chase's
 *              for none (3), const (37) and tex (94) and is 1 cycle lower
 *              for shared (28 vs 29) and 2 for an L1 hit on ca/nc (38 vs
 *              40).
 *   AGGREGATE: %clock64 around all timed entries; deltas are read 8 at a
 *              time one group ahead, so their shared-memory latency hides
 *              behind the loads of the group before; the first group is
 *              read (and waited for) before the first clock read.  The
 *              loop overhead is the sequence's own: subtract a `none`
 *              sequence (H100: ca 41.6 - none 7.9 = 33.7 cycles per load,
 *              chase 38.8 - 4.9 = 33.9).
 *
 * The staging reads go through the L2 only (ld.global.cg; on sm_80 and
 * later with an evict-first policy), never through the L1, the texture or
 * the constant caches, before any timed load. */
#include "kernels_device.h"

/* Deltas read per group by the aggregate loop. */
#define SEQ_UNROLL 8u
static_assert(SEQ_UNROLL <= MTK_SEQ_OVERREAD_WORDS, "aggregate loop reads past the list");

/* Staging loads: L2 only, evict-first where the architecture has it. */
struct StagePolicy {
    uint64_t pol;
};
__device__ __forceinline__ StagePolicy stage_policy()
{
    StagePolicy p;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(p.pol));
#else
    p.pol = 0;
#endif
    return p;
}
__device__ __forceinline__ uint32_t stage_load(const uint32_t *src, const StagePolicy &p)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    uint32_t r;
    asm volatile("ld.global.cg.L2::cache_hint.u32 %0, [%1], %2;" : "=r"(r) : "l"(src), "l"(p.pol));
    return r;
#else
    (void)p;
    return __ldcg(src);
#endif
}
__device__ __forceinline__ void stage(uint32_t *dst, const uint32_t *src, uint32_t words,
                                      unsigned tid, unsigned nthreads, const StagePolicy &p)
{
#pragma unroll 4
    for (uint32_t w = tid; w < words; w += nthreads)
        dst[w] = stage_load(src + w, p);
}

/* An empty asm hides x from the optimiser, so the compiler cannot
 * re-associate base + 4 * v into 4 * (d + v) + g: the address of a load
 * then costs one instruction after v arrives (IMAD.WIDE / LEA), as in the
 * chase. */
__device__ __forceinline__ uint64_t opaque(uint64_t x)
{
    asm("" : "+l"(x));
    return x;
}
__device__ __forceinline__ uint32_t opaque(uint32_t x)
{
    asm("" : "+r"(x));
    return x;
}

/* Address operand of the load of word index v + d, with only the last
 * operation depending on v.  Texture: the coordinate itself, v + d, one
 * IADD where the chase has none (TLD takes no register offset). */
template <int P> struct SeqAddr {
    static __device__ __forceinline__ typename Op<P>::A at(const Ctx &c, int32_t d, uint32_t v)
    {
        return Op<P>::addr(c, v + (uint32_t)d); /* tex, none: the word index itself */
    }
};
__device__ __forceinline__ uint64_t seq_global(const Ctx &c, int32_t d, uint32_t v)
{
    const uint64_t base = opaque((uint64_t)(c.g + d)); /* independent of v */
    return base + 4ull * v;
}
template <> struct SeqAddr<MT_PATH_GLOBAL_CA> {
    static __device__ __forceinline__ uint64_t at(const Ctx &c, int32_t d, uint32_t v)
    {
        return seq_global(c, d, v);
    }
};
template <> struct SeqAddr<MT_PATH_GLOBAL_CG> {
    static __device__ __forceinline__ uint64_t at(const Ctx &c, int32_t d, uint32_t v)
    {
        return seq_global(c, d, v);
    }
};
template <> struct SeqAddr<MT_PATH_GLOBAL_NC> {
    static __device__ __forceinline__ uint64_t at(const Ctx &c, int32_t d, uint32_t v)
    {
        return seq_global(c, d, v);
    }
};
template <> struct SeqAddr<MT_PATH_CONSTANT> {
    static __device__ __forceinline__ uint32_t at(const Ctx &, int32_t d, uint32_t v)
    {
        return opaque((uint32_t)d * 4u) + v * 4u;
    }
};
template <> struct SeqAddr<MT_PATH_SHARED> {
    static __device__ __forceinline__ uint32_t at(const Ctx &c, int32_t d, uint32_t v)
    {
        return opaque(c.sbase + (uint32_t)d * 4u) + v * 4u;
    }
};

/* One untimed (or aggregate) step: the next value. */
template <int P> __device__ __forceinline__ uint32_t seq_step(const Ctx &c, int32_t d, uint32_t v)
{
    return Op<P>::load(c, SeqAddr<P>::at(c, d, v));
}
/* `none`: one dependent IMAD per entry (v * 1 + d), as the chase's `none`. */
template <> __device__ __forceinline__ uint32_t seq_step<MT_PATH_NONE>(const Ctx &c, int32_t d,
                                                                       uint32_t v)
{
    return v * c.one + (uint32_t)d;
}

__device__ __forceinline__ int32_t lds_s32(uint32_t a)
{
    int32_t r;
    asm volatile("ld.shared.s32 %0, [%1];" : "=r"(r) : "r"(a) : "memory");
    return r;
}

template <int P>
__device__ __forceinline__ uint32_t seq_untimed(const Ctx &c, uint32_t slot, uint32_t m, uint32_t v)
{
#pragma unroll 1
    for (uint32_t i = 0; i < m; i++, slot += 4u)
        v = seq_step<P>(c, lds_s32(slot), v);
    return v;
}

template <int P>
__device__ __forceinline__ uint32_t seq_fine(const Ctx &c, uint32_t slot, uint32_t m, uint32_t sink,
                                             uint32_t v)
{
#pragma unroll 1
    for (uint32_t i = 0; i < m; i++, slot += 4u) {
        const int32_t d = lds_s32(slot);
        typename Op<P>::A a = SeqAddr<P>::at(c, d, v);
        uint32_t t0 = clock_bind(a);
        v = Op<P>::load(c, a);
        uint32_t t1 = clock_after(sink, v);
        asm volatile("st.shared.u32 [%0], %1;" ::"r"(slot), "r"(t1 - t0) : "memory");
    }
    return v;
}

/* `none`, FINE: no load, so no address depends on the deltas; the timed
 * loop is the chase's fine `none` loop, source for source (ptxas gives it
 * the chase's window, 3 cycles on H100), and the value the entries lead to
 * (v plus every delta) is summed before the samples overwrite the list. */
template <>
__device__ __forceinline__ uint32_t seq_fine<MT_PATH_NONE>(const Ctx &c, uint32_t slot, uint32_t m,
                                                           uint32_t sink, uint32_t v)
{
    uint32_t sum = 0;
#pragma unroll 1
    for (uint32_t i = 0; i < m; i++)
        sum += (uint32_t)lds_s32(slot + 4u * i);
    uint32_t j = v;
#pragma unroll 1
    for (uint32_t k = 0; k < m; k++) {
        typename Op<MT_PATH_NONE>::A a = Op<MT_PATH_NONE>::addr(c, j);
        uint32_t t0 = clock_bind(a);
        j = Op<MT_PATH_NONE>::load(c, a);
        uint32_t t1 = clock_after(sink, j);
        asm volatile("st.shared.u32 [%0], %1;" ::"r"(slot + 4u * k), "r"(t1 - t0) : "memory");
    }
    return j + sum;
}

__device__ __forceinline__ void lds_group(int32_t (&d)[SEQ_UNROLL], uint32_t slot)
{
#pragma unroll
    for (uint32_t u = 0; u < SEQ_UNROLL; u++)
        d[u] = lds_s32(slot + 4u * u);
}

template <int P>
__device__ __forceinline__ uint32_t seq_aggregate(const Ctx &c, uint32_t slot, uint32_t m,
                                                  uint32_t sink, uint32_t v, uint64_t &total)
{
    const uint32_t groups = m / SEQ_UNROLL, rest = m % SEQ_UNROLL;
    int32_t d[SEQ_UNROLL];
    lds_group(d, slot);
    /* Consume the first group before the first clock read (a store reads
     * its operand, so it waits for the loads). */
    int32_t x = 0;
#pragma unroll
    for (uint32_t u = 0; u < SEQ_UNROLL; u++)
        x ^= d[u];
    asm volatile("st.shared.u32 [%0], %1;" ::"r"(sink), "r"(x) : "memory");
    const uint64_t t0 = clock64_bind(v);
#pragma unroll 1
    for (uint32_t k = 0; k < groups; k++) {
        int32_t nx[SEQ_UNROLL];
        slot += 4u * SEQ_UNROLL;
        lds_group(nx, slot); /* the last group reads up to 8 words past the list */
#pragma unroll
        for (uint32_t u = 0; u < SEQ_UNROLL; u++)
            v = seq_step<P>(c, d[u], v);
#pragma unroll
        for (uint32_t u = 0; u < SEQ_UNROLL; u++)
            d[u] = nx[u];
    }
#pragma unroll
    for (uint32_t u = 0; u + 1 < SEQ_UNROLL; u++)
        if (u < rest)
            v = seq_step<P>(c, d[u], v);
    const uint64_t t1 = clock64_after(sink, v);
    total = t1 - t0;
    return v;
}

struct SeqArgs {
    uint32_t list; /* shared address of entry 0 */
    uint32_t n, untimed, mode;
    uint32_t sink;
};

template <int P>
__device__ __forceinline__ uint32_t seq_run_p(const Ctx &c, const SeqArgs &a, uint64_t &total)
{
    if (P == MT_PATH_TEXTURE) {
        /* A texture query before any load: the handle is moved to a
         * uniform register here, once, and not (as ptxas otherwise does)
         * inside the first timed window (R2UR, ~12 cycles).  It reads the
         * texture header, which the first fetch would read anyway. */
        uint32_t w;
        asm volatile("txq.width.b32 %0, [%1];" : "=r"(w) : "l"(c.tex));
        asm volatile("st.shared.u32 [%0], %1;" ::"r"(a.sink), "r"(w) : "memory");
    }
    const uint32_t v = seq_untimed<P>(c, a.list, a.untimed, 0u);
    const uint32_t slot = a.list + 4u * a.untimed, m = a.n - a.untimed;
    if (a.mode == MT_MODE_FINE)
        return seq_fine<P>(c, slot, m, a.sink, v);
    return seq_aggregate<P>(c, slot, m, a.sink, v, total);
}

/* The path dispatch.  Compared with constants, ptxas turns the if-chain
 * into a jump table in constant bank 2 (BRX), and its read would put a
 * line into the constant cache that the constant-path sequences measure;
 * so each path number is compared with a run-time value (one + p - 1,
 * hidden from the compiler by an empty asm), which no table can index. */
__device__ __forceinline__ bool path_is(int path, int p, uint32_t one)
{
    int k = (int)one + p - 1;
    asm("" : "+r"(k));
    return path == k;
}

__device__ __forceinline__ uint32_t seq_run(int path, const Ctx &c, const SeqArgs &a,
                                            uint64_t &total)
{
    if (path_is(path, MT_PATH_GLOBAL_CA, c.one))
        return seq_run_p<MT_PATH_GLOBAL_CA>(c, a, total);
    if (path_is(path, MT_PATH_GLOBAL_CG, c.one))
        return seq_run_p<MT_PATH_GLOBAL_CG>(c, a, total);
    if (path_is(path, MT_PATH_GLOBAL_NC, c.one))
        return seq_run_p<MT_PATH_GLOBAL_NC>(c, a, total);
    if (path_is(path, MT_PATH_TEXTURE, c.one))
        return seq_run_p<MT_PATH_TEXTURE>(c, a, total);
    if (path_is(path, MT_PATH_CONSTANT, c.one))
        return seq_run_p<MT_PATH_CONSTANT>(c, a, total);
    if (path_is(path, MT_PATH_SHARED, c.one))
        return seq_run_p<MT_PATH_SHARED>(c, a, total);
    return seq_run_p<MT_PATH_NONE>(c, a, total);
}

/* SMEM: the element array is on the shared path (kernel SEQ_B). */
template <bool SMEM>
__global__ void __launch_bounds__(MTK_MAX_THREADS, 1) mtk_sequence(const mtk_launch L)
{
    extern __shared__ __align__(16) uint32_t smem[];
    volatile HdrParams *hp = (volatile HdrParams *)((char *)smem + HDR_PARAMS);
    const uint32_t sh = (uint32_t)__cvta_generic_to_shared(smem);
    const unsigned tid = threadIdx.x;
    const mtk_seq *xs = (const mtk_seq *)((char *)smem + HDR_DESC);

    const int e = claim_and_stage(L, smem, sizeof(mtk_seq) / 4);
    if (e < 0)
        return;
    mtk_status *const st = hp->st;
    uint32_t *const samples = hp->samples;
    const uint32_t nthreads = hp->nthreads;
    const uint32_t n = xs->n, untimed = xs->untimed, mode = xs->mode;

    {
        const StagePolicy pol = stage_policy();
        stage(smem + MTK_SMEM_SAMPLES / 4, (const uint32_t *)xs->list, n, tid, nthreads, pol);
        if (SMEM && xs->c.path == MT_PATH_SHARED)
            stage(smem + MTK_SMEM_CHAIN / 4, (const uint32_t *)xs->c.buf, xs->c.smem_words, tid,
                  nthreads, pol);
    }
    __syncthreads();

    if (tid == xs->c.thread) {
        const mtk_chain *c = &xs->c;
        Ctx ctx = {(const uint32_t *)c->buf, (cudaTextureObject_t)c->tex, sh + MTK_SMEM_CHAIN,
                   c->one};
        SeqArgs a;
        a.list = sh + MTK_SMEM_SAMPLES;
        a.n = n;
        a.untimed = untimed;
        a.mode = mode;
        a.sink = sh + HDR_SINK;
        uint64_t total = 0;
        const uint32_t v = seq_run((int)c->path, ctx, a, total);
        __stcg(&st[e].final_j[0], v);
        __stcg((unsigned long long *)&st[e].total[0], (unsigned long long)total);
    }
    __syncthreads();
    if (mode == MT_MODE_FINE) {
        /* Sample k (entry untimed + k) leaves through L2 only. */
        uint32_t *out = samples + xs->c.out_off;
        for (uint32_t k = tid; k < n - untimed; k += nthreads)
            __stcg(out + k, smem[MTK_SMEM_SAMPLES / 4 + untimed + k]);
    }
}

static const void *sequence_fn(int smem)
{
    return smem ? (const void *)mtk_sequence<true> : (const void *)mtk_sequence<false>;
}

static cudaError_t sequence_info(int smem, mtk_func_info *out)
{
    return mtk_fn_info(sequence_fn(smem), out);
}

static cudaError_t sequence_occupancy(int smem, int block, size_t dyn_smem, int *blocks)
{
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, sequence_fn(smem), block, dyn_smem);
}

static cudaError_t sequence_set_attrs(int smem, int carveout_percent, int max_dyn_smem)
{
    return mtk_fn_set_attrs(sequence_fn(smem), carveout_percent, max_dyn_smem);
}

static cudaError_t sequence_launch(int smem, unsigned grid, unsigned block, size_t dyn_smem,
                                   cudaStream_t s, const mtk_launch *l)
{
    if (smem)
        mtk_sequence<true><<<grid, block, dyn_smem, s>>>(*l);
    else
        mtk_sequence<false><<<grid, block, dyn_smem, s>>>(*l);
    return cudaGetLastError();
}

static cudaError_t sequence_const_upload(const void *src, size_t bytes, cudaStream_t s)
{
    return cudaMemcpyToSymbolAsync(mtk_c_chain, src, bytes, 0, cudaMemcpyHostToDevice, s);
}

extern "C" const mtk_family mtk_family_sequence = {
    "sequence",         sequence_info,   sequence_occupancy,   sequence_set_attrs,
    sequence_launch,    sequence_const_upload,
};

/* MT_KIND_STREAM on the GPU (backend.h): every thread of the launch
 * streams its share of a buffer (read, write or copy) with 4, 8 or
 * 16-byte vectors and 1, 2, 4 or 8 independent accesses in flight, or
 * (the chase op) follows its own dependent chain.  Each block times its
 * own loop with clock64 and the global timer; the slowest block's cycles
 * and the launch's first start and last end go to `out` by atomics. */
#include <stdint.h>

#include <cuda_runtime.h>

#include "stream_abi.h"

/* Which loads and stores a kernel uses (mt_path: ca, cg, nc, tex, shared). */
enum { SP_CA = 0, SP_CG = 1, SP_NC = 2, SP_TEX = 3, SP_SHARED = 5 };

__device__ __forceinline__ uint32_t fold(uint32_t v) { return v; }
__device__ __forceinline__ uint32_t fold(uint2 v) { return v.x ^ v.y; }
__device__ __forceinline__ uint32_t fold(uint4 v) { return v.x ^ v.y ^ v.z ^ v.w; }

template <typename T> __device__ __forceinline__ T zero_of();
template <> __device__ __forceinline__ uint32_t zero_of<uint32_t>() { return 0u; }
template <> __device__ __forceinline__ uint2 zero_of<uint2>() { return make_uint2(0u, 0u); }
template <> __device__ __forceinline__ uint4 zero_of<uint4>() { return make_uint4(0u, 0u, 0u, 0u); }

template <typename T, int P>
__device__ __forceinline__ T load_vec(const T *g, const T *s, cudaTextureObject_t tex, uint64_t i)
{
    if (P == SP_SHARED)
        return s[i];
    if (P == SP_CA)
        return __ldca(g + i);
    if (P == SP_CG)
        return __ldcg(g + i);
    if (P == SP_NC)
        return __ldg(g + i);
    return tex1Dfetch<T>(tex, (int)i);
}

template <typename T, int P> __device__ __forceinline__ void store_vec(T *g, T *s, uint64_t i, T v)
{
    if (P == SP_SHARED)
        s[i] = v;
    else if (P == SP_CG)
        __stcg(g + i, v);
    else
        g[i] = v; /* ca: the default write-back store */
}

__device__ __forceinline__ uint64_t global_ns(void)
{
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* Records the block's interval: thread 0 after the block's last access. */
__device__ __forceinline__ void finish(const mtk_stream_args &a, uint64_t c0, uint64_t t0)
{
    __syncthreads();
    if (threadIdx.x == 0) {
        uint64_t c1 = clock64(), t1 = global_ns();
        unsigned long long *out = (unsigned long long *)a.out;
        atomicMax(&out[0], (unsigned long long)(c1 - c0));
        atomicMin(&out[1], (unsigned long long)t0);
        atomicMax(&out[2], (unsigned long long)t1);
    }
}

/* op 0..2: read, write, copy of each block's share of n vectors, `iters`
 * rounds of U accesses per thread per repeat, wrapping around the share
 * (backend.h). */
/* Launch bounds: blocks of up to 1024 threads must fit the SM's 64k
 * registers (64 per thread), or the launch fails for want of resources. */
template <typename T, int U, int P>
__global__ void __launch_bounds__(1024) mtk_stream_kernel(mtk_stream_args a)
{
    extern __shared__ uint4 smem_raw[];
    T *sm = (T *)smem_raw;
    const bool shared = P == SP_SHARED;
    const uint64_t G = blockDim.x;
    const uint64_t g = threadIdx.x;
    const uint64_t n = a.n_vec;
    /* The block's share (blocks beyond `groups` shares repeat them). */
    const uint64_t first = shared ? 0 : (uint64_t)(blockIdx.x % (uint32_t)a.groups) * n;
    const T *src = (const T *)a.src + first;
    T *dst = (T *)a.dst + first;
    /* A copy reads the first n vectors and writes the next n; a write
     * alone has only its n vectors of shared memory (stream.c sizes the
     * launch's dynamic shared memory that way). */
    T *ssrc = sm, *sdst = a.op == 2 ? sm + n : sm;
    if (shared)
        for (uint64_t i = threadIdx.x; i < (a.op == 2 ? 2 * n : n); i += blockDim.x)
            sm[i] = zero_of<T>();
    /* Offsets of this thread's accesses within a round, modulo n (32-bit:
     * a block's share is far below 2^32 vectors, stream.c; half the
     * registers of 64-bit offsets keeps 1024-thread blocks within the
     * launch bounds without spilling). */
    uint32_t off[U];
#pragma unroll
    for (int j = 0; j < U; j++)
        off[j] = (uint32_t)((g + (uint64_t)j * G) % n);
    const uint64_t round = (uint64_t)U * G;
    uint32_t acc = 0;
    __syncthreads();
    uint64_t c0 = clock64(), t0 = global_ns();
    for (uint32_t r = 0; r < a.repeats; r++) {
        for (uint32_t it = 0; it < a.iters; it++) {
            const uint64_t base = (uint64_t)it * round;
            T v[U];
            if (a.op != 1) {
                /* The texture indexes the whole buffer: the share starts at `first`. */
#pragma unroll
                for (int j = 0; j < U; j++)
                    v[j] = load_vec<T, P>(src, ssrc, (cudaTextureObject_t)a.tex,
                                          (P == SP_TEX ? first : 0) + base + off[j]);
            }
            if (a.op == 0) {
#pragma unroll
                for (int j = 0; j < U; j++)
                    acc ^= fold(v[j]);
            } else {
#pragma unroll
                for (int j = 0; j < U; j++)
                    store_vec<T, P>(dst, sdst, base + off[j], a.op == 1 ? zero_of<T>() : v[j]);
            }
        }
    }
    /* Keeps the loads: acc is 0 (the data is zero) but the compiler
     * cannot know it. */
    if (acc == 0x9e3779b9u)
        ((unsigned long long *)a.out)[3] = acc;
    finish(a, c0, t0);
}

/* op 0 (read) on a global path, the block's share a whole number of
 * rounds: the general loop above spends ~12 instructions on each access
 * (64-bit modulo offsets, the op and path branches; ncu on the H100), so
 * 4-byte reads of the L1, which need one warp load per cycle per SM out of
 * the four instructions an SM issues per cycle, were issue-bound (124.6
 * B/clk/SM at best, the 16-byte ladder).  Here the block size G is a
 * template argument, so every access of a round is the thread's pointer
 * plus an immediate (j x G vectors): a load, its share of a XOR, and the
 * round's pointer step.  The same accesses as the general loop (thread t:
 * vectors t, t + G, t + 2G ... of its share, U loads issued before any is
 * used).  `zero` (always 0, a kernel argument) moves the pointer at every
 * repeat: ptxas cannot prove that a repeat loads the addresses of the last
 * one, so it cannot hoist the loads out of the repeat loop (it did, with an
 * empty asm barrier on the pointer: ncu counted one repeat's loads). */
template <typename T, int U, int G, int P>
__global__ void __launch_bounds__(G) mtk_stream_round_kernel(mtk_stream_args a)
{
    const uint64_t first = (uint64_t)(blockIdx.x % (uint32_t)a.groups) * a.n_vec;
    const T *p = (const T *)a.src + first + threadIdx.x;
    uint32_t acc = 0;
    __syncthreads();
    uint64_t c0 = clock64(), t0 = global_ns();
    /* One round a repeat (the L1's share at the most in flight): no
     * inner loop, so a repeat is its loads, XORs, the step and the branch.
     * Not unrolled: an unrolled repeat loop would issue the next repeat's
     * loads before this one's are used (more in flight than U). */
#pragma unroll 1
    for (uint32_t r = 0; a.iters == 1 && r < a.repeats; r++) {
        p += a.zero;
        T v[U];
#pragma unroll
        for (int j = 0; j < U; j++)
            v[j] = load_vec<T, P>(p, nullptr, 0, (uint64_t)j * G);
#pragma unroll
        for (int j = 0; j < U; j++)
            acc ^= fold(v[j]);
    }
#pragma unroll 1
    for (uint32_t r = 0; a.iters > 1 && r < a.repeats; r++) {
        p += a.zero;
        const T *q = p;
#pragma unroll 1
        for (uint32_t it = 0; it < a.iters; it++, q += U * G) {
            T v[U];
#pragma unroll
            for (int j = 0; j < U; j++)
                v[j] = load_vec<T, P>(q, nullptr, 0, (uint64_t)j * G);
#pragma unroll
            for (int j = 0; j < U; j++)
                acc ^= fold(v[j]);
        }
    }
    if (acc == 0x9e3779b9u)
        ((unsigned long long *)a.out)[3] = acc;
    finish(a, c0, t0);
}

/* A balanced read (backend.h, op 0 on a global path): warp w of block b
 * reads its own slice, the w-th 1/warps of block b's share (lane l:
 * vectors l, l + 32 ... of it, U loads issued before any is used, the
 * slice whole rounds of them), and the grid x warps x repeats reads of
 * the slices are handed out in tickets of `ticket_reads` reads from a
 * counter in out[4].  A static split of the repeats ended with the slowest
 * SMs on the H100: with each SM reading its own 256 KiB of a 33.8 MB
 * whole-L2 read, 24 of its 132 SMs (in pairs and runs of ten: 16-17,
 * 34-43, 78-87, 124-125) were done about 10% before the others, which
 * left the GPU part-idle for the last tenth of the launch (the sum of the
 * SMs' own rates was 8.09 TB/s, bytes over the launch 7.78).  Here a warp
 * that is served faster takes more tickets, so every SM reads until the
 * end.  The next ticket is taken before this one's reads, so the
 * counter's latency overlaps them; `zero` moves the pointer every read,
 * as in the round kernel, so no read is hoisted out of the loop. */
template <typename T, int U, int P>
__global__ void __launch_bounds__(1024) mtk_stream_balanced_kernel(mtk_stream_args a)
{
    const uint32_t lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    const uint64_t slice = a.n_vec / warps;
    const T *p = (const T *)a.src + (uint64_t)blockIdx.x * a.n_vec + warp * slice + lane;
    unsigned long long *tickets = (unsigned long long *)a.out + 4;
    const unsigned long long total = (unsigned long long)gridDim.x * warps * a.repeats;
    const unsigned long long per = a.ticket_reads;
    uint32_t acc = 0;
    __syncthreads();
    uint64_t c0 = clock64(), t0 = global_ns();
    unsigned long long t = lane == 0 ? atomicAdd(tickets, 1ull) : 0;
    t = __shfl_sync(0xffffffffu, t, 0);
    while (t * per < total) {
        unsigned long long next = lane == 0 ? atomicAdd(tickets, 1ull) : 0;
        unsigned long long n = total - t * per < per ? total - t * per : per;
#pragma unroll 1
        for (unsigned long long k = 0; k < n; k++) {
            p += a.zero;
#pragma unroll 1
            for (uint64_t i = 0; i < slice; i += 32 * U) {
                T v[U];
#pragma unroll
                for (int j = 0; j < U; j++)
                    v[j] = load_vec<T, P>(p, nullptr, 0, i + (uint64_t)j * 32);
#pragma unroll
                for (int j = 0; j < U; j++)
                    acc ^= fold(v[j]);
            }
        }
        t = __shfl_sync(0xffffffffu, next, 0);
    }
    if (acc == 0x9e3779b9u)
        ((unsigned long long *)a.out)[3] = acc;
    finish(a, c0, t0);
}

/* op 3: each thread chases its own region of region_words words, one
 * 4-byte load per stride_words; the next index adds the loaded value
 * (zero: the host clears the region), so every load waits for the last. */
template <int P> __global__ void mtk_chase_stream_kernel(mtk_stream_args a)
{
    const uint32_t *buf = (const uint32_t *)a.src;
    const uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const uint32_t *mine = buf + t * a.region_words;
    uint64_t j = 0;
    __syncthreads();
    uint64_t c0 = clock64(), t0 = global_ns();
    for (uint32_t l = 0; l < a.repeats; l++) {
        uint32_t v = P == SP_CA ? __ldca(mine + j) : __ldcg(mine + j);
        j += a.stride_words + v;
        if (j >= a.region_words)
            j -= a.region_words;
    }
    if (j == 0xffffffffffffull)
        ((unsigned long long *)a.out)[3] = j;
    finish(a, c0, t0);
}

template <typename T, int U, int P>
static cudaError_t go(const mtk_stream_args *a, unsigned grid, unsigned block, size_t smem,
                      cudaStream_t s)
{
    if (smem > 48 * 1024) {
        cudaError_t e = cudaFuncSetAttribute(mtk_stream_kernel<T, U, P>,
                                             cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
        if (e != cudaSuccess)
            return e;
    }
    mtk_stream_kernel<T, U, P><<<grid, block, smem, s>>>(*a);
    return cudaGetLastError();
}

/* The round kernel at block size G, when the path has one. */
template <typename T, int U, int G>
static cudaError_t round_by_path(const mtk_stream_args *a, unsigned grid, cudaStream_t s)
{
    switch (a->path) {
    case SP_CA: mtk_stream_round_kernel<T, U, G, SP_CA><<<grid, G, 0, s>>>(*a); break;
    case SP_CG: mtk_stream_round_kernel<T, U, G, SP_CG><<<grid, G, 0, s>>>(*a); break;
    case SP_NC: mtk_stream_round_kernel<T, U, G, SP_NC><<<grid, G, 0, s>>>(*a); break;
    default: return cudaErrorInvalidValue;
    }
    return cudaGetLastError();
}

/* The balanced read on its path (stream.c checks the rest). */
template <typename T, int U>
static cudaError_t balanced_by_path(const mtk_stream_args *a, unsigned grid, unsigned block,
                                    cudaStream_t s)
{
    switch (a->path) {
    case SP_CA: mtk_stream_balanced_kernel<T, U, SP_CA><<<grid, block, 0, s>>>(*a); break;
    case SP_CG: mtk_stream_balanced_kernel<T, U, SP_CG><<<grid, block, 0, s>>>(*a); break;
    case SP_NC: mtk_stream_balanced_kernel<T, U, SP_NC><<<grid, block, 0, s>>>(*a); break;
    default: return cudaErrorInvalidValue;
    }
    return cudaGetLastError();
}

/* Whether a launch takes the round kernel: a read on a global path by
 * blocks of 256, 512 or 1024 threads whose share is whole rounds. */
static bool takes_round_kernel(const mtk_stream_args *a, unsigned block)
{
    bool global = a->path == SP_CA || a->path == SP_CG || a->path == SP_NC;
    bool sized = block == 256 || block == 512 || block == 1024;
    uint64_t round = (uint64_t)block * a->in_flight;
    return a->op == 0 && global && sized && a->n_vec >= round && a->n_vec % round == 0 &&
           a->iters == a->n_vec / round;
}

template <typename T, int U>
static cudaError_t by_path(const mtk_stream_args *a, unsigned grid, unsigned block, size_t smem,
                           cudaStream_t s)
{
    if (a->balanced)
        return balanced_by_path<T, U>(a, grid, block, s);
    if (takes_round_kernel(a, block))
        return block == 256   ? round_by_path<T, U, 256>(a, grid, s)
               : block == 512 ? round_by_path<T, U, 512>(a, grid, s)
                              : round_by_path<T, U, 1024>(a, grid, s);
    switch (a->path) {
    case SP_CA: return go<T, U, SP_CA>(a, grid, block, smem, s);
    case SP_CG: return go<T, U, SP_CG>(a, grid, block, smem, s);
    case SP_NC: return go<T, U, SP_NC>(a, grid, block, smem, s);
    case SP_TEX: return go<T, U, SP_TEX>(a, grid, block, smem, s);
    case SP_SHARED: return go<T, U, SP_SHARED>(a, grid, block, smem, s);
    default: return cudaErrorInvalidValue;
    }
}

template <typename T>
static cudaError_t by_depth(const mtk_stream_args *a, unsigned grid, unsigned block, size_t smem,
                            cudaStream_t s)
{
    switch (a->in_flight) {
    case 1: return by_path<T, 1>(a, grid, block, smem, s);
    case 2: return by_path<T, 2>(a, grid, block, smem, s);
    case 4: return by_path<T, 4>(a, grid, block, smem, s);
    case 8: return by_path<T, 8>(a, grid, block, smem, s);
    default: return cudaErrorInvalidValue;
    }
}

extern "C" cudaError_t mtk_launch_stream(const mtk_stream_args *a, unsigned grid, unsigned block,
                                         size_t smem, cudaStream_t s)
{
    if (a->op == 3) {
        if (a->path == SP_CA)
            mtk_chase_stream_kernel<SP_CA><<<grid, block, 0, s>>>(*a);
        else if (a->path == SP_CG)
            mtk_chase_stream_kernel<SP_CG><<<grid, block, 0, s>>>(*a);
        else
            return cudaErrorInvalidValue;
        return cudaGetLastError();
    }
    switch (a->vec) {
    case 4: return by_depth<uint32_t>(a, grid, block, smem, s);
    case 8: return by_depth<uint2>(a, grid, block, smem, s);
    case 16: return by_depth<uint4>(a, grid, block, smem, s);
    default: return cudaErrorInvalidValue;
    }
}

/* The cuda backend: runs batches of pointer-chase experiments on an NVIDIA
 * GPU through the CUDA runtime API (kernels in kernels.cu).
 *
 * How a batch runs (backend.h gives the contract):
 *  - Experiments are grouped into launches.  A launch has one block per SM;
 *    each block claims the experiment planned for the SM it landed on
 *    (%smid), or one "any SM" experiment, and the others exit at once.
 *    Non-exclusive experiments are packed up to one per SM per launch;
 *    an exclusive experiment (data in L2/DRAM) is a launch of its own.
 *    Experiments no block claimed are run again in a later launch.
 *  - Every experiment gets its own device buffers, so concurrent
 *    experiments never share data.  Inside one experiment the global paths
 *    (ca, cg, nc, tex) share one buffer, as in the sim's single global
 *    address space: the same offset on ca and tex is the same data, and
 *    chains meant to be disjoint must use disjoint offsets.  Shared-path
 *    chains have a buffer of their own (copied into shared memory).
 *    Buffers >= 1 MiB are 2 MiB aligned, smaller ones 64 KiB aligned.
 *  - Constant-path chains live in the module's single 64 KiB __constant__
 *    array, uploaded before the launch; experiments whose constant words
 *    disagree go to different launches.
 *  - A launch with a cold experiment (warmup_laps == 0) flushes L2 after
 *    the chains are written; L1 is invalidated by the launch itself.
 *  - The host waits for each launch with a watchdog; the kernel also bounds
 *    its warm-up laps with clock64.  After a host-side timeout the kernel
 *    may still run, so the backend refuses further work and destroy leaves
 *    the device memory to process exit (freeing it would block). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>

#include "../backend/backend.h"
#include "../backend/chain.h"
#include "backend_cuda.h"
#include "kernels.h"

/* ---- named limits ------------------------------------------------------- */

/* Shared memory per SM wanted for kernel A (samples + header + reserve):
 * 16 KiB is a supported carveout on cc 8.x/9.x and the smallest that holds
 * MTK_FINE_MAX samples, so the L1 keeps 256 - 16 = 240 KiB on Hopper. */
#define KERNEL_A_SMEM_PER_SM (16u * 1024u)
/* Largest global-path buffer: min(free / 4, 4 GiB), so one experiment's
 * two buffers of different paths still fit in half the free memory. */
#define GLOBAL_LIMIT_CAP (4ull << 30)
#define GLOBAL_FREE_DIVISOR 4
#define MIB (1ull << 20)
/* Buffer alignment: large buffers on 2 MiB (the GPU's large page), small
 * ones on 64 KiB so cache-set mappings do not depend on packing order. */
#define BIG_BUFFER_BYTES MIB
#define BIG_ALIGN (2 * MIB)
#define SMALL_ALIGN (64u * 1024u)
#define ARENA_GRANULE (64 * MIB)
/* Watchdog: limit = 20 s + 4 x a pessimistic estimate of the launch's
 * runtime, counting 4000 cycles per load (a DRAM access with a TLB miss
 * is ~1-2k cycles on recent GPUs; doubled).  The kernel's own deadline
 * for warm-ups is half the limit, so it normally stops itself first. */
#define WATCHDOG_MIN_S 20.0
#define WATCHDOG_FACTOR 4.0
#define SLOW_LOAD_CYCLES 4000.0
#define KERNEL_DEADLINE_SHARE 0.5
#define POLL_SLEEP_NS 20000L
/* An experiment planned for an SM that no block reached is re-launched;
 * after this many launches the SM is taken to be unavailable. */
#define MAX_PLACEMENT_TRIES 4
/* Chains of one experiment that overlap are checked word by word up to
 * this many elements; beyond, overlapping different chains are refused. */
#define OVERLAP_CHECK_MAX (1u << 22)

/* ---- state ---------------------------------------------------------------- */

typedef struct {
    int dev;
    mt_device_info info;
    int nsm;
    size_t dyn_smem[2]; /* dynamic shared memory per launch of kernel A / B */
    uint64_t arena_max;
    cudaStream_t stream;
    int have_stream;
    cudaEvent_t done;
    int have_event;
    void *d_arena_raw; /* allocation; d_arena is its 2 MiB-aligned start */
    uint64_t d_arena;
    uint64_t arena_cap;
    void *d_flush;
    size_t flush_bytes;
    mtk_exp *d_exps;
    mtk_status *d_st;
    uint32_t *d_samples;
    int32_t *d_plan;
    int32_t *d_any;
    uint32_t *d_claim;
    mtk_build *d_build;
    uint32_t *d_succ;
    size_t succ_cap; /* words */
    /* host staging */
    mtk_exp *h_exps;
    mtk_status *h_st;
    uint32_t *h_samples;
    int32_t *h_plan;
    int32_t *h_any;
    mtk_build *h_build;
    uint32_t *h_succ;
    size_t h_succ_cap;
    uint32_t *h_const;
    uint8_t *h_const_set;
    uint32_t *h_tmp_succ; /* MTK_CONST_WORDS successors for constant chains */
    uint32_t *h_expect;   /* 2 per experiment of a launch: expected final word */
    cudaTextureObject_t *h_texs; /* texture objects of the current launch */
    mt_cuda_stats stats;
    double watchdog_s; /* > 0: fixed host watchdog (mt_cuda_set_watchdog) */
    int broken;
} cuda_impl;

static const mt_backend_ops cuda_ops;

/* ---- errors --------------------------------------------------------------- */

static mt_err cuda_err(mt_errinfo *ei, cudaError_t e, const char *call, const char *file, int line)
{
    mt_err code = MT_ERR_DEVICE;
    const char *hint = "";
    switch (e) {
    case cudaErrorMemoryAllocation: code = MT_ERR_DEVICE_OOM; break;
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorInitializationError:
    case cudaErrorDevicesUnavailable:
    case cudaErrorSystemDriverMismatch:
    case cudaErrorCompatNotSupportedOnDevice:
        code = MT_ERR_NO_DEVICE;
        hint = " (no usable CUDA GPU or driver; use --sim PRESET|FILE to run on a simulated GPU)";
        break;
    case cudaErrorNoKernelImageForDevice:
    case cudaErrorUnsupportedPtxVersion:
    case cudaErrorInvalidDeviceFunction:
        code = MT_ERR_UNSUPPORTED_DEVICE;
        hint = " (the GPU is older or newer than the architectures this memtopo was built for)";
        break;
    default: break;
    }
    (void)cudaGetLastError(); /* clear a non-sticky error so later calls are not blamed */
    return mt_fail(ei, code, "%s failed at %s:%d: %s%s", call, file, line, cudaGetErrorString(e),
                   hint);
}

/* Every CUDA call goes through CK; failures jump to `out` with rc set. */
#define CK(call)                                                                                   \
    do {                                                                                           \
        cudaError_t ce_ = (call);                                                                  \
        if (ce_ != cudaSuccess) {                                                                  \
            rc = cuda_err(ei, ce_, #call, __FILE__, __LINE__);                                     \
            goto out;                                                                              \
        }                                                                                          \
    } while (0)

static uint64_t align_up(uint64_t x, uint64_t a)
{
    return (x + a - 1) / a * a;
}

/* ---- device info ----------------------------------------------------------- */

/* Shared-memory carveouts (KiB per SM) the CUDA Programming Guide lists
 * per compute capability; a preference is rounded up to the smallest entry
 * that holds it and the kernel's need.  Unknown architectures: no table. */
static const uint32_t *carveout_table(int major, int minor, size_t *n)
{
    static const uint32_t t75[] = {32, 64};
    static const uint32_t t80[] = {0, 8, 16, 32, 64, 100, 132, 164};
    static const uint32_t t86[] = {0, 8, 16, 32, 64, 100};
    static const uint32_t t90[] = {0, 8, 16, 32, 64, 100, 132, 164, 196, 228};
    int cc = major * 10 + minor;
#define T(a) (*n = sizeof a / sizeof a[0], a)
    switch (cc) {
    case 75: return T(t75);
    case 80:
    case 87: return T(t80);
    case 86:
    case 89: return T(t86);
    case 90: return T(t90);
    default: *n = 0; return NULL;
    }
#undef T
}

static mt_err get_attr(int *v, enum cudaDeviceAttr a, int dev, const char *name, mt_errinfo *ei)
{
    cudaError_t e = cudaDeviceGetAttribute(v, a, dev);
    if (e != cudaSuccess)
        return cuda_err(ei, e, name, __FILE__, __LINE__);
    return MT_OK;
}
#define ATTR(var, a)                                                                               \
    do {                                                                                           \
        if ((rc = get_attr(&(var), a, dev, "cudaDeviceGetAttribute(" #a ")", ei)) != MT_OK)        \
            goto out;                                                                              \
    } while (0)

static void version_string(char *buf, size_t n, int v)
{
    snprintf(buf, n, "%d.%d", v / 1000, (v % 1000) / 10);
}

/* Fills im->info and the kernel launch configuration. */
static mt_err query_device(cuda_impl *im, mt_errinfo *ei)
{
    mt_err rc = MT_OK;
    const int dev = im->dev;
    mt_device_info *d = &im->info;
    struct cudaDeviceProp prop;
    int v = 0, l2 = 0, persist = 0, smem_blk = 0, optin = 0, smem_sm = 0, cmem = 0, tex1d = 0;
    int reserved = 0;
    size_t free_b = 0, total_b = 0;
    mtk_func_info fa, fb;

    memset(d, 0, sizeof *d);
    CK(cudaGetDeviceProperties(&prop, dev)); /* name only: CUDA 13 dropped the clock fields */
    prop.name[sizeof d->name - 1] = '\0'; /* names are short; keep what fits */
    memcpy(d->name, prop.name, sizeof d->name);
    snprintf(d->backend, sizeof d->backend, "cuda");
    d->ordinal = dev;
    ATTR(d->cc_major, cudaDevAttrComputeCapabilityMajor);
    ATTR(d->cc_minor, cudaDevAttrComputeCapabilityMinor);
    ATTR(d->sm_count, cudaDevAttrMultiProcessorCount);
    ATTR(d->clock_khz, cudaDevAttrClockRate);
    ATTR(d->mem_clock_khz, cudaDevAttrMemoryClockRate);
    ATTR(d->bus_width_bits, cudaDevAttrGlobalMemoryBusWidth);
    ATTR(l2, cudaDevAttrL2CacheSize);
    ATTR(persist, cudaDevAttrMaxPersistingL2CacheSize);
    ATTR(smem_blk, cudaDevAttrMaxSharedMemoryPerBlock);
    ATTR(optin, cudaDevAttrMaxSharedMemoryPerBlockOptin);
    ATTR(smem_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor);
    ATTR(reserved, cudaDevAttrReservedSharedMemoryPerBlock);
    ATTR(cmem, cudaDevAttrTotalConstantMemory);
    ATTR(d->max_threads_per_block, cudaDevAttrMaxThreadsPerBlock);
    ATTR(d->max_threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor);
    ATTR(d->warp_size, cudaDevAttrWarpSize);
    ATTR(d->regs_per_sm, cudaDevAttrMaxRegistersPerMultiprocessor);
    ATTR(tex1d, cudaDevAttrMaxTexture1DLinearWidth);
    CK(cudaMemGetInfo(&free_b, &total_b));
    d->global_mem_bytes = total_b ? total_b : prop.totalGlobalMem;
    d->l2_bytes = (uint64_t)l2;
    d->persisting_l2_max_bytes = (uint64_t)persist;
    d->smem_per_block = (uint32_t)smem_blk;
    d->smem_per_block_optin = (uint32_t)optin;
    d->smem_per_sm = (uint32_t)smem_sm;
    d->const_mem_bytes = (uint32_t)cmem;
    CK(cudaDriverGetVersion(&v));
    version_string(d->driver_version, sizeof d->driver_version, v);
    CK(cudaRuntimeGetVersion(&v));
    version_string(d->runtime_version, sizeof d->runtime_version, v);
    im->nsm = d->sm_count;

    /* Kernel resources; a missing kernel image surfaces here. */
    CK(mtk_probe_info(MTK_KERNEL_A, &fa));
    CK(mtk_probe_info(MTK_KERNEL_B, &fb));

    /* Kernel A: shared memory fills exactly KERNEL_A_SMEM_PER_SM per block
     * (with the per-block reserve), which also keeps one block per SM. */
    size_t need_a = fa.static_smem + (size_t)reserved + MTK_SMEM_CHAIN;
    if (need_a > KERNEL_A_SMEM_PER_SM || (size_t)optin < MTK_SMEM_CHAIN)
        return mt_fail(ei, MT_ERR_UNSUPPORTED_DEVICE,
                       "kernel needs %zu bytes of shared memory per block; the GPU offers %d",
                       need_a, optin);
    im->dyn_smem[MTK_KERNEL_A] = KERNEL_A_SMEM_PER_SM - (size_t)reserved - fa.static_smem;
    /* The carveout preference is a percentage of smem_per_sm, rounded down
     * so the driver's round-up lands on the 16 KiB entry, not the next. */
    int pct_a = (int)((uint64_t)KERNEL_A_SMEM_PER_SM * 100u / (uint64_t)smem_sm);
    if (pct_a < 1)
        pct_a = 1;
    CK(mtk_probe_set_attrs(MTK_KERNEL_A, pct_a, (int)im->dyn_smem[MTK_KERNEL_A]));
    d->carveout_percent = pct_a;
    size_t ncar = 0;
    const uint32_t *tab = carveout_table(d->cc_major, d->cc_minor, &ncar);
    d->carveout_smem_bytes = 0;
    if (tab) {
        uint64_t want = (uint64_t)pct_a * (uint64_t)smem_sm / 100u;
        uint64_t need = fa.static_smem + im->dyn_smem[MTK_KERNEL_A] + (uint64_t)reserved;
        if (need > want)
            want = need;
        for (size_t i = 0; i < ncar; i++)
            if ((uint64_t)tab[i] * 1024u >= want) {
                d->carveout_smem_bytes = tab[i] * 1024u;
                break;
            }
    }

    /* Kernel B (shared-path chains): all the opt-in shared memory, so the
     * chain can be as large as possible and one block fills an SM. */
    im->dyn_smem[MTK_KERNEL_B] = (size_t)optin - fb.static_smem;
    CK(mtk_probe_set_attrs(MTK_KERNEL_B, 100, (int)im->dyn_smem[MTK_KERNEL_B]));
    if (im->dyn_smem[MTK_KERNEL_B] < MTK_SMEM_CHAIN + 1024u)
        return mt_fail(ei, MT_ERR_UNSUPPORTED_DEVICE,
                       "only %zu bytes of shared memory per block; the shared-path kernel needs %u",
                       im->dyn_smem[MTK_KERNEL_B], MTK_SMEM_CHAIN + 1024u);
    im->stats.static_smem[0] = (uint32_t)fa.static_smem;
    im->stats.static_smem[1] = (uint32_t)fb.static_smem;
    im->stats.dyn_smem[0] = (uint32_t)im->dyn_smem[MTK_KERNEL_A];
    im->stats.dyn_smem[1] = (uint32_t)im->dyn_smem[MTK_KERNEL_B];
    im->stats.reserved_smem = (uint32_t)reserved;
    im->stats.regs[0] = fa.regs;
    im->stats.regs[1] = fb.regs;
    CK(mtk_probe_occupancy(MTK_KERNEL_A, 32, im->dyn_smem[MTK_KERNEL_A], &im->stats.blocks_per_sm_a));

    /* Path limits. */
    uint64_t glob = free_b / GLOBAL_FREE_DIVISOR;
    if (glob > GLOBAL_LIMIT_CAP)
        glob = GLOBAL_LIMIT_CAP;
    glob = glob / MIB * MIB;
    uint64_t tex = (uint64_t)tex1d * 4u;
    d->path_limit_bytes[MT_PATH_GLOBAL_CA] = glob;
    d->path_limit_bytes[MT_PATH_GLOBAL_CG] = glob;
    d->path_limit_bytes[MT_PATH_GLOBAL_NC] = glob;
    d->path_limit_bytes[MT_PATH_TEXTURE] = tex < glob ? tex : glob;
    d->path_limit_bytes[MT_PATH_CONSTANT] = mtk_const_bytes();
    d->path_limit_bytes[MT_PATH_SHARED] =
        (uint64_t)((im->dyn_smem[MTK_KERNEL_B] - MTK_SMEM_CHAIN) / 1024u * 1024u);
    d->path_limit_bytes[MT_PATH_NONE] = 0; /* no buffer */
    d->max_fine_loads = MTK_FINE_MAX;
    d->max_threads_per_experiment =
        d->max_threads_per_block < MTK_MAX_THREADS ? d->max_threads_per_block : MTK_MAX_THREADS;
    /* Two buffers of the largest size per experiment plus alignment. */
    im->arena_max = 2 * glob + 2 * BIG_ALIGN;
out:
    return rc;
}

/* ---- open / destroy ------------------------------------------------------ */

static void *xcalloc(size_t n, size_t sz)
{
    return calloc(n ? n : 1, sz);
}

static void free_device(cuda_impl *im)
{
    /* Errors are ignored: this runs on failure paths and in destroy. */
    void *ptrs[] = {im->d_arena_raw, im->d_flush, im->d_exps, im->d_st, im->d_samples, im->d_plan,
                    im->d_any, im->d_claim, im->d_build, im->d_succ};
    for (size_t i = 0; i < sizeof ptrs / sizeof ptrs[0]; i++)
        if (ptrs[i])
            cudaFree(ptrs[i]);
    if (im->have_event)
        cudaEventDestroy(im->done);
    if (im->have_stream)
        cudaStreamDestroy(im->stream);
}

static void free_host(cuda_impl *im)
{
    free(im->h_exps);
    free(im->h_st);
    free(im->h_samples);
    free(im->h_plan);
    free(im->h_any);
    free(im->h_build);
    free(im->h_succ);
    free(im->h_const);
    free(im->h_const_set);
    free(im->h_tmp_succ);
    free(im->h_expect);
    free(im->h_texs);
}

static void cuda_destroy(mt_backend *b)
{
    if (!b)
        return;
    cuda_impl *im = b->impl;
    if (im) {
        /* After a watchdog timeout a kernel may still run: cudaFree would
         * wait for it, so the device memory is left to process exit. */
        if (!im->broken)
            free_device(im);
        free_host(im);
        free(im);
    }
    free(b);
}

mt_err mt_backend_cuda_open(int device, mt_backend **out, mt_errinfo *ei)
{
    mt_err rc = MT_OK;
    int count = 0;
    *out = NULL;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return mt_fail(ei, MT_ERR_NO_DEVICE,
                       "cudaGetDeviceCount failed: %s; no usable CUDA GPU or driver "
                       "(use --sim PRESET|FILE to run on a simulated GPU)",
                       cudaGetErrorString(e));
    }
    if (count == 0)
        return mt_fail(ei, MT_ERR_NO_DEVICE,
                       "no CUDA GPU found (use --sim PRESET|FILE to run on a simulated GPU)");
    if (device < 0 || device >= count)
        return mt_fail(ei, MT_ERR_NO_DEVICE, "CUDA device %d does not exist (%d found)", device,
                       count);

    mt_backend *b = calloc(1, sizeof *b);
    cuda_impl *im = calloc(1, sizeof *im);
    if (!b || !im) {
        free(b);
        free(im);
        return mt_fail(ei, MT_ERR_NOMEM, "out of memory opening the cuda backend");
    }
    b->ops = &cuda_ops;
    b->impl = im;
    im->dev = device;
    CK(cudaSetDevice(device));

    int major = 0, minor = 0;
    CK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    CK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
    if (major * 10 + minor < mtk_oldest_arch()) {
        rc = mt_fail(ei, MT_ERR_UNSUPPORTED_DEVICE,
                     "CUDA device %d has compute capability %d.%d; this memtopo's kernels were "
                     "built for %d.%d .. %d.%d (rebuild with an older CUDA toolkit for this GPU)",
                     device, major, minor, mtk_oldest_arch() / 10, mtk_oldest_arch() % 10,
                     mtk_newest_arch() / 10, mtk_newest_arch() % 10);
        goto out;
    }
    if ((rc = query_device(im, ei)) != MT_OK)
        goto out;

    const size_t nsm = (size_t)im->nsm;
    im->h_exps = xcalloc(nsm, sizeof *im->h_exps);
    im->h_st = xcalloc(nsm, sizeof *im->h_st);
    im->h_samples = xcalloc(nsm * 2 * MTK_FINE_MAX, sizeof *im->h_samples);
    im->h_plan = xcalloc(MTK_MAX_SMID, sizeof *im->h_plan);
    im->h_any = xcalloc(nsm, sizeof *im->h_any);
    im->h_build = xcalloc(nsm * 2, sizeof *im->h_build);
    im->h_const = xcalloc(MTK_CONST_WORDS, sizeof *im->h_const);
    im->h_const_set = xcalloc(MTK_CONST_WORDS, 1);
    im->h_tmp_succ = xcalloc(MTK_CONST_WORDS, sizeof *im->h_tmp_succ);
    im->h_expect = xcalloc(nsm * 2, sizeof *im->h_expect);
    im->h_texs = xcalloc(nsm, sizeof *im->h_texs);
    if (!im->h_exps || !im->h_st || !im->h_samples || !im->h_plan || !im->h_any || !im->h_build ||
        !im->h_const || !im->h_const_set || !im->h_tmp_succ || !im->h_expect || !im->h_texs) {
        rc = mt_fail(ei, MT_ERR_NOMEM, "out of memory opening the cuda backend");
        goto out;
    }
    CK(cudaStreamCreateWithFlags(&im->stream, cudaStreamNonBlocking));
    im->have_stream = 1;
    CK(cudaEventCreateWithFlags(&im->done, cudaEventDisableTiming));
    im->have_event = 1;
    CK(cudaMalloc((void **)&im->d_exps, nsm * sizeof(mtk_exp)));
    CK(cudaMalloc((void **)&im->d_st, nsm * sizeof(mtk_status)));
    CK(cudaMalloc((void **)&im->d_samples, nsm * 2 * MTK_FINE_MAX * sizeof(uint32_t)));
    CK(cudaMalloc((void **)&im->d_plan, MTK_MAX_SMID * sizeof(int32_t)));
    CK(cudaMalloc((void **)&im->d_any, nsm * sizeof(int32_t)));
    CK(cudaMalloc((void **)&im->d_claim, MTK_MAX_SMID * sizeof(uint32_t)));
    CK(cudaMalloc((void **)&im->d_build, nsm * 2 * sizeof(mtk_build)));
    /* L2 flush buffer: twice the L2 so a read-modify-write pass evicts it. */
    im->flush_bytes = (size_t)align_up(2 * im->info.l2_bytes, MIB);
    if (im->flush_bytes == 0)
        im->flush_bytes = 2 * MIB;
    CK(cudaMalloc(&im->d_flush, im->flush_bytes));
    CK(cudaMemsetAsync(im->d_flush, 0, im->flush_bytes, im->stream));
    CK(cudaStreamSynchronize(im->stream));
    *out = b;
    return MT_OK;
out:
    cuda_destroy(b);
    return rc;
}

/* ---- experiment helpers --------------------------------------------------- */

/* Buffer classes: chains of one class in one experiment share a buffer. */
enum { BUF_GLOBAL = 0, BUF_SHARED, BUF_COUNT, BUF_NONE = -1 };

static int buf_class(mt_path p)
{
    switch (p) {
    case MT_PATH_GLOBAL_CA:
    case MT_PATH_GLOBAL_CG:
    case MT_PATH_GLOBAL_NC:
    case MT_PATH_TEXTURE: return BUF_GLOBAL;
    case MT_PATH_SHARED: return BUF_SHARED;
    default: return BUF_NONE; /* constant bank, or no data */
    }
}

static int path_has_buffer(mt_path p)
{
    return buf_class(p) != BUF_NONE;
}

static int uses_path(const mt_experiment *e, mt_path p)
{
    for (int i = 0; i < e->n_chains; i++)
        if (e->chain[i].path == p)
            return 1;
    return 0;
}

static int kernel_of(const mt_experiment *e)
{
    return uses_path(e, MT_PATH_SHARED) ? MTK_KERNEL_B : MTK_KERNEL_A;
}

/* Bytes of a buffer class the experiment needs: max(offset + elements *
 * stride) over its chains of that class. */
static uint64_t class_span(const mt_experiment *e, int cls)
{
    uint64_t s = 0;
    for (int i = 0; i < e->n_chains; i++)
        if (buf_class(e->chain[i].path) == cls) {
            uint64_t end = e->chain[i].offset + mt_chain_elements(&e->chain[i]) * e->chain[i].stride;
            if (end > s)
                s = end;
        }
    return s;
}

/* Places the experiment's buffers from `cursor` on (arena offsets per
 * buffer class, UINT64_MAX when unused); returns the new cursor. */
static uint64_t place_buffers(const mt_experiment *e, uint64_t cursor, uint64_t base[BUF_COUNT])
{
    for (int cls = 0; cls < BUF_COUNT; cls++) {
        base[cls] = UINT64_MAX;
        uint64_t span = class_span(e, cls);
        if (!span)
            continue;
        uint64_t b = align_up(cursor, span >= BIG_BUFFER_BYTES ? BIG_ALIGN : SMALL_ALIGN);
        base[cls] = b;
        cursor = b + span;
    }
    return cursor;
}

/* Same data: same buffer (class), offset, stride and length. */
static int same_data(const mt_chain *a, const mt_chain *b)
{
    int same_buf = a->path == MT_PATH_CONSTANT ? b->path == MT_PATH_CONSTANT
                                                : buf_class(a->path) == buf_class(b->path);
    return same_buf && a->offset == b->offset && a->stride == b->stride &&
           mt_chain_elements(a) == mt_chain_elements(b);
}

/* Two chains of one experiment in the same buffer must not write different
 * successors into one word. */
static mt_err check_overlap(const mt_experiment *e, mt_errinfo *ei)
{
    if (e->n_chains < 2)
        return MT_OK;
    const mt_chain *a = &e->chain[0], *b = &e->chain[1];
    int shared_buffer = a->path == MT_PATH_CONSTANT
                            ? b->path == MT_PATH_CONSTANT
                            : path_has_buffer(a->path) && buf_class(a->path) == buf_class(b->path);
    if (!shared_buffer)
        return MT_OK;
    if (same_data(a, b))
        return MT_OK;
    uint64_t na = mt_chain_elements(a), nb = mt_chain_elements(b);
    uint64_t a_end = a->offset + na * a->stride, b_end = b->offset + nb * b->stride;
    if (a_end <= b->offset || b_end <= a->offset)
        return MT_OK;
    const mt_chain *s = na <= nb ? a : b, *l = na <= nb ? b : a;
    uint64_t ns = na <= nb ? na : nb, l_end = na <= nb ? b_end : a_end;
    if (ns > OVERLAP_CHECK_MAX)
        return mt_fail(ei, MT_ERR_UNSUPPORTED,
                       "the %s and %s chains overlap in one buffer; use offsets that separate them",
                       mt_path_name(a->path), mt_path_name(b->path));
    for (uint64_t k = 0; k < ns; k++) {
        uint64_t x = s->offset + k * s->stride;
        if (x >= l->offset && x < l_end && (x - l->offset) % l->stride == 0)
            return mt_fail(ei, MT_ERR_UNSUPPORTED,
                           "the %s and %s chains share the word at byte %llu with different "
                           "successors; use offsets that separate them",
                           mt_path_name(a->path), mt_path_name(b->path), (unsigned long long)x);
    }
    return MT_OK;
}

/* Element index reached after `loads` steps from element 0 (warm-up laps
 * are whole laps and end where they started). */
static uint64_t final_element(const mt_chain *c, mt_order order, const uint32_t *succ, uint32_t loads)
{
    uint64_t n = mt_chain_elements(c);
    uint64_t steps = loads % n;
    if (order == MT_ORDER_SEQUENTIAL)
        return steps;
    uint64_t k = 0;
    for (uint64_t i = 0; i < steps; i++)
        k = succ[k];
    return k;
}

/* Checks (commit = 0) or writes (commit = 1) the constant words of e into
 * the launch's constant image.  *fits = 0 when a word is already taken by
 * a different successor. */
static mt_err const_paint(cuda_impl *im, const mt_experiment *e, int commit, int *fits,
                          uint32_t *hi, mt_errinfo *ei)
{
    mt_err rc;
    *fits = 1;
    for (int i = 0; i < e->n_chains; i++) {
        const mt_chain *c = &e->chain[i];
        if (c->path != MT_PATH_CONSTANT)
            continue;
        uint64_t n = mt_chain_elements(c);
        if ((rc = mt_chain_successors(c, e->order, e->order_seed, im->h_tmp_succ, n, ei)) != MT_OK)
            return rc;
        for (uint64_t k = 0; k < n; k++) {
            uint32_t w = (uint32_t)(mt_chain_addr(c, k) / 4);
            uint32_t v = (uint32_t)(mt_chain_addr(c, im->h_tmp_succ[k]) / 4);
            if (!commit) {
                if (im->h_const_set[w] && im->h_const[w] != v) {
                    *fits = 0;
                    return MT_OK;
                }
                continue;
            }
            im->h_const_set[w] = 1;
            im->h_const[w] = v;
            if ((w + 1) * 4 > *hi)
                *hi = (w + 1) * 4;
        }
    }
    return MT_OK;
}

/* ---- one launch ------------------------------------------------------------ */

typedef struct {
    size_t *idx;  /* batch indices of the experiments in this launch */
    size_t n;
    int kernel;
    int exclusive;
    int cold;
    int n_planned;
    uint32_t const_hi; /* bytes of the constant image in use */
    uint64_t arena_used;
    uint8_t sm_taken[MTK_MAX_SMID];
} launch_group;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Waits for im->done with a time limit. */
static mt_err wait_done(cuda_impl *im, double limit_s, mt_errinfo *ei)
{
    double t0 = now_s();
    for (;;) {
        cudaError_t e = cudaEventQuery(im->done);
        if (e == cudaSuccess)
            return MT_OK;
        if (e != cudaErrorNotReady)
            return cuda_err(ei, e, "cudaEventQuery(probe kernel)", __FILE__, __LINE__);
        if (now_s() - t0 > limit_s) {
            im->broken = 1;
            return mt_fail(ei, MT_ERR_TIMEOUT,
                           "probe kernel still running after %.0f s (watchdog); the cuda backend "
                           "is unusable for the rest of this run",
                           limit_s);
        }
        struct timespec ts = {0, POLL_SLEEP_NS};
        nanosleep(&ts, NULL);
    }
}

static mt_err ensure_arena(cuda_impl *im, uint64_t bytes, mt_errinfo *ei)
{
    mt_err rc = MT_OK;
    if (bytes <= im->arena_cap)
        return MT_OK;
    uint64_t cap = align_up(bytes, ARENA_GRANULE);
    if (im->d_arena_raw) {
        CK(cudaFree(im->d_arena_raw));
        im->d_arena_raw = NULL;
        im->arena_cap = 0;
    }
    CK(cudaMalloc(&im->d_arena_raw, (size_t)(cap + BIG_ALIGN)));
    im->d_arena = align_up((uint64_t)(uintptr_t)im->d_arena_raw, BIG_ALIGN);
    im->arena_cap = cap;
out:
    return rc;
}

static mt_err ensure_succ(cuda_impl *im, size_t words, mt_errinfo *ei)
{
    mt_err rc = MT_OK;
    if (words > im->h_succ_cap) {
        uint32_t *p = realloc(im->h_succ, words * sizeof *p);
        if (!p)
            return mt_fail(ei, MT_ERR_NOMEM, "out of memory for %zu chain successors", words);
        im->h_succ = p;
        im->h_succ_cap = words;
    }
    if (words > im->succ_cap) {
        if (im->d_succ) {
            CK(cudaFree(im->d_succ));
            im->d_succ = NULL;
            im->succ_cap = 0;
        }
        CK(cudaMalloc((void **)&im->d_succ, words * sizeof(uint32_t)));
        im->succ_cap = words;
    }
out:
    return rc;
}

/* Runs one launch group.  claimed[k] is set for the group's k-th
 * experiment when a block ran it; its result is then written to out. */
static mt_err run_group(cuda_impl *im, const mt_experiment *exps, launch_group *g, mt_result *out,
                        int *claimed, mt_errinfo *ei)
{
    mt_err rc = MT_OK;
    cudaTextureObject_t *texs = im->h_texs;
    size_t ntex = 0;
    uint32_t *expect = im->h_expect; /* expected final word per chain */
    size_t nrand = 0, nbuild = 0, nsamp = 0;
    uint32_t max_n = 0;
    unsigned block = 32;
    double est_cycles = 0;
    int n_any = 0;

    /* Successor arrays of random chains travel to the device. */
    for (size_t k = 0; k < g->n; k++) {
        const mt_experiment *e = &exps[g->idx[k]];
        for (int i = 0; i < e->n_chains; i++)
            if (e->order == MT_ORDER_RANDOM && path_has_buffer(e->chain[i].path))
                nrand += (size_t)mt_chain_elements(&e->chain[i]);
    }
    if ((rc = ensure_succ(im, nrand ? nrand : 1, ei)) != MT_OK)
        return rc;
    if ((rc = ensure_arena(im, g->arena_used, ei)) != MT_OK)
        return rc;

    for (int s = 0; s < MTK_MAX_SMID; s++)
        im->h_plan[s] = -1;
    size_t succ_used = 0;
    uint64_t cursor = 0;
    for (size_t k = 0; k < g->n; k++) {
        const mt_experiment *e = &exps[g->idx[k]];
        mtk_exp *x = &im->h_exps[k];
        uint64_t base[BUF_COUNT];
        cudaTextureObject_t tex = 0;
        memset(x, 0, sizeof *x);
        cursor = place_buffers(e, cursor, base);
        x->n_chains = (uint32_t)e->n_chains;
        x->mode = (uint32_t)e->mode;
        x->loads = e->loads;
        if (e->sm >= 0)
            im->h_plan[e->sm] = (int32_t)k;
        else
            im->h_any[n_any++] = (int32_t)k;

        if (uses_path(e, MT_PATH_TEXTURE)) {
            /* Over the experiment's global buffer; the texture chains end
             * within the texture limit (checked), so cover at most that. */
            uint64_t span = class_span(e, BUF_GLOBAL);
            uint64_t lim = im->info.path_limit_bytes[MT_PATH_TEXTURE];
            struct cudaResourceDesc rd;
            struct cudaTextureDesc td;
            memset(&rd, 0, sizeof rd);
            memset(&td, 0, sizeof td);
            rd.resType = cudaResourceTypeLinear;
            rd.res.linear.devPtr = (void *)(uintptr_t)(im->d_arena + base[BUF_GLOBAL]);
            rd.res.linear.desc = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindSigned);
            rd.res.linear.sizeInBytes = (size_t)(span < lim ? span : lim);
            td.readMode = cudaReadModeElementType;
            CK(cudaCreateTextureObject(&tex, &rd, &td, NULL));
            texs[ntex++] = tex;
        }
        double exp_loads = 0;
        for (int i = 0; i < e->n_chains; i++) {
            const mt_chain *c = &e->chain[i];
            mtk_chain *kc = &x->c[i];
            uint64_t n = mt_chain_elements(c);
            const uint32_t *succ = NULL;
            kc->path = (uint32_t)c->path;
            kc->one = 1;
            kc->thread = (uint32_t)c->thread;
            kc->start = (uint32_t)(c->offset / 4);
            kc->warm_loads = (uint64_t)e->warmup_laps * n;
            exp_loads += (double)kc->warm_loads + (double)e->loads;
            if ((unsigned)c->thread + 1 > block)
                block = (unsigned)c->thread + 1;
            if (e->mode == MT_MODE_FINE) {
                kc->out_off = (uint32_t)nsamp;
                nsamp += e->loads;
            }
            if (c->path == MT_PATH_CONSTANT && e->order == MT_ORDER_RANDOM) {
                if ((rc = mt_chain_successors(c, e->order, e->order_seed, im->h_tmp_succ, n, ei)) !=
                    MT_OK)
                    goto out;
                succ = im->h_tmp_succ;
            }
            if (path_has_buffer(c->path)) {
                int cls = buf_class(c->path);
                kc->buf = im->d_arena + base[cls];
                kc->tex = (uint64_t)tex;
                kc->smem_words = (uint32_t)(class_span(e, cls) / 4);
                int dup = i == 1 && same_data(c, &e->chain[0]);
                if (e->order == MT_ORDER_RANDOM) {
                    uint32_t *s = im->h_succ + succ_used;
                    if ((rc = mt_chain_successors(c, e->order, e->order_seed, s, n, ei)) != MT_OK)
                        goto out;
                    succ = s;
                }
                if (!dup) {
                    mtk_build *bd = &im->h_build[nbuild++];
                    bd->buf = kc->buf;
                    bd->succ = succ ? (uint64_t)(uintptr_t)(im->d_succ + succ_used) : 0;
                    bd->start_w = kc->start;
                    bd->stride_w = c->stride / 4;
                    bd->n = (uint32_t)n;
                    if (bd->n > max_n)
                        max_n = bd->n;
                }
                if (succ)
                    succ_used += (size_t)n;
            }
            expect[2 * k + (size_t)i] =
                c->path == MT_PATH_NONE
                    ? kc->start
                    : (uint32_t)(mt_chain_addr(c, final_element(c, e->order, succ, e->loads)) / 4);
        }
        if (exp_loads > est_cycles)
            est_cycles = exp_loads; /* experiments run concurrently: the longest counts */
    }
    est_cycles *= SLOW_LOAD_CYCLES;
    block = (block + 31) / 32 * 32;

    /* Chains, then (for cold experiments) the L2 flush, then the probe. */
    if (succ_used)
        CK(cudaMemcpyAsync(im->d_succ, im->h_succ, succ_used * sizeof(uint32_t),
                           cudaMemcpyHostToDevice, im->stream));
    if (nbuild) {
        CK(cudaMemcpyAsync(im->d_build, im->h_build, nbuild * sizeof(mtk_build),
                           cudaMemcpyHostToDevice, im->stream));
        CK(mtk_launch_build(im->d_build, (unsigned)nbuild, max_n, im->stream));
    }
    if (g->const_hi) {
        CK(mtk_const_upload(im->h_const, g->const_hi, im->stream));
        im->stats.const_uploads++;
    }
    if (g->cold) {
        CK(mtk_launch_flush(im->d_flush, im->flush_bytes, (unsigned)(4 * im->nsm), im->stream));
        im->stats.l2_flushes++;
    }
    CK(cudaMemcpyAsync(im->d_exps, im->h_exps, g->n * sizeof(mtk_exp), cudaMemcpyHostToDevice,
                       im->stream));
    CK(cudaMemcpyAsync(im->d_plan, im->h_plan, MTK_MAX_SMID * sizeof(int32_t),
                       cudaMemcpyHostToDevice, im->stream));
    if (n_any)
        CK(cudaMemcpyAsync(im->d_any, im->h_any, (size_t)n_any * sizeof(int32_t),
                           cudaMemcpyHostToDevice, im->stream));
    CK(cudaMemsetAsync(im->d_st, 0, g->n * sizeof(mtk_status), im->stream));
    CK(cudaMemsetAsync(im->d_claim, 0, MTK_MAX_SMID * sizeof(uint32_t), im->stream));

    double clock_hz = (double)im->info.clock_khz * 1e3;
    double limit_s = im->watchdog_s > 0 ? im->watchdog_s
                                         : WATCHDOG_MIN_S + WATCHDOG_FACTOR * est_cycles / clock_hz;
    mtk_launch L;
    memset(&L, 0, sizeof L);
    L.exps = im->d_exps;
    L.st = im->d_st;
    L.samples = im->d_samples;
    L.plan = im->d_plan;
    L.any = im->d_any;
    L.n_any = n_any;
    L.sm_claim = im->d_claim;
    L.deadline_cycles = (uint64_t)(KERNEL_DEADLINE_SHARE * limit_s * clock_hz);
    /* Only "any SM" work: that many blocks suffice (one block fits an SM). */
    unsigned grid = g->n_planned ? (unsigned)im->nsm : (unsigned)n_any;
    CK(mtk_launch_probe(g->kernel, grid, block, im->dyn_smem[g->kernel], im->stream, &L));
    CK(cudaEventRecord(im->done, im->stream));
    im->stats.launches++;
    if ((rc = wait_done(im, limit_s, ei)) != MT_OK)
        goto out;
    CK(cudaMemcpy(im->h_st, im->d_st, g->n * sizeof(mtk_status), cudaMemcpyDeviceToHost));
    if (nsamp)
        CK(cudaMemcpy(im->h_samples, im->d_samples, nsamp * sizeof(uint32_t),
                      cudaMemcpyDeviceToHost));

    for (size_t k = 0; k < g->n; k++) {
        const mt_experiment *e = &exps[g->idx[k]];
        const mtk_status *st = &im->h_st[k];
        const mtk_exp *x = &im->h_exps[k];
        mt_result *r = &out[g->idx[k]];
        claimed[k] = st->claimed != 0;
        if (!claimed[k])
            continue;
        if (st->aborted) {
            rc = mt_fail(ei, MT_ERR_TIMEOUT,
                         "experiment %zu: warm-up exceeded the kernel's deadline of %llu cycles",
                         g->idx[k], (unsigned long long)L.deadline_cycles);
            goto out;
        }
        if (e->sm >= 0 && st->sm_ran != e->sm) {
            rc = mt_fail(ei, MT_ERR_DEVICE, "experiment %zu planned for SM %d ran on SM %d",
                         g->idx[k], e->sm, st->sm_ran);
            goto out;
        }
        r->sm_ran = st->sm_ran;
        for (int i = 0; i < e->n_chains; i++) {
            if (st->final_j[i] != expect[2 * k + (size_t)i]) {
                rc = mt_fail(ei, MT_ERR_DEVICE,
                             "experiment %zu chain %d ended at word %u, expected %u (chain layout "
                             "or kernel bug)",
                             g->idx[k], i, st->final_j[i], expect[2 * k + (size_t)i]);
                goto out;
            }
            if (e->mode == MT_MODE_FINE) {
                r->cycles[i] = malloc((size_t)e->loads * sizeof(uint32_t));
                if (!r->cycles[i]) {
                    rc = mt_fail(ei, MT_ERR_NOMEM, "out of memory for %u samples", e->loads);
                    goto out;
                }
                memcpy(r->cycles[i], im->h_samples + x->c[i].out_off,
                       (size_t)e->loads * sizeof(uint32_t));
                r->n[i] = e->loads;
            } else {
                if (st->total[i] > UINT32_MAX) {
                    rc = mt_fail(ei, MT_ERR_UNSUPPORTED,
                                 "experiment %zu: %llu cycles exceed the 32-bit aggregate sample; "
                                 "measure fewer loads",
                                 g->idx[k], (unsigned long long)st->total[i]);
                    goto out;
                }
                r->cycles[i] = malloc(sizeof(uint32_t));
                if (!r->cycles[i]) {
                    rc = mt_fail(ei, MT_ERR_NOMEM, "out of memory for a sample");
                    goto out;
                }
                r->cycles[i][0] = (uint32_t)st->total[i];
                r->n[i] = 1;
            }
        }
    }
out:
    if (!im->broken)
        for (size_t t = 0; t < ntex; t++)
            cudaDestroyTextureObject(texs[t]);
    return rc;
}

/* ---- batches -------------------------------------------------------------- */

/* Adds e to g if it fits (kernel, SM plan, arena, constant image). */
static mt_err try_add(cuda_impl *im, launch_group *g, const mt_experiment *exps, size_t i,
                      int *added, mt_errinfo *ei)
{
    mt_err rc;
    const mt_experiment *e = &exps[i];
    *added = 0;
    if (g->n == (size_t)im->nsm || e->exclusive || kernel_of(e) != g->kernel)
        return MT_OK;
    if (e->sm >= 0 && g->sm_taken[e->sm])
        return MT_OK;
    /* "any SM" experiments need SMs nobody planned for. */
    if (g->n + 1 > (size_t)im->nsm)
        return MT_OK;
    uint64_t base[BUF_COUNT];
    uint64_t end = place_buffers(e, g->arena_used, base);
    if (end > im->arena_max && g->n > 0)
        return MT_OK;
    if (uses_path(e, MT_PATH_CONSTANT)) {
        int fits = 0;
        if ((rc = const_paint(im, e, 0, &fits, &g->const_hi, ei)) != MT_OK)
            return rc;
        if (!fits)
            return MT_OK;
        if ((rc = const_paint(im, e, 1, &fits, &g->const_hi, ei)) != MT_OK)
            return rc;
    }
    g->idx[g->n++] = i;
    g->arena_used = end;
    g->cold |= e->warmup_laps == 0;
    if (e->sm >= 0) {
        g->sm_taken[e->sm] = 1;
        g->n_planned++;
    }
    *added = 1;
    return MT_OK;
}

static mt_err validate(cuda_impl *im, const mt_experiment *e, size_t i, mt_errinfo *ei)
{
    mt_err rc = mt_experiment_check(e, &im->info, ei);
    if (rc != MT_OK)
        return rc;
    if (e->mode == MT_MODE_FINE && e->loads > MTK_FINE_MAX)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "experiment %zu: %u fine loads exceed %u", i,
                       e->loads, MTK_FINE_MAX);
    for (int c = 0; c < e->n_chains; c++) {
        if (e->chain[c].thread < 0 || e->chain[c].thread >= im->info.max_threads_per_experiment)
            return mt_fail(ei, MT_ERR_INVALID_ARG, "experiment %zu: chain %d thread %d out of range",
                           i, c, e->chain[c].thread);
        if (mt_chain_elements(&e->chain[c]) > UINT32_MAX)
            return mt_fail(ei, MT_ERR_INVALID_ARG, "experiment %zu: chain %d has too many elements",
                           i, c);
    }
    return check_overlap(e, ei);
}

static mt_err cuda_run_batch(mt_backend *b, const mt_experiment *exps, size_t n, mt_result *out,
                             mt_errinfo *ei)
{
    cuda_impl *im = b->impl;
    mt_err rc = MT_OK;
    size_t *pending = NULL, *tries = NULL;
    int *claimed = NULL;
    launch_group *g = NULL;
    size_t npend = n;

    if (im->broken)
        return mt_fail(ei, MT_ERR_TIMEOUT,
                       "the cuda backend is unusable after an earlier kernel timeout");
    for (size_t i = 0; i < n; i++) {
        memset(&out[i], 0, sizeof out[i]);
        out[i].sm_ran = -1;
    }
    for (size_t i = 0; i < n; i++)
        if ((rc = validate(im, &exps[i], i, ei)) != MT_OK)
            return rc;
    if (n == 0)
        return MT_OK;
    pending = malloc(n * sizeof *pending);
    tries = calloc(n, sizeof *tries);
    claimed = calloc((size_t)im->nsm, sizeof *claimed);
    g = calloc(1, sizeof *g);
    if (g)
        g->idx = malloc((size_t)im->nsm * sizeof *g->idx);
    if (!pending || !tries || !claimed || !g || !g->idx) {
        rc = mt_fail(ei, MT_ERR_NOMEM, "out of memory for a batch of %zu experiments", n);
        goto out;
    }
    for (size_t i = 0; i < n; i++)
        pending[i] = i;
    {
        cudaError_t ce = cudaSetDevice(im->dev);
        if (ce != cudaSuccess) {
            rc = cuda_err(ei, ce, "cudaSetDevice", __FILE__, __LINE__);
            goto out;
        }
    }

    while (npend) {
        /* Form a launch: the first pending experiment decides kernel and
         * exclusivity; others join while they fit. */
        const mt_experiment *first = &exps[pending[0]];
        size_t *idx = g->idx;
        memset(g, 0, sizeof *g);
        g->idx = idx;
        g->kernel = kernel_of(first);
        g->exclusive = first->exclusive;
        memset(im->h_const_set, 0, MTK_CONST_WORDS);
        if (g->exclusive) {
            uint64_t base[BUF_COUNT];
            int fits = 0;
            g->idx[g->n++] = pending[0];
            g->arena_used = place_buffers(first, 0, base);
            g->cold = first->warmup_laps == 0;
            if (first->sm >= 0)
                g->n_planned = 1;
            if ((rc = const_paint(im, first, 1, &fits, &g->const_hi, ei)) != MT_OK)
                goto out;
        } else {
            for (size_t p = 0; p < npend; p++) {
                int added = 0;
                if ((rc = try_add(im, g, exps, pending[p], &added, ei)) != MT_OK)
                    goto out;
            }
        }
        if ((rc = run_group(im, exps, g, out, claimed, ei)) != MT_OK)
            goto out;
        /* Drop finished experiments from the pending list. */
        for (size_t k = 0; k < g->n; k++) {
            size_t i = g->idx[k];
            if (claimed[k]) {
                for (size_t p = 0; p < npend; p++)
                    if (pending[p] == i) {
                        memmove(&pending[p], &pending[p + 1], (npend - p - 1) * sizeof *pending);
                        npend--;
                        break;
                    }
                continue;
            }
            im->stats.requeued++;
            if (++tries[i] >= MAX_PLACEMENT_TRIES) {
                rc = mt_fail(ei, MT_ERR_DEVICE,
                             "experiment %zu (SM %d) found no block on its SM in %d launches; "
                             "is that SM available?",
                             i, exps[i].sm, MAX_PLACEMENT_TRIES);
                goto out;
            }
        }
    }
out:
    if (rc != MT_OK)
        for (size_t i = 0; i < n; i++)
            mt_result_free(&out[i]);
    free(pending);
    free(tries);
    free(claimed);
    if (g)
        free(g->idx);
    free(g);
    return rc;
}

static mt_err cuda_get_info(mt_backend *b, mt_device_info *out, mt_errinfo *ei)
{
    (void)ei;
    cuda_impl *im = b->impl;
    *out = im->info;
    return MT_OK;
}

static const mt_backend_ops cuda_ops = {
    .name = "cuda",
    .get_info = cuda_get_info,
    .run_batch = cuda_run_batch,
    .destroy = cuda_destroy,
};

mt_err mt_cuda_get_stats(const mt_backend *b, mt_cuda_stats *out)
{
    if (!b || b->ops != &cuda_ops || !out)
        return MT_ERR_INVALID_ARG;
    *out = ((const cuda_impl *)b->impl)->stats;
    return MT_OK;
}

mt_err mt_cuda_set_watchdog(mt_backend *b, double seconds)
{
    if (!b || b->ops != &cuda_ops || !(seconds >= 0))
        return MT_ERR_INVALID_ARG;
    ((cuda_impl *)b->impl)->watchdog_s = seconds;
    return MT_OK;
}

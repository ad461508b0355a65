/* The case registry and the helpers every case uses (harness.h). */
#include "harness.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

/* A function-local vector: the kernels' files register during static
 * initialisation, in an order C++ leaves open, so the registry must exist
 * before the first of them runs. */
static std::vector<mtv_case> &registry(void)
{
    static std::vector<mtv_case> cases;
    return cases;
}
static bool sorted = false;

int mtv_register(const mtv_case &c)
{
    registry().push_back(c);
    sorted = false;
    return (int)registry().size() - 1;
}

static void sort_registry(void)
{
    if (sorted)
        return;
    std::vector<mtv_case> &r = registry();
    std::stable_sort(r.begin(), r.end(), [](const mtv_case &a, const mtv_case &b) {
        int g = strcmp(a.group, b.group);
        return g != 0 ? g < 0 : strcmp(a.name, b.name) < 0;
    });
    sorted = true;
}

int mtv_case_count(void)
{
    return (int)registry().size();
}

const mtv_case *mtv_case_at(int i)
{
    sort_registry();
    return &registry().at((size_t)i);
}

/* Errors after which the context cannot run another kernel (CUDA's
 * "sticky" errors): the driver stops instead of leaving one case out. */
static bool context_lost(cudaError_t e)
{
    switch (e) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorHardwareStackError:
    case cudaErrorAssert:
    case cudaErrorLaunchTimeout:
    case cudaErrorECCUncorrectable:
        return true;
    default:
        return false;
    }
}

void mtv_check_at(cudaError_t e, const char *call, const char *file, int line)
{
    if (e == cudaSuccess)
        return;
    std::string what = std::string(file) + ":" + std::to_string(line) + ": " + call + ": " +
                       cudaGetErrorString(e);
    throw mtv_error(what, context_lost(e));
}

void mtv_fail(const std::string &why)
{
    throw mtv_error(why, false);
}

void *mtv_alloc(mtv_buffers *b, size_t bytes)
{
    if (b->n >= (int)(sizeof b->ptr / sizeof b->ptr[0]))
        mtv_fail("mtv_alloc: more than 8 buffers in one case");
    void *p = nullptr;
    MTV_CHECK(cudaMalloc(&p, bytes));
    b->ptr[b->n++] = p;
    return p;
}

void mtv_free_all(mtv_buffers *b)
{
    /* teardown runs after a failure too: errors here are not reported
     * again (the first one already was) */
    for (int i = 0; i < b->n; i++)
        cudaFree(b->ptr[i]);
    b->n = 0;
}

static __global__ void fill_u32(uint32_t *dst, size_t n, uint64_t seed, uint32_t mask)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        dst[i] = mtv_hash(i ^ seed) & mask;
}

static __global__ void fill_f32_int(float *dst, size_t n, uint64_t seed, uint32_t span)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        dst[i] = mtv_small_int(i, seed, span);
}

/* Enough blocks to keep any current GPU busy; the loops stride the rest. */
#define FILL_BLOCKS 4096
#define FILL_THREADS 256

void mtv_fill_u32(uint32_t *dst, size_t n, uint64_t seed, uint32_t mask)
{
    fill_u32<<<FILL_BLOCKS, FILL_THREADS>>>(dst, n, seed, mask);
    MTV_CHECK_LAUNCH();
    MTV_CHECK(cudaDeviceSynchronize());
}

void mtv_fill_f32_int(float *dst, size_t n, uint64_t seed, uint32_t span)
{
    fill_f32_int<<<FILL_BLOCKS, FILL_THREADS>>>(dst, n, seed, span);
    MTV_CHECK_LAUNCH();
    MTV_CHECK(cudaDeviceSynchronize());
}

void mtv_kernel_attrs(const void *kernel, const mtv_config *cfg)
{
    if (cfg->carveout_pct >= 0)
        MTV_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                       cfg->carveout_pct));
    /* above 48 KiB a kernel must opt in to its dynamic shared memory */
    if (cfg->dyn_smem > 48 * 1024)
        MTV_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       (int)cfg->dyn_smem));
}

unsigned mtv_full_grid(const mtv_device *d, unsigned threads)
{
    return (unsigned)d->sms * (unsigned)(d->max_threads_per_sm / (int)threads);
}

/* Shared memory the driver keeps per block on sm_80 and later (1 KiB):
 * added to the limiter so that two blocks never fit, whatever the GPU. */
#define RESERVED_SMEM_PER_BLOCK 1024

void mtv_occupancy_config(const mtv_device *d, unsigned warps_per_sm, mtv_config *cfg)
{
    unsigned threads = 32 * warps_per_sm;
    if (warps_per_sm == 0 || (int)threads > d->max_threads_per_sm)
        mtv_fail("occupancy of " + std::to_string(warps_per_sm) + " warps per SM: the device runs at most " +
                 std::to_string(d->max_threads_per_sm / 32));
    if ((int)threads <= d->max_threads_per_block) {
        size_t limiter = d->smem_per_sm / 2 + RESERVED_SMEM_PER_BLOCK;
        if (limiter > d->smem_per_block_optin)
            mtv_fail("occupancy sweep: no block can ask for over half the SM's shared memory");
        cfg->grid = dim3((unsigned)d->sms);
        cfg->block = dim3(threads);
        cfg->dyn_smem = limiter;
        cfg->carveout_pct = 100;
    } else {
        unsigned per_block = (unsigned)d->max_threads_per_block;
        cfg->grid = dim3((unsigned)d->sms * (threads / per_block));
        cfg->block = dim3(per_block);
        cfg->dyn_smem = 0;
        cfg->carveout_pct = -1;
    }
}

uint32_t mtv_host_sum_u32(size_t n, uint64_t seed, uint32_t mask)
{
    struct memo {
        size_t n;
        uint64_t seed;
        uint32_t mask, sum;
    };
    static std::vector<memo> done;
    for (const memo &m : done)
        if (m.n == n && m.seed == seed && m.mask == mask)
            return m.sum;
    uint32_t sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += mtv_hash(i ^ seed) & mask;
    done.push_back(memo{n, seed, mask, sum});
    return sum;
}

bool mtv_mismatch(std::string *why, const std::string &what, double got, double want)
{
    char buf[96];
    snprintf(buf, sizeof buf, ": got %.10g, want %.10g", got, want);
    *why = what + buf;
    return false;
}

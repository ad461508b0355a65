/* Li et al. pair 3: 256-bin byte histogram (the paper's HG, an AMD SDK
 * kernel: per-block sub-histograms).
 *
 * Every block counts its grid-stride share of the input into a private
 * 256-bin sub-histogram and then writes that sub-histogram out (plain
 * stores, so each run overwrites the last and no memset launch is needed;
 * the host adds the sub-histograms up when verifying).  The shared-memory
 * kernel keeps the sub-histogram in shared memory (shared atomics); the L1
 * kernel keeps it in global memory, the paper's replacement of a shared
 * array by a global one.  Global atomics are executed at the L2, not in the
 * L1, so this pair shows what the L1 cannot take over: read-modify-write
 * traffic on a block-private array. */
#include "../li_pair.h"

#include <cstdio>
#include <vector>

#define HG_BINS 256
#define HG_THREADS 256
/* 64 MiB of bytes: more than the H100's 50 MiB L2, so the input streams
 * from DRAM in both versions. */
#define HG_WORDS ((size_t)16 << 20)
/* Blocks per SM in the grid: as many 256-thread blocks as an SM holds
 * (2048 threads / 256), times the device's SM count. */
#define HG_BLOCKS_PER_SM 8
/* The input: uniformly distributed bytes (hashes), like the paper's random
 * HG input, so bin contention is what a random image gives. */
#define HG_SEED 0x4157

__device__ __forceinline__ void li_hg_count_word(unsigned *h, unsigned w)
{
    atomicAdd(&h[w & 0xffu], 1u);
    atomicAdd(&h[(w >> 8) & 0xffu], 1u);
    atomicAdd(&h[(w >> 16) & 0xffu], 1u);
    atomicAdd(&h[w >> 24], 1u);
}

__global__ void li_histogram_shm_kernel(const unsigned *__restrict__ in, size_t words,
                                        unsigned *__restrict__ partial)
{
    __shared__ unsigned h[HG_BINS];
    for (int b = threadIdx.x; b < HG_BINS; b += blockDim.x)
        h[b] = 0;
    __syncthreads();
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < words; i += (size_t)gridDim.x * blockDim.x)
        li_hg_count_word(h, in[i]);
    __syncthreads();
    for (int b = threadIdx.x; b < HG_BINS; b += blockDim.x)
        partial[(size_t)blockIdx.x * HG_BINS + b] = h[b];
}

__global__ void li_histogram_l1_kernel(const unsigned *__restrict__ in, size_t words, unsigned *scratch,
                                       unsigned *__restrict__ partial)
{
    unsigned *h = scratch + (size_t)blockIdx.x * HG_BINS;
    for (int b = threadIdx.x; b < HG_BINS; b += blockDim.x)
        h[b] = 0;
    __syncthreads();
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < words; i += (size_t)gridDim.x * blockDim.x)
        li_hg_count_word(h, li_l1_load_u32(&in[i]));
    __syncthreads();
    /* the sub-histogram was updated by atomics at the L2; reading it back
     * with .cg skips any stale L1 copy of the zeroes written above */
    for (int b = threadIdx.x; b < HG_BINS; b += blockDim.x)
        partial[(size_t)blockIdx.x * HG_BINS + b] = __ldcg(&h[b]);
}

struct hg_state : li_state {
    unsigned *in, *partial, *scratch;
    unsigned blocks;
};

static void *li_histogram_setup(const mtv_case *c, const mtv_device *d, mtv_config *cfg)
{
    return li_make<hg_state>(c, [&](hg_state *st) {
        st->blocks = (unsigned)d->sms * HG_BLOCKS_PER_SM;
        size_t part = (size_t)st->blocks * HG_BINS * sizeof(unsigned);
        st->in = (unsigned *)mtv_alloc(&st->mem, HG_WORDS * sizeof(unsigned));
        st->partial = (unsigned *)mtv_alloc(&st->mem, part);
        st->scratch = (unsigned *)mtv_alloc(&st->mem, part);
        mtv_fill_u32(st->in, HG_WORDS, HG_SEED, 0xffffffffu);
        li_configure(c, (const void *)li_histogram_shm_kernel, (const void *)li_histogram_l1_kernel,
                     dim3(st->blocks), dim3(HG_THREADS), HG_WORDS * sizeof(unsigned) + 2 * part, cfg);
    });
}

static void li_histogram_launch(void *state, const mtv_config *cfg, cudaStream_t s)
{
    /* the only pair whose kernels differ in arguments (the L1 one takes its
     * global sub-histograms), so not li_launch_pair */
    hg_state *st = (hg_state *)state;
    if (st->version == LI_SHM)
        li_histogram_shm_kernel<<<cfg->grid, cfg->block, 0, s>>>(st->in, HG_WORDS, st->partial);
    else
        li_histogram_l1_kernel<<<cfg->grid, cfg->block, 0, s>>>(st->in, HG_WORDS, st->scratch, st->partial);
    MTV_CHECK_LAUNCH();
}

/* The sub-histograms added up must equal the host's count of every byte
 * value of the input. */
static bool li_histogram_verify(void *state, std::string *why)
{
    hg_state *st = (hg_state *)state;
    std::vector<unsigned> p((size_t)st->blocks * HG_BINS);
    MTV_CHECK(cudaMemcpy(p.data(), st->partial, p.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
    std::vector<unsigned long long> want(HG_BINS, 0), got(HG_BINS, 0);
    for (size_t i = 0; i < HG_WORDS; ++i) {
        uint32_t w = mtv_hash(i ^ HG_SEED);
        for (int k = 0; k < 4; ++k)
            want[(w >> (8 * k)) & 0xffu]++;
    }
    for (size_t i = 0; i < p.size(); ++i)
        got[i % HG_BINS] += p[i];
    for (int b = 0; b < HG_BINS; ++b)
        if (got[b] != want[b]) {
            char buf[128];
            snprintf(buf, sizeof buf, "bin %d: %llu counted, the host says %llu", b, got[b], want[b]);
            *why = buf;
            return false;
        }
    return true;
}

LI_FAMILY_CASES(histogram, "li_histogram_shm_kernel", "li_histogram_l1_kernel",
                "256-bin histogram of 64 MiB of bytes, per-block sub-histograms", li_histogram_setup,
                li_histogram_launch, li_histogram_verify, li_teardown<hg_state>);

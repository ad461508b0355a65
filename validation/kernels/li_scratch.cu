/* Li et al. pair 6: per-thread scratch arrays (the paper's MarchingCubes
 * case, its "intra-thread reuse" category, where the L1 version won on
 * Fermi and Kepler).
 *
 * For each input word a thread fills a private array of SC_K values and
 * then reads them back in an order that depends on the word (as MC looks
 * up its edge list), so the array cannot live in registers.  The
 * shared-memory kernel keeps the arrays in a 48 KiB shared array (thread t
 * owns column t: conflict-free); the L1 kernel declares a local array,
 * which the compiler places in local memory, cached in the L1.  Nothing is
 * shared between threads, so the only thing shared memory buys is a
 * guaranteed place; what it costs is occupancy: 48 KiB (+1 KiB the driver
 * keeps) per 256-thread block lets 4 blocks, half the SM's threads, be
 * resident, where the L1 kernel runs all 2048 threads and their 384 KiB of
 * scratch competes for the L1. */
#include "../li_pair.h"

#include <cstdio>
#include <vector>

#define SC_K 48
#define SC_THREADS 256
/* 2^22 input words, 16 MiB: the scratch traffic (2 x 48 accesses per word),
 * not the input stream, dominates. */
#define SC_WORDS ((size_t)4 << 20)
/* Blocks per SM in the grid: a full SM's worth of 256-thread blocks for
 * the L1 kernel (the shared-memory kernel fits half of them at a time). */
#define SC_BLOCKS_PER_SM 8
#define SC_SEED 0x5c4

/* Entry k of a word's scratch array, and the entry read at step j: small
 * integers, so the sum of SC_K of them is exact in float in any order. */
__host__ __device__ inline float li_sc_value(unsigned w, int k)
{
    return (float)(((w >> (k % 29)) & 7u) * (unsigned)(k + 1));
}
__host__ __device__ inline int li_sc_slot(unsigned w, int j)
{
    return (int)((w + 7u * (unsigned)j) % SC_K);
}

__global__ void li_scratch_shm_kernel(const unsigned *__restrict__ in, float *__restrict__ out, size_t n)
{
    __shared__ float buf[SC_K][SC_THREADS];
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        unsigned w = in[i];
#pragma unroll
        for (int k = 0; k < SC_K; ++k)
            buf[k][threadIdx.x] = li_sc_value(w, k);
        float s = 0.0f;
#pragma unroll
        for (int j = 0; j < SC_K; ++j)
            s += buf[li_sc_slot(w, j)][threadIdx.x];
        out[i] = s;
    }
}

__global__ void li_scratch_l1_kernel(const unsigned *__restrict__ in, float *__restrict__ out, size_t n)
{
    float buf[SC_K]; /* indexed by a run-time slot: local memory, through the L1 */
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        unsigned w = in[i];
#pragma unroll
        for (int k = 0; k < SC_K; ++k)
            buf[k] = li_sc_value(w, k);
        float s = 0.0f;
#pragma unroll
        for (int j = 0; j < SC_K; ++j)
            s += buf[li_sc_slot(w, j)];
        out[i] = s;
    }
}

struct sc_state : li_state {
    unsigned *in;
    float *out;
};

static void *li_scratch_setup(const mtv_case *c, const mtv_device *d, mtv_config *cfg)
{
    return li_make<sc_state>(c, [&](sc_state *st) {
        st->in = (unsigned *)mtv_alloc(&st->mem, SC_WORDS * sizeof(unsigned));
        st->out = (float *)mtv_alloc(&st->mem, SC_WORDS * sizeof(float));
        mtv_fill_u32(st->in, SC_WORDS, SC_SEED, 0xffffffffu);
        li_configure(c, (const void *)li_scratch_shm_kernel, (const void *)li_scratch_l1_kernel,
                     dim3((unsigned)d->sms * SC_BLOCKS_PER_SM), dim3(SC_THREADS),
                     SC_WORDS * (sizeof(unsigned) + sizeof(float)), cfg);
    });
}

static void li_scratch_launch(void *state, const mtv_config *cfg, cudaStream_t s)
{
    sc_state *st = (sc_state *)state;
    li_launch_pair<const unsigned *, float *, size_t>(st, li_scratch_shm_kernel, li_scratch_l1_kernel, cfg, s, st->in,
                                                      st->out, SC_WORDS);
}

/* Every output, compared exactly. */
static bool li_scratch_verify(void *state, std::string *why)
{
    sc_state *st = (sc_state *)state;
    std::vector<float> out(SC_WORDS);
    MTV_CHECK(cudaMemcpy(out.data(), st->out, SC_WORDS * sizeof(float), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < SC_WORDS; ++i) {
        unsigned w = mtv_hash(i ^ SC_SEED);
        float want = 0.0f;
        for (int j = 0; j < SC_K; ++j)
            want += li_sc_value(w, li_sc_slot(w, j));
        if (out[i] != want) {
            char buf[128];
            snprintf(buf, sizeof buf, "out[%zu] = %g, the host says %g", i, (double)out[i], (double)want);
            *why = buf;
            return false;
        }
    }
    return true;
}

LI_FAMILY_CASES(scratch, "li_scratch_shm_kernel", "li_scratch_l1_kernel",
                "per-thread 48-entry scratch arrays (MarchingCubes-like), 4M items", li_scratch_setup,
                li_scratch_launch, li_scratch_verify, li_teardown<sc_state>);

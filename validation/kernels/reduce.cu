/* Reduction (real): every thread sums a grid-stride share of eight times
 * the L2 (DRAM), the block folds its 256 sums through a shared-memory tree
 * down to one warp, and the warp finishes with shuffles; one partial sum
 * per block (a second launch, or the host, adds those: here the host). */
#include "../harness.h"

#define THREADS 256
#define RED_SEED 0x4ed5ull
#define RED_MASK 0xffffu

__global__ void reduce_sum(const uint32_t *in, uint32_t *partial, size_t n)
{
    __shared__ uint32_t tree[THREADS];
    size_t stride = (size_t)gridDim.x * blockDim.x;
    uint32_t acc = 0;
#pragma unroll 4
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride)
        acc += in[i];
    tree[threadIdx.x] = acc;
    __syncthreads();
    for (unsigned half = THREADS / 2; half >= 32; half /= 2) {
        if (threadIdx.x < half)
            tree[threadIdx.x] += tree[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x < 32) {
        uint32_t v = tree[threadIdx.x];
        for (int off = 16; off > 0; off /= 2)
            v += __shfl_down_sync(0xffffffffu, v, off);
        if (threadIdx.x == 0)
            partial[blockIdx.x] = v;
    }
}

struct reduce_state {
    mtv_buffers mem;
    uint32_t *in, *partial;
    size_t n, blocks;
};

static void *reduce_setup(const mtv_case *, const mtv_device *d, mtv_config *cfg)
{
    reduce_state *st = new reduce_state();
    return mtv_setup_guarded(st, [&] {
        cfg->block = dim3(THREADS);
        cfg->grid = dim3(mtv_full_grid(d, THREADS));
        st->blocks = cfg->grid.x;
        st->n = 8 * d->l2_bytes / sizeof(uint32_t);
        cfg->footprint_bytes = st->n * sizeof(uint32_t);
        st->in = (uint32_t *)mtv_alloc(&st->mem, st->n * sizeof(uint32_t));
        st->partial = (uint32_t *)mtv_alloc(&st->mem, st->blocks * sizeof(uint32_t));
        mtv_fill_u32(st->in, st->n, RED_SEED, RED_MASK);
    });
}

static void reduce_launch(void *state, const mtv_config *cfg, cudaStream_t s)
{
    reduce_state *st = (reduce_state *)state;
    reduce_sum<<<cfg->grid, cfg->block, 0, s>>>(st->in, st->partial, st->n);
    MTV_CHECK_LAUNCH();
}

static bool reduce_verify(void *state, std::string *why)
{
    reduce_state *st = (reduce_state *)state;
    std::vector<uint32_t> part = mtv_download(st->partial, st->blocks);
    uint32_t got = 0, want = mtv_host_sum_u32(st->n, RED_SEED, RED_MASK);
    for (uint32_t v : part)
        got += v;
    return got == want ? true : mtv_mismatch(why, "the sum of the partial sums", got, want);
}

MTV_CASE(reduce_dram, "real", "reduce_sum",
         "sum of 8x the L2 of words: grid-stride loads, shared-memory tree, warp shuffles", 0, 0, 0,
         reduce_setup, reduce_launch, reduce_verify, mtv_teardown_state<reduce_state>);

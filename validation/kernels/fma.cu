/* Dependent FMA chains (synthetic): each thread runs ILP independent
 * chains of dependent fused multiply-adds, so the kernel is bound by the
 * FMA pipeline's latency (few warps, low ILP) or its issue rate (many
 * warps or high ILP), never by memory.  Parameters: p[0] ILP, p[1] warps
 * per SM (the occupancy sweep; 4 = one warp per scheduler on GPUs with
 * four), p[2] FMAs per chain. */
#include "../harness.h"

#include <cmath>

/* x <- x*a + b converges to b/(1-a) without overflow or denormals, so the
 * host reproduces every value exactly with fmaf. */
#define FMA_A 0.9999f
#define FMA_B 0.5f
/* Threads whose results the host recomputes (spread over the grid). */
#define FMA_SAMPLES 16

static __host__ __device__ float chain_start(unsigned tid, int k)
{
    return (float)((tid * 8u + (unsigned)k) % 1024u);
}

template <int ILP>
__global__ void fma_chain(float *out, int iters, float a, float b)
{
    unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
    float x[ILP];
#pragma unroll
    for (int k = 0; k < ILP; k++)
        x[k] = chain_start(tid, k);
#pragma unroll 8
    for (int i = 0; i < iters; i++) {
#pragma unroll
        for (int k = 0; k < ILP; k++)
            x[k] = fmaf(x[k], a, b);
    }
    float sum = 0.0f;
#pragma unroll
    for (int k = 0; k < ILP; k++)
        sum += x[k];
    out[tid] = sum;
}

struct fma_state {
    mtv_buffers mem;
    float *out;
    unsigned threads;
    int ilp, iters;
};

static const void *kernel_for(int ilp)
{
    switch (ilp) {
    case 1: return (const void *)fma_chain<1>;
    case 2: return (const void *)fma_chain<2>;
    case 4: return (const void *)fma_chain<4>;
    case 8: return (const void *)fma_chain<8>;
    }
    mtv_fail("fma: ILP " + std::to_string(ilp) + " not instantiated");
}

static void *fma_setup(const mtv_case *c, const mtv_device *d, mtv_config *cfg)
{
    fma_state *st = new fma_state();
    st->ilp = (int)c->p[0];
    st->iters = (int)c->p[2];
    return mtv_setup_guarded(st, [&] {
        mtv_occupancy_config(d, (unsigned)c->p[1], cfg);
        st->threads = cfg->grid.x * cfg->block.x;
        st->out = (float *)mtv_alloc(&st->mem, st->threads * sizeof(float));
        mtv_kernel_attrs(kernel_for(st->ilp), cfg);
        cfg->footprint_bytes = 0;
    });
}

static void fma_launch(void *state, const mtv_config *cfg, cudaStream_t s)
{
    fma_state *st = (fma_state *)state;
    switch (st->ilp) {
    case 1: fma_chain<1><<<cfg->grid, cfg->block, cfg->dyn_smem, s>>>(st->out, st->iters, FMA_A, FMA_B); break;
    case 2: fma_chain<2><<<cfg->grid, cfg->block, cfg->dyn_smem, s>>>(st->out, st->iters, FMA_A, FMA_B); break;
    case 4: fma_chain<4><<<cfg->grid, cfg->block, cfg->dyn_smem, s>>>(st->out, st->iters, FMA_A, FMA_B); break;
    default: fma_chain<8><<<cfg->grid, cfg->block, cfg->dyn_smem, s>>>(st->out, st->iters, FMA_A, FMA_B); break;
    }
    MTV_CHECK_LAUNCH();
}

static bool fma_verify(void *state, std::string *why)
{
    fma_state *st = (fma_state *)state;
    std::vector<float> got = mtv_download(st->out, st->threads);
    for (unsigned k = 0; k < FMA_SAMPLES; k++) {
        unsigned tid = (unsigned)((uint64_t)k * (st->threads - 1) / (FMA_SAMPLES - 1));
        float sum = 0.0f;
        for (int c = 0; c < st->ilp; c++) {
            float x = chain_start(tid, c);
            for (int i = 0; i < st->iters; i++)
                x = fmaf(x, FMA_A, FMA_B);
            sum += x;
        }
        if (got[tid] != sum)
            return mtv_mismatch(why, "thread " + std::to_string(tid), got[tid], sum);
    }
    return true;
}

/* 32768 FMAs per chain: 0.07 ms for one warp per SM at ILP 1 (4-cycle
 * latency) up to about 2 ms at full occupancy and ILP 8, on an H100. */
#define FMA_ITERS 32768
#define FMA_CASE(ident, ilp, warps, desc)                                                       \
    MTV_CASE(ident, "synthetic", "fma_chain", desc, ilp, warps, FMA_ITERS, fma_setup, fma_launch, \
             fma_verify, mtv_teardown_state<fma_state>)

FMA_CASE(fma_ilp1_w1, 1, 1, "dependent FMA chain, ILP 1, 1 warp per SM (latency-bound)");
FMA_CASE(fma_ilp1_w2, 1, 2, "dependent FMA chain, ILP 1, 2 warps per SM");
FMA_CASE(fma_ilp1_w4, 1, 4, "dependent FMA chain, ILP 1, 4 warps per SM (one per scheduler)");
FMA_CASE(fma_ilp1_w8, 1, 8, "dependent FMA chain, ILP 1, 8 warps per SM");
FMA_CASE(fma_ilp1_w16, 1, 16, "dependent FMA chain, ILP 1, 16 warps per SM");
FMA_CASE(fma_ilp1_w32, 1, 32, "dependent FMA chain, ILP 1, 32 warps per SM");
FMA_CASE(fma_ilp1_w64, 1, 64, "dependent FMA chain, ILP 1, 64 warps per SM (full occupancy)");
FMA_CASE(fma_ilp2_w4, 2, 4, "2 independent FMA chains per thread, one warp per scheduler");
FMA_CASE(fma_ilp4_w4, 4, 4, "4 independent FMA chains per thread, one warp per scheduler");
FMA_CASE(fma_ilp8_w4, 8, 4, "8 independent FMA chains per thread, one warp per scheduler");
FMA_CASE(fma_ilp2_w64, 2, 64, "2 independent FMA chains per thread, full occupancy");
FMA_CASE(fma_ilp4_w64, 4, 64, "4 independent FMA chains per thread, full occupancy");
FMA_CASE(fma_ilp8_w64, 8, 64, "8 independent FMA chains per thread, full occupancy");

/* Occupancy sweep of a memory-bound kernel (synthetic): a read-only sum of
 * 16-byte words over eight times the L2 (DRAM) with p[0] warps per SM
 * (mtv_occupancy_config), so the bandwidth reached follows the loads in
 * flight.  The compute-bound half of the sweep is fma_ilp1_w* (fma.cu). */
#include "../harness.h"

#define OCC_SEED 0x0cc5ull
#define OCC_MASK 0xffffu

__global__ void occupancy_stream(const uint4 *in, uint32_t *out, size_t n)
{
    size_t tid = blockIdx.x * (size_t)blockDim.x + threadIdx.x, stride = (size_t)gridDim.x * blockDim.x;
    uint32_t acc = 0;
#pragma unroll 4
    for (size_t i = tid; i < n; i += stride) {
        uint4 v = in[i];
        acc += v.x + v.y + v.z + v.w;
    }
    out[tid] = acc;
}

struct occ_state {
    mtv_buffers mem;
    uint4 *in;
    uint32_t *out;
    size_t n, threads;
};

static void *occ_setup(const mtv_case *c, const mtv_device *d, mtv_config *cfg)
{
    occ_state *st = new occ_state();
    return mtv_setup_guarded(st, [&] {
        mtv_occupancy_config(d, (unsigned)c->p[0], cfg);
        st->threads = (size_t)cfg->grid.x * cfg->block.x;
        st->n = 8 * d->l2_bytes / sizeof(uint4);
        cfg->footprint_bytes = st->n * sizeof(uint4);
        st->in = (uint4 *)mtv_alloc(&st->mem, st->n * sizeof(uint4));
        st->out = (uint32_t *)mtv_alloc(&st->mem, st->threads * sizeof(uint32_t));
        mtv_fill_u32((uint32_t *)st->in, st->n * 4, OCC_SEED, OCC_MASK);
        mtv_kernel_attrs((const void *)occupancy_stream, cfg);
    });
}

static void occ_launch(void *state, const mtv_config *cfg, cudaStream_t s)
{
    occ_state *st = (occ_state *)state;
    occupancy_stream<<<cfg->grid, cfg->block, cfg->dyn_smem, s>>>(st->in, st->out, st->n);
    MTV_CHECK_LAUNCH();
}

static bool occ_verify(void *state, std::string *why)
{
    occ_state *st = (occ_state *)state;
    std::vector<uint32_t> out = mtv_download(st->out, st->threads);
    uint32_t got = 0, want = mtv_host_sum_u32(st->n * 4, OCC_SEED, OCC_MASK);
    for (uint32_t v : out)
        got += v;
    return got == want ? true : mtv_mismatch(why, "the sum of every thread's sum", got, want);
}

#define OCC_CASE(ident, warps, desc)                                                            \
    MTV_CASE(ident, "synthetic", "occupancy_stream", desc, warps, 0, 0, occ_setup, occ_launch,  \
             occ_verify, mtv_teardown_state<occ_state>)

OCC_CASE(occ_stream_w1, 1, "DRAM read stream of 16-byte words (8x the L2), 1 warp per SM");
OCC_CASE(occ_stream_w2, 2, "DRAM read stream of 16-byte words, 2 warps per SM");
OCC_CASE(occ_stream_w4, 4, "DRAM read stream of 16-byte words, 4 warps per SM");
OCC_CASE(occ_stream_w8, 8, "DRAM read stream of 16-byte words, 8 warps per SM");
OCC_CASE(occ_stream_w16, 16, "DRAM read stream of 16-byte words, 16 warps per SM");
OCC_CASE(occ_stream_w32, 32, "DRAM read stream of 16-byte words, 32 warps per SM");
OCC_CASE(occ_stream_w64, 64, "DRAM read stream of 16-byte words, 64 warps per SM (full occupancy)");

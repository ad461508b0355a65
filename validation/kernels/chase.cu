/* Pointer chases (synthetic): each warp follows one chain of dependent
 * loads through a random cycle over the 128-byte lines of a region sized
 * for one level, every lane loading the same word (one sector per
 * request), so a warp has one load in flight and its time is the level's
 * latency; with many warps per SM the loads overlap.  Parameters: p[0]
 * level (1 L1: a 64 KiB region per block, the largest L1 carveout; 2 L2: a
 * quarter of the L2; 3 DRAM: eight times the L2; the L2 and DRAM chases
 * load through ld.global.cg, past the L1), p[1] warps per SM (one block
 * per SM), p[2] steps per warp. */
#include "../harness.h"

#include <algorithm>

#define LINE_WORDS 32 /* 128-byte lines of 4-byte words */
#define L1_REGION_BYTES (64u * 1024u)
#define CHASE_SEED 0xc4a5eull

template <bool CG>
__global__ void chase(const uint32_t *next, const uint32_t *starts, uint32_t *out, int steps)
{
    unsigned warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    uint32_t p = starts[warp];
    for (int i = 0; i < steps; i++)
        p = CG ? __ldcg(next + p) : next[p];
    if (threadIdx.x % 32 == 0)
        out[warp] = p;
}

/* next[r*region + order[i]*LINE] = r*region + order[i+1]*LINE for every
 * region r: the same cycle in each region, at its own base. */
static __global__ void link(uint32_t *next, const uint32_t *order, size_t lines, unsigned regions,
                            size_t region_words)
{
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < lines * regions;
         k += (size_t)gridDim.x * blockDim.x) {
        size_t r = k / lines, i = k % lines, base = r * region_words;
        next[base + order[i] * LINE_WORDS] = (uint32_t)(base + order[(i + 1) % lines] * LINE_WORDS);
    }
}

struct chase_state {
    mtv_buffers mem;
    uint32_t *next, *starts, *out;
    std::vector<uint32_t> order;      /* the cycle's lines, in chase order */
    std::vector<uint32_t> start_step; /* each warp's first position in order */
    size_t region_words;
    unsigned warps, warps_per_block;
    int steps;
    bool cg;
};

static void *chase_setup(const mtv_case *c, const mtv_device *d, mtv_config *cfg)
{
    chase_state *st = new chase_state();
    return mtv_setup_guarded(st, [&] {
        int level = (int)c->p[0];
        st->warps_per_block = (unsigned)c->p[1];
        st->steps = (int)c->p[2];
        st->cg = level != 1;
        cfg->grid = dim3((unsigned)d->sms);
        cfg->block = dim3(32 * st->warps_per_block);
        unsigned regions = level == 1 ? (unsigned)d->sms : 1u;
        size_t bytes = level == 1 ? L1_REGION_BYTES : level == 2 ? d->l2_bytes / 4 : 8 * d->l2_bytes;
        if (level == 1)
            cfg->carveout_pct = 0;
        st->region_words = bytes / sizeof(uint32_t) / LINE_WORDS * LINE_WORDS;
        size_t lines = st->region_words / LINE_WORDS, words = st->region_words * regions;
        if (words > UINT32_MAX)
            mtv_fail("chase: the region exceeds 32-bit word indices");
        cfg->footprint_bytes = words * sizeof(uint32_t);
        /* a random order of the lines (Fisher-Yates on mtv_hash) */
        st->order.resize(lines);
        for (size_t i = 0; i < lines; i++)
            st->order[i] = (uint32_t)i;
        for (size_t i = lines - 1; i > 0; i--)
            std::swap(st->order[i], st->order[mtv_hash(i ^ CHASE_SEED) % (i + 1)]);
        /* warps start evenly spaced along their region's cycle */
        st->warps = cfg->grid.x * st->warps_per_block;
        std::vector<uint32_t> starts(st->warps);
        st->start_step.resize(st->warps);
        for (unsigned w = 0; w < st->warps; w++) {
            unsigned block = w / st->warps_per_block, in_block = w % st->warps_per_block;
            size_t step = level == 1 ? (size_t)in_block * lines / st->warps_per_block
                                     : (size_t)w * lines / st->warps;
            size_t base = level == 1 ? (size_t)block * st->region_words : 0;
            st->start_step[w] = (uint32_t)step;
            starts[w] = (uint32_t)(base + (size_t)st->order[step] * LINE_WORDS);
        }
        st->next = (uint32_t *)mtv_alloc(&st->mem, words * sizeof(uint32_t));
        st->starts = (uint32_t *)mtv_alloc(&st->mem, st->warps * sizeof(uint32_t));
        st->out = (uint32_t *)mtv_alloc(&st->mem, st->warps * sizeof(uint32_t));
        uint32_t *order = (uint32_t *)mtv_alloc(&st->mem, lines * sizeof(uint32_t));
        MTV_CHECK(cudaMemcpy(order, st->order.data(), lines * sizeof(uint32_t), cudaMemcpyHostToDevice));
        MTV_CHECK(cudaMemcpy(st->starts, starts.data(), st->warps * sizeof(uint32_t), cudaMemcpyHostToDevice));
        MTV_CHECK(cudaMemset(st->next, 0, words * sizeof(uint32_t)));
        link<<<1024, 256>>>(st->next, order, lines, regions, st->region_words);
        MTV_CHECK_LAUNCH();
        MTV_CHECK(cudaDeviceSynchronize());
        mtv_kernel_attrs(st->cg ? (const void *)chase<true> : (const void *)chase<false>, cfg);
    });
}

static void chase_launch(void *state, const mtv_config *cfg, cudaStream_t s)
{
    chase_state *st = (chase_state *)state;
    if (st->cg)
        chase<true><<<cfg->grid, cfg->block, 0, s>>>(st->next, st->starts, st->out, st->steps);
    else
        chase<false><<<cfg->grid, cfg->block, 0, s>>>(st->next, st->starts, st->out, st->steps);
    MTV_CHECK_LAUNCH();
}

/* After `steps` loads a warp stands `steps` lines further along its cycle. */
static bool chase_verify(void *state, std::string *why)
{
    chase_state *st = (chase_state *)state;
    std::vector<uint32_t> out = mtv_download(st->out, st->warps);
    size_t lines = st->order.size();
    for (unsigned w = 0; w < st->warps; w++) {
        size_t base = st->cg ? 0 : (size_t)(w / st->warps_per_block) * st->region_words;
        size_t at = (st->start_step[w] + (size_t)st->steps) % lines;
        uint32_t want = (uint32_t)(base + (size_t)st->order[at] * LINE_WORDS);
        if (out[w] != want)
            return mtv_mismatch(why, "warp " + std::to_string(w) + "'s last word", out[w], want);
    }
    return true;
}

/* Steps: about 1 ms on an H100 with one warp per SM at each level's
 * latency (roughly 35, 250 and 800 cycles at 1.98 GHz). */
#define CHASE_CASE(ident, level, warps, steps, desc)                                            \
    MTV_CASE(ident, "synthetic", "chase", desc, level, warps, steps, chase_setup, chase_launch,  \
             chase_verify, mtv_teardown_state<chase_state>)

CHASE_CASE(chase_l1_w1, 1, 1, 32768, "pointer chase in a 64 KiB region per SM (L1), 1 warp per SM");
CHASE_CASE(chase_l1_w32, 1, 32, 32768, "pointer chase in a 64 KiB region per SM (L1), 32 warps per SM");
CHASE_CASE(chase_l2_w1, 2, 1, 8192, "pointer chase over a quarter of the L2 (ld.global.cg), 1 warp per SM");
CHASE_CASE(chase_l2_w32, 2, 32, 8192, "pointer chase over a quarter of the L2 (ld.global.cg), 32 warps per SM");
CHASE_CASE(chase_dram_w1, 3, 1, 2048, "pointer chase over 8x the L2 (DRAM, ld.global.cg), 1 warp per SM");
CHASE_CASE(chase_dram_w32, 3, 32, 2048, "pointer chase over 8x the L2 (DRAM, ld.global.cg), 32 warps per SM");

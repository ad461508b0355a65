/* Streams (synthetic): a read-only sum and a copy over inputs sized for
 * one level of the hierarchy, with a chosen number of 32-byte sectors per
 * warp request.  Parameters: p[0] level (1 L1, 2 L2, 3 DRAM), p[1]
 * sectors per warp request (1, 2, 4, 8 or 32), p[2] 0 sum, 1 copy.
 *
 * Sectors per request: a warp reads 32 words at word offsets
 * (lane * sectors) / 4 of a chunk of 8 * sectors words, so 1 and 2
 * sectors have 4 and 2 lanes share a word, 4 is the coalesced warp, and 8
 * and 32 spread the lanes 2 and 8 words apart (a sector each at 32).
 *
 * Levels: block b owns slice b of the input and reads it `passes` times;
 * L1: one block of 1024 threads per SM, 64 KiB slices, the carveout that
 * gives the L1 its largest share, 1024 passes; L2: a quarter of the L2
 * over every block of a full grid, loads that bypass the L1
 * (ld.global.cg), 128 passes; DRAM: eight times the L2, one pass.  The
 * passes make each run 0.1 to 2 ms on an H100. */
#include "../harness.h"

#define STREAM_SEED 0x5157u
#define STREAM_MASK 0xffffu
#define L1_SLICE_BYTES (64u * 1024u)
#define L1_PASSES 1024
#define L2_PASSES 128
#define THREADS 1024

template <bool CG> __device__ __forceinline__ uint32_t load(const uint32_t *p)
{
    return CG ? __ldcg(p) : *p;
}

__device__ __forceinline__ size_t chunk_words(int sectors)
{
    return 8u * (unsigned)sectors;
}

template <bool CG>
__global__ void stream_sum(const uint32_t *in, uint32_t *out, size_t slice_words, int passes,
                           int sectors)
{
    const uint32_t *slice = in + blockIdx.x * slice_words;
    size_t span = chunk_words(sectors), chunks = slice_words / span;
    unsigned warp = threadIdx.x / 32, warps = blockDim.x / 32;
    size_t lane_off = ((threadIdx.x % 32) * (unsigned)sectors) / 4;
    uint32_t acc = 0;
    for (int p = 0; p < passes; p++)
#pragma unroll 4
        for (size_t c = warp; c < chunks; c += warps)
            acc += load<CG>(slice + c * span + lane_off);
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

template <bool CG>
__global__ void stream_copy(const uint32_t *in, uint32_t *out, size_t slice_words, int passes,
                            int sectors)
{
    size_t base = blockIdx.x * slice_words;
    size_t span = chunk_words(sectors), chunks = slice_words / span;
    unsigned warp = threadIdx.x / 32, warps = blockDim.x / 32;
    size_t lane_off = ((threadIdx.x % 32) * (unsigned)sectors) / 4;
    for (int p = 0; p < passes; p++)
#pragma unroll 4
        for (size_t c = warp; c < chunks; c += warps) {
            size_t i = base + c * span + lane_off;
            out[i] = load<CG>(in + i);
        }
}

struct stream_state {
    mtv_buffers mem;
    uint32_t *in, *out;
    size_t slice_words, words, out_words;
    int passes, sectors;
    bool cg, copy;
};

static const void *kernel_of(bool copy, bool cg)
{
    if (copy)
        return cg ? (const void *)stream_copy<true> : (const void *)stream_copy<false>;
    return cg ? (const void *)stream_sum<true> : (const void *)stream_sum<false>;
}

static void *stream_setup(const mtv_case *c, const mtv_device *d, mtv_config *cfg)
{
    stream_state *st = new stream_state();
    return mtv_setup_guarded(st, [&] {
        int level = (int)c->p[0];
        st->sectors = (int)c->p[1];
        st->copy = c->p[2] == 1;
        st->cg = level == 2;
        cfg->block = dim3(THREADS);
        size_t bytes;
        if (level == 1) {
            cfg->grid = dim3((unsigned)d->sms);
            cfg->carveout_pct = 0;
            bytes = (size_t)d->sms * L1_SLICE_BYTES;
            st->passes = L1_PASSES;
        } else {
            cfg->grid = dim3(mtv_full_grid(d, THREADS));
            bytes = level == 2 ? d->l2_bytes / 4 : 8 * d->l2_bytes;
            st->passes = level == 2 ? L2_PASSES : 1;
        }
        /* whole chunks per slice: the largest chunk is 256 words */
        size_t chunk = 8u * (size_t)st->sectors;
        st->slice_words = bytes / sizeof(uint32_t) / cfg->grid.x / 256 * 256;
        if (st->slice_words < chunk)
            mtv_fail("stream: the input is too small for one chunk per block");
        st->words = st->slice_words * cfg->grid.x;
        cfg->footprint_bytes = st->words * sizeof(uint32_t);
        st->out_words = st->copy ? st->words : (size_t)cfg->grid.x * THREADS;
        st->in = (uint32_t *)mtv_alloc(&st->mem, st->words * sizeof(uint32_t));
        st->out = (uint32_t *)mtv_alloc(&st->mem, st->out_words * sizeof(uint32_t));
        mtv_fill_u32(st->in, st->words, STREAM_SEED, STREAM_MASK);
        MTV_CHECK(cudaMemset(st->out, 0, st->out_words * sizeof(uint32_t)));
        mtv_kernel_attrs(kernel_of(st->copy, st->cg), cfg);
    });
}

static void stream_launch(void *state, const mtv_config *cfg, cudaStream_t s)
{
    stream_state *st = (stream_state *)state;
    if (st->copy && st->cg)
        stream_copy<true><<<cfg->grid, cfg->block, 0, s>>>(st->in, st->out, st->slice_words, st->passes, st->sectors);
    else if (st->copy)
        stream_copy<false><<<cfg->grid, cfg->block, 0, s>>>(st->in, st->out, st->slice_words, st->passes, st->sectors);
    else if (st->cg)
        stream_sum<true><<<cfg->grid, cfg->block, 0, s>>>(st->in, st->out, st->slice_words, st->passes, st->sectors);
    else
        stream_sum<false><<<cfg->grid, cfg->block, 0, s>>>(st->in, st->out, st->slice_words, st->passes, st->sectors);
    MTV_CHECK_LAUNCH();
}

/* Lanes reading word w of a chunk (0 when no lane does): 4/sectors lanes
 * share a word below 4 sectors; above, every (sectors/4)-th word is read. */
static unsigned readers(size_t w, int sectors)
{
    if (sectors <= 4)
        return 4u / (unsigned)sectors;
    return w % (size_t)(sectors / 4) == 0 && w / (size_t)(sectors / 4) < 32 ? 1u : 0u;
}

static bool stream_verify(void *state, std::string *why)
{
    stream_state *st = (stream_state *)state;
    size_t span = 8u * (size_t)st->sectors;
    std::vector<uint32_t> out = mtv_download(st->out, st->out_words);
    if (st->copy) {
        for (size_t i = 0; i < st->words; i++) {
            uint32_t want = readers(i % span, st->sectors) ? mtv_hash(i ^ STREAM_SEED) & STREAM_MASK : 0;
            if (out[i] != want)
                return mtv_mismatch(why, "word " + std::to_string(i), out[i], want);
        }
        return true;
    }
    uint32_t want = 0, got = 0;
    if (st->sectors == 4) {
        want = mtv_host_sum_u32(st->words, STREAM_SEED, STREAM_MASK);
    } else {
        for (size_t i = 0; i < st->words; i++)
            want += readers(i % span, st->sectors) * (mtv_hash(i ^ STREAM_SEED) & STREAM_MASK);
    }
    want *= (uint32_t)st->passes;
    for (uint32_t v : out)
        got += v;
    return got == want ? true : mtv_mismatch(why, "the sum of every thread's sum", got, want);
}

#define STREAM_CASE(ident, level, sectors, op, desc)                                            \
    MTV_CASE(ident, "synthetic", op ? "stream_copy" : "stream_sum", desc, level, sectors, op,    \
             stream_setup, stream_launch, stream_verify, mtv_teardown_state<stream_state>)

STREAM_CASE(stream_sum_l1_s1, 1, 1, 0, "read-only sum, L1-resident (64 KiB per SM), 1 sector per warp request");
STREAM_CASE(stream_sum_l1_s2, 1, 2, 0, "read-only sum, L1-resident, 2 sectors per warp request");
STREAM_CASE(stream_sum_l1_s4, 1, 4, 0, "read-only sum, L1-resident, 4 sectors per warp request (coalesced words)");
STREAM_CASE(stream_sum_l1_s8, 1, 8, 0, "read-only sum, L1-resident, 8 sectors per warp request");
STREAM_CASE(stream_sum_l1_s32, 1, 32, 0, "read-only sum, L1-resident, 32 sectors per warp request");
STREAM_CASE(stream_sum_l2_s1, 2, 1, 0, "read-only sum, L2-resident (a quarter of the L2, ld.global.cg), 1 sector per request");
STREAM_CASE(stream_sum_l2_s2, 2, 2, 0, "read-only sum, L2-resident, 2 sectors per warp request");
STREAM_CASE(stream_sum_l2_s4, 2, 4, 0, "read-only sum, L2-resident, 4 sectors per warp request (coalesced words)");
STREAM_CASE(stream_sum_l2_s8, 2, 8, 0, "read-only sum, L2-resident, 8 sectors per warp request");
STREAM_CASE(stream_sum_l2_s32, 2, 32, 0, "read-only sum, L2-resident, 32 sectors per warp request");
STREAM_CASE(stream_sum_dram_s1, 3, 1, 0, "read-only sum over 8x the L2 (DRAM), 1 sector per warp request");
STREAM_CASE(stream_sum_dram_s2, 3, 2, 0, "read-only sum over 8x the L2 (DRAM), 2 sectors per warp request");
STREAM_CASE(stream_sum_dram_s4, 3, 4, 0, "read-only sum over 8x the L2 (DRAM), 4 sectors per warp request");
STREAM_CASE(stream_sum_dram_s8, 3, 8, 0, "read-only sum over 8x the L2 (DRAM), 8 sectors per warp request");
STREAM_CASE(stream_sum_dram_s32, 3, 32, 0, "read-only sum over 8x the L2 (DRAM), 32 sectors per warp request");
STREAM_CASE(stream_copy_l1_s4, 1, 4, 1, "copy, L1-resident reads (64 KiB per SM), coalesced words, writes to the L2");
STREAM_CASE(stream_copy_l2_s4, 2, 4, 1, "copy, L2-resident (a quarter of the L2), coalesced words");
STREAM_CASE(stream_copy_dram_s4, 3, 4, 1, "copy over 8x the L2 (DRAM), coalesced words");

/* Matrix transpose (real) of an 8192 x 8192 matrix of words (256 MiB each
 * way), in blocks of 32 x 8 threads each moving a 32 x 32 tile.  p[0] 0:
 * naive (coalesced reads, writes 32 rows apart); 1: through a shared
 * 32 x 33 tile (both sides coalesced; the padding column keeps a tile
 * column off a single bank). */
#include "../harness.h"

#define N 8192
#define TILE 32
#define ROWS 8
#define TR_SEED 0x7a5ull

__global__ void transpose_naive(const uint32_t *in, uint32_t *out, int n)
{
    unsigned x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    for (int r = 0; r < TILE; r += ROWS)
        out[(size_t)x * n + y + r] = in[(size_t)(y + r) * n + x];
}

__global__ void transpose_tiled(const uint32_t *in, uint32_t *out, int n)
{
    __shared__ uint32_t tile[TILE][TILE + 1];
    unsigned x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    for (int r = 0; r < TILE; r += ROWS)
        tile[threadIdx.y + r][threadIdx.x] = in[(size_t)(y + r) * n + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    for (int r = 0; r < TILE; r += ROWS)
        out[(size_t)(y + r) * n + x] = tile[threadIdx.x][threadIdx.y + r];
}

struct transpose_state {
    mtv_buffers mem;
    uint32_t *in, *out;
    bool tiled;
};

static void *transpose_setup(const mtv_case *c, const mtv_device *, mtv_config *cfg)
{
    transpose_state *st = new transpose_state();
    return mtv_setup_guarded(st, [&] {
        st->tiled = c->p[0] == 1;
        size_t words = (size_t)N * N;
        cfg->grid = dim3(N / TILE, N / TILE);
        cfg->block = dim3(TILE, ROWS);
        cfg->footprint_bytes = 2 * words * sizeof(uint32_t);
        st->in = (uint32_t *)mtv_alloc(&st->mem, words * sizeof(uint32_t));
        st->out = (uint32_t *)mtv_alloc(&st->mem, words * sizeof(uint32_t));
        mtv_fill_u32(st->in, words, TR_SEED, 0xffffffffu);
        MTV_CHECK(cudaMemset(st->out, 0, words * sizeof(uint32_t)));
    });
}

static void transpose_launch(void *state, const mtv_config *cfg, cudaStream_t s)
{
    transpose_state *st = (transpose_state *)state;
    if (st->tiled)
        transpose_tiled<<<cfg->grid, cfg->block, 0, s>>>(st->in, st->out, N);
    else
        transpose_naive<<<cfg->grid, cfg->block, 0, s>>>(st->in, st->out, N);
    MTV_CHECK_LAUNCH();
}

static bool transpose_verify(void *state, std::string *why)
{
    transpose_state *st = (transpose_state *)state;
    std::vector<uint32_t> out = mtv_download(st->out, (size_t)N * N);
    for (size_t r = 0; r < N; r++)
        for (size_t c = 0; c < N; c++) {
            uint32_t want = mtv_hash((c * N + r) ^ TR_SEED);
            if (out[r * N + c] != want)
                return mtv_mismatch(why, "out[" + std::to_string(r) + "][" + std::to_string(c) + "]",
                                    out[r * N + c], want);
        }
    return true;
}

MTV_CASE(transpose_naive_8192, "real", "transpose_naive",
         "8192x8192 word transpose, naive (coalesced reads, strided writes)", 0, 0, 0,
         transpose_setup, transpose_launch, transpose_verify, mtv_teardown_state<transpose_state>);
MTV_CASE(transpose_tiled_8192, "real", "transpose_tiled",
         "8192x8192 word transpose through a padded 32x33 shared tile", 1, 0, 0, transpose_setup,
         transpose_launch, transpose_verify, mtv_teardown_state<transpose_state>);

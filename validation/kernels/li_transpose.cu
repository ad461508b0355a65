/* Li et al. pair 4: matrix transpose out = in^T (square, row-major; the
 * paper's MT, the CUDA SDK tiled transpose).
 *
 * Each 32x8 thread block moves one 32x32 tile, four rows per thread.  The
 * shared-memory kernel reads the tile with coalesced row reads into a
 * padded 32x33 shared array (the padding keeps the column reads free of
 * bank conflicts), then writes it out transposed, also coalesced.  The L1
 * kernel keeps the coalesced writes and reads the transposed element
 * straight from global memory: each warp load touches 32 rows, one word
 * each, so it needs 32 L1 lines at once, and the tile's 32 lines (4 KiB)
 * must stay in the L1 until the block's other warps have used them.  The
 * pair therefore measures the L1 as a transposition buffer against shared
 * memory, and the carveout decides whether the L1 holds every resident
 * block's lines. */
#include "../li_pair.h"

#include <cstdio>
#include <vector>

#define TP_TILE 32
#define TP_ROWS 8
/* 4096 x 4096 floats: 64 MiB each way, beyond the 50 MiB L2. */
#define TP_N 4096
/* Input: distinct hashes (mtv_fill_u32 with the full mask, read as bit
 * patterns), so an element moved to the wrong place cannot match by chance
 * more than rarely; the comparison is of the 32-bit patterns. */
#define TP_SEED 0x7e5
#define TP_MASK 0x3fffffffu /* keeps the bit patterns finite floats: no NaN compares */

__global__ void li_transpose_shm_kernel(const float *__restrict__ in, float *__restrict__ out, int n)
{
    __shared__ float tile[TP_TILE][TP_TILE + 1];
    int x = blockIdx.x * TP_TILE + threadIdx.x, y = blockIdx.y * TP_TILE + threadIdx.y;
#pragma unroll
    for (int j = 0; j < TP_TILE; j += TP_ROWS)
        tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * n + x];
    __syncthreads();
    x = blockIdx.y * TP_TILE + threadIdx.x;
    y = blockIdx.x * TP_TILE + threadIdx.y;
#pragma unroll
    for (int j = 0; j < TP_TILE; j += TP_ROWS)
        out[(size_t)(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}

__global__ void li_transpose_l1_kernel(const float *__restrict__ in, float *__restrict__ out, int n)
{
    /* this thread writes out[y + j][x], which is in[x][y + j] */
    int x = blockIdx.y * TP_TILE + threadIdx.x, y = blockIdx.x * TP_TILE + threadIdx.y;
#pragma unroll
    for (int j = 0; j < TP_TILE; j += TP_ROWS)
        out[(size_t)(y + j) * n + x] = li_l1_load(&in[(size_t)x * n + y + j]);
}

struct tp_state : li_state {
    float *in, *out;
};

static void *li_transpose_setup(const mtv_case *c, const mtv_device *d, mtv_config *cfg)
{
    (void)d;
    return li_make<tp_state>(c, [&](tp_state *st) {
        size_t elems = (size_t)TP_N * TP_N;
        st->in = (float *)mtv_alloc(&st->mem, elems * sizeof(float));
        st->out = (float *)mtv_alloc(&st->mem, elems * sizeof(float));
        mtv_fill_u32((uint32_t *)st->in, elems, TP_SEED, TP_MASK);
        li_configure(c, (const void *)li_transpose_shm_kernel, (const void *)li_transpose_l1_kernel,
                     dim3(TP_N / TP_TILE, TP_N / TP_TILE), dim3(TP_TILE, TP_ROWS), 2 * elems * sizeof(float), cfg);
    });
}

static void li_transpose_launch(void *state, const mtv_config *cfg, cudaStream_t s)
{
    tp_state *st = (tp_state *)state;
    li_launch_pair<const float *, float *, int>(st, li_transpose_shm_kernel, li_transpose_l1_kernel, cfg, s, st->in,
                                                st->out, TP_N);
}

/* out[r][c] must hold the bits of in[c][r], for every element. */
static bool li_transpose_verify(void *state, std::string *why)
{
    tp_state *st = (tp_state *)state;
    size_t elems = (size_t)TP_N * TP_N;
    std::vector<uint32_t> out(elems);
    MTV_CHECK(cudaMemcpy(out.data(), st->out, elems * sizeof(float), cudaMemcpyDeviceToHost));
    for (size_t r = 0; r < TP_N; ++r)
        for (size_t c = 0; c < TP_N; ++c) {
            uint32_t want = mtv_hash((c * TP_N + r) ^ TP_SEED) & TP_MASK;
            if (out[r * TP_N + c] != want) {
                char buf[128];
                snprintf(buf, sizeof buf, "out[%zu][%zu] = 0x%08x, in[%zu][%zu] = 0x%08x", r, c,
                         out[r * TP_N + c], c, r, want);
                *why = buf;
                return false;
            }
        }
    return true;
}

LI_FAMILY_CASES(transpose, "li_transpose_shm_kernel", "li_transpose_l1_kernel",
                "transpose of a 4096^2 matrix, 32x32 tiles", li_transpose_setup, li_transpose_launch,
                li_transpose_verify, li_teardown<tp_state>);

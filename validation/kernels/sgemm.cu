/* Tiled single-precision GEMM (real): C = A * B for square n x n matrices
 * (p[0] = n), blocks of 32 x 32 threads each computing a 32 x 32 tile of
 * C from 32 x 32 tiles of A and B staged in shared memory.  Inputs are
 * small integers (-2 .. 2), so every element of C is exact. */
#include "../harness.h"

#define TILE 32
#define GM_SEED 0x6e44ull
#define GM_SPAN 5u
/* Elements of C the host recomputes. */
#define GM_SAMPLES 256

__global__ void sgemm_tiled(const float *a, const float *b, float *c, int n)
{
    __shared__ float as[TILE][TILE];
    __shared__ float bs[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
    float sum = 0.0f;
    for (int t = 0; t < n; t += TILE) {
        as[threadIdx.y][threadIdx.x] = a[(size_t)row * n + t + threadIdx.x];
        bs[threadIdx.y][threadIdx.x] = b[(size_t)(t + threadIdx.y) * n + col];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; k++)
            sum += as[threadIdx.y][k] * bs[k][threadIdx.x];
        __syncthreads();
    }
    c[(size_t)row * n + col] = sum;
}

struct sgemm_state {
    mtv_buffers mem;
    float *a, *b, *c;
    int n;
};

static void *sgemm_setup(const mtv_case *cs, const mtv_device *, mtv_config *cfg)
{
    sgemm_state *st = new sgemm_state();
    return mtv_setup_guarded(st, [&] {
        st->n = (int)cs->p[0];
        size_t words = (size_t)st->n * st->n;
        cfg->grid = dim3(st->n / TILE, st->n / TILE);
        cfg->block = dim3(TILE, TILE);
        cfg->footprint_bytes = 3 * words * sizeof(float);
        st->a = (float *)mtv_alloc(&st->mem, words * sizeof(float));
        st->b = (float *)mtv_alloc(&st->mem, words * sizeof(float));
        st->c = (float *)mtv_alloc(&st->mem, words * sizeof(float));
        mtv_fill_f32_int(st->a, words, GM_SEED, GM_SPAN);
        mtv_fill_f32_int(st->b, words, GM_SEED ^ 1, GM_SPAN);
    });
}

static void sgemm_launch(void *state, const mtv_config *cfg, cudaStream_t s)
{
    sgemm_state *st = (sgemm_state *)state;
    sgemm_tiled<<<cfg->grid, cfg->block, 0, s>>>(st->a, st->b, st->c, st->n);
    MTV_CHECK_LAUNCH();
}

static bool sgemm_verify(void *state, std::string *why)
{
    sgemm_state *st = (sgemm_state *)state;
    size_t n = (size_t)st->n;
    std::vector<float> c = mtv_download(st->c, n * n);
    for (unsigned k = 0; k < GM_SAMPLES; k++) {
        size_t row = mtv_hash(k ^ 0x11) % n, col = mtv_hash(k ^ 0x22) % n;
        float want = 0.0f;
        for (size_t i = 0; i < n; i++)
            want += mtv_small_int(row * n + i, GM_SEED, GM_SPAN) *
                    mtv_small_int(i * n + col, GM_SEED ^ 1, GM_SPAN);
        if (c[row * n + col] != want)
            return mtv_mismatch(why, "C[" + std::to_string(row) + "][" + std::to_string(col) + "]",
                                c[row * n + col], want);
    }
    return true;
}

MTV_CASE(sgemm_tiled_1024, "real", "sgemm_tiled", "1024^3 SGEMM, 32x32 shared-memory tiles", 1024,
         0, 0, sgemm_setup, sgemm_launch, sgemm_verify, mtv_teardown_state<sgemm_state>);
MTV_CASE(sgemm_tiled_2048, "real", "sgemm_tiled", "2048^3 SGEMM, 32x32 shared-memory tiles", 2048,
         0, 0, sgemm_setup, sgemm_launch, sgemm_verify, mtv_teardown_state<sgemm_state>);

/* 2D 5-point stencil (real) on an 8192 x 8192 grid of floats (256 MiB in,
 * 256 MiB out), one thread per point in blocks of 32 x 8, neighbours read
 * straight from global memory (the L1 and L2 catch the reuse); borders
 * copied.  Small-integer inputs and a weight of 1/4 keep every result
 * exact in any order of additions. */
#include "../harness.h"

#define N 8192
#define BX 32
#define BY 8
#define ST_SEED 0x57e2ull
#define ST_SPAN 32u

__host__ __device__ inline float five_point(float c, float up, float down, float left, float right)
{
    return c - 0.25f * (up + down + left + right);
}

__global__ void stencil5(const float *in, float *out, int n)
{
    int x = blockIdx.x * BX + threadIdx.x, y = blockIdx.y * BY + threadIdx.y;
    size_t i = (size_t)y * n + x;
    if (x == 0 || y == 0 || x == n - 1 || y == n - 1)
        out[i] = in[i];
    else
        out[i] = five_point(in[i], in[i - n], in[i + n], in[i - 1], in[i + 1]);
}

struct stencil_state {
    mtv_buffers mem;
    float *in, *out;
};

static void *stencil_setup(const mtv_case *, const mtv_device *, mtv_config *cfg)
{
    stencil_state *st = new stencil_state();
    return mtv_setup_guarded(st, [&] {
        size_t words = (size_t)N * N;
        cfg->grid = dim3(N / BX, N / BY);
        cfg->block = dim3(BX, BY);
        cfg->footprint_bytes = 2 * words * sizeof(float);
        st->in = (float *)mtv_alloc(&st->mem, words * sizeof(float));
        st->out = (float *)mtv_alloc(&st->mem, words * sizeof(float));
        mtv_fill_f32_int(st->in, words, ST_SEED, ST_SPAN);
    });
}

static void stencil_launch(void *state, const mtv_config *cfg, cudaStream_t s)
{
    stencil_state *st = (stencil_state *)state;
    stencil5<<<cfg->grid, cfg->block, 0, s>>>(st->in, st->out, N);
    MTV_CHECK_LAUNCH();
}

static bool stencil_verify(void *state, std::string *why)
{
    stencil_state *st = (stencil_state *)state;
    std::vector<float> in = mtv_download(st->in, (size_t)N * N), out = mtv_download(st->out, (size_t)N * N);
    for (size_t y = 0; y < N; y++)
        for (size_t x = 0; x < N; x++) {
            size_t i = y * N + x;
            bool border = x == 0 || y == 0 || x == N - 1 || y == N - 1;
            float want = border ? in[i] : five_point(in[i], in[i - N], in[i + N], in[i - 1], in[i + 1]);
            if (out[i] != want)
                return mtv_mismatch(why, "point (" + std::to_string(x) + ", " + std::to_string(y) + ")",
                                    out[i], want);
        }
    return true;
}

MTV_CASE(stencil5_8192, "real", "stencil5",
         "2D 5-point stencil on 8192x8192 floats, neighbours from global memory", 0, 0, 0,
         stencil_setup, stencil_launch, stencil_verify, mtv_teardown_state<stencil_state>);

/* Li et al. pair 2: 2D convolution with a 5x5 filter (a stencil with
 * radius 2), zero outside the image.
 *
 * Each 32x8 thread block computes a 32x8 tile of the output.  The
 * shared-memory kernel first copies the tile plus its 2-pixel halo
 * (36x12 values) into shared memory, then every thread reads its 25
 * neighbours from there; the L1 kernel reads the 25 neighbours straight
 * from global memory, so neighbouring threads and neighbouring blocks
 * share the lines through the L1.  The image (64 MiB) exceeds the L2, so
 * every input line comes from DRAM once in both versions; the difference
 * is where the 25-fold reuse is served from and what it costs to stage. */
#include "../li_pair.h"

#include <cstdio>
#include <vector>

#define CV_R 2
#define CV_W (2 * CV_R + 1)
#define CV_BX 32
#define CV_BY 8
/* 4096 x 4096 floats: 64 MiB in and 64 MiB out, beyond the 50 MiB L2. */
#define CV_N 4096
/* Pixels and weights are small integers in [-8, 8] (mtv_small_int): a
 * 25-term sum stays far below 2^24, exact in float in any order. */
#define CV_SPAN 17
#define CV_SEED_IN 0xc01
#define CV_SEED_W 0xc02

__constant__ float li_conv_weights[CV_W * CV_W];

__global__ void li_conv_shm_kernel(const float *__restrict__ in, float *__restrict__ out, int n)
{
    __shared__ float tile[CV_BY + 2 * CV_R][CV_BX + 2 * CV_R];
    int x0 = blockIdx.x * CV_BX - CV_R, y0 = blockIdx.y * CV_BY - CV_R;
    /* the block's 256 threads copy the (32+4) x (8+4) window, row-major */
    for (int i = threadIdx.y * CV_BX + threadIdx.x; i < (CV_BY + 2 * CV_R) * (CV_BX + 2 * CV_R);
         i += CV_BX * CV_BY) {
        int ty = i / (CV_BX + 2 * CV_R), tx = i % (CV_BX + 2 * CV_R);
        int gx = x0 + tx, gy = y0 + ty;
        tile[ty][tx] = (gx >= 0 && gx < n && gy >= 0 && gy < n) ? in[(size_t)gy * n + gx] : 0.0f;
    }
    __syncthreads();
    float sum = 0.0f;
#pragma unroll
    for (int dy = 0; dy < CV_W; ++dy)
#pragma unroll
        for (int dx = 0; dx < CV_W; ++dx)
            sum += li_conv_weights[dy * CV_W + dx] * tile[threadIdx.y + dy][threadIdx.x + dx];
    out[(size_t)(blockIdx.y * CV_BY + threadIdx.y) * n + blockIdx.x * CV_BX + threadIdx.x] = sum;
}

__global__ void li_conv_l1_kernel(const float *__restrict__ in, float *__restrict__ out, int n)
{
    int x = blockIdx.x * CV_BX + threadIdx.x, y = blockIdx.y * CV_BY + threadIdx.y;
    float sum = 0.0f;
#pragma unroll
    for (int dy = 0; dy < CV_W; ++dy)
#pragma unroll
        for (int dx = 0; dx < CV_W; ++dx) {
            int gx = x + dx - CV_R, gy = y + dy - CV_R;
            float v = (gx >= 0 && gx < n && gy >= 0 && gy < n) ? li_l1_load(&in[(size_t)gy * n + gx]) : 0.0f;
            sum += li_conv_weights[dy * CV_W + dx] * v;
        }
    out[(size_t)y * n + x] = sum;
}

struct cv_state : li_state {
    float *in, *out;
};

static void *li_conv_setup(const mtv_case *c, const mtv_device *d, mtv_config *cfg)
{
    (void)d;
    return li_make<cv_state>(c, [&](cv_state *st) {
        size_t elems = (size_t)CV_N * CV_N;
        st->in = (float *)mtv_alloc(&st->mem, elems * sizeof(float));
        st->out = (float *)mtv_alloc(&st->mem, elems * sizeof(float));
        mtv_fill_f32_int(st->in, elems, CV_SEED_IN, CV_SPAN);
        float w[CV_W * CV_W];
        for (int i = 0; i < CV_W * CV_W; ++i)
            w[i] = mtv_small_int((uint64_t)i, CV_SEED_W, CV_SPAN);
        MTV_CHECK(cudaMemcpyToSymbol(li_conv_weights, w, sizeof w));
        li_configure(c, (const void *)li_conv_shm_kernel, (const void *)li_conv_l1_kernel,
                     dim3(CV_N / CV_BX, CV_N / CV_BY), dim3(CV_BX, CV_BY), 2 * elems * sizeof(float), cfg);
    });
}

static void li_conv_launch(void *state, const mtv_config *cfg, cudaStream_t s)
{
    cv_state *st = (cv_state *)state;
    li_launch_pair<const float *, float *, int>(st, li_conv_shm_kernel, li_conv_l1_kernel, cfg, s, st->in, st->out,
                                                CV_N);
}

/* Every output pixel, compared exactly. */
static bool li_conv_verify(void *state, std::string *why)
{
    cv_state *st = (cv_state *)state;
    size_t elems = (size_t)CV_N * CV_N;
    std::vector<float> out(elems), in(elems);
    MTV_CHECK(cudaMemcpy(out.data(), st->out, elems * sizeof(float), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < elems; ++i)
        in[i] = mtv_small_int(i, CV_SEED_IN, CV_SPAN);
    float w[CV_W * CV_W];
    for (int i = 0; i < CV_W * CV_W; ++i)
        w[i] = mtv_small_int((uint64_t)i, CV_SEED_W, CV_SPAN);
    for (int y = 0; y < CV_N; ++y)
        for (int x = 0; x < CV_N; ++x) {
            float want = 0.0f;
            for (int dy = 0; dy < CV_W; ++dy)
                for (int dx = 0; dx < CV_W; ++dx) {
                    int gx = x + dx - CV_R, gy = y + dy - CV_R;
                    if (gx >= 0 && gx < CV_N && gy >= 0 && gy < CV_N)
                        want += w[dy * CV_W + dx] * in[(size_t)gy * CV_N + gx];
                }
            float got = out[(size_t)y * CV_N + x];
            if (got != want) {
                char buf[128];
                snprintf(buf, sizeof buf, "out[%d][%d] = %g, the host says %g", y, x, (double)got, (double)want);
                *why = buf;
                return false;
            }
        }
    return true;
}

LI_FAMILY_CASES(conv, "li_conv_shm_kernel", "li_conv_l1_kernel", "5x5 convolution of a 4096^2 image, 32x8 tiles",
                li_conv_setup, li_conv_launch, li_conv_verify, li_teardown<cv_state>);

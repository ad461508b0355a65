/* Li et al. pair 5: all-pairs N-body accelerations (softened gravity), the
 * neighbour-gather case: every thread reads every body's position.
 *
 * The shared-memory kernel (the classic tiled form) has each 128-thread
 * block copy 128 positions into shared memory, synchronise, and let every
 * thread run over the tile; the L1 kernel runs over the same positions in
 * the same order but reads each one from global memory, where all 32 lanes
 * of a warp ask for the same address (one L1 line serves the warp; the
 * 512 KiB of positions stay in the L2, and a tile's 2 KiB in the L1).  The
 * pair weighs the staging's instructions and barriers against the cost of
 * an L1 hit when reuse is perfect and the loads are warp-uniform.  Two
 * blocks per SM make it a low-occupancy, latency-sensitive kernel.
 * perfect and the loads are warp-uniform. */
#include "../li_pair.h"

#include <cmath>
#include <cstdio>
#include <vector>

/* 128-thread blocks and 32768 bodies: 256 blocks, so every one of the
 * H100's 132 SMs gets work (about two blocks each), and 2^30 interactions,
 * about a millisecond. */
#define NB_THREADS 128
#define NB_N 32768
/* Softening (squared) keeps the self-interaction finite (it adds zero). */
#define NB_EPS2 0.01f
/* The host checks every NB_CHECK_STEP-th body in double precision; the GPU
 * sums in float with rsqrtf (about 2 ulp), so the bound is relative to the
 * sum of the magnitudes of the terms, not to the (cancelling) total. */
#define NB_CHECK_STEP 16
#define NB_REL_TOL 1e-4
#define NB_SEED 0xb0d

/* Body i: coordinates in [-10, 10], mass in [0.5, 1.5], from the hash. */
static float4 li_nb_body(uint64_t i)
{
    float4 b;
    b.x = (float)(mtv_hash(4 * i ^ NB_SEED) % 20001u) / 1000.0f - 10.0f;
    b.y = (float)(mtv_hash((4 * i + 1) ^ NB_SEED) % 20001u) / 1000.0f - 10.0f;
    b.z = (float)(mtv_hash((4 * i + 2) ^ NB_SEED) % 20001u) / 1000.0f - 10.0f;
    b.w = 0.5f + (float)(mtv_hash((4 * i + 3) ^ NB_SEED) % 1001u) / 1000.0f;
    return b;
}

__device__ __forceinline__ float3 li_nb_interact(float4 me, float4 other, float3 a)
{
    float dx = other.x - me.x, dy = other.y - me.y, dz = other.z - me.z;
    float r2 = dx * dx + dy * dy + dz * dz + NB_EPS2;
    float inv = rsqrtf(r2);
    float s = other.w * inv * inv * inv;
    a.x += dx * s;
    a.y += dy * s;
    a.z += dz * s;
    return a;
}

__global__ void li_nbody_shm_kernel(const float4 *__restrict__ pos, float3 *__restrict__ acc, int n)
{
    __shared__ float4 tile[NB_THREADS];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float4 me = pos[i];
    float3 a = make_float3(0.0f, 0.0f, 0.0f);
    for (int t = 0; t < n; t += NB_THREADS) {
        tile[threadIdx.x] = pos[t + threadIdx.x];
        __syncthreads();
#pragma unroll 8
        for (int j = 0; j < NB_THREADS; ++j)
            a = li_nb_interact(me, tile[j], a);
        __syncthreads();
    }
    acc[i] = a;
}

__global__ void li_nbody_l1_kernel(const float4 *__restrict__ pos, float3 *__restrict__ acc, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float4 me = pos[i];
    float3 a = make_float3(0.0f, 0.0f, 0.0f);
    for (int t = 0; t < n; t += NB_THREADS) {
#pragma unroll 8
        for (int j = 0; j < NB_THREADS; ++j)
            a = li_nb_interact(me, __ldca(&pos[t + j]), a);
    }
    acc[i] = a;
}

struct nb_state : li_state {
    float4 *pos;
    float3 *acc;
};

static void *li_nbody_setup(const mtv_case *c, const mtv_device *d, mtv_config *cfg)
{
    (void)d;
    return li_make<nb_state>(c, [&](nb_state *st) {
        st->pos = (float4 *)mtv_alloc(&st->mem, NB_N * sizeof(float4));
        st->acc = (float3 *)mtv_alloc(&st->mem, NB_N * sizeof(float3));
        std::vector<float4> host(NB_N);
        for (int i = 0; i < NB_N; ++i)
            host[i] = li_nb_body((uint64_t)i);
        MTV_CHECK(cudaMemcpy(st->pos, host.data(), NB_N * sizeof(float4), cudaMemcpyHostToDevice));
        li_configure(c, (const void *)li_nbody_shm_kernel, (const void *)li_nbody_l1_kernel, dim3(NB_N / NB_THREADS),
                     dim3(NB_THREADS), NB_N * (sizeof(float4) + sizeof(float3)), cfg);
    });
}

static void li_nbody_launch(void *state, const mtv_config *cfg, cudaStream_t s)
{
    nb_state *st = (nb_state *)state;
    li_launch_pair<const float4 *, float3 *, int>(st, li_nbody_shm_kernel, li_nbody_l1_kernel, cfg, s, st->pos,
                                                  st->acc, NB_N);
}

static bool li_nbody_verify(void *state, std::string *why)
{
    nb_state *st = (nb_state *)state;
    std::vector<float3> a(NB_N);
    std::vector<float4> b(NB_N);
    MTV_CHECK(cudaMemcpy(a.data(), st->acc, NB_N * sizeof(float3), cudaMemcpyDeviceToHost));
    for (int i = 0; i < NB_N; ++i)
        b[i] = li_nb_body((uint64_t)i);
    for (int i = 0; i < NB_N; i += NB_CHECK_STEP) {
        double want[3] = {0, 0, 0}, scale[3] = {0, 0, 0};
        for (int j = 0; j < NB_N; ++j) {
            double dv[3] = {(double)b[j].x - b[i].x, (double)b[j].y - b[i].y, (double)b[j].z - b[i].z};
            double r2 = dv[0] * dv[0] + dv[1] * dv[1] + dv[2] * dv[2] + NB_EPS2;
            double s = b[j].w / (r2 * std::sqrt(r2));
            for (int k = 0; k < 3; ++k) {
                want[k] += dv[k] * s;
                scale[k] += std::fabs(dv[k] * s);
            }
        }
        double got[3] = {a[i].x, a[i].y, a[i].z};
        for (int k = 0; k < 3; ++k)
            if (std::fabs(got[k] - want[k]) > NB_REL_TOL * scale[k]) {
                char buf[160];
                snprintf(buf, sizeof buf, "body %d axis %d: %g, the host says %g (bound %g)", i, k, got[k], want[k],
                         NB_REL_TOL * scale[k]);
                *why = buf;
                return false;
            }
    }
    return true;
}

LI_FAMILY_CASES(nbody, "li_nbody_shm_kernel", "li_nbody_l1_kernel", "all-pairs N-body, 32768 bodies, 128-body tiles",
                li_nbody_setup, li_nbody_launch, li_nbody_verify, li_teardown<nb_state>);

/* Compute-to-memory ratio sweep (synthetic): a stream over eight times the
 * L2 (DRAM) that runs a chain of p[0] dependent FMAs on every element it
 * loads, at full occupancy: from memory-bound (1) to compute-bound (64). */
#include "../harness.h"

#include <cmath>

#define INT_SEED 0x1e7ull
#define INT_SPAN 64u
#define INT_A 0.999f
#define INT_B 0.25f
#define THREADS 1024
/* Threads whose sums the host recomputes, spread over the grid. */
#define INT_SAMPLES 32

template <int FMAS> __host__ __device__ float work(float v)
{
#ifdef __CUDA_ARCH__ /* the host compiler knows no unroll pragma */
#pragma unroll
#endif
    for (int f = 0; f < FMAS; f++)
        v = fmaf(v, INT_A, INT_B);
    return v;
}

template <int FMAS> __global__ void intensity_stream(const float *in, float *out, size_t n)
{
    size_t tid = blockIdx.x * (size_t)blockDim.x + threadIdx.x, stride = (size_t)gridDim.x * blockDim.x;
    float acc = 0.0f;
#pragma unroll 4
    for (size_t i = tid; i < n; i += stride)
        acc += work<FMAS>(in[i]);
    out[tid] = acc;
}

struct intensity_state {
    mtv_buffers mem;
    float *in, *out;
    size_t n, threads;
    int fmas;
};

static const void *kernel_of(int fmas)
{
    switch (fmas) {
    case 1: return (const void *)intensity_stream<1>;
    case 4: return (const void *)intensity_stream<4>;
    case 16: return (const void *)intensity_stream<16>;
    case 64: return (const void *)intensity_stream<64>;
    }
    mtv_fail("intensity: " + std::to_string(fmas) + " FMAs per element not instantiated");
}

static void *intensity_setup(const mtv_case *c, const mtv_device *d, mtv_config *cfg)
{
    intensity_state *st = new intensity_state();
    return mtv_setup_guarded(st, [&] {
        st->fmas = (int)c->p[0];
        cfg->block = dim3(THREADS);
        cfg->grid = dim3(mtv_full_grid(d, THREADS));
        st->threads = (size_t)cfg->grid.x * THREADS;
        st->n = 8 * d->l2_bytes / sizeof(float);
        cfg->footprint_bytes = st->n * sizeof(float);
        st->in = (float *)mtv_alloc(&st->mem, st->n * sizeof(float));
        st->out = (float *)mtv_alloc(&st->mem, st->threads * sizeof(float));
        mtv_fill_f32_int(st->in, st->n, INT_SEED, INT_SPAN);
        mtv_kernel_attrs(kernel_of(st->fmas), cfg);
    });
}

static void intensity_launch(void *state, const mtv_config *cfg, cudaStream_t s)
{
    intensity_state *st = (intensity_state *)state;
    switch (st->fmas) {
    case 1: intensity_stream<1><<<cfg->grid, cfg->block, 0, s>>>(st->in, st->out, st->n); break;
    case 4: intensity_stream<4><<<cfg->grid, cfg->block, 0, s>>>(st->in, st->out, st->n); break;
    case 16: intensity_stream<16><<<cfg->grid, cfg->block, 0, s>>>(st->in, st->out, st->n); break;
    default: intensity_stream<64><<<cfg->grid, cfg->block, 0, s>>>(st->in, st->out, st->n); break;
    }
    MTV_CHECK_LAUNCH();
}

static float host_work(int fmas, float v)
{
    switch (fmas) {
    case 1: return work<1>(v);
    case 4: return work<4>(v);
    case 16: return work<16>(v);
    default: return work<64>(v);
    }
}

/* The sampled threads' sums, in the thread's own order, exactly. */
static bool intensity_verify(void *state, std::string *why)
{
    intensity_state *st = (intensity_state *)state;
    std::vector<float> out = mtv_download(st->out, st->threads);
    for (unsigned k = 0; k < INT_SAMPLES; k++) {
        size_t tid = (size_t)k * (st->threads - 1) / (INT_SAMPLES - 1);
        float acc = 0.0f;
        for (size_t i = tid; i < st->n; i += st->threads)
            acc += host_work(st->fmas, mtv_small_int(i, INT_SEED, INT_SPAN));
        if (out[tid] != acc)
            return mtv_mismatch(why, "thread " + std::to_string(tid), out[tid], acc);
    }
    return true;
}

#define INTENSITY_CASE(ident, fmas, desc)                                                       \
    MTV_CASE(ident, "synthetic", "intensity_stream", desc, fmas, 0, 0, intensity_setup,         \
             intensity_launch, intensity_verify, mtv_teardown_state<intensity_state>)

INTENSITY_CASE(intensity_f1, 1, "DRAM stream (8x the L2), 1 dependent FMA per loaded element");
INTENSITY_CASE(intensity_f4, 4, "DRAM stream (8x the L2), 4 dependent FMAs per loaded element");
INTENSITY_CASE(intensity_f16, 16, "DRAM stream (8x the L2), 16 dependent FMAs per loaded element");
INTENSITY_CASE(intensity_f64, 64, "DRAM stream (8x the L2), 64 dependent FMAs per loaded element");

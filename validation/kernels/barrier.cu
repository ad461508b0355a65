/* A barrier-heavy kernel (synthetic): blocks of 1024 threads pass a value
 * to their neighbour through shared memory, two __syncthreads per step,
 * 4096 steps, at full occupancy: little work between barriers, so the
 * time is the barriers' (and the warps' wait at them). */
#include "../harness.h"

#define THREADS 1024
#define STEPS 4096

__global__ void barrier_ring(uint32_t *out, int steps)
{
    __shared__ uint32_t ring[THREADS];
    unsigned t = threadIdx.x;
    uint32_t v = t;
    for (int i = 0; i < steps; i++) {
        ring[t] = v;
        __syncthreads();
        v = ring[(t + 1) % THREADS] + 1;
        __syncthreads();
    }
    out[blockIdx.x * blockDim.x + t] = v;
}

struct barrier_state {
    mtv_buffers mem;
    uint32_t *out;
    size_t threads;
};

static void *barrier_setup(const mtv_case *, const mtv_device *d, mtv_config *cfg)
{
    barrier_state *st = new barrier_state();
    return mtv_setup_guarded(st, [&] {
        if (d->max_threads_per_block < THREADS)
            mtv_fail("barrier: the device runs no block of 1024 threads");
        cfg->block = dim3(THREADS);
        cfg->grid = dim3(mtv_full_grid(d, THREADS));
        cfg->footprint_bytes = THREADS * sizeof(uint32_t);
        st->threads = (size_t)cfg->grid.x * THREADS;
        st->out = (uint32_t *)mtv_alloc(&st->mem, st->threads * sizeof(uint32_t));
    });
}

static void barrier_launch(void *state, const mtv_config *cfg, cudaStream_t s)
{
    barrier_state *st = (barrier_state *)state;
    barrier_ring<<<cfg->grid, cfg->block, 0, s>>>(st->out, STEPS);
    MTV_CHECK_LAUNCH();
}

/* After s steps thread t holds ((t + s) mod 1024) + s. */
static bool barrier_verify(void *state, std::string *why)
{
    barrier_state *st = (barrier_state *)state;
    std::vector<uint32_t> out = mtv_download(st->out, st->threads);
    for (size_t i = 0; i < st->threads; i++) {
        uint32_t want = (uint32_t)((i % THREADS + STEPS) % THREADS) + STEPS;
        if (out[i] != want)
            return mtv_mismatch(why, "thread " + std::to_string(i), out[i], want);
    }
    return true;
}

MTV_CASE(barrier_ring_1024, "synthetic", "barrier_ring",
         "neighbour exchange through shared memory, 2 barriers per step, blocks of 1024", 0, 0, 0,
         barrier_setup, barrier_launch, barrier_verify, mtv_teardown_state<barrier_state>);

/* Shared-memory bank conflicts (synthetic): every lane of a warp reads the
 * word lane * p[0] (plus a row offset the same for the whole warp) of a
 * shared array holding its own indices, so a request touches 32 / p[0]
 * banks p[0] times each: conflicts of degree p[0] (1 to 32) with 32
 * banks of 4-byte words.  Volatile loads: none may be merged or hoisted.
 * Full occupancy, 4096 loads per thread. */
#include "../harness.h"

#define THREADS 256
#define SMEM_WORDS 2048 /* lane * 32 + 15 rows of 32 stays below it */
#define ROWS 16
#define LOADS 4096

__global__ void bank_conflicts(uint32_t *out, int degree, int loads)
{
    __shared__ uint32_t smem[SMEM_WORDS];
    for (unsigned i = threadIdx.x; i < SMEM_WORDS; i += blockDim.x)
        smem[i] = i;
    __syncthreads();
    volatile uint32_t *v = smem;
    unsigned lane = threadIdx.x % 32;
    uint32_t acc = 0;
#pragma unroll 16
    for (int it = 0; it < loads; it++)
        acc += v[lane * (unsigned)degree + (unsigned)(it % ROWS) * 32u];
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

struct banks_state {
    mtv_buffers mem;
    uint32_t *out;
    size_t threads;
    int degree;
};

static void *banks_setup(const mtv_case *c, const mtv_device *d, mtv_config *cfg)
{
    banks_state *st = new banks_state();
    return mtv_setup_guarded(st, [&] {
        st->degree = (int)c->p[0];
        cfg->block = dim3(THREADS);
        cfg->grid = dim3(mtv_full_grid(d, THREADS));
        cfg->footprint_bytes = SMEM_WORDS * sizeof(uint32_t);
        st->threads = (size_t)cfg->grid.x * THREADS;
        st->out = (uint32_t *)mtv_alloc(&st->mem, st->threads * sizeof(uint32_t));
    });
}

static void banks_launch(void *state, const mtv_config *cfg, cudaStream_t s)
{
    banks_state *st = (banks_state *)state;
    bank_conflicts<<<cfg->grid, cfg->block, 0, s>>>(st->out, st->degree, LOADS);
    MTV_CHECK_LAUNCH();
}

/* Word w holds w: a thread's sum is the sum of the words it read. */
static bool banks_verify(void *state, std::string *why)
{
    banks_state *st = (banks_state *)state;
    std::vector<uint32_t> out = mtv_download(st->out, st->threads);
    uint32_t rows = 0;
    for (int it = 0; it < LOADS; it++)
        rows += (uint32_t)(it % ROWS) * 32u;
    for (size_t t = 0; t < st->threads; t++) {
        uint32_t want = (uint32_t)LOADS * (uint32_t)(t % 32) * (uint32_t)st->degree + rows;
        if (out[t] != want)
            return mtv_mismatch(why, "thread " + std::to_string(t), out[t], want);
    }
    return true;
}

#define BANKS_CASE(ident, degree, desc)                                                         \
    MTV_CASE(ident, "synthetic", "bank_conflicts", desc, degree, 0, 0, banks_setup,             \
             banks_launch, banks_verify, mtv_teardown_state<banks_state>)

BANKS_CASE(banks_d1, 1, "shared-memory loads without bank conflicts");
BANKS_CASE(banks_d2, 2, "shared-memory loads with 2-way bank conflicts");
BANKS_CASE(banks_d4, 4, "shared-memory loads with 4-way bank conflicts");
BANKS_CASE(banks_d8, 8, "shared-memory loads with 8-way bank conflicts");
BANKS_CASE(banks_d16, 16, "shared-memory loads with 16-way bank conflicts");
BANKS_CASE(banks_d32, 32, "shared-memory loads with 32-way bank conflicts");

/* Sparse matrix-vector product in CSR (real): 2^20 rows of 16 to 48
 * non-zeros each, at columns drawn within a band of +-4096 around the
 * diagonal (deterministic, mtv_hash), small-integer values so every sum
 * is exact in any order.  p[0] 0: scalar (one thread per row: the lanes
 * of a warp walk 32 rows' non-zeros, uncoalesced); 1: vector (one warp
 * per row: coalesced, shuffle-reduced). */
#include "../harness.h"

#define ROWS (1u << 20)
#define MIN_NNZ 16u
#define EXTRA_NNZ 33u /* row lengths 16 .. 48 */
#define BAND 4096u
#define SP_SEED 0x5b3ull
#define THREADS 256

__global__ void spmv_csr_scalar(const uint32_t *rowptr, const uint32_t *col, const float *val,
                                const float *x, float *y, unsigned rows)
{
    unsigned r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows)
        return;
    float sum = 0.0f;
    for (uint32_t k = rowptr[r]; k < rowptr[r + 1]; k++)
        sum += val[k] * x[col[k]];
    y[r] = sum;
}

__global__ void spmv_csr_vector(const uint32_t *rowptr, const uint32_t *col, const float *val,
                                const float *x, float *y, unsigned rows)
{
    unsigned r = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
    if (r >= rows)
        return;
    float sum = 0.0f;
    for (uint32_t k = rowptr[r] + lane; k < rowptr[r + 1]; k += 32)
        sum += val[k] * x[col[k]];
    for (int off = 16; off > 0; off /= 2)
        sum += __shfl_down_sync(0xffffffffu, sum, off);
    if (lane == 0)
        y[r] = sum;
}

struct spmv_state {
    mtv_buffers mem;
    uint32_t *rowptr, *col;
    float *val, *x, *y;
    std::vector<uint32_t> h_rowptr, h_col;
    bool vector;
};

static float value_at(size_t k)
{
    return mtv_small_int(k, SP_SEED ^ 1, 5); /* -2 .. 2 */
}
static float x_at(size_t i)
{
    return mtv_small_int(i, SP_SEED ^ 2, 9); /* -4 .. 4 */
}

static void *spmv_setup(const mtv_case *c, const mtv_device *, mtv_config *cfg)
{
    spmv_state *st = new spmv_state();
    return mtv_setup_guarded(st, [&] {
        st->vector = c->p[0] == 1;
        st->h_rowptr.resize(ROWS + 1);
        st->h_rowptr[0] = 0;
        for (size_t r = 0; r < ROWS; r++)
            st->h_rowptr[r + 1] = st->h_rowptr[r] + MIN_NNZ + mtv_hash(r ^ SP_SEED) % EXTRA_NNZ;
        size_t nnz = st->h_rowptr[ROWS];
        st->h_col.resize(nnz);
        std::vector<float> val(nnz), x(ROWS);
        for (size_t r = 0; r < ROWS; r++)
            for (size_t k = st->h_rowptr[r]; k < st->h_rowptr[r + 1]; k++) {
                long cidx = (long)r - (long)BAND + (long)(mtv_hash(k ^ SP_SEED ^ 3) % (2 * BAND + 1));
                st->h_col[k] = (uint32_t)(cidx < 0 ? -cidx : cidx >= (long)ROWS ? 2 * (long)ROWS - 2 - cidx : cidx);
                val[k] = value_at(k);
            }
        for (size_t i = 0; i < ROWS; i++)
            x[i] = x_at(i);
        cfg->block = dim3(THREADS);
        cfg->grid = dim3(st->vector ? ROWS * 32 / THREADS : ROWS / THREADS);
        cfg->footprint_bytes = nnz * 8 + (ROWS + 1) * 4 + 2 * ROWS * 4;
        st->rowptr = (uint32_t *)mtv_alloc(&st->mem, (ROWS + 1) * sizeof(uint32_t));
        st->col = (uint32_t *)mtv_alloc(&st->mem, nnz * sizeof(uint32_t));
        st->val = (float *)mtv_alloc(&st->mem, nnz * sizeof(float));
        st->x = (float *)mtv_alloc(&st->mem, ROWS * sizeof(float));
        st->y = (float *)mtv_alloc(&st->mem, ROWS * sizeof(float));
        MTV_CHECK(cudaMemcpy(st->rowptr, st->h_rowptr.data(), (ROWS + 1) * sizeof(uint32_t), cudaMemcpyHostToDevice));
        MTV_CHECK(cudaMemcpy(st->col, st->h_col.data(), nnz * sizeof(uint32_t), cudaMemcpyHostToDevice));
        MTV_CHECK(cudaMemcpy(st->val, val.data(), nnz * sizeof(float), cudaMemcpyHostToDevice));
        MTV_CHECK(cudaMemcpy(st->x, x.data(), ROWS * sizeof(float), cudaMemcpyHostToDevice));
        MTV_CHECK(cudaMemset(st->y, 0, ROWS * sizeof(float)));
    });
}

static void spmv_launch(void *state, const mtv_config *cfg, cudaStream_t s)
{
    spmv_state *st = (spmv_state *)state;
    if (st->vector)
        spmv_csr_vector<<<cfg->grid, cfg->block, 0, s>>>(st->rowptr, st->col, st->val, st->x, st->y, ROWS);
    else
        spmv_csr_scalar<<<cfg->grid, cfg->block, 0, s>>>(st->rowptr, st->col, st->val, st->x, st->y, ROWS);
    MTV_CHECK_LAUNCH();
}

static bool spmv_verify(void *state, std::string *why)
{
    spmv_state *st = (spmv_state *)state;
    std::vector<float> y = mtv_download(st->y, ROWS);
    for (size_t r = 0; r < ROWS; r++) {
        float want = 0.0f;
        for (size_t k = st->h_rowptr[r]; k < st->h_rowptr[r + 1]; k++)
            want += value_at(k) * x_at(st->h_col[k]);
        if (y[r] != want)
            return mtv_mismatch(why, "row " + std::to_string(r), y[r], want);
    }
    return true;
}

MTV_CASE(spmv_csr_scalar_1m, "real", "spmv_csr_scalar",
         "CSR SpMV, 2^20 rows of 16-48 banded non-zeros, one thread per row", 0, 0, 0, spmv_setup,
         spmv_launch, spmv_verify, mtv_teardown_state<spmv_state>);
MTV_CASE(spmv_csr_vector_1m, "real", "spmv_csr_vector",
         "CSR SpMV, 2^20 rows of 16-48 banded non-zeros, one warp per row", 1, 0, 0, spmv_setup,
         spmv_launch, spmv_verify, mtv_teardown_state<spmv_state>);

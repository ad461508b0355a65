/* The validation harness (mtval): a registry of kernel cases whose measured
 * times and Nsight Compute profiles are the fixtures the performance model
 * (issue 12) is checked against.  A case is one kernel launch: one case =
 * one kernel = one ncu row.  Adding a case is adding a file
 * validation/kernels/<family>.cu that registers it with MTV_CASE.
 *
 * Errors: every CUDA call goes through MTV_CHECK, which throws mtv_error
 * (file, line, call, CUDA's message); the driver (mtval.cu) catches it per
 * case, reports it and leaves the case out (or stops, when the context is
 * lost). */
#ifndef MTV_HARNESS_H
#define MTV_HARNESS_H

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

/* What the cases size themselves from: the GPU at hand. */
struct mtv_device {
    int ordinal;
    int sms;
    int cc_major, cc_minor;
    int max_threads_per_sm;
    int max_threads_per_block;
    size_t smem_per_sm;         /* shared memory an SM can give its blocks */
    size_t smem_per_block_optin; /* the most one block may ask for (opt-in) */
    size_t l2_bytes;
    size_t global_bytes;
    char pci_bus_id[32];
};

/* The launch a case makes, for cases.tsv (and the model): grid, block,
 * dynamic shared memory, the carveout it sets (-1: none, the driver
 * chooses), and the bytes its inputs span (what the sizes were chosen
 * against: L1, L2 or DRAM). */
struct mtv_config {
    dim3 grid, block;
    size_t dyn_smem;
    int carveout_pct;
    size_t footprint_bytes;
};

struct mtv_case;
/* setup allocates and initialises the inputs deterministically, fills cfg
 * and returns the case's state; launch enqueues exactly one kernel launch
 * on the stream; verify checks the output against a host reference or an
 * invariant (false with the reason in *why); teardown frees the state. */
typedef void *(*mtv_setup_fn)(const mtv_case *c, const mtv_device *d, mtv_config *cfg);
typedef void (*mtv_launch_fn)(void *state, const mtv_config *cfg, cudaStream_t s);
typedef bool (*mtv_verify_fn)(void *state, std::string *why);
typedef void (*mtv_teardown_fn)(void *state);

struct mtv_case {
    const char *name;        /* unique, [a-z0-9_]+ */
    const char *group;       /* synthetic, real or li */
    const char *kernel;      /* the __global__ function's name, as ncu prints it */
    const char *description; /* one line */
    long p[3];               /* the family's parameters (its file says which) */
    mtv_setup_fn setup;
    mtv_launch_fn launch;
    mtv_verify_fn verify;
    mtv_teardown_fn teardown;
};

/* Adds a case to the registry (at static initialisation); returns its
 * index.  Names are checked by the driver (mtval --list fails on a bad or
 * repeated one), not here: nothing may throw before main. */
int mtv_register(const mtv_case &c);
/* The registry, sorted by group then name (the list order). */
int mtv_case_count(void);
const mtv_case *mtv_case_at(int i);

/* MTV_CASE(ident, group, kernel, description, p0, p1, p2, setup, launch,
 * verify, teardown): the case is named after ident. */
#define MTV_CASE(ident, group, kernel, desc, p0, p1, p2, su, la, ve, td)                       \
    static const int mtv_case_##ident##_index =                                                 \
        mtv_register(mtv_case{#ident, group, kernel, desc, {p0, p1, p2}, su, la, ve, td})

struct mtv_error : std::runtime_error {
    bool sticky; /* the CUDA context is lost: no later case can run */
    mtv_error(const std::string &what, bool context_lost)
        : std::runtime_error(what), sticky(context_lost) {}
};
void mtv_check_at(cudaError_t e, const char *call, const char *file, int line);
#define MTV_CHECK(call) mtv_check_at((call), #call, __FILE__, __LINE__)
/* The launch just enqueued: a bad configuration shows here. */
#define MTV_CHECK_LAUNCH() mtv_check_at(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)
/* A case's own precondition (e.g. a size the device cannot give). */
[[noreturn]] void mtv_fail(const std::string &why);

/* Device memory freed by mtv_free_all at teardown (cases keep their
 * pointers in their state; a failing setup still releases them). */
struct mtv_buffers {
    void *ptr[8];
    int n;
};
void *mtv_alloc(mtv_buffers *b, size_t bytes);
void mtv_free_all(mtv_buffers *b);

/* Deterministic input data: element i of a fill with seed s is
 * mtv_hash(i ^ s) (the same on host and device, so host references need
 * no copy of the input). */
__host__ __device__ inline uint32_t mtv_hash(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return (uint32_t)x;
}
/* dst[i] = mtv_hash(i ^ seed) & mask, on the device (synchronous). */
void mtv_fill_u32(uint32_t *dst, size_t n, uint64_t seed, uint32_t mask);
/* dst[i] = (float)((int)(mtv_hash(i ^ seed) % span) - span / 2): small
 * integers, so float sums in any order are exact (synchronous). */
void mtv_fill_f32_int(float *dst, size_t n, uint64_t seed, uint32_t span);
__host__ __device__ inline float mtv_small_int(uint64_t i, uint64_t seed, uint32_t span)
{
    return (float)((int)(mtv_hash(i ^ seed) % span) - (int)(span / 2));
}

/* Sets the kernel's carveout (percent of the unified array given to
 * shared memory) and, when dyn_smem exceeds the default 48 KiB, its
 * dynamic shared memory limit. */
void mtv_kernel_attrs(const void *kernel, const mtv_config *cfg);

/* Blocks of `threads` threads that fill every SM to its thread limit. */
unsigned mtv_full_grid(const mtv_device *d, unsigned threads);

/* A launch of `warps_per_sm` warps on every SM (the occupancy sweeps):
 * up to a block's thread limit, one block per SM made alone on its SM by
 * dynamic shared memory over half of the SM's (and the carveout that
 * gives shared memory its largest share); beyond it, blocks of the
 * largest size, as many per SM as make the count, which the SM's thread
 * limit then keeps from doubling up.  Fails when the device cannot run
 * that many warps on an SM. */
void mtv_occupancy_config(const mtv_device *d, unsigned warps_per_sm, mtv_config *cfg);

/* The wrapped 32-bit sum of mtv_hash(i ^ seed) & mask over i < n,
 * computed once per (n, seed, mask) on the host: the reference of the
 * streams and reductions that read a whole fill. */
uint32_t mtv_host_sum_u32(size_t n, uint64_t seed, uint32_t mask);

template <class T> std::vector<T> mtv_download(const T *dev, size_t n)
{
    std::vector<T> h(n);
    MTV_CHECK(cudaMemcpy(h.data(), dev, n * sizeof(T), cudaMemcpyDeviceToHost));
    return h;
}

/* A case's state is a struct with an mtv_buffers member `mem`.  Setup
 * bodies run under mtv_setup_guarded, which frees the state when they
 * throw; mtv_teardown_state<S> is every such case's teardown. */
template <class S, class F> void *mtv_setup_guarded(S *st, F &&body)
{
    try {
        body();
    } catch (...) {
        mtv_free_all(&st->mem);
        delete st;
        throw;
    }
    return st;
}
template <class S> void mtv_teardown_state(void *state)
{
    S *st = (S *)state;
    mtv_free_all(&st->mem);
    delete st;
}
/* A mismatch message: "what: got G, want W". */
bool mtv_mismatch(std::string *why, const std::string &what, double got, double want);

#endif

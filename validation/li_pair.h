/* Helpers shared by the Li et al. shared-memory vs L1 kernel pairs
 * (validation/kernels/li_*.cu, group "li"; docs/li-study.md).
 *
 * Each family has a shared-memory-staged kernel and an L1-reliant kernel
 * that runs the same algorithm with the same tiling but reads its reused
 * data straight from global memory with ld.global.ca, so the L1 data cache
 * holds what the other version stages by hand.  The L1 kernel runs under
 * several carveout preferences (the share of the SM's L1/shared storage
 * given to shared memory), the factor the paper varies on Fermi.
 *
 * Case parameters: p[0] the version (LI_SHM or LI_L1), p[1] the carveout
 * preference in percent (LI_CARVEOUT_NONE: the driver chooses). */
#ifndef MTVAL_LI_PAIR_H
#define MTVAL_LI_PAIR_H

#include "harness.h"

enum { LI_SHM = 0, LI_L1 = 1 };

/* No carveout preference: the driver chooses (cudaSharedmemCarveoutDefault). */
#define LI_CARVEOUT_NONE (-1)

/* A load cached in L1 (ld.global.ca): the L1 versions read their reused
 * data through it, so they depend on the L1 the way the paper's D-cache
 * versions did, whatever the compiler's default for plain loads. */
__device__ __forceinline__ float li_l1_load(const float *p) { return __ldca(p); }
__device__ __forceinline__ unsigned li_l1_load_u32(const unsigned *p) { return __ldca(p); }

/* Fills the case's launch configuration and sets the carveout preference
 * of the kernel it launches.  The preference is an attribute of the
 * function, not of one launch, and one L1 kernel serves several cases, so
 * it is set every time, "no preference" included (mtv_kernel_attrs leaves
 * the attribute alone for -1, which would let a case inherit the carveout
 * of the case before it). */
static inline void li_configure(const mtv_case *c, const void *shm_kernel, const void *l1_kernel, dim3 grid,
                                dim3 block, size_t footprint, mtv_config *cfg)
{
    cfg->grid = grid;
    cfg->block = block;
    cfg->dyn_smem = 0;
    cfg->carveout_pct = (int)c->p[1];
    cfg->footprint_bytes = footprint;
    const void *k = c->p[0] == LI_SHM ? shm_kernel : l1_kernel;
    MTV_CHECK(cudaFuncSetAttribute(k, cudaFuncAttributePreferredSharedMemoryCarveout, cfg->carveout_pct));
}

/* A family's case state: its buffers, the version it runs, and the
 * family's own pointers (a struct deriving from this one). */
struct li_state {
    mtv_buffers mem;
    int version;
};

/* Makes a family's state S for case c and runs init on it (allocate,
 * fill, li_configure); a failure frees what init allocated and passes the
 * error on to the driver. */
template <class S, class Init>
static void *li_make(const mtv_case *c, Init init)
{
    S *st = new S();
    st->version = (int)c->p[0];
    try {
        init(st);
    } catch (...) {
        mtv_free_all(&st->mem);
        delete st;
        throw;
    }
    return st;
}

template <class S>
static void li_teardown(void *state)
{
    S *st = (S *)state;
    mtv_free_all(&st->mem);
    delete st;
}

/* Launches the version of the pair the state runs: both kernels of a pair
 * take the same arguments. */
template <class... Args>
static void li_launch_pair(const li_state *st, void (*shm_kernel)(Args...), void (*l1_kernel)(Args...),
                           const mtv_config *cfg, cudaStream_t s, Args... args)
{
    (st->version == LI_SHM ? shm_kernel : l1_kernel)<<<cfg->grid, cfg->block, 0, s>>>(args...);
    MTV_CHECK_LAUNCH();
}

/* The cases of one family: the shared-memory kernel under the driver's
 * carveout, and the L1 kernel under three preferences.  On the H100
 * (CUDA 13, measured with ncu's launch__shared_mem_config_size) no
 * preference gives these kernels a 32 KiB shared-memory configuration
 * (the least that keeps 32 blocks of 1 KiB driver reserve resident; the
 * same as 0%), 50% gives 132 KiB and 100% the full 228 KiB, so the L1
 * keeps about 217, 117 and 21 KiB (memtopo's carveout fixture,
 * tests/fixtures/h100-sxm5-2/report-carveout.txt). */
#define LI_FAMILY_CASES(fam, shm_kernel, l1_kernel, what, su, la, ve, td)                                    \
    MTV_CASE(li_##fam##_shm, "li", shm_kernel, what ", shared-memory staged", LI_SHM, LI_CARVEOUT_NONE, 0,    \
             su, la, ve, td);                                                                                \
    MTV_CASE(li_##fam##_l1, "li", l1_kernel, what ", through L1, no carveout preference", LI_L1,              \
             LI_CARVEOUT_NONE, 0, su, la, ve, td);                                                           \
    MTV_CASE(li_##fam##_l1_c50, "li", l1_kernel, what ", through L1, carveout 50% to shared memory", LI_L1,    \
             50, 0, su, la, ve, td);                                                                         \
    MTV_CASE(li_##fam##_l1_c100, "li", l1_kernel, what ", through L1, carveout 100% to shared memory", LI_L1, \
             100, 0, su, la, ve, td)

#endif

/* Launch configuration and backend limits of the cuda backend, computed
 * from what the driver reports (pure: no CUDA header; device_query.c asks
 * the driver, this file decides). */
#ifndef MT_CUDA_LIMITS_H
#define MT_CUDA_LIMITS_H

#include <stddef.h>
#include <stdint.h>

#include "../backend/backend.h"
#include "kernel_abi.h"

/* Shared memory per SM wanted for kernels A and SEQ_A (samples + header +
 * reserve): 16 KiB is a supported carveout on cc 8.x/9.x and the smallest
 * that holds MTK_FINE_MAX samples, so the L1 keeps 256 - 16 = 240 KiB on
 * Hopper. */
#define MTC_SMALL_KERNEL_SMEM_PER_SM (16u * 1024u)
/* Largest global-path buffer: min(free / 4, 4 GiB), so one experiment's
 * two buffers of different paths still fit in half the free memory.  The
 * 4 GiB cap also keeps every word index below 2^30, which the sequence
 * deltas (int32) rely on. */
#define MTC_GLOBAL_LIMIT_CAP (4ull << 30)
#define MTC_GLOBAL_FREE_DIVISOR 4
#define MTC_MIB (1ull << 20)
/* Sparse chains (device.h, sparse_limit_bytes) may span the free memory at
 * open less a margin: mt_sparse_limit (backend.h) gives the rule. */
/* Buffer alignment: large buffers on 2 MiB (the GPU's large page), small
 * ones on 64 KiB so cache-set mappings do not depend on packing order. */
#define MTC_BIG_BUFFER_BYTES MTC_MIB
#define MTC_BIG_ALIGN (2 * MTC_MIB)
#define MTC_SMALL_ALIGN (64u * 1024u)
/* The shared-path kernels need room for a chain beyond the header and
 * the samples; less than this is not worth a kernel. */
#define MTC_MIN_SHARED_CHAIN 1024u

/* What the driver tells (device_query.c fills it). */
typedef struct {
    int cc_major, cc_minor;
    int smem_per_sm;       /* cudaDevAttrMaxSharedMemoryPerMultiprocessor */
    int smem_optin;        /* cudaDevAttrMaxSharedMemoryPerBlockOptin */
    int reserved_smem;     /* cudaDevAttrReservedSharedMemoryPerBlock */
    int tex1d_linear;      /* cudaDevAttrMaxTexture1DLinearWidth (elements) */
    int max_threads_per_block;
    uint64_t free_bytes;   /* cudaMemGetInfo */
    size_t static_smem[MTK_KERNEL_COUNT]; /* cudaFuncGetAttributes */
} mtc_device_facts;

/* What the backend makes of it. */
typedef struct {
    size_t dyn_smem[MTK_KERNEL_COUNT];       /* dynamic shared memory per launch */
    int carveout_percent[MTK_KERNEL_COUNT];  /* preferred carveout per kernel */
    uint32_t carveout_smem_bytes;            /* shared memory per SM that A's carveout gives, 0 unknown */
    uint64_t path_limit[MT_NUM_PATHS];       /* largest chain footprint (offset + bytes) per path */
    uint32_t max_fine_loads;
    uint32_t max_sequence;
    int max_threads_per_experiment;
    uint64_t arena_max; /* largest arena one launch may need */
    uint64_t sparse_limit; /* largest footprint of a sparse global chain */
} mtc_launch_config;

/* Shared-memory carveouts (KiB per SM) the CUDA Programming Guide lists
 * per compute capability, ascending; NULL (and *n = 0) when unknown. */
const uint32_t *mtc_carveout_table(int major, int minor, size_t *n);

/* The carveouts an experiment on kernels A / SEQ_A can get (bytes,
 * ascending, at most MT_MAX_CARVEOUTS): the listed ones that hold the
 * kernels' own shared memory (static + dynamic + the per-block reserve),
 * since the driver never picks a smaller one whatever the preference.
 * Returns the count; 0 when the compute capability has no list. */
int mtc_carveout_options(const mtc_device_facts *f, const mtc_launch_config *cfg, uint32_t *out);

/* Fills *out; MT_ERR_UNSUPPORTED_DEVICE when the kernels do not fit. */
mt_err mtc_plan_config(const mtc_device_facts *f, mtc_launch_config *out, mt_errinfo *ei);

#endif

/* Extra, CUDA-only introspection of the cuda backend (not part of the
 * generic backend interface): how many kernel launches batches needed.
 * Used by tools/cuda_selftest.c to judge SM placement. */
#ifndef MT_BACKEND_CUDA_H
#define MT_BACKEND_CUDA_H

#include <stdint.h>

#include "../backend/backend.h"

typedef struct {
    uint64_t launches;      /* probe-kernel launches so far */
    uint64_t requeued;      /* experiments that were not placed and ran in a later launch */
    uint64_t l2_flushes;    /* L2 flushes before cold experiments */
    uint64_t const_uploads; /* constant-bank uploads */
    /* Launch configuration of the probe kernels (A: no shared-path chain,
     * B: shared-path chains), fixed at open. */
    uint32_t static_smem[2];   /* cudaFuncGetAttributes sharedSizeBytes */
    uint32_t dyn_smem[2];      /* dynamic shared memory per launch */
    uint32_t reserved_smem;    /* cudaDevAttrReservedSharedMemoryPerBlock */
    int regs[2];
    int blocks_per_sm_a;       /* occupancy calculator, kernel A, 32 threads:
                                  1 means the 16 KiB carveout holds one block */
} mt_cuda_stats;

/* Fills *out for a backend opened by mt_backend_cuda_open; returns
 * MT_ERR_INVALID_ARG for any other backend. */
mt_err mt_cuda_get_stats(const mt_backend *b, mt_cuda_stats *out);

/* Fixes the host watchdog of every later launch at `seconds` (the kernel
 * stops its own warm-up laps after half of that); 0 restores the default,
 * 20 s + 4 x a pessimistic estimate of the launch's runtime.  After the
 * host watchdog fires the backend refuses further batches (the kernel may
 * still be running). */
mt_err mt_cuda_set_watchdog(mt_backend *b, double seconds);

#endif

/* The cuda backend's public extras (beyond its registry entry
 * mt_backend_entry_cuda): opening it directly, and CUDA-only
 * introspection used by tools/cuda_selftest.c (how many launches batches
 * needed, the kernels' launch configuration, a fixed watchdog). */
#ifndef MT_BACKEND_CUDA_H
#define MT_BACKEND_CUDA_H

#include <stdint.h>

#include "../backend/backend.h"

/* Opens CUDA device `device` (what the registry entry does with
 * mt_backend_args.device). */
mt_err mt_backend_cuda_open(int device, mt_backend **out, mt_errinfo *ei);

/* Probe kernels, indices of the per-kernel arrays below: chase without and
 * with shared-path chains, sequence without and with a shared-path array,
 * and the chase over global chains beyond 16 GiB (kernel_abi.h). */
enum { MT_CUDA_KERNEL_A = 0, MT_CUDA_KERNEL_B, MT_CUDA_KERNEL_SEQ_A, MT_CUDA_KERNEL_SEQ_B,
       MT_CUDA_KERNEL_WIDE, MT_CUDA_KERNELS };

typedef struct {
    uint64_t launches;      /* probe-kernel launches so far */
    uint64_t requeued;      /* experiments that were not placed and ran in a later launch */
    uint64_t l2_flushes;    /* L2 flushes before cold experiments */
    uint64_t const_uploads; /* constant-bank uploads */
    uint64_t carveout_changes; /* carveout preferences set for a launch (requested carveouts) */
    /* Launch configuration of the probe kernels, fixed at open. */
    uint32_t static_smem[MT_CUDA_KERNELS]; /* cudaFuncGetAttributes sharedSizeBytes */
    uint32_t dyn_smem[MT_CUDA_KERNELS];    /* dynamic shared memory per launch */
    uint32_t reserved_smem;                /* cudaDevAttrReservedSharedMemoryPerBlock */
    int regs[MT_CUDA_KERNELS];
    int blocks_per_sm_a;     /* occupancy calculator, kernel A, 32 threads:
                                1 means the 16 KiB carveout holds one block */
    int blocks_per_sm_seq_a; /* the same for kernel SEQ_A */
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

/* What a driver query tells about a device (or what the sim spec declares
 * a driver would tell).  Nothing here is a measurement. */
#ifndef MT_DEVICE_H
#define MT_DEVICE_H

#include <stdint.h>

#define MT_NUM_PATHS 7 /* == MT_PATH_COUNT, kept here to avoid a header cycle */
/* Most shared-memory carveouts a device lists (Hopper has 10). */
#define MT_MAX_CARVEOUTS 16

typedef struct {
    char name[128];
    char backend[16];        /* "cuda" or "sim" */
    int ordinal;             /* CUDA device index, 0 for sim */
    int cc_major, cc_minor;
    int sm_count;
    int clock_khz;           /* max SM clock */
    int mem_clock_khz;
    int bus_width_bits;
    uint64_t global_mem_bytes;
    uint64_t l2_bytes;
    uint64_t persisting_l2_max_bytes;
    uint32_t smem_per_block;       /* static limit */
    uint32_t smem_per_block_optin; /* dynamic limit after opt-in */
    uint32_t smem_per_sm;
    uint32_t const_mem_bytes;      /* total constant memory */
    int max_threads_per_block;
    int max_threads_per_sm;
    int warp_size;
    int regs_per_sm;
    int carveout_percent;    /* shared-memory carveout set for probe kernels, -1 unknown */
    uint32_t carveout_smem_bytes; /* shared memory per SM that carveout gives, 0 unknown */
    /* The carveouts an experiment may request (mt_experiment.set_carveout):
     * the shared memory per SM each one gives, ascending; 0 entries when the
     * device cannot change it (or does not say).  A requested percentage
     * gets the smallest of these holding that share of smem_per_sm
     * (mt_carveout_smem). */
    int n_carveouts;
    uint32_t carveout_smem_options[MT_MAX_CARVEOUTS];
    char driver_version[32];
    char runtime_version[32];
    /* Backend limits, used by probes to turn a limit into a bound. */
    uint64_t path_limit_bytes[MT_NUM_PATHS]; /* largest chain footprint per path */
    uint32_t max_fine_loads;       /* largest `loads` in MT_MODE_FINE */
    int max_threads_per_experiment;/* largest chain thread index + 1 */
    /* Scheduling facts the backend states so probes never assume them:
     * how many SM-scope experiments of one batch run at the same time (the
     * cuda backend: one per SM; the sim: as many as the GPU has SMs), and
     * the longest MT_KIND_SEQUENCE index list. */
    int concurrent_experiments;
    uint32_t max_sequence;
    /* Other processes holding a context on this GPU when it was opened (the
     * cuda backend asks NVML, loaded at run time; the sim states its
     * [tenant]'s pids): -1 unknown (no NVML), else the count, with up to a
     * few of them as "pid name" items, comma-separated.  A cause of doubt,
     * not proof of disturbance: a monitoring agent holds a context without
     * loading the GPU (src/probes/interference.c). */
    int other_processes;
    char other_process_list[160];
    /* Of those, how many used the GPU's SMs or memory in the driver's
     * latest utilization sample (-1 unknown).  Backends refresh it at every
     * get_info, so the interference checks can ask it again at each
     * reference measurement: a busy neighbour is a cause, not just doubt. */
    int other_busy;
    /* Largest footprint (offset + bytes) of a ca, cg or nc chain whose
     * stride is at least MT_SPARSE_MIN_STRIDE: such a chain touches one
     * word per stride, so a backend that writes only its elements may go
     * beyond path_limit_bytes (the TLB probe's sweeps, issue 9).  0 or
     * below the path limit: the path limit holds for these chains too. */
    uint64_t sparse_limit_bytes;
    /* Thread-block clusters (backend 2.3, Hopper and later): the largest
     * cluster the device launches (with the non-portable size attribute
     * where it allows more) and the largest portable one; 0 = no clusters
     * (before Hopper, or a backend that does not say). */
    int max_cluster_size;
    int max_cluster_size_portable;
} mt_device_info;

/* Stride from which a chain is sparse (sparse_limit_bytes): 64 KiB, the
 * smallest page the GPUs' TLBs are known to translate. */
#define MT_SPARSE_MIN_STRIDE (64u << 10)
/* What a sparse chain may span (mt_sparse_limit): the memory free at open
 * less a margin of a sixteenth of it, and at least 512 MiB, for what the
 * backend and the driver still allocate (the L2 flush buffer of twice the
 * L2, staging arrays, the context's own growth) and for other tenants'
 * small allocations while the run lasts. */
#define MT_SPARSE_MARGIN_DIVISOR 16u
#define MT_SPARSE_MARGIN_MIN (512ull << 20)

#endif

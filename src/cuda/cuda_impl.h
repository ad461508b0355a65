/* State of an open cuda backend, shared by its host files
 * (backend_cuda.c, device_query.c, buffers.c, launch.c), and the checked
 * CUDA call macro.  Private to src/cuda. */
#ifndef MT_CUDA_IMPL_H
#define MT_CUDA_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "../backend/backend.h"
#include "backend_cuda.h"
#include "kernels.h"
#include "layout.h"
#include "limits.h"
#include "schedule.h"

/* Arena growth step. */
#define MTC_ARENA_GRANULE (64 * MTC_MIB)
/* Host polling period while waiting for a launch. */
#define MTC_POLL_SLEEP_NS 20000L
/* For its first seconds-fraction the wait polls without sleeping: most
 * launches last well under a millisecond (the default report makes ~600),
 * and a 20 us nanosleep sleeps 70 us or more under Linux's default 50 us
 * timer slack, which added tens of ms to the H100's one-second report.
 * Spinning costs one host core for at most this long per launch. */
#define MTC_POLL_SPIN_S 0.002
/* NVML is asked who else is busy at most this often (get_info comes after
 * every batch): its per-process utilization samples are 1/6 s to 1 s
 * apart, so a query within 50 ms of the last one sees nothing new, while
 * each costs ~50 us (248 of them took 13 ms of the H100's one-second
 * report).  A neighbour is still seen within 50 ms of NVML seeing it. */
#define MTC_NVML_MIN_INTERVAL_S 0.05

typedef struct {
    /* device, fixed size (allocated at open) */
    void *flush;
    size_t flush_bytes;
    mtk_desc *descs;
    mtk_status *st;
    uint32_t *samples;
    int32_t *plan;
    int32_t *any;
    uint32_t *claim;
    mtk_build *build;
    /* device, grown on demand */
    void *arena_raw;   /* allocation; arena is its 2 MiB-aligned start */
    uint64_t arena;
    uint64_t arena_cap;
    uint32_t *succ;
    size_t succ_cap;   /* words */
    int32_t *seq;
    size_t seq_cap;    /* words */
} mtc_device_buffers;

typedef struct {
    mtk_desc *descs;
    mtk_status *st;
    uint32_t *samples;
    int32_t *plan;
    int32_t *any;
    mtk_build *build;
    uint32_t *expect;
    uint64_t *tex_base, *tex_bytes;
    cudaTextureObject_t *texs; /* texture objects of the current launch */
    uint32_t *succ;
    size_t succ_cap;
    int32_t *seq;
    size_t seq_cap;
    size_t *group_idx; /* nsm */
    int *claimed;      /* nsm */
} mtc_host_buffers;

typedef struct {
    int dev;
    mt_device_info info;
    int nsm;
    mtc_launch_config cfg;
    cudaStream_t stream;
    int have_stream;
    cudaEvent_t done;
    int have_event;
    mtc_device_buffers d;
    mtc_host_buffers h;
    mtc_const_image cimg;
    mt_cuda_stats stats;
    double watchdog_s; /* > 0: fixed host watchdog (mt_cuda_set_watchdog) */
    int broken;        /* a launch outlived the watchdog: refuse further work */
    struct mtc_nvml *nvml; /* other processes on the GPU (nvml_procs.c); NULL: unknown */
    double nvml_asked_at;  /* CLOCK_MONOTONIC seconds of the last NVML query */
    int carveout_now[MTK_KERNEL_COUNT]; /* preference set on each kernel now */
    struct mtc_link_buffers *links; /* link.c's buffers, kept between experiments; NULL: none */
} cuda_impl;

/* Maps a CUDA error to an mt_err with a message naming the call and
 * file:line (errors.c). */
mt_err mtc_cuda_err(mt_errinfo *ei, cudaError_t e, const char *call, const char *file, int line);

/* Every CUDA call goes through CK; failures jump to `out` with rc set
 * (the function declares `mt_err rc` and an `out:` label). */
#define CK(call)                                                                                   \
    do {                                                                                           \
        cudaError_t ce_ = (call);                                                                  \
        if (ce_ != cudaSuccess) {                                                                  \
            rc = mtc_cuda_err(ei, ce_, #call, __FILE__, __LINE__);                                 \
            goto out;                                                                              \
        }                                                                                          \
    } while (0)

/* device_query.c: fills im->info, im->cfg and im->stats' launch
 * configuration, and sets the kernels' shared-memory attributes. */
mt_err mtc_query_device(cuda_impl *im, mt_errinfo *ei);

/* buffers.c */
mt_err mtc_buffers_alloc(cuda_impl *im, mt_errinfo *ei);
void mtc_buffers_free_device(cuda_impl *im);
void mtc_buffers_free_host(cuda_impl *im);
mt_err mtc_ensure_arena(cuda_impl *im, uint64_t bytes, mt_errinfo *ei);
mt_err mtc_ensure_staging(cuda_impl *im, size_t succ_words, size_t seq_words, mt_errinfo *ei);

/* warp_batch.c: a batch of one-warp experiments (banks, access), one
 * launch: the descriptors uploaded, room for `stride` samples and the SM id
 * of each of n experiments; after the launch, finish waits for it and
 * fills out[which[k]] with exps[which[k]].loads samples each. */
typedef struct {
    size_t n;
    uint32_t stride;
    void *d_desc;
    uint32_t *d_samples, *d_smids, *h_samples, *h_smids;
} mtc_warp_batch;
mt_err mtc_warp_batch_start(cuda_impl *im, mtc_warp_batch *b, const void *descs,
                            size_t desc_bytes, size_t n, uint32_t stride, mt_errinfo *ei);
mt_err mtc_warp_batch_finish(cuda_impl *im, mtc_warp_batch *b, const mt_experiment *exps,
                             const size_t *which, mt_result *out, mt_errinfo *ei);
void mtc_warp_batch_free(mtc_warp_batch *b);

/* banks.c: runs the MT_KIND_BANKS experiments exps[which[0..n-1]] in one
 * launch, filling out[which[k]]. */
mt_err mtc_run_banks(cuda_impl *im, const mt_experiment *exps, const size_t *which, size_t n,
                     mt_result *out, mt_errinfo *ei);
/* access.c: runs the MT_KIND_ACCESS experiments exps[which[0..n-1]] in
 * one launch of one block (in order), filling out[which[k]]. */
mt_err mtc_run_access(cuda_impl *im, const mt_experiment *exps, const size_t *which, size_t n,
                      mt_result *out, mt_errinfo *ei);
/* clock.c: runs one MT_KIND_CLOCK experiment (it needs no launch group). */
mt_err mtc_run_clock(cuda_impl *im, const mt_experiment *e, mt_result *out, mt_errinfo *ei);
/* icache.c: runs a batch's MT_KIND_ICACHE experiments exps[idx[0..n)]
 * (a module and a launch each): their modules compiled together on host
 * threads, then one launch after another. */
mt_err mtc_run_icache(cuda_impl *im, const mt_experiment *exps, const size_t *idx, size_t n,
                      mt_result *out, mt_errinfo *ei);
/* evict.c: runs one MT_KIND_EVICT experiment (an L2 flush and a launch of
 * its own per repeat). */
mt_err mtc_run_evict(cuda_impl *im, const mt_experiment *e, mt_result *out, mt_errinfo *ei);
/* stream.c: runs one MT_KIND_STREAM experiment (a launch of its own). */
mt_err mtc_run_stream(cuda_impl *im, const mt_experiment *e, mt_result *out, mt_errinfo *ei);
/* cluster.c: runs one MT_KIND_CLUSTER experiment (a launch of its own),
 * and states the device's cluster limits (0 before compute capability 9.0). */
mt_err mtc_run_cluster(cuda_impl *im, const mt_experiment *e, mt_result *out, mt_errinfo *ei);
mt_err mtc_cluster_limits(mt_device_info *d, mt_errinfo *ei);
/* link.c: runs one MT_KIND_LINK experiment (to a peer GPU or the host);
 * frees the buffers it keeps between experiments (NULL-safe). */
mt_err mtc_run_link(cuda_impl *im, const mt_experiment *e, mt_result *out, mt_errinfo *ei);
void mtc_link_free(cuda_impl *im);
/* launch.c: runs one launch group; claimed[k] is set for the group's k-th
 * experiment when a block ran it, and its result is then in out. */
mt_err mtc_run_group(cuda_impl *im, const mt_experiment *exps, const mtc_group *g,
                     mt_result *out, int *claimed, mt_errinfo *ei);

#endif

/* Which experiments of a batch run in which launch (pure: no CUDA header,
 * unit-tested by tests/test_cuda_layout.c).
 *
 *  - A launch runs one kernel (kernel_abi.h) and has one block per SM;
 *    each block claims the experiment planned for the SM it landed on
 *    (%smid), or one "any SM" experiment, and the others exit at once.
 *  - The first pending experiment decides the kernel and the scope.  A
 *    GPU-scope experiment (data in the L2 or DRAM) is a launch of its own;
 *    SM-scope experiments of the same kernel are packed, up to one per SM,
 *    in batch order, while their buffers fit the arena and their constant
 *    words agree.
 *  - A launch with a cold experiment (warmup_laps == 0; every sequence)
 *    flushes the L2 after the chains are written; the L1 is invalidated by
 *    the launch itself.
 *  - Experiments no block claimed (their SM was busy or absent) go back to
 *    the pending list and run in a later launch, at most
 *    MTC_MAX_PLACEMENT_TRIES times. */
#ifndef MT_CUDA_SCHEDULE_H
#define MT_CUDA_SCHEDULE_H

#include <stddef.h>
#include <stdint.h>

#include "../backend/backend.h"
#include "kernel_abi.h"
#include "layout.h"

/* An experiment planned for an SM that no block reached is re-launched;
 * after this many launches the SM is taken to be unavailable. */
#define MTC_MAX_PLACEMENT_TRIES 4
/* Watchdog: limit = 20 s + 4 x a pessimistic estimate of the launch's
 * runtime, counting 4000 cycles per load (a DRAM access with a TLB miss
 * is ~1-2k cycles on recent GPUs; doubled).  The kernel's own deadline
 * for warm-ups is half the limit, so it normally stops itself first. */
#define MTC_WATCHDOG_MIN_S 20.0
#define MTC_WATCHDOG_FACTOR 4.0
#define MTC_SLOW_LOAD_CYCLES 4000.0
#define MTC_KERNEL_DEADLINE_SHARE 0.5

typedef struct {
    size_t *idx; /* batch indices of the experiments in this launch (nsm entries) */
    size_t n;
    int kernel;    /* MTK_KERNEL_* */
    int gpu_scope; /* a single GPU-scope experiment */
    int cold;      /* some experiment has warmup_laps == 0: flush the L2 first */
    int n_planned; /* experiments with a planned SM */
    int parallel_warm; /* its experiments' warm-ups are parallel (mtc_parallel_warm): all or none */
    /* The carveout the launch runs under (every experiment of a launch
     * asks for the same): the first experiment's request. */
    int set_carveout, carveout_percent;
    uint64_t arena_used;
    uint8_t sm_taken[MTK_MAX_SMID];
} mtc_group;

typedef struct {
    int nsm;            /* SMs: at most one experiment each per launch */
    uint64_t arena_max; /* arena bytes one launch may use (one experiment may exceed it) */
} mtc_sched_limits;

/* Checks e (batch index i) against the backend's limits: the generic check
 * (mt_experiment_check), then what only the cuda backend knows.  Kinds
 * other than chase and sequence are MT_ERR_UNSUPPORTED, and so is a
 * carveout request for the shared-path kernels (B, SEQ_B: they hold their
 * chain in all of the opt-in shared memory, so their carveout is fixed at
 * the largest). */
mt_err mtc_validate(const mt_experiment *e, size_t i, const mt_device_info *dev, mt_errinfo *ei);

/* Forms the next launch from pending[0..npend-1] (npend >= 1) into g,
 * whose idx array must hold lim->nsm entries; resets and fills the
 * constant image for it. */
mt_err mtc_group_form(const mtc_sched_limits *lim, const mt_experiment *exps, const size_t *pending,
                      size_t npend, mtc_group *g, mtc_const_image *ci, mt_errinfo *ei);

/* After a launch: drops the claimed experiments of g from pending, counts
 * the others (*requeued) and fails once one of them has had
 * MTC_MAX_PLACEMENT_TRIES launches (tries has one counter per batch
 * experiment). */
mt_err mtc_group_retire(const mt_experiment *exps, const mtc_group *g, const int *claimed,
                        size_t *pending, size_t *npend, size_t *tries, uint64_t *requeued,
                        mt_errinfo *ei);

/* Host watchdog of a launch: fixed_s when > 0, else from the estimate. */
double mtc_watchdog_s(double est_loads, int clock_khz, double fixed_s);
/* The kernel's own warm-up budget for a host limit of limit_s. */
uint64_t mtc_deadline_cycles(double limit_s, int clock_khz);

#endif

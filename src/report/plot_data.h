/* What the plots show (--plot DIR, --html FILE), collected from the
 * experiments themselves while the probes run, so no probe has to know
 * that plots exist:
 *
 *   - for each load path, one point per single-chain, fine-grained pointer
 *     chase at the device's default carveout: (footprint, stride, median
 *     cycles of its loads).  The capacity searches make these points, so
 *     they draw latency against footprint, with the step at each cache's
 *     size;
 *   - for each load path, the histogram of every fine-grained sample of
 *     those chases (1-cycle bins): the latency distribution, one mode per
 *     level that served the loads;
 *   - the same points of the chases run at a requested shared-memory
 *     carveout (--carveout: the L1 sized at each carveout), kept apart
 *     with their carveout, since each carveout is a cache of its own size.
 *
 * The collector sits between the probes and the backend as a wrapper
 * backend (mt_plot_observe_wrap), like the recorder: it sees each batch and
 * its results and changes nothing, so a replay of a recording
 * (--replay DIR --plot OUT) collects the same data as the run that made it.
 * Cycles are as the backend returns them: the timer overhead (about 3
 * cycles on an H100, finding gpu.timer_overhead) is still included.
 * Pure data and a backend wrapper: no I/O, no printing. */
#ifndef MT_PLOT_DATA_H
#define MT_PLOT_DATA_H

#include <stddef.h>
#include <stdint.h>

#include "../backend/backend.h"
#include "../core/error.h"

/* Histogram bins of one cycle each, 0..MT_PLOT_HIST_BINS-1; a sample beyond
 * the last bin counts in the last one.  4096 cycles is above every latency
 * a pointer chase can see on the GPUs memtopo knows (DRAM about 700 cycles
 * on an H100, a TLB miss adds at most a few hundred more). */
#define MT_PLOT_HIST_BINS 4096

typedef struct {
    uint64_t footprint; /* bytes */
    uint32_t stride;    /* bytes */
    double median;      /* cycles, median of the chase's samples */
    int carveout;       /* the requested carveout in percent; -1: the default */
} mt_plot_point;

typedef struct {
    mt_plot_point *points; /* in the order the probes ran them */
    size_t n_points, cap_points;
    uint64_t hist[MT_PLOT_HIST_BINS];
    uint64_t n_samples;
} mt_plot_series;

typedef struct {
    mt_plot_series path[MT_PATH_COUNT]; /* indexed by mt_path: default carveout */
    mt_plot_series carveout;            /* ld.global.ca chases at a requested carveout */
} mt_plot_data;

/* A zeroed collector; NULL when out of memory. */
mt_plot_data *mt_plot_data_new(void);
/* NULL-safe. */
void mt_plot_data_free(mt_plot_data *pd);

/* Adds what experiment e measured (result r) when it is a single-chain
 * fine-grained chase (at a requested carveout: to `carveout` when on the
 * ld.global.ca path); anything else is left out.
 * MT_ERR_NOMEM on allocation failure. */
mt_err mt_plot_data_add(mt_plot_data *pd, const mt_experiment *e, const mt_result *r,
                        mt_errinfo *ei);

/* A backend that runs every batch on inner and adds each experiment's
 * result to pd (which must outlive it).  On success the wrapper owns inner
 * (destroying the wrapper destroys inner); on failure inner is untouched
 * and still the caller's. */
mt_err mt_plot_observe_wrap(mt_backend *inner, mt_plot_data *pd, mt_backend **out,
                            mt_errinfo *ei);

#endif

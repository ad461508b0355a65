/* The "fits / does not fit" decision of the geometry probes, one copy for
 * the stride-conflict search (probe_geometry.c) and the set-index hash
 * recovery (geometry_hash.c).
 *
 * A list of m distinct lines FITS a cache when no set receives more of
 * them than it has ways.  Whatever the policy (LRU, FIFO, tree pseudo-LRU,
 * random), a lap over a list that fits loads nothing once the lines are
 * resident, while a lap over a list that does not fit misses at least once
 * (the lines of an overfull set cannot all be resident).  So a list does
 * not fit when EVERY timed lap has a miss; a fitting list only looks so
 * when timer outliers land in every lap, chance q^L with q = 1 - (1-p0)^m
 * (p0: outlier rate per load of a reference that fits).  The laps are
 * chosen so that this chance is below GEOMETRY_ALPHA. */
#ifndef MT_GEOMETRY_FIT_H
#define MT_GEOMETRY_FIT_H

#include "probe_internal.h"

/* A stride search makes about 250 decisions and the hash recovery a few
 * hundred more: 1e-5 keeps a false "does not fit" below 1 in 200 runs. */
#define GEOMETRY_ALPHA 1e-5
/* Most laps one decision is timed over (beyond: undecided, no claim). */
#define GEOMETRY_MAX_LAPS 32u
/* Warm-up laps before timing: one lap loads a fitting list whole. */
#define GEOMETRY_WARMUP_LAPS 2u

/* The laps a decision over m loads per lap needs (0: more than
 * GEOMETRY_MAX_LAPS). */
uint32_t mt_geometry_laps_needed(double p0, uint64_t m);

/* Whole laps of one result (m loads each) that include a load slower than
 * thr; adds them to *missed and the laps to *laps. */
mt_err mt_geometry_count_laps(mt_probe_ctx *c, const mt_result *r, uint64_t m, double thr,
                              size_t *missed, size_t *laps);

/* Laps a confirming decision is timed over at least (geometry_hash.c,
 * confirm_members), decided by how many laps missed (below), not by
 * whether all did.  A miss whose latency falls below the hit threshold
 * (a next level close to the cache's hits: the texture's L2 misses at
 * 194 +- 23 cycles against a threshold of 185, unseen seed 2462) hides,
 * and a list that does not fit then shows a lap without a miss with
 * chance h^k (h: the hidden share, k: its misses a lap, 1 or 2 under a
 * random policy): over the 2-3 laps an outlier rate alone asks for, a
 * false "fits" is likely (h = 0.35: 1 in 2), over 32 laps at most a
 * few laps of a list that does not fit pass, far above the outliers'
 * count, unless nearly every miss hides. */
#define GEOMETRY_CONFIRM_LAPS 32u

/* The most of `laps` laps (chance q each) that timer outliers put a miss
 * in, at level alpha: the smallest c with P(Binomial(laps, q) > c) <
 * alpha (laps when even every lap is that likely).  Pure. */
uint32_t mt_geometry_outlier_laps(double q, uint32_t laps, double alpha);

/* Which cache, through which load, and what a hit costs. */
typedef struct {
    mt_path path;
    uint32_t line; /* bytes between consecutive line numbers */
    double thr;    /* hit threshold of the cache (cycles) */
    double p0;     /* timer outlier rate per load (see above) */
} mt_fit_target;

typedef enum { MT_FIT_UNDECIDED = -1, MT_FIT_NO = 0, MT_FIT_YES = 1 } mt_fit_verdict;

/* Decides for each of n lists of line numbers (lists[i], lens[i] lines,
 * distinct) whether it fits, all in one batch of access sequences: each
 * run loads the list GEOMETRY_WARMUP_LAPS times untimed, then times whole
 * laps.  A list whose decision would need more laps than the backend's
 * sequence and fine-sample limits allow is MT_FIT_UNDECIDED.  *experiments
 * (optional) grows by the experiments run. */
mt_err mt_geometry_lists_fit(mt_probe_ctx *c, const mt_fit_target *t, uint32_t *const *lists,
                             const uint32_t *lens, size_t n, mt_fit_verdict *verdict,
                             size_t *experiments);

/* As mt_geometry_lists_fit, over at least GEOMETRY_CONFIRM_LAPS timed
 * laps, and a list does not fit when more of its laps missed than timer
 * outliers explain (mt_geometry_outlier_laps at GEOMETRY_ALPHA), so a
 * list whose misses hide below the hit threshold in some laps still does
 * not fit; undecided when the outliers alone could make every lap miss. */
mt_err mt_geometry_lists_fit_counted(mt_probe_ctx *c, const mt_fit_target *t,
                                     uint32_t *const *lists, const uint32_t *lens, size_t n,
                                     mt_fit_verdict *verdict, size_t *experiments);

#endif

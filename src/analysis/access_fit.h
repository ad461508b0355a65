/* Global access granularity from warp-load latencies (probes/probe_access.c,
 * docs/method.md "Global access granularity").  Pure.
 *
 * Each pattern is a warp's 4-byte word list; its level is its latency.  A
 * candidate explains the levels by two counts per pattern: the sectors of
 * G bytes it touches (G = 0: no sector term) and its passes, counted one
 * of two ways: the lines of L bytes it touches, or the bank wavefronts of
 * an array of R / 4 banks of 4 bytes (the most distinct words any one bank
 * must deliver: the L1 shares its array with shared memory since Volta).
 * Least squares fits
 *     level = base + per_sector x (ceil(sectors / k) - 1) + per_pass x (passes - 1)
 *             [+ per_partial when fewer than 32 threads load],
 * the sectors counted one by one (k = 1) or in groups of k, and the
 * partial-warp term tried only after every candidate without it.
 * A candidate is accepted when it predicts every pattern's level within
 * max(min(MT_ACCESS_FIT_PASS_SHARE x its cheapest cost,
 * MT_ACCESS_FIT_TOLERANCE_CYCLES), MT_ACCESS_FIT_SE_FACTOR x that level's
 * standard error) and, with a sector term, when the sector and
 * the pass each cost at least MT_ACCESS_MIN_COST_CYCLES (a free sector
 * fits any size, and a sector with a free pass is the candidate whose
 * pass is that sector, without a sector term).  The sector size is identified when every
 * accepted candidate has the same G > 0, the pass model when every
 * accepted candidate has the same one. */
#ifndef MT_ANALYSIS_ACCESS_FIT_H
#define MT_ANALYSIS_ACCESS_FIT_H

#include <stddef.h>
#include <stdint.h>

#include "../core/error.h"
#include "banks.h"

/* Smallest and largest sector and line sizes tried (bytes): a 4-byte word
 * up to the simulator's largest line (MT_SIM_MAX_LINE); every NVIDIA GPU
 * has 32 B sectors and 128 B lines. */
#define MT_ACCESS_MIN_UNIT 4u
#define MT_ACCESS_MAX_UNIT 4096u
/* Bank rows tried (bytes): 16 to 128 banks of 4 B (every NVIDIA GPU since
 * Maxwell: 32 x 4 B = 128 B). */
#define MT_ACCESS_MIN_ROW 64u
#define MT_ACCESS_MAX_ROW 512u
/* A candidate must predict each level within this share of its cheapest
 * unit's fitted cost (a model one sector or pass off on some pattern then
 * misses it by about that unit's cost: rejected) ... */
#define MT_ACCESS_FIT_PASS_SHARE 0.5
/* ... and never needs more than this many cycles (the tolerance
 * for a bank conflict's cost per degree) ... */
#define MT_ACCESS_FIT_TOLERANCE_CYCLES 2.0
/* ... or within this many of the level's standard errors, when noise
 * makes a level less precise than that (a 1e-4 chance per level for
 * Gaussian noise, so a right candidate is rarely rejected). */
#define MT_ACCESS_FIT_SE_FACTOR 4.0
/* Costs per extra sector (pass) of the accepted candidates must agree
 * within this to be reported as measured: half the 1-cycle
 * resolution of a cost, so the value given is within it whichever
 * accepted candidate is the truth. */
#define MT_ACCESS_COST_SPREAD_CYCLES 0.5
/* ... and the best candidate's cost must be that precise itself: this
 * many of its standard errors (propagated from the levels') within
 * MT_ACCESS_COST_SPREAD_CYCLES, so a noisy level cannot move a cost by
 * more than the cycle unnoticed (2: about a 95% interval). */
#define MT_ACCESS_COST_SE_FACTOR 2.0
/* A candidate with a sector term is accepted only when its sector and its
 * pass each cost at least this: half the simulator's smallest nonzero
 * cost (MT_SIM_MIN_ACCESS_CYCLES). */
#define MT_ACCESS_MIN_COST_CYCLES 0.5

/* Sector groups tried: the sector term counts the sectors a request
 * touches one by one, or in groups of 2, 4 or 8 (a tag stage looking up
 * that many a cycle: the H100's L1 adds a cycle per 4 lines). */
#define MT_ACCESS_MAX_GROUP 8u
/* Threads of a warp: a pattern of fewer (the others predicated off) may
 * cost a fixed extra (the partial-warp term). */
#define MT_ACCESS_WARP 32u

/* A warp's pattern: thread t < n reads byte 4 x word[t] from an aligned
 * base. */
typedef struct {
    uint32_t word[32];
    uint32_t n;
} mt_access_pattern;

/* Distinct `unit`-byte blocks pattern p touches. */
uint32_t mt_access_units(const mt_access_pattern *p, uint32_t unit);
/* Bank wavefronts of p on row / 4 banks of 4 bytes: the most distinct
 * words one bank holds (at least 1). */
uint32_t mt_access_wavefronts(const mt_access_pattern *p, uint32_t row);

typedef struct {
    /* The best candidate (accepted if any is; least squared residuals). */
    uint32_t sector;        /* 0: no cost per sector */
    uint32_t line;          /* pass = a line of this many bytes, or ... */
    uint32_t bank_row;      /* ... (line 0) a bank wavefront of this row */
    uint32_t sector_group;  /* sectors counted in groups of this many (1: one by one) */
    double base, per_sector, per_pass; /* its fit (per_sector: per extra group) */
    double per_partial;     /* a warp with inactive threads costs this more (0: not fitted) */
    /* Standard errors of its three costs, from the levels' standard
     * errors (a cost is pinned only when MT_ACCESS_COST_SE_FACTOR of them
     * fit within MT_ACCESS_COST_SPREAD_CYCLES as well). */
    double base_se, sector_se, pass_se, partial_se;
    double max_residual;    /* its largest |level - fitted| */
    int candidates;         /* candidates tried */
    int accepted;           /* candidates accepted (0: none explains the levels) */
    int sector_identified;  /* every accepted candidate has this sector > 0 */
    int pass_identified;    /* every accepted candidate has this pass model */
    int group_identified;   /* every accepted candidate has this sector group */
    /* The costs every accepted candidate fits, lowest and highest: a cost
     * is pinned when they agree within MT_ACCESS_COST_SPREAD_CYCLES, even
     * where the unit is not (a zero cost per sector fits any sector). */
    double sector_lo, sector_hi, pass_lo, pass_hi, partial_lo, partial_hi;
} mt_access_fit;

/* A cost is pinned (reported as measured) when the accepted candidates'
 * values lo..hi agree within MT_ACCESS_COST_SPREAD_CYCLES and its
 * standard error se is small enough (MT_ACCESS_COST_SE_FACTOR). */
int mt_access_cost_pinned(double lo, double hi, double se);

/* Latency samples are whole cycles (clock differences).  A level whose
 * samples barely vary sits on one integer, up to half a cycle from the
 * truth where the latency itself is not whole (a simulated spec's
 * fractional costs), and averaging more samples no longer helps: for
 * Gaussian noise of sd s cycles the mean of rounded samples is off by at
 * most about 0.5 exp(-2 pi^2 s^2) (the rounding's first Fourier term: 0.5
 * at s = 0, under 0.004 at s = 0.5).  Where the best model drops the
 * partial-warp term (a free partial warp), the same model refitted with
 * the term adds that much for each level to the term's standard error, so
 * the 0 is pinned only when even rounded levels could not hide a cost
 * (unseen seed 3994: noise-free L1 levels put a 1.07-cycle cost at 0.45,
 * under MT_ACCESS_MIN_COST_CYCLES, and the 0 read at 0.9).  Costs the best
 * model fits keep the levels' own errors: a GPU's latencies are whole
 * cycles, and the H100's noise-free L1 levels fit its rule exactly. */
#define MT_ACCESS_TIMER_RESOLUTION_CYCLES 1.0

/* Fits levels lv[0..n-1] of patterns p[0..n-1] (4 <= n <= 128) over every
 * candidate; `samples` per level (mt_bank_level_of's n, from which the
 * levels' spread is recovered for the rounding term above; 0: unknown,
 * no such term).  MT_ERR_INVALID_ARG outside that range. */
mt_err mt_access_fit_levels(const mt_access_pattern *p, const mt_bank_level *lv, size_t n,
                            size_t samples, mt_access_fit *out, mt_errinfo *ei);

#endif

/* Global access granularity from warp-load latencies (probes/probe_access.c,
 * docs/method.md "Global access granularity").  Pure.
 *
 * Each pattern is a warp's 4-byte word list; its level is its latency.
 * For a candidate pair (sector G, line L: powers of two, G <= L) every
 * pattern touches S(G) sectors and N(L) lines, and least squares fits
 *     level = base + per_sector x (S - 1) + per_line x (N - 1).
 * A candidate is accepted when it predicts every pattern's level within
 * max(MT_ACCESS_FIT_TOLERANCE_CYCLES, MT_ACCESS_FIT_SE_FACTOR x that
 * level's standard error), and, for G < L, when each unit costs at least
 * MT_ACCESS_MIN_COST_CYCLES (else it is a one-unit model, G = L, in
 * disguise).  When only one unit costs, the probe cannot tell a sector
 * from a line: it is reported as the line, at no cost per sector.  The
 * sector size is identified when every accepted candidate has the same
 * G < L (a request's cost follows the sectors it touches, in units of G
 * and no other), the line size when every accepted candidate has the
 * same L. */
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
/* A candidate must predict each level within this many cycles (the
 * issue's tolerance for a bank conflict's cost per degree) ... */
#define MT_ACCESS_FIT_TOLERANCE_CYCLES 2.0
/* ... or within this many of the level's standard errors, when noise
 * makes a level less precise than that (a 1e-4 chance per level for
 * Gaussian noise, so a right candidate is rarely rejected). */
#define MT_ACCESS_FIT_SE_FACTOR 4.0
/* Costs per extra sector (line) of the accepted candidates must agree
 * within this to be reported as measured: half the 1-cycle
 * resolution of a cost, so the value given is within it whichever
 * accepted candidate is the truth. */
#define MT_ACCESS_COST_SPREAD_CYCLES 0.5
/* A pair of two units (sector < line) is accepted only when each costs at
 * least this: half the simulator's smallest nonzero cost
 * (MT_SIM_MIN_ACCESS_CYCLES); a cheaper unit is taken as free, and the
 * pattern costs are explained by one unit (a "line" alone). */
#define MT_ACCESS_MIN_COST_CYCLES 0.5

/* A warp's pattern: thread t < n reads byte 4 x word[t] from an aligned
 * base. */
typedef struct {
    uint32_t word[32];
    uint32_t n;
} mt_access_pattern;

/* Distinct `unit`-byte blocks pattern p touches. */
uint32_t mt_access_units(const mt_access_pattern *p, uint32_t unit);

typedef struct {
    uint32_t sector, line;  /* the best candidate (least squared residuals) */
    double base, per_sector, per_line; /* its fit */
    double max_residual;    /* its largest |level - fitted| */
    int candidates;         /* pairs tried */
    int accepted;           /* candidates accepted (0: no pair explains the levels) */
    int sector_identified;  /* every accepted candidate has this sector */
    int line_identified;    /* every accepted candidate has this line */
    /* The costs every accepted candidate fits, lowest and highest: a cost
     * is pinned when they agree within MT_ACCESS_COST_SPREAD_CYCLES, even
     * where the unit is not (a zero cost per sector fits any sector). */
    double sector_lo, sector_hi, line_lo, line_hi;
} mt_access_fit;

/* Fits levels lv[0..n-1] of patterns p[0..n-1] (n >= 4) over every
 * candidate pair.  MT_ERR_INVALID_ARG when n < 4. */
mt_err mt_access_fit_levels(const mt_access_pattern *p, const mt_bank_level *lv, size_t n,
                            mt_access_fit *out, mt_errinfo *ei);

#endif

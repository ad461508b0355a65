/* Shared-memory banks from warp-load latencies (probes/probe_banks.c,
 * docs/method.md "Shared-memory banks").  Pure functions over latency
 * levels; the probe plans the access patterns and sets the findings. */
#ifndef MT_ANALYSIS_BANKS_H
#define MT_ANALYSIS_BANKS_H

#include <stddef.h>

#include "../core/error.h"

/* The latency level of one pattern: the interquartile mean of its samples
 * (robust to timer spikes, and not stuck on whole cycles as a median of
 * integer samples is) and its standard error. */
typedef struct {
    double level, se;
} mt_bank_level;

/* x is reordered (sorted).  MT_ERR_INVALID_ARG when n < 4. */
mt_err mt_bank_level_of(double *x, size_t n, mt_bank_level *out, mt_errinfo *ei);

/* Two levels differ by more than max(min_gap, MT_BANK_SE_FACTOR combined
 * standard errors)?  (thresholds.h) */
int mt_bank_levels_differ(const mt_bank_level *a, const mt_bank_level *b, double min_gap);

/* Stride sweep: lv[i] is the level of 32 threads where thread t reads the
 * 4-byte word t x 2^i.  Once 2^i x 4
 * bytes is a whole row of banks (banks x width), every thread is in one
 * bank: the level stops rising.  *row_index = the first i from which every
 * level equals the last one (within mt_bank_levels_differ), *confirmed =
 * at least one level after it agrees (the plateau was seen, not assumed).
 * *row_index == 0 means no conflict was seen at all. */
void mt_bank_row(const mt_bank_level *lv, size_t n, double min_gap, size_t *row_index,
                 int *confirmed);

/* Which of two reference levels (lo: 16-way, hi: 32-way) x is nearer:
 * 0 = lo, 1 = hi, -1 = neither is clearly nearer (references not
 * separated, or x within min_gap of the midpoint). */
int mt_bank_nearer(const mt_bank_level *x, const mt_bank_level *lo, const mt_bank_level *hi,
                   double min_gap);

#endif

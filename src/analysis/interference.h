/* Interference from the data itself (issue 7): a cheap reference
 * measurement (an L2-resident and a DRAM pointer chase) repeated before the
 * first probe and after every probe is compared with the least disturbed
 * repeat seen so far.  Pure: numbers in, verdict out; the probes' side is
 * src/probes/interference.c. */
#ifndef MT_ANALYSIS_INTERFERENCE_H
#define MT_ANALYSIS_INTERFERENCE_H

#include <stdbool.h>
#include <stddef.h>

#include "../core/error.h"

/* A reference latency must rise above the least disturbed repeat by this
 * share of it AND by MT_INTERFERE_MIN_RISE_CYCLES to count as disturbed.
 * Idle repeats on an H100 agree within 0.14% (README); the simulator's
 * noisiest allowed spec (noise = latency / 8) moves the interquartile mean
 * of 256 loads by about 0.8% of the latency (one standard error), so 5% is
 * over 6 standard errors.  What must be caught is far larger: a memory-bound
 * neighbour doubles the L2 latency (issue 7: 567 vs 270 cycles). */
#define MT_INTERFERE_RISE 0.05
/* ... and by at least this many cycles: the class gap below which two
 * latencies are one (MT_MIN_CLASS_GAP_CYCLES, timer jitter is 1-2). */
#define MT_INTERFERE_MIN_RISE_CYCLES 8.0
/* An SM clock that differs from the first reference's by more than this
 * share: cycle counts of the L2 and DRAM (other clock domains) change with
 * it, so the window is disturbed too.  Boost steps are ~1-2% apart; a
 * throttled or power-capped GPU drops by 10% and more. */
#define MT_INTERFERE_CLOCK_CHANGE 0.05

/* One repeat of the reference measurement.  Latencies are interquartile
 * means in cycles with the timer overhead removed; a component that was not
 * measured is NAN (the comparison skips it), and clock_mhz is 0 when the
 * backend does not know the SM clock. */
typedef struct {
    double l2, dram;
    double clock_mhz;
    int busy_others; /* other processes busy on the GPU then (driver's sample); -1 unknown */
} mt_reference;

/* Mean of the middle half of x (the samples between the 25% and 75%
 * order statistics): immune to a 1% share of outliers of any size, and,
 * unlike the median, continuous when the sample mixes two latency classes
 * in nearly equal shares (near and far L2 partitions).  0 for n == 0. */
double mt_interquartile_mean(const double *x, size_t n);

/* Element-wise minimum of two references (NAN and 0 entries ignored): the
 * least disturbed state seen; the clock is kept from `a` (the first). */
mt_reference mt_reference_least(const mt_reference *a, const mt_reference *b);

typedef enum {
    MT_DISTURB_NONE = 0,
    MT_DISTURB_L2 = 1u << 0,    /* L2-resident chase slower */
    MT_DISTURB_DRAM = 1u << 1,  /* DRAM chase slower */
    MT_DISTURB_CLOCK = 1u << 2, /* SM clock changed */
    MT_DISTURB_BUSY = 1u << 3   /* the driver saw another process using the GPU */
} mt_disturb_cause;

typedef struct {
    unsigned causes;            /* MT_DISTURB_* bits; 0 = not disturbed */
    double l2, l2_base;         /* the values compared (NAN when not measured) */
    double dram, dram_base;
    double clock_mhz, clock_base_mhz;
    int busy_others;
} mt_ref_verdict;

/* Compares `now` with `base` using the thresholds above; a busy neighbour
 * in `now` (busy_others > 0) is a cause whatever the latencies say: one
 * that loads the GPU during the whole run raises every reference alike, so
 * no comparison of references could show it. */
mt_err mt_reference_compare(const mt_reference *base, const mt_reference *now,
                            mt_ref_verdict *out);

#endif

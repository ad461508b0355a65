/* The precision of a latency that is the median of noisy samples (DRAM
 * chases, L2 near and far classes): one rule for every such finding, so
 * that a median whose error may exceed a couple of cycles is reported as
 * the range it is known to, not as a confident value. */
#ifndef MT_PROBE_LATENCY_PRECISION_H
#define MT_PROBE_LATENCY_PRECISION_H

#include <stdbool.h>

#include "../analysis/analysis.h"
#include "probe_internal.h"

/* Coverage of the median's confidence interval (mt_median_ci): one
 * latency in twenty may fall outside, the usual level for an interval a
 * user reads next to the value. */
#define MT_LATENCY_CI_LEVEL 0.95
/* A latency is stated to the cycle, and findings that differ by a couple of
 * cycles are told apart (a derived miss penalty, near vs far partitions):
 * a median whose interval reaches further than this from it is not a value
 * but a range. */
#define MT_LATENCY_MAX_HALF_WIDTH 2.0

/* The level of each of k intervals stated together so that all of them
 * hold their latencies at `family` (Bonferroni: the misses' probabilities
 * add up): a report that states several latencies at 95% apiece holds a
 * wrong one far more often than one in twenty. */
double mt_bonferroni_level(double family, size_t intervals);

/* Robust standard deviation of latency samples: 1.4826 MAD, from the hit
 * threshold's own margin (median + MT_HIT_MARGIN_MADS robust sds, at least
 * MT_MIN_CLASS_GAP_CYCLES), so one rule gives both.  Timer outliers barely
 * move it. */
double mt_robust_sd(const double *x, size_t n);

/* Adds the two thresholds above to the report (every probe that uses them). */
void mt_note_latency_precision(mt_probe_ctx *c);

/* The interval pins the median to MT_LATENCY_MAX_HALF_WIDTH cycles at
 * MT_LATENCY_CI_LEVEL or better. */
bool mt_latency_precise(const mt_median_interval *ci);

/* f is a VALUE finding of ci->median.  Precise: it stays as it is (the
 * report of a GPU whose latencies are precise does not change).  Otherwise
 * it becomes the RANGE [ci->lo, ci->hi], its confidence capped at the
 * interval's coverage, and the note gives the interval and says why. */
void mt_finding_set_precision(mt_finding *f, const mt_median_interval *ci);

#endif

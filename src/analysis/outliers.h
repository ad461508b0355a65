/* The robust outlier test of the fleet comparison (memtopo compare, the
 * MPI fleet report, docs/method.md "Comparing reports"): a value is an
 * outlier when it lies further from the sample's median than
 * MT_OUTLIER_MADS robust standard deviations (1.4826 x MAD), and further
 * than a floor, the finding's repeatability tolerance, so identical GPUs
 * whose values agree to the last digit (MAD 0) are not flagged for the
 * noise a repeat run shows. */
#ifndef MT_OUTLIERS_H
#define MT_OUTLIERS_H

#include <stddef.h>

#include "../core/error.h"

/* 3.5 robust standard deviations: Iglewicz and Hoaglin's cut for the
 * modified z-score; a normal sample of 100 values has a value this far out
 * with probability about 0.05, while a degraded GPU (half an L2, a DRAM 10%
 * slower) sits tens of MADs from identical ones. */
#define MT_OUTLIER_MADS 3.5
/* Turns a median absolute deviation into a normal standard deviation. */
#define MT_MAD_TO_SD 1.4826

typedef struct {
    double median;
    double mad;     /* median absolute deviation from the median */
} mt_robust_center;

/* Median and MAD of x[0..n).  MT_ERR_INVALID_ARG for n == 0 or a
 * non-finite value; MT_ERR_NOMEM. */
mt_err mt_robust_center_of(const double *x, size_t n, mt_robust_center *out);

/* The distance from the median beyond which a value is an outlier:
 * max(MT_OUTLIER_MADS x MT_MAD_TO_SD x mad, floor). */
double mt_outlier_limit(double mad, double floor);

#endif

/* Precision of median latencies (latency_precision.h). */
#include "latency_precision.h"

#include <math.h>

void mt_note_latency_precision(mt_probe_ctx *c)
{
    mt_note_threshold(c, "MT_LATENCY_CI_LEVEL", MT_LATENCY_CI_LEVEL,
                      "coverage of the order-statistic interval of a median latency");
    mt_note_threshold(c, "MT_LATENCY_MAX_HALF_WIDTH", MT_LATENCY_MAX_HALF_WIDTH,
                      "cycles: a median latency whose interval reaches further is a range");
}

double mt_robust_sd(const double *x, size_t n)
{
    return (mt_hit_threshold(x, n) - mt_median(x, n)) / MT_HIT_MARGIN_MADS;
}

double mt_bonferroni_level(double family, size_t intervals)
{
    return 1 - (1 - family) / (double)(intervals ? intervals : 1);
}

bool mt_latency_precise(const mt_median_interval *ci)
{
    double half = fmax(ci->hi - ci->median, ci->median - ci->lo);
    return ci->level >= MT_LATENCY_CI_LEVEL && half <= MT_LATENCY_MAX_HALF_WIDTH;
}

void mt_finding_set_precision(mt_finding *f, const mt_median_interval *ci)
{
    if (mt_latency_precise(ci))
        return;
    f->kind = MT_FIND_RANGE;
    f->lo = ci->lo;
    f->hi = ci->hi;
    mt_finding_doubt(f, ci->level,
                     "a range: the median's %.0f%% CI over %zu samples, [%.1f, %.1f], is wider "
                     "than +-%g cycles",
                     100 * ci->level, ci->n, ci->lo, ci->hi, MT_LATENCY_MAX_HALF_WIDTH);
}

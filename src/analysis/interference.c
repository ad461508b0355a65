/* Reference measurements compared with the least disturbed repeat
 * (interference.h). */
#include "interference.h"

#include <math.h>
#include <stdlib.h>

#include "analysis_internal.h"

double mt_interquartile_mean(const double *x, size_t n)
{
    if (!x || n == 0)
        return 0.0;
    double *s = NULL;
    if (mt_an_sorted_copy(x, n, &s) != MT_OK) {
        /* No memory for a copy: the median stands in (same location for
         * one latency class; never reached with the reference's 256 loads
         * in practice). */
        return mt_an_select_kth(x, n, n / 2);
    }
    size_t lo = n / 4, hi = n - n / 4; /* [lo, hi): the middle half */
    double sum = 0.0;
    for (size_t i = lo; i < hi; i++)
        sum += s[i];
    free(s);
    return sum / (double)(hi - lo);
}

static double least(double a, double b)
{
    if (isnan(a))
        return b;
    if (isnan(b))
        return a;
    return a < b ? a : b;
}

mt_reference mt_reference_least(const mt_reference *a, const mt_reference *b)
{
    mt_reference r = *a;
    r.l2 = least(a->l2, b->l2);
    r.dram = least(a->dram, b->dram);
    if (r.clock_mhz <= 0)
        r.clock_mhz = b->clock_mhz;
    r.busy_others = 0; /* the least disturbed state: nobody busy */
    return r;
}

/* now rose above base by more than the thresholds allow. */
static bool rose(double base, double now)
{
    if (isnan(base) || isnan(now))
        return false;
    double allowed = fmax(MT_INTERFERE_RISE * base, MT_INTERFERE_MIN_RISE_CYCLES);
    return now - base > allowed;
}

mt_err mt_reference_compare(const mt_reference *base, const mt_reference *now,
                            mt_ref_verdict *out)
{
    if (!base || !now || !out)
        return MT_ERR_INVALID_ARG;
    out->causes = MT_DISTURB_NONE;
    out->l2 = now->l2;
    out->l2_base = base->l2;
    out->dram = now->dram;
    out->dram_base = base->dram;
    out->clock_mhz = now->clock_mhz;
    out->clock_base_mhz = base->clock_mhz;
    out->busy_others = now->busy_others;
    if (now->busy_others > 0)
        out->causes |= MT_DISTURB_BUSY;
    if (rose(base->l2, now->l2))
        out->causes |= MT_DISTURB_L2;
    if (rose(base->dram, now->dram))
        out->causes |= MT_DISTURB_DRAM;
    if (base->clock_mhz > 0 && now->clock_mhz > 0 &&
        fabs(now->clock_mhz - base->clock_mhz) > MT_INTERFERE_CLOCK_CHANGE * base->clock_mhz)
        out->causes |= MT_DISTURB_CLOCK;
    return MT_OK;
}

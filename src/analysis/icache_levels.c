/* Plateaus of cycles per instruction against code size (icache_levels.h). */
#include "icache_levels.h"

#include <math.h>

#include "analysis.h"

static void close_level(const mt_icache_point *p, mt_icache_level *lv)
{
    double cpi[MT_ICACHE_MAX_POINTS];
    size_t k = 0;
    for (size_t i = lv->first; i <= lv->last; i++)
        cpi[k++] = p[i].cpi;
    lv->cpi = mt_median(cpi, k);
}

mt_err mt_icache_levels(const mt_icache_point *p, size_t n, double min_step, double z,
                        mt_icache_level *out, size_t *n_out)
{
    *n_out = 0;
    if (n == 0 || n > MT_ICACHE_MAX_POINTS)
        return MT_ERR_INVALID_ARG;
    for (size_t i = 1; i < n; i++)
        if (p[i].code_bytes <= p[i - 1].code_bytes)
            return MT_ERR_INVALID_ARG;
    size_t m = 0;
    out[0] = (mt_icache_level){.first = 0, .last = 0};
    for (size_t i = 1; i < n; i++) {
        double step = p[i].cpi - p[i - 1].cpi;
        double se = sqrt(p[i].se * p[i].se + p[i - 1].se * p[i - 1].se);
        if (step >= min_step && step >= z * se && m + 1 < MT_ICACHE_MAX_LEVELS) {
            out[m].last = i - 1;
            out[m].step = step;
            out[m].step_z = se > 0 ? step / se : INFINITY;
            close_level(p, &out[m]);
            m++;
            out[m] = (mt_icache_level){.first = i, .last = i};
        } else {
            out[m].last = i;
        }
    }
    close_level(p, &out[m]);
    *n_out = m + 1;
    return MT_OK;
}

/* The geometry probes' fits decision (geometry_fit.h). */
#include <math.h>
#include <stdlib.h>

#include "geometry_fit.h"

uint32_t mt_geometry_laps_needed(double p0, uint64_t m)
{
    double q = 1 - pow(1 - p0, (double)m);
    double chance = 1;
    for (uint32_t laps = 1; laps <= GEOMETRY_MAX_LAPS; laps++)
        if ((chance *= q) < GEOMETRY_ALPHA)
            return laps;
    return 0;
}

uint32_t mt_geometry_outlier_laps(double q, uint32_t laps, double alpha)
{
    if (!(q > 0))
        return 0;
    if (q >= 1)
        return laps;
    /* P(X > c) summed from the top, each term C(laps, k) q^k (1-q)^(laps-k)
     * in logs (no underflow for q near 1 or many laps). */
    double lq = log(q), lr = log1p(-q), tail = 0;
    uint32_t c = laps;
    while (c > 0) {
        double term = exp(lgamma(laps + 1.0) - lgamma(c + 1.0) - lgamma(laps - c + 1.0) +
                          c * lq + (laps - c) * lr);
        if (tail + term >= alpha)
            break;
        tail += term;
        c--;
    }
    return c;
}

mt_err mt_geometry_count_laps(mt_probe_ctx *c, const mt_result *r, uint64_t m, double thr,
                              size_t *missed, size_t *laps)
{
    size_t n;
    double *x = mt_fine_samples(c, r, 0, &n);
    if (!x)
        return mt_fail(c->ei, MT_ERR_NOMEM, "out of memory reading samples");
    for (size_t lap = 0; (lap + 1) * m <= n; lap++) {
        bool miss = false;
        for (size_t i = lap * m; i < (lap + 1) * m && !miss; i++)
            miss = x[i] > thr;
        *missed += miss;
        (*laps)++;
    }
    free(x);
    return MT_OK;
}

/* Timed laps per run of a list of m lines (0: not even one fits the
 * backend's limits) and the runs a decision needs. */
static uint32_t plan_runs(const mt_probe_ctx *c, const mt_fit_target *t, uint32_t m,
                          uint32_t min_laps, uint32_t *laps_per_run)
{
    if (m == 0)
        return 0;
    uint32_t laps = mt_geometry_laps_needed(t->p0, m);
    if (min_laps && laps < min_laps)
        laps = min_laps; /* counted: even where the outliers alone ask for more */
    uint64_t by_fine = c->dev.max_fine_loads / m;
    uint64_t by_seq = c->dev.max_sequence ? c->dev.max_sequence / m : UINT32_MAX;
    by_seq = by_seq > GEOMETRY_WARMUP_LAPS ? by_seq - GEOMETRY_WARMUP_LAPS : 0;
    uint64_t per_run = by_fine < by_seq ? by_fine : by_seq;
    if (!laps || !per_run)
        return 0;
    *laps_per_run = (uint32_t)(per_run < laps ? per_run : laps);
    return (laps + *laps_per_run - 1) / *laps_per_run;
}

/* min_laps 0: the laps the outliers ask for, and a list does not fit when
 * every lap missed; otherwise at least min_laps, decided by the count. */
static mt_err lists_fit(mt_probe_ctx *c, const mt_fit_target *t, uint32_t *const *lists,
                        const uint32_t *lens, size_t n, uint32_t min_laps,
                        mt_fit_verdict *verdict, size_t *experiments)
{
    uint32_t *runs = calloc(n ? n : 1, sizeof *runs), *per = calloc(n ? n : 1, sizeof *per);
    size_t total = 0;
    mt_err err = MT_OK;
    if (!runs || !per) {
        free(runs);
        free(per);
        return mt_fail(c->ei, MT_ERR_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        runs[i] = plan_runs(c, t, lens[i], min_laps, &per[i]);
        verdict[i] = MT_FIT_UNDECIDED;
        total += runs[i];
    }
    mt_experiment *e = calloc(total ? total : 1, sizeof *e);
    mt_result *r = calloc(total ? total : 1, sizeof *r);
    uint32_t **idx = calloc(total ? total : 1, sizeof *idx);
    if (!e || !r || !idx) {
        err = mt_fail(c->ei, MT_ERR_NOMEM, "out of memory");
        goto out;
    }
    size_t used = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t m = lens[i], top = 0;
        for (uint32_t j = 0; j < m; j++)
            top = lists[i][j] > top ? lists[i][j] : top;
        uint32_t len = (GEOMETRY_WARMUP_LAPS + per[i]) * m;
        for (uint32_t k = 0; k < runs[i]; k++, used++) {
            if (!(idx[used] = malloc((size_t)len * sizeof **idx))) {
                err = mt_fail(c->ei, MT_ERR_NOMEM, "out of memory");
                goto out;
            }
            for (uint32_t j = 0; j < len; j++)
                idx[used][j] = lists[i][j % m];
            e[used] = mt_exp_chase(t->path, ((uint64_t)top + 1) * t->line, t->line, 0,
                                   per[i] * m, MT_MODE_FINE);
            e[used].kind = MT_KIND_SEQUENCE;
            e[used].u.seq = (mt_sequence){.index = idx[used], .n = len,
                                          .untimed = GEOMETRY_WARMUP_LAPS * m};
        }
    }
    if (total && (err = mt_run(c, e, total, r)) != MT_OK)
        goto out;
    if (experiments)
        *experiments += total;
    used = 0;
    for (size_t i = 0; i < n && err == MT_OK; i++) {
        size_t missed = 0, laps = 0;
        for (uint32_t k = 0; k < runs[i] && err == MT_OK; k++)
            err = mt_geometry_count_laps(c, &r[used++], lens[i], t->thr, &missed, &laps);
        if (runs[i] && laps && !min_laps) {
            verdict[i] = missed == laps ? MT_FIT_NO : MT_FIT_YES;
        } else if (runs[i] && laps) {
            double q = 1 - pow(1 - t->p0, (double)lens[i]);
            uint32_t most = mt_geometry_outlier_laps(q, (uint32_t)laps, GEOMETRY_ALPHA);
            if (most < laps)
                verdict[i] = missed > most ? MT_FIT_NO : MT_FIT_YES;
        } else if (lens[i] == 0)
            verdict[i] = MT_FIT_YES; /* nothing to hold */
    }
    mt_results_free(r, total);
out:
    for (size_t k = 0; idx && k < total; k++)
        free(idx[k]);
    free(idx);
    free(e);
    free(r);
    free(runs);
    free(per);
    return err;
}

mt_err mt_geometry_lists_fit(mt_probe_ctx *c, const mt_fit_target *t, uint32_t *const *lists,
                             const uint32_t *lens, size_t n, mt_fit_verdict *verdict,
                             size_t *experiments)
{
    return lists_fit(c, t, lists, lens, n, 0, verdict, experiments);
}

mt_err mt_geometry_lists_fit_counted(mt_probe_ctx *c, const mt_fit_target *t,
                                     uint32_t *const *lists, const uint32_t *lens, size_t n,
                                     mt_fit_verdict *verdict, size_t *experiments)
{
    return lists_fit(c, t, lists, lens, n, GEOMETRY_CONFIRM_LAPS, verdict, experiments);
}

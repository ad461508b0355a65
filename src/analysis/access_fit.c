/* Global access granularity (access_fit.h). */
#include "access_fit.h"

#include <math.h>

uint32_t mt_access_units(const mt_access_pattern *p, uint32_t unit)
{
    uint64_t seen[32];
    uint32_t n = 0;
    for (uint32_t t = 0; t < p->n && t < 32; t++) {
        uint64_t u = (uint64_t)p->word[t] * 4 / unit;
        int dup = 0;
        for (uint32_t i = 0; i < n && !dup; i++)
            dup = seen[i] == u;
        if (!dup)
            seen[n++] = u;
    }
    return n;
}

/* Solves the 3x3 system a x = b by Gaussian elimination with partial
 * pivoting; -1 when it is singular (the patterns cannot separate the
 * columns). */
static int solve3(double a[3][3], double b[3], double x[3])
{
    for (int c = 0; c < 3; c++) {
        int piv = c;
        for (int r = c + 1; r < 3; r++)
            if (fabs(a[r][c]) > fabs(a[piv][c]))
                piv = r;
        if (fabs(a[piv][c]) < 1e-9)
            return -1;
        for (int k = 0; k < 3; k++) {
            double t = a[c][k];
            a[c][k] = a[piv][k];
            a[piv][k] = t;
        }
        double t = b[c];
        b[c] = b[piv];
        b[piv] = t;
        for (int r = c + 1; r < 3; r++) {
            double f = a[r][c] / a[c][c];
            for (int k = c; k < 3; k++)
                a[r][k] -= f * a[c][k];
            b[r] -= f * b[c];
        }
    }
    for (int c = 2; c >= 0; c--) {
        double s = b[c];
        for (int k = c + 1; k < 3; k++)
            s -= a[c][k] * x[k];
        x[c] = s / a[c][c];
    }
    return 0;
}

/* Least squares of one candidate.  Columns whose regressor is constant
 * over the patterns (a unit no pattern crosses) get a zero coefficient:
 * the fit then has one column fewer, and that unit explains nothing. */
typedef struct {
    double coef[3], sse, worst;
    int within; /* every level predicted within its allowance */
} cand_fit;

static void fit_candidate(const mt_access_pattern *p, const mt_bank_level *lv, size_t n,
                          uint32_t g, uint32_t l, cand_fit *f)
{
    double xs[32 * 4][3];
    double ata[3][3] = {{0}}, atb[3] = {0};
    int used[3] = {1, 0, 0};
    for (size_t i = 0; i < n && i < 128; i++) {
        xs[i][0] = 1;
        xs[i][1] = (double)mt_access_units(&p[i], g) - 1;
        xs[i][2] = (double)mt_access_units(&p[i], l) - 1;
        used[1] |= xs[i][1] != xs[0][1];
        used[2] |= xs[i][2] != xs[0][2];
    }
    if (g == l)
        used[1] = 0; /* one column: the pair is one unit, its cost is per line */
    for (size_t i = 0; i < n && i < 128; i++)
        for (int j = 0; j < 3; j++) {
            if (!used[j])
                continue;
            atb[j] += xs[i][j] * lv[i].level;
            for (int k = 0; k < 3; k++)
                ata[j][k] += used[k] ? xs[i][j] * xs[i][k] : 0;
        }
    for (int j = 0; j < 3; j++)
        if (!used[j])
            ata[j][j] = 1, atb[j] = 0;
    f->coef[0] = f->coef[1] = f->coef[2] = 0;
    f->within = 0;
    f->sse = INFINITY;
    f->worst = INFINITY;
    if (solve3(ata, atb, f->coef))
        return; /* collinear over these patterns: no fit for this pair */
    f->sse = 0;
    f->worst = 0;
    f->within = 1;
    for (size_t i = 0; i < n && i < 128; i++) {
        double r = lv[i].level - (f->coef[0] + f->coef[1] * xs[i][1] + f->coef[2] * xs[i][2]);
        double allow = MT_ACCESS_FIT_SE_FACTOR * lv[i].se;
        allow = allow > MT_ACCESS_FIT_TOLERANCE_CYCLES ? allow : MT_ACCESS_FIT_TOLERANCE_CYCLES;
        f->sse += r * r;
        f->worst = fabs(r) > f->worst ? fabs(r) : f->worst;
        f->within &= fabs(r) <= allow;
    }
    /* Two units only where each costs something: otherwise the pair is a
     * one-unit model in disguise (a free sector fits any sector size). */
    if (g < l)
        f->within &= f->coef[1] >= MT_ACCESS_MIN_COST_CYCLES &&
                     f->coef[2] >= MT_ACCESS_MIN_COST_CYCLES;
}

mt_err mt_access_fit_levels(const mt_access_pattern *p, const mt_bank_level *lv, size_t n,
                            mt_access_fit *out, mt_errinfo *ei)
{
    if (n < 4 || n > 128)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "an access fit needs 4..128 patterns, got %zu", n);
    *out = (mt_access_fit){0};
    double best_sse = INFINITY;
    int best_within = 0;
    uint32_t acc_g = 0, acc_l = 0;
    out->sector_identified = out->line_identified = 1;
    for (uint32_t g = MT_ACCESS_MIN_UNIT; g <= MT_ACCESS_MAX_UNIT; g *= 2)
        for (uint32_t l = g; l <= MT_ACCESS_MAX_UNIT; l *= 2) {
            cand_fit f;
            fit_candidate(p, lv, n, g, l, &f);
            out->candidates++;
            if (f.within) {
                if ((out->accepted && acc_g != g) || g == l)
                    out->sector_identified = 0;
                if (out->accepted && acc_l != l)
                    out->line_identified = 0;
                if (!out->accepted) {
                    out->sector_lo = out->sector_hi = f.coef[1];
                    out->line_lo = out->line_hi = f.coef[2];
                }
                out->sector_lo = fmin(out->sector_lo, f.coef[1]);
                out->sector_hi = fmax(out->sector_hi, f.coef[1]);
                out->line_lo = fmin(out->line_lo, f.coef[2]);
                out->line_hi = fmax(out->line_hi, f.coef[2]);
                acc_g = g, acc_l = l;
                out->accepted++;
            }
            /* The best accepted candidate, else the best of all; ties
             * (equal fits) keep the smaller pair, met first. */
            int better = f.within > best_within ||
                         (f.within == best_within && f.sse < best_sse - 1e-9);
            if (better) {
                best_sse = f.sse;
                best_within = f.within;
                out->sector = g, out->line = l;
                out->base = f.coef[0], out->per_sector = f.coef[1], out->per_line = f.coef[2];
                out->max_residual = f.worst;
            }
        }
    if (!out->accepted)
        out->sector_identified = out->line_identified = 0;
    return MT_OK;
}

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

uint32_t mt_access_wavefronts(const mt_access_pattern *p, uint32_t row)
{
    uint32_t words[32], n = 0, per_bank[MT_ACCESS_MAX_ROW / 4] = {0}, most = 1;
    uint32_t banks = row / 4 < MT_ACCESS_MAX_ROW / 4 ? row / 4 : MT_ACCESS_MAX_ROW / 4;
    for (uint32_t t = 0; t < p->n && t < 32; t++) {
        int dup = 0;
        for (uint32_t i = 0; i < n && !dup; i++)
            dup = words[i] == p->word[t];
        if (dup)
            continue; /* one word read by several threads: one delivery */
        words[n++] = p->word[t];
        uint32_t k = ++per_bank[p->word[t] % banks];
        most = k > most ? k : most;
    }
    return most;
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

typedef struct {
    uint32_t g, line, row; /* sector (0: none); pass: line bytes, or bank row (line 0) */
} candidate;

typedef struct {
    double coef[3], sse, worst;
    int within; /* accepted */
} cand_fit;

static void fit_candidate(const mt_access_pattern *p, const mt_bank_level *lv, size_t n,
                          candidate c, cand_fit *f)
{
    double xs[128][3];
    double ata[3][3] = {{0}}, atb[3] = {0};
    /* A column constant over the patterns (a unit no pattern crosses)
     * explains nothing: it is left out (coefficient 0). */
    int used[3] = {1, 0, 0};
    for (size_t i = 0; i < n; i++) {
        xs[i][0] = 1;
        xs[i][1] = c.g ? (double)mt_access_units(&p[i], c.g) - 1 : 0;
        xs[i][2] = (double)(c.line ? mt_access_units(&p[i], c.line)
                                   : mt_access_wavefronts(&p[i], c.row)) -
                   1;
        used[1] |= xs[i][1] != xs[0][1];
        used[2] |= xs[i][2] != xs[0][2];
    }
    for (size_t i = 0; i < n; i++)
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
    f->sse = f->worst = INFINITY;
    if (solve3(ata, atb, f->coef))
        return; /* the two counts are one over these patterns: no fit */
    f->sse = f->worst = 0;
    f->within = 1;
    /* A level may miss by up to MT_ACCESS_FIT_PASS_SHARE of the cheapest
     * unit's cost (so a model one unit off somewhere is rejected), at most
     * MT_ACCESS_FIT_TOLERANCE_CYCLES, at least its noise. */
    double cheapest = used[2] ? fabs(f->coef[2]) : 0;
    if (used[1] && fabs(f->coef[1]) < cheapest)
        cheapest = fabs(f->coef[1]);
    double tol = MT_ACCESS_FIT_PASS_SHARE * cheapest;
    tol = tol < MT_ACCESS_FIT_TOLERANCE_CYCLES ? tol : MT_ACCESS_FIT_TOLERANCE_CYCLES;
    for (size_t i = 0; i < n; i++) {
        double r = lv[i].level - (f->coef[0] + f->coef[1] * xs[i][1] + f->coef[2] * xs[i][2]);
        double allow = MT_ACCESS_FIT_SE_FACTOR * lv[i].se;
        allow = allow > tol ? allow : tol;
        f->sse += r * r;
        f->worst = fabs(r) > f->worst ? fabs(r) : f->worst;
        f->within &= fabs(r) <= allow;
    }
    /* Two units only where both cost: a free sector fits any sector size,
     * and a sector with a free pass is the one-unit model of a pass the
     * sector's size (met as g = 0). */
    if (c.g)
        f->within &= f->coef[1] >= MT_ACCESS_MIN_COST_CYCLES &&
                     f->coef[2] >= MT_ACCESS_MIN_COST_CYCLES;
}

static void consider(const mt_access_pattern *p, const mt_bank_level *lv, size_t n, candidate c,
                     mt_access_fit *out, candidate *acc, double *best_sse, int *best_within)
{
    cand_fit f;
    fit_candidate(p, lv, n, c, &f);
    out->candidates++;
    if (f.within) {
        if (!out->accepted) {
            out->sector_lo = out->sector_hi = f.coef[1];
            out->pass_lo = out->pass_hi = f.coef[2];
            out->sector_identified = c.g != 0;
            out->pass_identified = 1;
        } else {
            out->sector_identified &= c.g != 0 && c.g == acc->g;
            out->pass_identified &= c.line == acc->line && c.row == acc->row;
        }
        out->sector_lo = fmin(out->sector_lo, f.coef[1]);
        out->sector_hi = fmax(out->sector_hi, f.coef[1]);
        out->pass_lo = fmin(out->pass_lo, f.coef[2]);
        out->pass_hi = fmax(out->pass_hi, f.coef[2]);
        *acc = c;
        out->accepted++;
    }
    /* The best accepted candidate, else the best of all; ties (equal
     * fits) keep the one met first (the smaller units). */
    if (f.within > *best_within || (f.within == *best_within && f.sse < *best_sse - 1e-9)) {
        *best_sse = f.sse;
        *best_within = f.within;
        out->sector = c.g, out->line = c.line, out->bank_row = c.row;
        out->base = f.coef[0], out->per_sector = f.coef[1], out->per_pass = f.coef[2];
        out->max_residual = f.worst;
    }
}

mt_err mt_access_fit_levels(const mt_access_pattern *p, const mt_bank_level *lv, size_t n,
                            mt_access_fit *out, mt_errinfo *ei)
{
    if (n < 4 || n > 128)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "an access fit needs 4..128 patterns, got %zu", n);
    *out = (mt_access_fit){0};
    double best_sse = INFINITY;
    int best_within = 0;
    candidate acc = {0, 0, 0};
    /* g = 0 first: without a sector term; then each sector with each line
     * above it and each bank row (a row's banks are not a sector's
     * container: any sector goes with any row). */
    for (uint32_t g = 0; g <= MT_ACCESS_MAX_UNIT; g = g ? 2 * g : MT_ACCESS_MIN_UNIT) {
        for (uint32_t l = g ? 2 * g : MT_ACCESS_MIN_UNIT; l <= MT_ACCESS_MAX_UNIT; l *= 2)
            consider(p, lv, n, (candidate){g, l, 0}, out, &acc, &best_sse, &best_within);
        for (uint32_t r = MT_ACCESS_MIN_ROW; r <= MT_ACCESS_MAX_ROW; r *= 2)
            consider(p, lv, n, (candidate){g, 0, r}, out, &acc, &best_sse, &best_within);
    }
    return MT_OK;
}

/* Global access granularity (access_fit.h). */
#include "access_fit.h"

#include <math.h>
#include <string.h>

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

/* Columns of a fit: intercept, sector groups, passes, partial warp. */
#define COLS 4

/* Solves the COLS x COLS system a x = b by Gaussian elimination with
 * partial pivoting; -1 when it is singular (the patterns cannot separate
 * the columns). */
static int solve(double a[COLS][COLS], double b[COLS], double x[COLS])
{
    for (int c = 0; c < COLS; c++) {
        int piv = c;
        for (int r = c + 1; r < COLS; r++)
            if (fabs(a[r][c]) > fabs(a[piv][c]))
                piv = r;
        if (fabs(a[piv][c]) < 1e-9)
            return -1;
        for (int k = 0; k < COLS; k++) {
            double t = a[c][k];
            a[c][k] = a[piv][k];
            a[piv][k] = t;
        }
        double t = b[c];
        b[c] = b[piv];
        b[piv] = t;
        for (int r = c + 1; r < COLS; r++) {
            double f = a[r][c] / a[c][c];
            for (int k = c; k < COLS; k++)
                a[r][k] -= f * a[c][k];
            b[r] -= f * b[c];
        }
    }
    for (int c = COLS - 1; c >= 0; c--) {
        double s = b[c];
        for (int k = c + 1; k < COLS; k++)
            s -= a[c][k] * x[k];
        x[c] = s / a[c][c];
    }
    return 0;
}

typedef struct {
    uint32_t g, line, row; /* sector (0: none); pass: line bytes, or bank row (line 0) */
    uint32_t k;            /* sectors per group: the sector term counts groups of k */
    int partial;           /* the partial-warp term is fitted */
} candidate;

typedef struct {
    double coef[COLS], se[COLS], sse, worst;
    int within; /* accepted */
    int fits;   /* every residual within its allowance (the cost checks aside) */
} cand_fit;

/* A pattern's counts under candidate c (each minus its least: 0 for a
 * request of one group and one pass by a full warp). */
static void columns(const mt_access_pattern *p, candidate c, double x[COLS])
{
    x[0] = 1;
    x[1] = c.g ? ceil((double)mt_access_units(p, c.g) / c.k) - 1 : 0;
    x[2] = (double)(c.line ? mt_access_units(p, c.line) : mt_access_wavefronts(p, c.row)) - 1;
    x[3] = c.partial && p->n < MT_ACCESS_WARP ? 1 : 0;
}

/* Standard errors of the fitted coefficients from the levels' own: the
 * coefficients are linear in the levels, coef = (X'X)^-1 X' y, so
 * var(coef_j) = sum_i (row j of (X'X)^-1 X')_i^2 x se_i^2.  A column left
 * out (unused) has none. */
/* The rounding bias a level may carry (MT_ACCESS_TIMER_RESOLUTION_CYCLES):
 * its samples' spread recovered from its standard error (mt_bank_level_of:
 * se^2 = 1.19 sd^2 / samples, its spike bias aside, which only makes the
 * spread look larger and the term smaller). */
static double rounding_bias(const mt_bank_level *lv, size_t samples)
{
    if (!samples)
        return 0;
    double sd = lv->se * sqrt((double)samples / 1.19) / MT_ACCESS_TIMER_RESOLUTION_CYCLES;
    return 0.5 * MT_ACCESS_TIMER_RESOLUTION_CYCLES * exp(-2 * M_PI * M_PI * sd * sd);
}

static void coefficient_se(const double normal[COLS][COLS], const int used[COLS],
                           double xs[][COLS], const mt_bank_level *lv, size_t n, size_t samples,
                           double se[COLS])
{
    double inv[COLS][COLS]; /* inv[j] = column j of (X'X)^-1 (symmetric: its row j) */
    for (int j = 0; j < COLS; j++) {
        double a[COLS][COLS], e[COLS] = {0};
        memcpy(a, normal, sizeof a);
        e[j] = 1;
        if (solve(a, e, inv[j]))
            memset(inv[j], 0, sizeof inv[j]);
    }
    for (int j = 0; j < COLS; j++) {
        double var = 0;
        for (size_t i = 0; i < n && used[j]; i++) {
            double w = 0;
            for (int k = 0; k < COLS; k++)
                w += used[k] ? inv[j][k] * xs[i][k] : 0;
            double q = rounding_bias(&lv[i], samples);
            var += w * w * (lv[i].se * lv[i].se + q * q);
        }
        se[j] = sqrt(var);
    }
}

static void fit_candidate(const mt_access_pattern *p, const mt_bank_level *lv, size_t n,
                          size_t samples, candidate c, cand_fit *f)
{
    double xs[128][COLS];
    double ata[COLS][COLS] = {{0}}, atb[COLS] = {0};
    /* A column constant over the patterns (a unit no pattern crosses)
     * explains nothing: it is left out (coefficient 0). */
    int used[COLS] = {1, 0, 0, 0};
    for (size_t i = 0; i < n; i++) {
        columns(&p[i], c, xs[i]);
        for (int j = 1; j < COLS; j++)
            used[j] |= xs[i][j] != xs[0][j];
    }
    for (size_t i = 0; i < n; i++)
        for (int j = 0; j < COLS; j++) {
            if (!used[j])
                continue;
            atb[j] += xs[i][j] * lv[i].level;
            for (int k = 0; k < COLS; k++)
                ata[j][k] += used[k] ? xs[i][j] * xs[i][k] : 0;
        }
    for (int j = 0; j < COLS; j++)
        if (!used[j])
            ata[j][j] = 1, atb[j] = 0;
    for (int j = 0; j < COLS; j++)
        f->coef[j] = f->se[j] = 0;
    f->within = f->fits = 0;
    f->sse = f->worst = INFINITY;
    double normal[COLS][COLS];
    memcpy(normal, ata, sizeof normal); /* solve() reduces its matrix in place */
    if (solve(ata, atb, f->coef))
        return; /* two counts are one over these patterns: no fit */
    coefficient_se(normal, used, xs, lv, n, samples, f->se);
    f->sse = f->worst = 0;
    f->within = 1;
    /* A level may miss by up to MT_ACCESS_FIT_PASS_SHARE of the cheapest
     * unit's cost (so a model one unit off somewhere is rejected), at most
     * MT_ACCESS_FIT_TOLERANCE_CYCLES, at least its noise.  The partial
     * warp's cost is not a unit: a pattern is never one "off" in it. */
    double cheapest = used[2] ? fabs(f->coef[2]) : 0;
    if (used[1] && fabs(f->coef[1]) < cheapest)
        cheapest = fabs(f->coef[1]);
    double tol = MT_ACCESS_FIT_PASS_SHARE * cheapest;
    tol = tol < MT_ACCESS_FIT_TOLERANCE_CYCLES ? tol : MT_ACCESS_FIT_TOLERANCE_CYCLES;
    for (size_t i = 0; i < n; i++) {
        double r = lv[i].level;
        for (int j = 0; j < COLS; j++)
            r -= f->coef[j] * xs[i][j];
        double allow = MT_ACCESS_FIT_SE_FACTOR * lv[i].se;
        allow = allow > tol ? allow : tol;
        f->sse += r * r;
        f->worst = fabs(r) > f->worst ? fabs(r) : f->worst;
        f->within &= fabs(r) <= allow;
    }
    f->fits = f->within;
    /* Two units only where both cost: a free sector fits any sector size,
     * and a sector with a free pass is the one-unit model of a pass the
     * sector's size (met as g = 0). */
    if (c.g)
        f->within &= f->coef[1] >= MT_ACCESS_MIN_COST_CYCLES &&
                     f->coef[2] >= MT_ACCESS_MIN_COST_CYCLES;
    /* A partial warp's term only where it costs: a free one is the
     * candidate without it (met first). */
    if (c.partial)
        f->within &= f->coef[3] >= MT_ACCESS_MIN_COST_CYCLES;
}

static void consider(const mt_access_pattern *p, const mt_bank_level *lv, size_t n,
                     size_t samples, candidate c, mt_access_fit *out, candidate *acc,
                     double *best_sse, int *best_within)
{
    cand_fit f;
    fit_candidate(p, lv, n, samples, c, &f);
    out->candidates++;
    if (f.within) {
        if (!out->accepted) {
            out->sector_lo = out->sector_hi = f.coef[1];
            out->pass_lo = out->pass_hi = f.coef[2];
            out->partial_lo = out->partial_hi = f.coef[3];
            out->sector_identified = c.g != 0;
            out->group_identified = 1;
            out->pass_identified = 1;
        } else {
            out->sector_identified &= c.g != 0 && c.g == acc->g;
            out->group_identified &= c.k == acc->k;
            out->pass_identified &= c.line == acc->line && c.row == acc->row;
        }
        out->sector_lo = fmin(out->sector_lo, f.coef[1]);
        out->sector_hi = fmax(out->sector_hi, f.coef[1]);
        out->pass_lo = fmin(out->pass_lo, f.coef[2]);
        out->pass_hi = fmax(out->pass_hi, f.coef[2]);
        out->partial_lo = fmin(out->partial_lo, f.coef[3]);
        out->partial_hi = fmax(out->partial_hi, f.coef[3]);
        *acc = c;
        out->accepted++;
    }
    /* The best accepted candidate, else the best of all; ties (equal
     * fits) keep the one met first (the smaller units). */
    if (f.within > *best_within || (f.within == *best_within && f.sse < *best_sse - 1e-9)) {
        *best_sse = f.sse;
        *best_within = f.within;
        out->sector = c.g, out->line = c.line, out->bank_row = c.row;
        out->sector_group = c.g ? c.k : 1;
        out->base = f.coef[0], out->per_sector = f.coef[1], out->per_pass = f.coef[2];
        out->per_partial = f.coef[3];
        out->base_se = f.se[0];
        out->sector_se = f.se[1], out->pass_se = f.se[2], out->partial_se = f.se[3];
        out->max_residual = f.worst;
    }
}

int mt_access_cost_pinned(double lo, double hi, double se)
{
    return hi - lo <= MT_ACCESS_COST_SPREAD_CYCLES &&
           MT_ACCESS_COST_SE_FACTOR * se <= MT_ACCESS_COST_SPREAD_CYCLES;
}

mt_err mt_access_fit_levels(const mt_access_pattern *p, const mt_bank_level *lv, size_t n,
                            size_t samples, mt_access_fit *out, mt_errinfo *ei)
{
    if (n < 4 || n > 128)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "an access fit needs 4..128 patterns, got %zu", n);
    *out = (mt_access_fit){0};
    double best_sse = INFINITY;
    int best_within = 0;
    candidate acc = {0, 0, 0, 1, 0};
    /* Without the partial-warp term first, then with it.  g = 0 first:
     * without a sector term; then each sector with each line above it and
     * each bank row (a row's banks are not a sector's container: any
     * sector goes with any row), its sectors counted one by one, then in
     * groups of 2 .. MT_ACCESS_MAX_GROUP (looked up that many a cycle). */
    for (int partial = 0; partial <= 1; partial++)
        for (uint32_t g = 0; g <= MT_ACCESS_MAX_UNIT; g = g ? 2 * g : MT_ACCESS_MIN_UNIT)
            for (uint32_t k = 1; k <= (g ? MT_ACCESS_MAX_GROUP : 1); k *= 2) {
                for (uint32_t l = g ? 2 * g : MT_ACCESS_MIN_UNIT; l <= MT_ACCESS_MAX_UNIT; l *= 2)
                    consider(p, lv, n, 0, (candidate){g, l, 0, k, partial}, out, &acc, &best_sse,
                             &best_within);
                for (uint32_t r = MT_ACCESS_MIN_ROW; r <= MT_ACCESS_MAX_ROW; r *= 2)
                    consider(p, lv, n, 0, (candidate){g, 0, r, k, partial}, out, &acc, &best_sse,
                             &best_within);
            }
    /* A best model without a partial-warp term says a partial warp is free:
     * that 0 is only as sure as the same model with the term, fitted
     * whatever its cost, says (noise-free rounded levels put a 1.07-cycle
     * cost at 0.45, below MT_ACCESS_MIN_COST_CYCLES: unseen seed 3994). */
    if (out->accepted && out->per_partial == 0) {
        candidate c = {out->sector, out->line, out->bank_row, out->sector ? out->sector_group : 1,
                       1};
        cand_fit f;
        fit_candidate(p, lv, n, samples, c, &f);
        if (f.fits) {
            out->partial_lo = fmin(out->partial_lo, f.coef[3]);
            out->partial_hi = fmax(out->partial_hi, f.coef[3]);
            out->partial_se = f.se[3];
        }
    }
    return MT_OK;
}

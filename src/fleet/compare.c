/* The finding-by-finding comparison of several topologies (compare.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../analysis/outliers.h"
#include "../probes/confidence.h"
#include "compare.h"

const char *mt_cmp_status_name(mt_cmp_status s)
{
    switch (s) {
    case MT_CMP_SAME: return "same";
    case MT_CMP_DIFFERS: return "differs";
    case MT_CMP_MISSING: return "missing";
    case MT_CMP_UNTRUSTED: return "untrusted";
    case MT_CMP_NO_REPORT: return "no report";
    }
    return "?";
}

static int is_number(const mt_finding *f)
{
    return f->kind == MT_FIND_VALUE || f->kind == MT_FIND_LOWER_BOUND ||
           f->kind == MT_FIND_RANGE;
}

/* A number as an interval: a value is a point, a bound open above. */
static void interval_of(const mt_finding *f, double *lo, double *hi)
{
    switch (f->kind) {
    case MT_FIND_VALUE: *lo = *hi = f->value; break;
    case MT_FIND_LOWER_BOUND: *lo = f->lo; *hi = INFINITY; break;
    default: *lo = f->lo; *hi = f->hi; break;
    }
}

/* How far [lo, hi] lies from [clo, chi] (0 when they overlap). */
static double gap(double lo, double hi, double clo, double chi)
{
    return fmax(0.0, fmax(lo - chi, clo - hi));
}

/* A finding as a category: its text, or what kind of finding it is. */
static void category_of(const mt_finding *f, char *buf, size_t n)
{
    if (f->kind == MT_FIND_TEXT || f->kind == MT_FIND_SET)
        snprintf(buf, n, "%s", f->text);
    else if (f->kind == MT_FIND_ABSENT)
        snprintf(buf, n, "absent");
    else if (is_number(f))
        snprintf(buf, n, "a number");
    else
        snprintf(buf, n, "not measured");
}

/* The rows: every (object, finding) of any report, in first-seen order. */
static mt_err collect_rows(const mt_topology *const *reps, size_t n, const char *skip_prefix,
                           mt_fleet_cmp *c)
{
    size_t cap = 0;
    for (size_t r = 0; r < n; r++) {
        if (!reps[r])
            continue;
        for (size_t i = 0; i < reps[r]->n_objects; i++) {
            const mt_object *o = &reps[r]->objects[i];
            if (skip_prefix && strncmp(o->key, skip_prefix, strlen(skip_prefix)) == 0)
                continue;
            for (size_t k = 0; k < o->n_findings; k++) {
                const mt_named_finding *nf = &o->findings[k];
                int seen = 0;
                for (size_t j = 0; j < c->n_rows && !seen; j++)
                    seen = strcmp(c->rows[j].object, o->key) == 0 &&
                           strcmp(c->rows[j].name, nf->name) == 0;
                if (seen)
                    continue;
                if (c->n_rows == cap) {
                    size_t ncap = cap ? 2 * cap : 64;
                    mt_cmp_row *nr = realloc(c->rows, ncap * sizeof *nr);
                    if (!nr)
                        return MT_ERR_NOMEM;
                    c->rows = nr;
                    cap = ncap;
                }
                mt_cmp_row *row = &c->rows[c->n_rows];
                memset(row, 0, sizeof *row);
                snprintf(row->object, sizeof row->object, "%s", o->key);
                snprintf(row->name, sizeof row->name, "%s", nf->name);
                snprintf(row->label, sizeof row->label, "%s", nf->label);
                snprintf(row->unit, sizeof row->unit, "%s", nf->f.unit);
                c->n_rows++;
                if (!(row->status = calloc(n, sizeof *row->status)))
                    return MT_ERR_NOMEM;
            }
        }
    }
    return MT_OK;
}

/* Numbers: the centre (reference or median), its limit, each verdict. */
static mt_err compare_numbers(mt_cmp_row *row, const mt_finding *const *f, size_t n)
{
    double *pts = malloc(n * sizeof *pts);
    if (!pts)
        return MT_ERR_NOMEM;
    size_t np = 0;
    /* The median of the values; of the low ends when none is a value. */
    for (size_t r = 0; r < n; r++)
        if (f[r] && f[r]->kind == MT_FIND_VALUE)
            pts[np++] = f[r]->value;
    row->min = INFINITY;
    row->max = -INFINITY;
    for (size_t r = 0; r < n; r++)
        if (f[r]) {
            double lo, hi;
            interval_of(f[r], &lo, &hi);
            row->min = fmin(row->min, lo);
            row->max = fmax(row->max, lo);
        }
    if (np == 0)
        for (size_t r = 0; r < n; r++)
            if (f[r]) {
                double lo, hi;
                interval_of(f[r], &lo, &hi);
                pts[np++] = lo;
            }
    if (row->reference_mode) {
        interval_of(f[0], &row->center_lo, &row->center_hi);
        row->mad = 0.0;
    } else {
        mt_robust_center rc;
        mt_err e = mt_robust_center_of(pts, np, &rc);
        if (e != MT_OK) {
            free(pts);
            return e;
        }
        row->center_lo = row->center_hi = rc.median;
        row->mad = rc.mad;
    }
    free(pts);
    row->tolerance = mt_compare_tolerance(row->name, row->unit, row->center_lo);
    row->limit = mt_outlier_limit(row->mad, row->tolerance);
    for (size_t r = 0; r < n; r++) {
        if (!f[r])
            continue;
        double lo, hi;
        interval_of(f[r], &lo, &hi);
        if (gap(lo, hi, row->center_lo, row->center_hi) > row->limit)
            row->status[r] = MT_CMP_DIFFERS;
    }
    return MT_OK;
}

/* Categories: equal to the reference's, or to the strict majority's. */
static void compare_categories(mt_cmp_row *row, const mt_finding *const *f, size_t n)
{
    char a[192], b[192];
    size_t best = 0;
    row->category[0] = '\0';
    if (row->reference_mode) {
        category_of(f[0], row->category, sizeof row->category);
    } else {
        for (size_t r = 0; r < n; r++) {
            if (!f[r])
                continue;
            category_of(f[r], a, sizeof a);
            size_t count = 0;
            for (size_t s = 0; s < n; s++)
                if (f[s]) {
                    category_of(f[s], b, sizeof b);
                    count += strcmp(a, b) == 0;
                }
            if (count > best) {
                best = count;
                snprintf(row->category, sizeof row->category, "%s", a);
            }
        }
        if (2 * best <= row->n_compared)
            row->category[0] = '\0'; /* no majority: nobody is the odd one out */
    }
    if (!row->category[0])
        return;
    for (size_t r = 0; r < n; r++)
        if (f[r]) {
            category_of(f[r], a, sizeof a);
            if (strcmp(a, row->category) != 0)
                row->status[r] = MT_CMP_DIFFERS;
        }
}

/* Text findings that describe the measurements behind other findings,
 * with their numbers in the text (the L1's miss profile, the replacement
 * tests' victims): they differ in the last digit from run to run, and what
 * they conclude is compared in its own finding (thrash_footprint,
 * miss_granule, policy). */
static bool is_description(const char *name)
{
    size_t n = strlen(name), t = strlen("_evidence");
    return strcmp(name, "miss_profile") == 0 || (n >= t && strcmp(name + n - t, "_evidence") == 0);
}

static mt_err compare_row(mt_cmp_row *row, const mt_topology *const *reps, size_t n)
{
    row->description = is_description(row->name);
    if (row->description) {
        for (size_t r = 0; r < n; r++)
            row->status[r] = reps[r] ? MT_CMP_SAME : MT_CMP_NO_REPORT;
        return MT_OK;
    }
    const mt_finding **f = calloc(n, sizeof *f); /* the trusted ones */
    if (!f)
        return MT_ERR_NOMEM;
    bool all_numbers = true;
    for (size_t r = 0; r < n; r++) {
        if (!reps[r]) {
            row->status[r] = MT_CMP_NO_REPORT;
            continue;
        }
        const mt_finding *x = mt_topology_get(reps[r], row->object, row->name);
        if (!x) {
            row->status[r] = MT_CMP_MISSING;
            continue;
        }
        if (x->confidence < MT_CONF_TRUSTED || x->kind == MT_FIND_NONE) {
            row->status[r] = MT_CMP_UNTRUSTED;
            continue;
        }
        f[r] = x;
        row->n_compared++;
        all_numbers = all_numbers && is_number(x);
    }
    /* Two reports: the first is the reference; it must be trusted. */
    row->reference_mode = n == 2 && f[0];
    row->numeric = all_numbers && row->n_compared > 0;
    mt_err e = MT_OK;
    if (row->n_compared >= 2 || (row->n_compared == 1 && row->reference_mode)) {
        if (row->numeric)
            e = compare_numbers(row, f, n);
        else
            compare_categories(row, f, n);
    }
    for (size_t r = 0; r < n; r++) {
        /* A missing finding is a difference only where another report
         * holds it trusted. */
        if (row->status[r] == MT_CMP_MISSING && row->n_compared == 0)
            row->status[r] = MT_CMP_SAME;
        if (row->status[r] == MT_CMP_DIFFERS || row->status[r] == MT_CMP_MISSING)
            row->n_flagged++;
    }
    free(f);
    return e;
}

mt_err mt_fleet_compare(const mt_topology *const *reports, size_t n, mt_fleet_cmp **out,
                        mt_errinfo *ei)
{
    return mt_fleet_compare_except(reports, n, NULL, out, ei);
}

mt_err mt_fleet_compare_except(const mt_topology *const *reports, size_t n,
                               const char *skip_prefix, mt_fleet_cmp **out, mt_errinfo *ei)
{
    if (!reports || n == 0 || !out)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "compare: no reports");
    mt_fleet_cmp *c = calloc(1, sizeof *c);
    if (!c || !(c->flagged = calloc(n, sizeof *c->flagged))) {
        free(c);
        return mt_fail(ei, MT_ERR_NOMEM, "compare: out of memory");
    }
    c->n_reports = n;
    mt_err e = collect_rows(reports, n, skip_prefix, c);
    for (size_t i = 0; e == MT_OK && i < c->n_rows; i++)
        e = compare_row(&c->rows[i], reports, n);
    if (e != MT_OK) {
        mt_fleet_cmp_free(c);
        return mt_fail(ei, e, "compare: %s", mt_strerror(e));
    }
    for (size_t r = 0; r < n; r++) {
        c->n_failed += reports[r] == NULL;
        for (size_t i = 0; i < c->n_rows; i++) {
            mt_cmp_status s = c->rows[i].status[r];
            c->flagged[r] += s == MT_CMP_DIFFERS || s == MT_CMP_MISSING;
        }
        c->n_flagged_reports += c->flagged[r] > 0;
    }
    *out = c;
    return MT_OK;
}

void mt_fleet_cmp_free(mt_fleet_cmp *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n_rows; i++)
        free(c->rows[i].status);
    free(c->rows);
    free(c->flagged);
    free(c);
}

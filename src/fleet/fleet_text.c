/* The comparison as text (fleet.h). */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "../analysis/outliers.h"
#include "../core/text.h"
#include "../report/report.h"
#include "fleet.h"

/* A number of row's unit, as the report would show it. */
static void show_number(const mt_cmp_row *row, double v, char *buf, size_t n)
{
    mt_finding f = {.kind = MT_FIND_VALUE, .value = v};
    snprintf(f.unit, sizeof f.unit, "%s", row->unit);
    mt_format_finding(&f, 1, buf, n);
}

static void show_center(const mt_cmp_row *row, char *buf, size_t n)
{
    if (!row->numeric) {
        snprintf(buf, n, "%s", row->category[0] ? row->category : "(no majority)");
        return;
    }
    mt_finding f = {.kind = MT_FIND_VALUE, .value = row->center_lo};
    if (isinf(row->center_hi)) {
        f.kind = MT_FIND_LOWER_BOUND;
        f.lo = row->center_lo;
    } else if (row->center_hi > row->center_lo) {
        f.kind = MT_FIND_RANGE;
        f.lo = row->center_lo;
        f.hi = row->center_hi;
    }
    snprintf(f.unit, sizeof f.unit, "%s", row->unit);
    mt_format_finding(&f, 1, buf, n);
}

/* The members row flags, with what each holds: "#2 25 MiB, #3 missing". */
static void show_flagged(const mt_fleet *fl, const mt_cmp_row *row, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t r = 0; r < fl->n && len < n; r++) {
        char v[200];
        if (row->status[r] == MT_CMP_MISSING) {
            snprintf(v, sizeof v, "missing");
        } else if (row->status[r] == MT_CMP_DIFFERS) {
            const mt_finding *f =
                mt_topology_get(fl->members[r].report, row->object, row->name);
            mt_format_finding(f, 1, v, sizeof v);
        } else {
            continue;
        }
        len += (size_t)snprintf(buf + len, n - len, "%s#%zu %s", len ? ", " : "", r, v);
    }
    if (!buf[0])
        snprintf(buf, n, "-");
}

static void print_members(const mt_fleet *fl, const mt_fleet_cmp *c, FILE *out)
{
    char line[1024];
    for (size_t r = 0; r < fl->n; r++) {
        const mt_fleet_member *m = &fl->members[r];
        if (!m->report) {
            fprintf(out, "  #%-3zu %s: failed: %s\n", r, m->name,
                    mt_escape_line(m->error, line, sizeof line));
            continue;
        }
        const mt_topology *t = m->report;
        fprintf(out, "  #%-3zu %s: %s (%s, %s)%s: %s\n", r, m->name, t->dev.name,
                t->prov.source, t->prov.time_utc[0] ? t->prov.time_utc : "no time",
                c->n_reports == 2 && r == 0 ? ", the reference" : "",
                c->flagged[r] ? "differs" : "same");
    }
}

mt_err mt_fleet_text(const mt_fleet *fl, const mt_fleet_cmp *c, FILE *out, mt_errinfo *ei)
{
    errno = 0;
    fprintf(out, "memtopo: %zu reports compared, %zu findings\n", fl->n, c->n_rows);
    print_members(fl, c, out);
    fprintf(out,
            "Test: each finding is compared with %s;\n"
            "a member differs where it lies further from it than max(%.1f x %.4f x MAD,\n"
            "the finding's repeatability tolerance); categories must equal the %s;\n"
            "findings with confidence < 0.5 are not compared (docs/method.md,\n"
            "\"Comparing reports\").\n\n",
            fl->n == 2 ? "report #0's (the reference)" : "the median of the members",
            MT_OUTLIER_MADS, MT_MAD_TO_SD, fl->n == 2 ? "reference's" : "strict majority's");
    fprintf(out, "%-36s  %-22s  %-12s  %s\n", "Finding", fl->n == 2 ? "Reference" : "Median",
            "Limit", "Flagged");
    for (size_t i = 0; i < c->n_rows; i++) {
        const mt_cmp_row *row = &c->rows[i];
        char name[64], center[200], limit[64], flagged[1024];
        snprintf(name, sizeof name, "%s.%s", row->object, row->name);
        if (row->description) {
            fprintf(out, "%-36s  %s\n", name, "(not compared: describes measurements)");
            continue;
        }
        if (row->n_compared == 0 || (row->n_compared == 1 && !row->reference_mode)) {
            fprintf(out, "%-36s  %s\n", name, row->n_compared ? "(one member: nothing to compare)"
                                                              : "(not compared: confidence < 0.5)");
            continue;
        }
        show_center(row, center, sizeof center);
        if (row->numeric && row->limit == 0.0)
            snprintf(limit, sizeof limit, "exact");
        else if (row->numeric)
            show_number(row, row->limit, limit, sizeof limit);
        else
            snprintf(limit, sizeof limit, "equal");
        show_flagged(fl, row, flagged, sizeof flagged);
        fprintf(out, "%-36s  %-22s  %-12s  %s\n", name, center, limit, flagged);
    }
    fprintf(out, "\n");
    if (c->n_flagged_reports == 0 && c->n_failed == 0) {
        fprintf(out, "Result: same (no finding differs beyond its limit)\n");
    } else {
        fprintf(out, "Result: differs:");
        for (size_t r = 0; r < fl->n; r++) {
            if (!fl->members[r].report)
                fprintf(out, " #%zu %s (failed);", r, fl->members[r].name);
            else if (c->flagged[r])
                fprintf(out, " #%zu %s (%zu finding%s);", r, fl->members[r].name, c->flagged[r],
                        c->flagged[r] == 1 ? "" : "s");
        }
        fprintf(out, "\n");
    }
    if (ferror(out))
        return mt_fail(ei, MT_ERR_IO, "compare: cannot write the comparison: %s",
                       errno ? strerror(errno) : "stream error");
    return MT_OK;
}

/* The findings as CSV: one row per finding of every object, in the
 * topology's order, for spreadsheets and fleet scripts.  RFC 4180 quoting. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "atomic_file.h"
#include "report.h"

static const char *const header[] = {"object", "finding", "label",      "kind", "value",
                                     "lo",     "hi",      "text",       "unit", "source",
                                     "method", "confidence", "note", "value_ns", "lo_ns",
                                     "hi_ns"};
#define N_COLS (sizeof header / sizeof header[0])

/* One field; quoted when it holds a comma, a quote or a line break. */
static void field(FILE *out, const char *s, size_t size, int first)
{
    if (!first)
        fputc(',', out);
    size_t n = strnlen(s, size);
    if (strcspn(s, ",\"\r\n") >= n) {
        fwrite(s, 1, n, out);
        return;
    }
    fputc('"', out);
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '"')
            fputc('"', out);
        fputc(s[i], out);
    }
    fputc('"', out);
}

/* Numbers as in the JSON report: integers without a point, others with 10
 * significant digits. */
static void number(FILE *out, double v)
{
    fputc(',', out);
    if (isfinite(v) && v == floor(v) && fabs(v) < 9007199254740992.0)
        fprintf(out, "%.0f", v);
    else
        fprintf(out, "%.10g", v);
}

static void row(FILE *out, const mt_topology *t, const mt_object *o, const mt_named_finding *nf)
{
    const mt_finding *f = &nf->f;
    field(out, o->key, sizeof o->key, 1);
    field(out, nf->name, sizeof nf->name, 0);
    field(out, nf->label, sizeof nf->label, 0);
    field(out, mt_finding_kind_name(f->kind), 32, 0);
    if (f->kind == MT_FIND_VALUE)
        number(out, f->value);
    else
        fputc(',', out);
    if (f->kind == MT_FIND_LOWER_BOUND || f->kind == MT_FIND_RANGE)
        number(out, f->lo);
    else
        fputc(',', out);
    if (f->kind == MT_FIND_RANGE)
        number(out, f->hi);
    else
        fputc(',', out);
    field(out, f->kind == MT_FIND_TEXT || f->kind == MT_FIND_SET ? f->text : "", sizeof f->text,
          0);
    field(out, f->unit, sizeof f->unit, 0);
    field(out, mt_source_name(f->source), 32, 0);
    field(out, f->method, sizeof f->method, 0);
    number(out, f->confidence);
    field(out, f->note, sizeof f->note, 0);
    /* Numbers in cycles again in ns at the measured clock (empty without). */
    double k = mt_finding_has_ns(t, f) ? mt_topology_ns_per_cycle(t) : 0;
    if (k > 0 && f->kind == MT_FIND_VALUE)
        number(out, f->value * k);
    else
        fputc(',', out);
    if (k > 0 && (f->kind == MT_FIND_LOWER_BOUND || f->kind == MT_FIND_RANGE))
        number(out, f->lo * k);
    else
        fputc(',', out);
    if (k > 0 && f->kind == MT_FIND_RANGE)
        number(out, f->hi * k);
    else
        fputc(',', out);
    fputc('\n', out);
}

static void write_csv(const mt_topology *t, FILE *out)
{
    for (size_t i = 0; i < N_COLS; i++)
        field(out, header[i], 32, i == 0);
    fputc('\n', out);
    for (size_t i = 0; i < t->n_objects; i++)
        for (size_t k = 0; k < t->objects[i].n_findings; k++)
            row(out, t, &t->objects[i], &t->objects[i].findings[k]);
}

mt_err mt_report_csv(const mt_topology *t, const char *path, mt_errinfo *ei)
{
    if (!t || !path || !path[0])
        return mt_fail(ei, MT_ERR_INVALID_ARG, "CSV report: no topology or no output path");
    if (strcmp(path, "-") == 0) {
        errno = 0;
        write_csv(t, stdout);
        if (fflush(stdout) != 0 || ferror(stdout))
            return mt_fail(ei, MT_ERR_IO, "CSV report: cannot write to standard output: %s",
                           errno ? strerror(errno) : "stream error");
        return MT_OK;
    }
    mt_atomic_file af;
    mt_err e = mt_atomic_open(&af, path, ei);
    if (e)
        return e;
    write_csv(t, af.f);
    return mt_atomic_commit(&af, ei); /* checks the stream's error flag, removes on failure */
}

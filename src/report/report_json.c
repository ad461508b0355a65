/* The JSON report (schema/memtopo-report.schema.json).  Every number keeps
 * its unit next to it, every finding its method, source and confidence. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "atomic_file.h"
#include "device_json.h"
#include "report.h"

/* JSON_REAL_PRECISION: 10 significant digits keep every measured quantity
 * (cycles, seconds, confidences) exact to far below its noise while
 * avoiding binary-fraction tails like 0.94999999999999996. */
#define REAL_PRECISION 10

/* Building state: the first failure sticks, later calls are no-ops. */
typedef struct {
    mt_err err;
    mt_errinfo *ei;
} builder;

static json_t *nomem(builder *b, const char *what)
{
    if (!b->err)
        b->err = mt_fail(b->ei, MT_ERR_NOMEM, "JSON report: out of memory building %s", what);
    return NULL;
}

static void set(builder *b, json_t *obj, const char *key, json_t *v)
{
    if (b->err) {
        json_decref(v);
        return;
    }
    if (!obj) {
        json_decref(v);
        nomem(b, key);
    } else if (!v || json_object_set_new(obj, key, v) != 0) { /* set_new frees v on error */
        nomem(b, key);
    }
}

static void append(builder *b, json_t *arr, json_t *v, const char *what)
{
    if (b->err) {
        json_decref(v);
        return;
    }
    if (!arr) {
        json_decref(v);
        nomem(b, what);
    } else if (!v || json_array_append_new(arr, v) != 0) { /* append_new frees v on error */
        nomem(b, what);
    }
}

/* Strings from fixed buffers; bytes that are not valid UTF-8 (a command
 * line may hold anything) become '?', so the document stays valid. */
static json_t *str(const char *s, size_t size)
{
    size_t n = strnlen(s, size);
    json_t *v = json_stringn(s, n);
    if (v)
        return v;
    char *copy = malloc(n + 1);
    if (!copy)
        return NULL;
    for (size_t i = 0; i < n; i++)
        copy[i] = ((unsigned char)s[i] < 0x80) ? s[i] : '?';
    copy[n] = '\0';
    v = json_stringn(copy, n);
    free(copy);
    return v;
}
#define STR(field) str((field), sizeof(field))

/* Empty provenance strings mean "not known": null, not "". */
static json_t *str_or_null(const char *s, size_t size)
{
    return s[0] ? str(s, size) : json_null();
}
#define STR_OR_NULL(field) str_or_null((field), sizeof(field))

/* Integral values (byte counts, cycles of medians) print as integers. */
static json_t *num(builder *b, double v, const char *what)
{
    if (b->err)
        return NULL;
    if (!isfinite(v)) {
        b->err = mt_fail(b->ei, MT_ERR_JSON, "JSON report: %s is not a finite number", what);
        return NULL;
    }
    if (v == floor(v) && fabs(v) < 9007199254740992.0) /* 2^53: exact in a double */
        return json_integer((json_int_t)v);
    return json_real(v);
}

static void set_num(builder *b, json_t *obj, const char *key, double v, const char *what)
{
    json_t *j = num(b, v, what);
    if (j)
        set(b, obj, key, j);
}

/* A finding object, or null for MT_FIND_NONE.  default_unit fills in a
 * finding whose producer left unit empty (e.g. an ABSENT verdict). */
static json_t *finding(builder *b, const mt_finding *f, const char *default_unit,
                       const char *what)
{
    if (b->err)
        return NULL;
    if (f->kind == MT_FIND_NONE)
        return json_null();
    json_t *o = json_object();
    if (!o)
        return nomem(b, what);
    const char *kind = mt_finding_kind_name(f->kind);
    if (strcmp(kind, "?") == 0) {
        b->err = mt_fail(b->ei, MT_ERR_JSON, "JSON report: %s has an unknown kind %d", what,
                         (int)f->kind);
        json_decref(o);
        return NULL;
    }
    set(b, o, "kind", json_string(kind));
    char label[96];
    if (f->kind == MT_FIND_VALUE) {
        snprintf(label, sizeof label, "%s value", what);
        set_num(b, o, "value", f->value, label);
    }
    if (f->kind == MT_FIND_LOWER_BOUND || f->kind == MT_FIND_RANGE) {
        snprintf(label, sizeof label, "%s lo", what);
        set_num(b, o, "lo", f->lo, label);
    }
    if (f->kind == MT_FIND_RANGE) {
        snprintf(label, sizeof label, "%s hi", what);
        set_num(b, o, "hi", f->hi, label);
    }
    set(b, o, "unit", f->unit[0] ? STR(f->unit) : json_string(default_unit));
    set(b, o, "source", json_string(mt_source_name(f->source)));
    set(b, o, "method", STR(f->method));
    snprintf(label, sizeof label, "%s confidence", what);
    set_num(b, o, "confidence", f->confidence, label);
    set(b, o, "note", STR(f->note));
    if (b->err) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static void set_finding(builder *b, json_t *obj, const char *key, const mt_finding *f,
                        const char *default_unit, const char *what)
{
    json_t *j = finding(b, f, default_unit, what);
    if (j)
        set(b, obj, key, j);
}

static json_t *cache_json(builder *b, const mt_topology *t, int i)
{
    const mt_cache_report *c = &t->cache[i];
    const char *key = mt_cache_key((mt_cache_id)i);
    json_t *o = json_object();
    if (!o)
        return nomem(b, key);
    char what[64];
#define FIELD(name, unit)                                                                         \
    do {                                                                                          \
        snprintf(what, sizeof what, "%s.%s", key, #name);                                         \
        set_finding(b, o, #name, &c->name, unit, what);                                           \
    } while (0)
    set(b, o, "name", json_string(mt_cache_name((mt_cache_id)i)));
    set(b, o, "probed", json_boolean(c->probed));
    FIELD(size, "B");
    FIELD(line, "B");
    FIELD(sector, "B");
    FIELD(latency, "cycles");
    FIELD(miss_penalty, "cycles");
    FIELD(per_sm, "count");
#undef FIELD
    json_t *sw = json_array();
    /* A cache is not listed as sharing with itself. */
    for (int k = 0; k < MT_CACHE_COUNT; k++)
        if (k != i && (c->shared_with & (1u << k)))
            append(b, sw, json_string(mt_cache_key((mt_cache_id)k)), "shared_with");
    set(b, o, "shared_with", sw);
    set(b, o, "sharing_tested", json_boolean(c->sharing_tested));
    if (b->err) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *build(builder *b, const mt_topology *t)
{
    json_t *root = json_object();
    if (!root)
        return nomem(b, "the document");
    set(b, root, "schema_version", json_string(MT_SCHEMA_VERSION));

    json_t *tool = json_object();
    set(b, tool, "name", json_string(MT_TOOL_NAME));
    set(b, tool, "version", STR(t->prov.tool_version));
    set(b, root, "tool", tool);

    json_t *prov = json_object();
    set(b, prov, "command_line", STR_OR_NULL(t->prov.command_line));
    set(b, prov, "time_utc", STR_OR_NULL(t->prov.time_utc));
    set(b, prov, "source", STR_OR_NULL(t->prov.source));
    set(b, prov, "replay_of", STR_OR_NULL(t->prov.replay_of));
    set(b, prov, "error", STR_OR_NULL(t->prov.error));
    set(b, root, "provenance", prov);

    json_t *dev = mt_device_to_json(&t->dev);
    if (!dev && !b->err)
        b->err = mt_fail(b->ei, MT_ERR_JSON,
                         "JSON report: cannot encode the device info (out of memory or a "
                         "string that is not UTF-8)");
    set(b, root, "device", dev);

    json_t *caches = json_object();
    for (int i = 0; i < MT_CACHE_COUNT && !b->err; i++)
        set(b, caches, mt_cache_key((mt_cache_id)i), cache_json(b, t, i));
    set(b, root, "caches", caches);

    json_t *fnd = json_object();
    set_finding(b, fnd, "l1_caches_global", &t->l1_caches_global, "bool", "l1_caches_global");
    set_finding(b, fnd, "l2_partition_size", &t->l2_partition_size, "B", "l2_partition_size");
    set_finding(b, fnd, "l2_far_latency", &t->l2_far_latency, "cycles", "l2_far_latency");
    set_finding(b, fnd, "timer_overhead_fine", &t->timer_overhead_fine, "cycles",
                "timer_overhead_fine");
    set_finding(b, fnd, "timer_overhead_agg", &t->timer_overhead_agg, "cycles",
                "timer_overhead_agg");
    set(b, root, "findings", fnd);

    json_t *ths = json_array();
    int nth = t->n_thresholds < 0 ? 0 : t->n_thresholds;
    if (nth > MT_MAX_THRESHOLDS)
        nth = MT_MAX_THRESHOLDS;
    for (int i = 0; i < nth && !b->err; i++) {
        const mt_threshold *th = &t->thresholds[i];
        json_t *o = json_object();
        set(b, o, "name", STR(th->name));
        set_num(b, o, "value", th->value, "a threshold value");
        set(b, o, "why", STR(th->why));
        append(b, ths, o, "thresholds");
    }
    set(b, root, "thresholds", ths);

    json_t *timing = json_object();
    json_t *probes = json_array();
    int ntm = t->n_times < 0 ? 0 : t->n_times;
    if (ntm > MT_MAX_PROBE_TIMES)
        ntm = MT_MAX_PROBE_TIMES;
    for (int i = 0; i < ntm && !b->err; i++) {
        const mt_probe_time *pt = &t->times[i];
        json_t *o = json_object();
        set(b, o, "probe", STR(pt->probe));
        set_num(b, o, "seconds", pt->seconds, "a probe's seconds");
        set(b, o, "experiments", json_integer(pt->experiments));
        append(b, probes, o, "timing");
    }
    set(b, timing, "probes", probes);
    set_num(b, timing, "total_seconds", t->total_seconds, "total_seconds");
    set(b, timing, "total_experiments", json_integer(t->total_experiments));
    set(b, root, "timing", timing);

    if (b->err) {
        json_decref(root);
        return NULL;
    }
    return root;
}

mt_err mt_report_json(const mt_topology *t, const char *path, mt_errinfo *ei)
{
    if (!t || !path || !path[0])
        return mt_fail(ei, MT_ERR_INVALID_ARG, "JSON report: no topology or no output path");
    builder b = {MT_OK, ei};
    json_t *root = build(&b, t);
    if (!root)
        return b.err;
    const size_t flags = JSON_INDENT(2) | JSON_REAL_PRECISION(REAL_PRECISION);

    if (strcmp(path, "-") == 0) {
        int bad = json_dumpf(root, stdout, flags) != 0 || fputc('\n', stdout) == EOF ||
                  fflush(stdout) != 0;
        json_decref(root);
        return bad ? mt_fail(ei, MT_ERR_IO, "JSON report: cannot write to standard output") : MT_OK;
    }

    mt_atomic_file af;
    mt_err e = mt_atomic_open(&af, path, ei);
    if (e) {
        json_decref(root);
        return e;
    }
    if (json_dumpf(root, af.f, flags) != 0 || fputc('\n', af.f) == EOF) {
        json_decref(root);
        e = mt_fail(ei, MT_ERR_IO, "%s: cannot write the JSON report", af.tmp_path);
        mt_atomic_abort(&af);
        return e;
    }
    json_decref(root);
    return mt_atomic_commit(&af, ei);
}

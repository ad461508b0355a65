/* The report document (schema/memtopo-report.schema.json, 2.x): writer and
 * strict reader.  One finding is
 *   {"label", "kind", <value | lo | lo, hi | text | members | nothing>,
 *    "unit", "source", "method", "confidence", "note"}
 * with exactly the members its kind needs; the reader refuses anything
 * else, naming the member, so a report that loads is one the writer could
 * have written. */
#include "topology_json.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device_json.h"

/* ====================================================================== */
/* Writer                                                                  */
/* ====================================================================== */

/* Building state: the first failure sticks, later calls are no-ops. */
typedef struct {
    mt_err err;
    mt_errinfo *ei;
    double ns_per_cycle; /* mt_topology_ns_per_cycle: > 0 adds *_ns members */
} builder;

static void nomem(builder *b, const char *what)
{
    if (!b->err)
        b->err = mt_fail(b->ei, MT_ERR_NOMEM, "JSON report: out of memory building %s", what);
}

static void set(builder *b, json_t *obj, const char *key, json_t *v)
{
    if (b->err || !obj) {
        json_decref(v);
        if (!obj)
            nomem(b, key);
        return;
    }
    if (!v || json_object_set_new(obj, key, v) != 0) /* set_new frees v on error */
        nomem(b, key);
}

static void append(builder *b, json_t *arr, json_t *v, const char *what)
{
    if (b->err || !arr) {
        json_decref(v);
        if (!arr)
            nomem(b, what);
        return;
    }
    if (!v || json_array_append_new(arr, v) != 0) /* append_new frees v on error */
        nomem(b, what);
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
    json_t *j;
    if (v == floor(v) && fabs(v) < 9007199254740992.0) /* 2^53: exact in a double */
        j = json_integer((json_int_t)v);
    else
        j = json_real(v);
    if (!j)
        nomem(b, what);
    return j;
}

static void set_num(builder *b, json_t *obj, const char *key, double v, const char *what)
{
    json_t *j = num(b, v, what);
    if (j)
        set(b, obj, key, j);
}

/* "texture,readonly" -> ["texture", "readonly"]; blanks around keys and
 * empty pieces are dropped ("" is the empty set). */
static json_t *members(builder *b, const char *text, size_t size, const char *what)
{
    json_t *arr = json_array();
    if (!arr) {
        nomem(b, what);
        return NULL;
    }
    size_t n = strnlen(text, size);
    size_t i = 0;
    while (i < n && !b->err) {
        size_t j = i;
        while (j < n && text[j] != ',')
            j++;
        size_t s = i, e = j;
        while (s < e && text[s] == ' ')
            s++;
        while (e > s && text[e - 1] == ' ')
            e--;
        if (e > s)
            append(b, arr, str(text + s, e - s), what);
        i = j + 1;
    }
    if (b->err) {
        json_decref(arr);
        return NULL;
    }
    return arr;
}

static json_t *finding(builder *b, const mt_named_finding *nf, const char *okey)
{
    const mt_finding *f = &nf->f;
    char what[96], sub[112];
    snprintf(what, sizeof what, "%s.%s", okey, nf->name);
    if (b->err)
        return NULL;
    json_t *o = json_object();
    if (!o) {
        nomem(b, what);
        return NULL;
    }
    const char *kind = mt_finding_kind_name(f->kind);
    const char *source = mt_source_name(f->source);
    if (strcmp(kind, "?") == 0)
        b->err = mt_fail(b->ei, MT_ERR_JSON, "JSON report: %s has an unknown kind %d", what,
                         (int)f->kind);
    else if (strcmp(source, "?") == 0)
        b->err = mt_fail(b->ei, MT_ERR_JSON, "JSON report: %s has an unknown source %d", what,
                         (int)f->source);
    set(b, o, "label", STR(nf->label));
    set(b, o, "kind", json_string(kind));
    switch (f->kind) {
    case MT_FIND_VALUE:
        snprintf(sub, sizeof sub, "%s value", what);
        set_num(b, o, "value", f->value, sub);
        break;
    case MT_FIND_RANGE:
    case MT_FIND_LOWER_BOUND:
        snprintf(sub, sizeof sub, "%s lo", what);
        set_num(b, o, "lo", f->lo, sub);
        if (f->kind == MT_FIND_RANGE) {
            snprintf(sub, sizeof sub, "%s hi", what);
            set_num(b, o, "hi", f->hi, sub);
        }
        break;
    case MT_FIND_TEXT:
        set(b, o, "text", STR(f->text));
        break;
    case MT_FIND_SET: {
        json_t *m = members(b, f->text, sizeof f->text, what);
        if (m)
            set(b, o, "members", m);
        break;
    }
    default:
        break; /* none, absent: no data members */
    }
    /* Latencies in time as well (derived: the reader ignores them). */
    if (b->ns_per_cycle > 0 && strcmp(f->unit, "cycles") == 0) {
        if (f->kind == MT_FIND_VALUE)
            set_num(b, o, "value_ns", f->value * b->ns_per_cycle, what);
        if (f->kind == MT_FIND_RANGE || f->kind == MT_FIND_LOWER_BOUND)
            set_num(b, o, "lo_ns", f->lo * b->ns_per_cycle, what);
        if (f->kind == MT_FIND_RANGE)
            set_num(b, o, "hi_ns", f->hi * b->ns_per_cycle, what);
    }
    set(b, o, "unit", STR(f->unit));
    set(b, o, "source", json_string(source));
    set(b, o, "method", STR(f->method));
    snprintf(sub, sizeof sub, "%s confidence", what);
    set_num(b, o, "confidence", f->confidence, sub);
    set(b, o, "note", STR(f->note));
    if (b->err) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* The object flags as named booleans; a bit without a name is refused so
 * that nothing is lost silently (add it here and to the schema). */
static const struct {
    const char *name;
    unsigned bit;
} flag_names[] = {
    {"in_table", MT_OBJ_IN_TABLE},
    {"shareable", MT_OBJ_SHAREABLE},
};
#define N_FLAGS (sizeof flag_names / sizeof flag_names[0])

static json_t *object(builder *b, const mt_object *o)
{
    if (b->err)
        return NULL;
    json_t *j = json_object();
    if (!j) {
        nomem(b, o->key);
        return NULL;
    }
    const char *type = mt_object_type_name(o->type);
    if (strcmp(type, "?") == 0)
        b->err = mt_fail(b->ei, MT_ERR_JSON, "JSON report: object %s has an unknown type %d",
                         o->key, (int)o->type);
    set(b, j, "key", STR(o->key));
    set(b, j, "type", json_string(type));
    set(b, j, "name", STR(o->name));
    set(b, j, "abbrev", STR(o->abbrev));
    json_t *flags = json_object();
    unsigned known = 0;
    for (size_t i = 0; i < N_FLAGS; i++) {
        set(b, flags, flag_names[i].name, json_boolean(o->flags & flag_names[i].bit));
        known |= flag_names[i].bit;
    }
    if ((o->flags & ~known) && !b->err)
        b->err = mt_fail(b->ei, MT_ERR_JSON, "JSON report: object %s has unknown flags 0x%x",
                         o->key, o->flags & ~known);
    set(b, j, "flags", flags);
    set(b, j, "probed", json_boolean(o->probed));
    json_t *fs = json_object();
    for (size_t i = 0; i < o->n_findings && !b->err; i++)
        set(b, fs, o->findings[i].name, finding(b, &o->findings[i], o->key));
    set(b, j, "findings", fs);
    if (b->err) {
        json_decref(j);
        return NULL;
    }
    return j;
}

/* "a,b" -> ["a", "b"]; "" -> null. */
static json_t *probe_list(builder *b, const char *s, size_t size)
{
    if (!s[0])
        return json_null();
    return members(b, s, size, "probes_missing");
}

/* The causes of a degraded report as an array; null when there are none. */
static json_t *disturbed_list(builder *b, const mt_provenance *p)
{
    if (p->n_disturbed <= 0)
        return json_null();
    json_t *arr = json_array();
    int n = p->n_disturbed < MT_MAX_DISTURBED ? p->n_disturbed : MT_MAX_DISTURBED;
    for (int i = 0; i < n && !b->err; i++)
        append(b, arr, STR(p->disturbed[i]), "provenance.disturbed");
    return arr;
}

static json_t *build(builder *b, const mt_topology *t)
{
    json_t *root = json_object();
    if (!root) {
        nomem(b, "the document");
        return NULL;
    }
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
    set(b, prov, "interrupted", json_boolean(t->prov.interrupted));
    json_t *missing = probe_list(b, t->prov.probes_missing, sizeof t->prov.probes_missing);
    if (missing)
        set(b, prov, "probes_missing", missing);
    set(b, prov, "disturbed", disturbed_list(b, &t->prov));
    set(b, root, "provenance", prov);

    json_t *dev = b->err ? NULL : mt_device_to_json(&t->dev);
    if (!dev && !b->err)
        b->err = mt_fail(b->ei, MT_ERR_JSON,
                         "JSON report: cannot encode the device info (out of memory or a "
                         "string that is not UTF-8)");
    set(b, root, "device", dev);

    json_t *objs = json_array();
    for (size_t i = 0; i < t->n_objects && !b->err; i++)
        append(b, objs, object(b, &t->objects[i]), "objects");
    set(b, root, "objects", objs);

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

mt_err mt_topology_build_json(const mt_topology *t, json_t **out, mt_errinfo *ei)
{
    if (!out)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "JSON report: no output");
    *out = NULL;
    if (!t)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "JSON report: no topology");
    builder b = {MT_OK, ei, mt_topology_ns_per_cycle(t)};
    *out = build(&b, t);
    return b.err;
}

json_t *mt_topology_to_json(const mt_topology *t)
{
    json_t *doc = NULL;
    mt_topology_build_json(t, &doc, NULL);
    return doc;
}

/* ====================================================================== */
/* Reader                                                                  */
/* ====================================================================== */

/* Units the schema allows (schema/memtopo-report.schema.json, $defs.unit). */
/* B/clk/SM: bytes per SM cycle (the cluster probes, the bandwidth probe);
 * GB/s: 1e9 bytes per second (the links, since schema 2.5.0). */
static const char *const units[] = {"",    "B",   "cycles",   "count", "bool",
                                    "MHz", "B/B", "B/clk/SM", "GB/s"};

/* Reading state: where messages start ("report", or the file's path). */
typedef struct {
    const char *ctx;
    mt_errinfo *ei;
} reader;

/* A string from the document, safe inside a one-line message: at most 40
 * characters, control characters as '?'. */
static const char *shown(const char *s, char *buf, size_t n)
{
    size_t i = 0;
    for (; s[i] && i + 1 < n && i < 40; i++)
        buf[i] = ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) ? '?' : s[i];
    buf[i] = '\0';
    if (s[i] && n > 4 && i >= 3)
        memcpy(buf + i - 3, "...", 3);
    return buf;
}

static mt_err bad(reader *r, const char *where, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static mt_err bad(reader *r, const char *where, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return mt_fail(r->ei, MT_ERR_JSON, "%s: %s%s%s", r->ctx, where, where[0] ? ": " : "", msg);
}

/* Every member of obj is one of the names in `allowed` (NULL-terminated). */
static mt_err only(reader *r, const json_t *obj, const char *const *allowed, const char *where)
{
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)obj, key, v) {
        int ok = 0;
        for (const char *const *a = allowed; *a && !ok; a++)
            ok = strcmp(*a, key) == 0;
        if (!ok) {
            char buf[48];
            return bad(r, where, "unknown member \"%s\"", shown(key, buf, sizeof buf));
        }
    }
    return MT_OK;
}

static mt_err need(reader *r, const json_t *obj, const char *key, const char *where,
                   const json_t **out)
{
    *out = json_object_get(obj, key);
    if (!*out)
        return bad(r, where, "missing \"%s\"", key);
    return MT_OK;
}

static mt_err need_object(reader *r, const json_t *obj, const char *key, const char *where,
                          const json_t **out)
{
    mt_err e = need(r, obj, key, where, out);
    if (!e && !json_is_object(*out))
        e = bad(r, where, "\"%s\" is not an object", key);
    return e;
}

static mt_err need_array(reader *r, const json_t *obj, const char *key, const char *where,
                         const json_t **out)
{
    mt_err e = need(r, obj, key, where, out);
    if (!e && !json_is_array(*out))
        e = bad(r, where, "\"%s\" is not an array", key);
    return e;
}

/* A string into a buffer of size n; null_ok: null reads as "". */
static mt_err get_str(reader *r, const json_t *obj, const char *key, char *buf, size_t n,
                      int null_ok, const char *where)
{
    const json_t *v;
    mt_err e = need(r, obj, key, where, &v);
    if (e)
        return e;
    if (null_ok && json_is_null(v)) {
        buf[0] = '\0';
        return MT_OK;
    }
    if (!json_is_string(v))
        return bad(r, where, "\"%s\" is not a string%s", key, null_ok ? " or null" : "");
    size_t len = json_string_length(v);
    if (len >= n)
        return bad(r, where, "\"%s\" is longer than %zu characters", key, n - 1);
    if (memchr(json_string_value(v), '\0', len))
        return bad(r, where, "\"%s\" holds a NUL character", key);
    memcpy(buf, json_string_value(v), len + 1);
    return MT_OK;
}

static mt_err get_num(reader *r, const json_t *obj, const char *key, double lo, double hi,
                      double *out, const char *where)
{
    const json_t *v;
    mt_err e = need(r, obj, key, where, &v);
    if (e)
        return e;
    if (!json_is_number(v))
        return bad(r, where, "\"%s\" is not a number", key);
    double x = json_number_value(v);
    if (!(x >= lo && x <= hi))
        return bad(r, where, "\"%s\" = %g is out of range [%g, %g]", key, x, lo, hi);
    *out = x;
    return MT_OK;
}

static mt_err get_uint(reader *r, const json_t *obj, const char *key, unsigned *out,
                       const char *where)
{
    const json_t *v;
    mt_err e = need(r, obj, key, where, &v);
    if (e)
        return e;
    if (!json_is_integer(v))
        return bad(r, where, "\"%s\" is not an integer", key);
    json_int_t x = json_integer_value(v);
    if (x < 0 || (unsigned long long)x > UINT_MAX)
        return bad(r, where, "\"%s\" = %lld is out of range", key, (long long)x);
    *out = (unsigned)x;
    return MT_OK;
}

static mt_err get_bool(reader *r, const json_t *obj, const char *key, bool *out,
                       const char *where)
{
    const json_t *v;
    mt_err e = need(r, obj, key, where, &v);
    if (e)
        return e;
    if (!json_is_boolean(v))
        return bad(r, where, "\"%s\" is not a boolean", key);
    *out = json_is_true(v);
    return MT_OK;
}

/* Keys of objects and names of findings: letters, digits, '_', '.', '-'
 * (they are JSON keys, CSV cells and members of comma-separated sets). */
static int is_key(const char *s)
{
    if (!s[0])
        return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '_' || *s == '.' || *s == '-'))
            return 0;
    return 1;
}

/* A list of keys (members of a set, missing probes) joined with ','. */
static mt_err get_key_list(reader *r, const json_t *arr, char *buf, size_t n, size_t key_max,
                           const char *where)
{
    size_t len = 0;
    size_t i;
    const json_t *v;
    buf[0] = '\0';
    json_array_foreach(arr, i, v) {
        char w[224];
        snprintf(w, sizeof w, "%s[%zu]", where, i);
        if (!json_is_string(v))
            return bad(r, w, "not a string");
        const char *s = json_string_value(v);
        char sb[48];
        if (!is_key(s) || strlen(s) >= key_max)
            return bad(r, w, "\"%s\" is not a key (1 to %zu letters, digits, '_', '.', '-')",
                       shown(s, sb, sizeof sb), key_max - 1);
        size_t l = strlen(s);
        if (len + (len ? 1 : 0) + l >= n)
            return bad(r, where, "longer than %zu characters joined", n - 1);
        if (len)
            buf[len++] = ',';
        memcpy(buf + len, s, l + 1);
        len += l;
    }
    return MT_OK;
}

static mt_err read_finding(reader *r, const json_t *j, mt_named_finding *nf, const char *where)
{
    static const char *const base[] = {"label",  "kind",       "unit", "source",
                                       "method", "confidence", "note", NULL};
    if (!json_is_object(j))
        return bad(r, where, "not an object");
    mt_finding *f = &nf->f;
    char kind[24];
    mt_err e = get_str(r, j, "kind", kind, sizeof kind, 0, where);
    if (!e && mt_finding_kind_from_name(kind, &f->kind) != 0) {
        char sb[48];
        e = bad(r, where, "unknown \"kind\" \"%s\"", shown(kind, sb, sizeof sb));
    }
    if (e)
        return e;
    /* Exactly the members of the kind. */
    const char *extra[3] = {NULL, NULL, NULL};
    switch (f->kind) {
    case MT_FIND_VALUE: extra[0] = "value"; break;
    case MT_FIND_LOWER_BOUND: extra[0] = "lo"; break;
    case MT_FIND_RANGE: extra[0] = "lo"; extra[1] = "hi"; break;
    case MT_FIND_TEXT: extra[0] = "text"; break;
    case MT_FIND_SET: extra[0] = "members"; break;
    default: break;
    }
    /* A finding in cycles may carry its numbers in ns (written when the
     * report has a measured clock); they are derived, so only checked. */
    const char *in_ns[3] = {NULL, NULL, NULL};
    const json_t *unit_j = json_object_get(j, "unit");
    if (json_is_string(unit_j) && strcmp(json_string_value(unit_j), "cycles") == 0)
        for (int k = 0; k < 2 && extra[k]; k++)
            in_ns[k] = strcmp(extra[k], "value") == 0 ? "value_ns"
                       : strcmp(extra[k], "lo") == 0  ? "lo_ns"
                       : strcmp(extra[k], "hi") == 0  ? "hi_ns"
                                                      : NULL;
    const char *allowed[14];
    size_t na = 0;
    for (const char *const *b = base; *b; b++)
        allowed[na++] = *b;
    for (int k = 0; k < 2 && extra[k]; k++)
        allowed[na++] = extra[k];
    for (int k = 0; k < 2 && in_ns[k]; k++)
        allowed[na++] = in_ns[k];
    allowed[na] = NULL;
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)j, key, v) {
        int ok = 0;
        for (size_t k = 0; k < na && !ok; k++)
            ok = strcmp(allowed[k], key) == 0;
        if (!ok) {
            char sb[48];
            return bad(r, where, "\"%s\" is not a member of a \"%s\" finding",
                       shown(key, sb, sizeof sb), kind);
        }
    }
    const double big = HUGE_VAL; /* jansson refuses numbers a double cannot hold */
    if ((e = get_str(r, j, "label", nf->label, sizeof nf->label, 0, where)))
        return e;
    switch (f->kind) {
    case MT_FIND_VALUE:
        e = get_num(r, j, "value", -big, big, &f->value, where);
        break;
    case MT_FIND_LOWER_BOUND:
        e = get_num(r, j, "lo", -big, big, &f->lo, where);
        break;
    case MT_FIND_RANGE:
        e = get_num(r, j, "lo", -big, big, &f->lo, where);
        if (!e)
            e = get_num(r, j, "hi", -big, big, &f->hi, where);
        break;
    case MT_FIND_TEXT:
        e = get_str(r, j, "text", f->text, sizeof f->text, 0, where);
        break;
    case MT_FIND_SET: {
        const json_t *m;
        char w[192];
        snprintf(w, sizeof w, "%s.members", where);
        e = need_array(r, j, "members", where, &m);
        if (!e)
            e = get_key_list(r, m, f->text, sizeof f->text, sizeof(((mt_object *)0)->key), w);
        break;
    }
    default:
        break;
    }
    for (int k = 0; !e && k < 2 && in_ns[k]; k++) {
        double unused;
        if (json_object_get(j, in_ns[k]))
            e = get_num(r, j, in_ns[k], -big, big, &unused, where);
    }
    if (e)
        return e;
    if ((e = get_str(r, j, "unit", f->unit, sizeof f->unit, 0, where)))
        return e;
    int unit_ok = 0;
    for (size_t k = 0; k < sizeof units / sizeof units[0] && !unit_ok; k++)
        unit_ok = strcmp(units[k], f->unit) == 0;
    if (!unit_ok) {
        char sb[48];
        return bad(r, where, "unknown \"unit\" \"%s\"", shown(f->unit, sb, sizeof sb));
    }
    char source[24];
    if ((e = get_str(r, j, "source", source, sizeof source, 0, where)))
        return e;
    if (mt_source_from_name(source, &f->source) != 0) {
        char sb[48];
        return bad(r, where, "unknown \"source\" \"%s\"", shown(source, sb, sizeof sb));
    }
    if ((e = get_str(r, j, "method", f->method, sizeof f->method, 0, where)) ||
        (e = get_num(r, j, "confidence", 0, 1, &f->confidence, where)) ||
        (e = get_str(r, j, "note", f->note, sizeof f->note, 0, where)))
        return e;
    return MT_OK;
}

static mt_err read_object(reader *r, const json_t *j, mt_topology *t, size_t index)
{
    static const char *const allowed[] = {"key",   "type",   "name",     "abbrev",
                                          "flags", "probed", "findings", NULL};
    char where[64];
    snprintf(where, sizeof where, "objects[%zu]", index);
    if (!json_is_object(j))
        return bad(r, where, "not an object");
    mt_object tmp;
    memset(&tmp, 0, sizeof tmp);
    mt_err e = get_str(r, j, "key", tmp.key, sizeof tmp.key, 0, where);
    if (e)
        return e;
    if (!is_key(tmp.key)) {
        char sb[48];
        return bad(r, where, "\"key\" \"%s\" is not a key (letters, digits, '_', '.', '-')",
                   shown(tmp.key, sb, sizeof sb));
    }
    if (mt_topology_object(t, tmp.key))
        return bad(r, where, "a second object \"%s\"", tmp.key);
    snprintf(where, sizeof where, "objects.%s", tmp.key);
    if ((e = only(r, j, allowed, where)))
        return e;
    char type[24];
    if ((e = get_str(r, j, "type", type, sizeof type, 0, where)))
        return e;
    if (mt_object_type_from_name(type, &tmp.type) != 0) {
        char sb[48];
        return bad(r, where, "unknown \"type\" \"%s\"", shown(type, sb, sizeof sb));
    }
    if ((e = get_str(r, j, "name", tmp.name, sizeof tmp.name, 0, where)) ||
        (e = get_str(r, j, "abbrev", tmp.abbrev, sizeof tmp.abbrev, 0, where)))
        return e;
    const json_t *flags;
    if ((e = need_object(r, j, "flags", where, &flags)))
        return e;
    char fw[80];
    snprintf(fw, sizeof fw, "%s.flags", where);
    const char *flag_allowed[N_FLAGS + 1];
    for (size_t i = 0; i < N_FLAGS; i++)
        flag_allowed[i] = flag_names[i].name;
    flag_allowed[N_FLAGS] = NULL;
    if ((e = only(r, flags, flag_allowed, fw)))
        return e;
    for (size_t i = 0; i < N_FLAGS; i++) {
        bool on;
        if ((e = get_bool(r, flags, flag_names[i].name, &on, fw)))
            return e;
        if (on)
            tmp.flags |= flag_names[i].bit;
    }
    if ((e = get_bool(r, j, "probed", &tmp.probed, where)))
        return e;
    const json_t *fs;
    if ((e = need_object(r, j, "findings", where, &fs)))
        return e;

    mt_object *o = mt_topology_add_object(t, tmp.key, tmp.name, tmp.abbrev, tmp.type, tmp.flags);
    if (!o)
        return mt_fail(r->ei, MT_ERR_NOMEM, "%s: %s: out of memory", r->ctx, where);
    o->probed = tmp.probed;
    const char *name;
    const json_t *v;
    json_object_foreach((json_t *)fs, name, v) {
        char w[160], sb[48];
        if (!is_key(name) || strlen(name) >= MT_NAME_LEN)
            return bad(r, where, "finding name \"%s\" is not a key (1 to %d letters, digits, "
                                 "'_', '.', '-')",
                       shown(name, sb, sizeof sb), MT_NAME_LEN - 1);
        snprintf(w, sizeof w, "%s.findings.%s", where, name);
        mt_named_finding nf;
        memset(&nf, 0, sizeof nf);
        if ((e = read_finding(r, v, &nf, w)))
            return e;
        if (mt_object_set(o, name, nf.label, &nf.f) != MT_OK)
            return mt_fail(r->ei, MT_ERR_NOMEM, "%s: %s: out of memory", r->ctx, w);
    }
    return MT_OK;
}

static mt_err read_version(reader *r, const json_t *doc)
{
    char ver[32];
    mt_err e = get_str(r, doc, "schema_version", ver, sizeof ver, 0, "");
    if (e)
        return e;
    int major, minor, patch, used = -1;
    if (sscanf(ver, "%d.%d.%d%n", &major, &minor, &patch, &used) != 3 ||
        used != (int)strlen(ver) || major < 0 || minor < 0 || patch < 0) {
        char sb[48];
        return bad(r, "schema_version", "\"%s\" is not MAJOR.MINOR.PATCH",
                   shown(ver, sb, sizeof sb));
    }
    int ours = atoi(MT_SCHEMA_VERSION);
    if (major != ours)
        return bad(r, "schema_version",
                   "\"%s\" has major version %d; this reader reads version %d.x.y", ver, major,
                   ours);
    return MT_OK;
}

/* "disturbed": null or 1..MT_MAX_DISTURBED non-empty strings.  Optional:
 * reports written before the interference checks do not have it. */
static mt_err read_disturbed(reader *r, const json_t *p, mt_provenance *pv)
{
    const json_t *d = json_object_get(p, "disturbed");
    pv->n_disturbed = 0;
    if (!d || json_is_null(d))
        return MT_OK;
    if (!json_is_array(d) || json_array_size(d) == 0 ||
        json_array_size(d) > MT_MAX_DISTURBED)
        return bad(r, "provenance", "\"disturbed\" is not null or an array of 1 to %d strings",
                   MT_MAX_DISTURBED);
    size_t i;
    const json_t *v;
    json_array_foreach(d, i, v) {
        char w[48];
        snprintf(w, sizeof w, "provenance.disturbed[%zu]", i);
        if (!json_is_string(v) || json_string_length(v) == 0)
            return bad(r, w, "not a non-empty string");
        if (json_string_length(v) >= MT_DISTURBED_LEN)
            return bad(r, w, "longer than %d characters", MT_DISTURBED_LEN - 1);
        if (memchr(json_string_value(v), '\0', json_string_length(v)))
            return bad(r, w, "holds a NUL character");
        memcpy(pv->disturbed[i], json_string_value(v), json_string_length(v) + 1);
    }
    pv->n_disturbed = (int)json_array_size(d);
    return MT_OK;
}

static mt_err read_provenance(reader *r, const json_t *doc, mt_topology *t)
{
    static const char *const allowed[] = {"command_line", "time_utc",       "source",
                                          "replay_of",    "error",          "probes_missing",
                                          "interrupted",  "disturbed",      NULL};
    const json_t *p;
    mt_err e = need_object(r, doc, "provenance", "", &p);
    if (e || (e = only(r, p, allowed, "provenance")))
        return e;
    mt_provenance *pv = &t->prov;
    const char *w = "provenance";
    if ((e = get_str(r, p, "command_line", pv->command_line, sizeof pv->command_line, 1, w)) ||
        (e = get_str(r, p, "time_utc", pv->time_utc, sizeof pv->time_utc, 1, w)) ||
        (e = get_str(r, p, "source", pv->source, sizeof pv->source, 1, w)) ||
        (e = get_str(r, p, "replay_of", pv->replay_of, sizeof pv->replay_of, 1, w)) ||
        (e = get_str(r, p, "error", pv->error, sizeof pv->error, 1, w)))
        return e;
    /* "interrupted" is newer than schema 2.0.0: absent means false. */
    pv->interrupted = false;
    if (json_object_get(p, "interrupted") &&
        (e = get_bool(r, p, "interrupted", &pv->interrupted, w)))
        return e;
    if ((e = read_disturbed(r, p, pv)))
        return e;
    const json_t *m;
    if ((e = need(r, p, "probes_missing", w, &m)))
        return e;
    if (json_is_null(m))
        return MT_OK;
    if (!json_is_array(m))
        return bad(r, w, "\"probes_missing\" is not an array or null");
    if (json_array_size(m) == 0)
        return bad(r, w, "\"probes_missing\" is empty (null when none are missing)");
    return get_key_list(r, m, pv->probes_missing, sizeof pv->probes_missing,
                        sizeof t->times[0].probe, "provenance.probes_missing");
}

static mt_err read_tool(reader *r, const json_t *doc, mt_topology *t)
{
    static const char *const allowed[] = {"name", "version", NULL};
    const json_t *tool;
    mt_err e = need_object(r, doc, "tool", "", &tool);
    if (e || (e = only(r, tool, allowed, "tool")))
        return e;
    char name[32];
    if ((e = get_str(r, tool, "name", name, sizeof name, 0, "tool")))
        return e;
    if (strcmp(name, MT_TOOL_NAME) != 0) {
        char sb[48];
        return bad(r, "tool", "\"name\" is \"%s\", not \"%s\"", shown(name, sb, sizeof sb),
                   MT_TOOL_NAME);
    }
    return get_str(r, tool, "version", t->prov.tool_version, sizeof t->prov.tool_version, 0,
                   "tool");
}

static mt_err read_thresholds(reader *r, const json_t *doc, mt_topology *t)
{
    static const char *const allowed[] = {"name", "value", "why", NULL};
    const json_t *arr;
    mt_err e = need_array(r, doc, "thresholds", "", &arr);
    if (e)
        return e;
    if (json_array_size(arr) > MT_MAX_THRESHOLDS)
        return bad(r, "thresholds", "more than %d entries", MT_MAX_THRESHOLDS);
    size_t i;
    const json_t *v;
    json_array_foreach(arr, i, v) {
        char w[48];
        snprintf(w, sizeof w, "thresholds[%zu]", i);
        mt_threshold *th = &t->thresholds[i];
        if (!json_is_object(v))
            return bad(r, w, "not an object");
        if ((e = only(r, v, allowed, w)) ||
            (e = get_str(r, v, "name", th->name, sizeof th->name, 0, w)) ||
            (e = get_num(r, v, "value", -HUGE_VAL, HUGE_VAL, &th->value, w)) ||
            (e = get_str(r, v, "why", th->why, sizeof th->why, 0, w)))
            return e;
        if (!th->name[0])
            return bad(r, w, "empty \"name\"");
        t->n_thresholds = (int)i + 1;
    }
    return MT_OK;
}

static mt_err read_timing(reader *r, const json_t *doc, mt_topology *t)
{
    static const char *const allowed[] = {"probes", "total_seconds", "total_experiments", NULL};
    static const char *const p_allowed[] = {"probe", "seconds", "experiments", NULL};
    const json_t *tm, *arr;
    mt_err e = need_object(r, doc, "timing", "", &tm);
    if (e || (e = only(r, tm, allowed, "timing")) ||
        (e = need_array(r, tm, "probes", "timing", &arr)))
        return e;
    if (json_array_size(arr) > MT_MAX_PROBE_TIMES)
        return bad(r, "timing.probes", "more than %d entries", MT_MAX_PROBE_TIMES);
    size_t i;
    const json_t *v;
    json_array_foreach(arr, i, v) {
        char w[48];
        snprintf(w, sizeof w, "timing.probes[%zu]", i);
        mt_probe_time *pt = &t->times[i];
        if (!json_is_object(v))
            return bad(r, w, "not an object");
        if ((e = only(r, v, p_allowed, w)) ||
            (e = get_str(r, v, "probe", pt->probe, sizeof pt->probe, 0, w)) ||
            (e = get_num(r, v, "seconds", 0, HUGE_VAL, &pt->seconds, w)) ||
            (e = get_uint(r, v, "experiments", &pt->experiments, w)))
            return e;
        if (!pt->probe[0])
            return bad(r, w, "empty \"probe\"");
        t->n_times = (int)i + 1;
    }
    if ((e = get_num(r, tm, "total_seconds", 0, HUGE_VAL, &t->total_seconds, "timing")) ||
        (e = get_uint(r, tm, "total_experiments", &t->total_experiments, "timing")))
        return e;
    return MT_OK;
}

static mt_err read_doc(reader *r, const json_t *doc, mt_topology *t)
{
    static const char *const allowed[] = {"schema_version", "tool",       "provenance", "device",
                                          "objects",        "thresholds", "timing",     NULL};
    if (!json_is_object(doc))
        return bad(r, "", "the document is not a JSON object");
    mt_err e = read_version(r, doc);
    if (e || (e = only(r, doc, allowed, "")) || (e = read_tool(r, doc, t)) ||
        (e = read_provenance(r, doc, t)))
        return e;
    const json_t *dev;
    if ((e = need(r, doc, "device", "", &dev)))
        return e;
    char dctx[300];
    snprintf(dctx, sizeof dctx, "%s: device", r->ctx);
    if ((e = mt_device_from_json(dev, &t->dev, dctx, r->ei)))
        return e;
    const json_t *objs;
    if ((e = need_array(r, doc, "objects", "", &objs)))
        return e;
    size_t i;
    const json_t *v;
    json_array_foreach(objs, i, v) {
        if ((e = read_object(r, v, t, i)))
            return e;
    }
    if ((e = read_thresholds(r, doc, t)) || (e = read_timing(r, doc, t)))
        return e;
    return MT_OK;
}

static mt_err from_json(const json_t *doc, const char *ctx, mt_topology **out, mt_errinfo *ei)
{
    if (!out)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "%s: no place for the topology", ctx);
    *out = NULL;
    if (!doc)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "%s: no document", ctx);
    mt_topology *t = mt_topology_new();
    if (!t)
        return mt_fail(ei, MT_ERR_NOMEM, "%s: out of memory", ctx);
    reader r = {ctx, ei};
    mt_err e = read_doc(&r, doc, t);
    if (e) {
        mt_topology_free(t);
        return e;
    }
    *out = t;
    return MT_OK;
}

mt_err mt_topology_from_json(const json_t *doc, mt_topology **out, mt_errinfo *ei)
{
    return from_json(doc, "report", out, ei);
}

mt_err mt_topology_read_file(const char *path, mt_topology **out, mt_errinfo *ei)
{
    if (out)
        *out = NULL;
    if (!path || !path[0])
        return mt_fail(ei, MT_ERR_INVALID_ARG, "report: no path");
    json_error_t je;
    json_t *doc = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (!doc) {
        /* jansson's text has no newline; an unreadable file is an I/O error. */
        FILE *f = fopen(path, "rb");
        if (!f)
            return mt_fail(ei, MT_ERR_IO, "%s: cannot read: %s", path, je.text);
        fclose(f);
        return mt_fail(ei, MT_ERR_JSON, "%s:%d:%d: %s", path, je.line, je.column, je.text);
    }
    mt_err e = from_json(doc, path, out, ei);
    json_decref(doc);
    return e;
}

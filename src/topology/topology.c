/* The topology model (topology.h): objects in the order they were added,
 * each with its findings in the order they were first set.  Growable
 * arrays; no printing, no globals. */
#include "topology.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* First capacities: the eight table objects and the GPU fit without a
 * reallocation, as do the seven table findings plus a few others. */
#define FIRST_OBJECTS 16
#define FIRST_FINDINGS 8

mt_topology *mt_topology_new(void)
{
    return calloc(1, sizeof(mt_topology));
}

void mt_topology_free(mt_topology *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->n_objects; i++)
        free(t->objects[i].findings);
    free(t->objects);
    free(t);
}

/* Copies src into a buffer of size n when it fits; 0 ok, -1 too long. */
static int copy_fit(char *dst, size_t n, const char *src)
{
    size_t len = strlen(src);
    if (len >= n)
        return -1;
    memcpy(dst, src, len + 1);
    return 0;
}

/* Copies src, cut to fit. */
static void copy_cut(char *dst, size_t n, const char *src)
{
    size_t len = strnlen(src, n - 1);
    memcpy(dst, src, len);
    dst[len] = '\0';
}

/* Keys of objects and names of findings: letters, digits, '_', '.', '-'
 * (JSON keys, CSV cells, members of comma-separated sets). */
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

mt_object *mt_topology_object(const mt_topology *t, const char *key)
{
    if (!t || !key)
        return NULL;
    for (size_t i = 0; i < t->n_objects; i++)
        if (strcmp(t->objects[i].key, key) == 0)
            return &t->objects[i];
    return NULL;
}

void mt_topology_remove_object(mt_topology *t, const char *key)
{
    mt_object *o = t ? mt_topology_object(t, key) : NULL;
    if (!o)
        return;
    size_t i = (size_t)(o - t->objects);
    free(o->findings);
    memmove(o, o + 1, (t->n_objects - i - 1) * sizeof *o);
    t->n_objects--;
}

mt_object *mt_topology_add_object(mt_topology *t, const char *key, const char *name,
                                  const char *abbrev, mt_object_type type, unsigned flags)
{
    if (!t || !key || !is_key(key) || strlen(key) >= sizeof t->objects[0].key)
        return NULL;
    mt_object *o = mt_topology_object(t, key);
    if (o)
        return o;
    if (t->n_objects == t->cap_objects) {
        size_t cap = t->cap_objects ? 2 * t->cap_objects : FIRST_OBJECTS;
        mt_object *grown = realloc(t->objects, cap * sizeof *grown);
        if (!grown)
            return NULL;
        t->objects = grown;
        t->cap_objects = cap;
    }
    o = &t->objects[t->n_objects++];
    memset(o, 0, sizeof *o);
    copy_cut(o->key, sizeof o->key, key);
    copy_cut(o->name, sizeof o->name, name ? name : key);
    copy_cut(o->abbrev, sizeof o->abbrev, abbrev ? abbrev : o->name);
    o->type = type;
    o->flags = flags;
    return o;
}

static mt_named_finding *find(const mt_object *o, const char *name)
{
    for (size_t i = 0; i < o->n_findings; i++)
        if (strcmp(o->findings[i].name, name) == 0)
            return &o->findings[i];
    return NULL;
}

mt_err mt_object_set(mt_object *o, const char *name, const char *label, const mt_finding *f)
{
    if (!o || !name || !f || !is_key(name) || strlen(name) >= MT_NAME_LEN)
        return MT_ERR_INVALID_ARG;
    if (label && strlen(label) >= MT_LABEL_LEN)
        return MT_ERR_INVALID_ARG;
    /* A copy first: f may point into o->findings, which may move below. */
    mt_finding copy = *f;
    mt_named_finding *nf = find(o, name);
    if (!nf) {
        if (o->n_findings == o->cap_findings) {
            size_t cap = o->cap_findings ? 2 * o->cap_findings : FIRST_FINDINGS;
            mt_named_finding *grown = realloc(o->findings, cap * sizeof *grown);
            if (!grown)
                return MT_ERR_NOMEM;
            o->findings = grown;
            o->cap_findings = cap;
        }
        nf = &o->findings[o->n_findings++];
        memset(nf, 0, sizeof *nf);
        copy_fit(nf->name, sizeof nf->name, name);
        copy_fit(nf->label, sizeof nf->label, label ? label : name);
    } else if (label) {
        copy_fit(nf->label, sizeof nf->label, label);
    }
    nf->f = copy;
    return MT_OK;
}

const mt_finding *mt_object_get(const mt_object *o, const char *name)
{
    if (!o || !name)
        return NULL;
    const mt_named_finding *nf = find(o, name);
    return nf ? &nf->f : NULL;
}

void mt_object_remove(mt_object *o, const char *name)
{
    if (!o || !name)
        return;
    mt_named_finding *nf = find(o, name);
    if (!nf)
        return;
    size_t i = (size_t)(nf - o->findings);
    memmove(nf, nf + 1, (o->n_findings - i - 1) * sizeof *nf);
    o->n_findings--;
}

const mt_finding *mt_topology_get(const mt_topology *t, const char *key, const char *name)
{
    return mt_object_get(mt_topology_object(t, key), name);
}

double mt_finding_value_or(const mt_finding *f, double otherwise)
{
    return f && f->kind == MT_FIND_VALUE ? f->value : otherwise;
}

static void append_note_v(mt_finding *f, const char *fmt, va_list ap)
{
    size_t len = strnlen(f->note, sizeof f->note);
    if (len + 2 >= sizeof f->note)
        return;
    if (len) {
        memcpy(f->note + len, "; ", 3);
        len += 2;
    }
    vsnprintf(f->note + len, sizeof f->note - len, fmt, ap);
}

void mt_finding_append_note(mt_finding *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    append_note_v(f, fmt, ap);
    va_end(ap);
}

void mt_finding_doubt(mt_finding *f, double cap, const char *fmt, ...)
{
    if (f->confidence > cap)
        f->confidence = cap;
    va_list ap;
    va_start(ap, fmt);
    append_note_v(f, fmt, ap);
    va_end(ap);
}

double mt_topology_ns_per_cycle(const mt_topology *t)
{
    const mt_finding *f = mt_topology_get(t, "gpu", "sm_clock");
    double mhz = mt_finding_value_or(f, 0);
    return f && strcmp(f->unit, "MHz") == 0 && mhz > 0 ? 1e3 / mhz : 0;
}

int mt_finding_has_ns(const mt_topology *t, const mt_finding *f)
{
    return f && strcmp(f->unit, "cycles") == 0 &&
           (f->kind == MT_FIND_VALUE || f->kind == MT_FIND_RANGE ||
            f->kind == MT_FIND_LOWER_BOUND) &&
           mt_topology_ns_per_cycle(t) > 0;
}

mt_err mt_topology_note_threshold(mt_topology *t, const char *name, double value,
                                  const char *why)
{
    if (!t || !name || !name[0] || strlen(name) >= sizeof t->thresholds[0].name)
        return MT_ERR_INVALID_ARG;
    for (int i = 0; i < t->n_thresholds && i < MT_MAX_THRESHOLDS; i++)
        if (strcmp(t->thresholds[i].name, name) == 0)
            return MT_OK;
    if (t->n_thresholds < 0 || t->n_thresholds >= MT_MAX_THRESHOLDS)
        return MT_ERR_INVALID_ARG;
    mt_threshold *th = &t->thresholds[t->n_thresholds++];
    memset(th, 0, sizeof *th);
    copy_fit(th->name, sizeof th->name, name);
    th->value = value;
    copy_cut(th->why, sizeof th->why, why ? why : "");
    return MT_OK;
}

/* ---------- enum names ---------- */

static const char *const source_names[] = {"measured", "driver", "derived"};
static const char *const kind_names[] = {"none",   "value", "lower_bound", "range",
                                         "absent", "text",  "set"};
static const char *const type_names[] = {"gpu", "cache", "memory", "tlb", "link"};
#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))
_Static_assert(COUNT(source_names) == MT_SRC_DERIVED + 1, "a source without a name");
_Static_assert(COUNT(kind_names) == MT_FIND_SET + 1, "a finding kind without a name");
_Static_assert(COUNT(type_names) == MT_OBJ_TYPE_COUNT, "an object type without a name");

static const char *name_of(const char *const *names, int n, int v)
{
    return v >= 0 && v < n ? names[v] : "?";
}

static int index_of(const char *const *names, int n, const char *s)
{
    if (!s)
        return -1;
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], s) == 0)
            return i;
    return -1;
}

const char *mt_source_name(mt_source s)
{
    return name_of(source_names, COUNT(source_names), (int)s);
}

int mt_source_from_name(const char *s, mt_source *out)
{
    int i = index_of(source_names, COUNT(source_names), s);
    if (i < 0)
        return -1;
    *out = (mt_source)i;
    return 0;
}

const char *mt_finding_kind_name(mt_finding_kind k)
{
    return name_of(kind_names, COUNT(kind_names), (int)k);
}

int mt_finding_kind_from_name(const char *s, mt_finding_kind *out)
{
    int i = index_of(kind_names, COUNT(kind_names), s);
    if (i < 0)
        return -1;
    *out = (mt_finding_kind)i;
    return 0;
}

const char *mt_object_type_name(mt_object_type t)
{
    return name_of(type_names, COUNT(type_names), (int)t);
}

int mt_object_type_from_name(const char *s, mt_object_type *out)
{
    int i = index_of(type_names, COUNT(type_names), s);
    if (i < 0)
        return -1;
    *out = (mt_object_type)i;
    return 0;
}

int mt_finding_set_has(const mt_finding *f, const char *key)
{
    if (!f || f->kind != MT_FIND_SET || !key || !*key)
        return 0;
    size_t n = strlen(key);
    for (const char *p = f->text; (p = strstr(p, key)) != NULL; p += n)
        if ((p == f->text || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
            return 1;
    return 0;
}

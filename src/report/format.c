/* Text forms of numbers and findings, shared by the text and CSV reports
 * (declared in report.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

/* Decimals that print v (already in its display unit) with 3 significant
 * digits, after dropping trailing zeros: 25.5 -> 1, 50 -> 0, 1.25 -> 2. */
static int sig3_decimals(double v)
{
    double a = fabs(v);
    int d = a < 10 ? 2 : a < 100 ? 1 : 0;
    char tmp[64];
    snprintf(tmp, sizeof tmp, "%.*f", d, v);
    while (d > 0 && tmp[strlen(tmp) - 1] == '0') {
        tmp[strlen(tmp) - 1] = '\0';
        d--;
    }
    return d;
}

/* At most maxdec decimals, trailing zeros (and a bare point) dropped. */
static int trimmed_decimals(double v, int maxdec)
{
    char tmp[64];
    snprintf(tmp, sizeof tmp, "%.*f", maxdec, v);
    int d = maxdec;
    while (d > 0 && tmp[strlen(tmp) - 1] == '0') {
        tmp[strlen(tmp) - 1] = '\0';
        d--;
    }
    return d;
}

static const char *const byte_units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
#define N_BYTE_UNITS ((int)(sizeof byte_units / sizeof byte_units[0]))

/* Binary unit for a byte count: the largest with a display value >= 1,
 * bumped once more when 3-digit rounding reaches 1024 (1048575 B is
 * "1 MiB", not "1024 KiB"). */
static int byte_unit_for(double bytes, double *scaled)
{
    double v = fabs(bytes);
    int u = 0;
    while (v >= 1024.0 && u < N_BYTE_UNITS - 1) {
        v /= 1024.0;
        u++;
    }
    char tmp[64];
    snprintf(tmp, sizeof tmp, "%.*f", sig3_decimals(v), v);
    if (strtod(tmp, NULL) >= 1024.0 && u < N_BYTE_UNITS - 1) {
        v /= 1024.0;
        u++;
    }
    *scaled = bytes < 0 ? -v : v;
    return u;
}

char *mt_format_bytes(double bytes, char *buf, size_t n)
{
    double v;
    int u = byte_unit_for(bytes, &v);
    snprintf(buf, n, "%.*f %s", sig3_decimals(v), v, byte_units[u]);
    return buf;
}

static int is_bytes(const char *unit) { return strcmp(unit, "B") == 0; }

/* Largest decimals used for a non-byte unit: cycles are medians of integer
 * samples (halves at most matter), counts may be averages. */
static int unit_max_decimals(const char *unit)
{
    if (strcmp(unit, "MHz") == 0)
        return 0; /* a clock: 1980 MHz, not 1979.99 */
    if (strcmp(unit, "B/B") == 0)
        return 3; /* a slope: -0.998 must not read as -1 (the 2% check) */
    return strcmp(unit, "cycles") == 0 || strcmp(unit, "ns") == 0 ? 1 : 2;
}

/* One number (VALUE or a bound) with its unit. */
static void format_one(double v, const char *unit, int with_unit, char *buf, size_t n)
{
    if (is_bytes(unit)) {
        mt_format_bytes(v, buf, n);
        return;
    }
    /* ns: three significant digits at most (17.2, 136), so the table's ns
     * column stays narrow. */
    int d = strcmp(unit, "ns") == 0 && fabs(v) >= 100 ? 0 : trimmed_decimals(v, unit_max_decimals(unit));
    if (with_unit && unit[0] && strcmp(unit, "count") != 0)
        snprintf(buf, n, "%.*f %s", d, v, unit);
    else
        snprintf(buf, n, "%.*f", d, v);
}

/* lo-hi sharing one unit and one number of decimals: "22.0-24.5 KiB". */
static void format_range(double lo, double hi, const char *unit, int with_unit, char *buf,
                         size_t n)
{
    double slo = lo, shi = hi;
    const char *ustr = unit;
    int dlo, dhi;
    if (is_bytes(unit) && hi >= 64 * lo) {
        /* Ends far apart ("256 B-64 KiB"): each with its own unit. */
        char a[32], b[32];
        mt_format_bytes(lo, a, sizeof a);
        mt_format_bytes(hi, b, sizeof b);
        snprintf(buf, n, "%s-%s", a, b);
        return;
    }
    if (is_bytes(unit)) {
        int u = byte_unit_for(fabs(hi) > fabs(lo) ? hi : lo, &shi);
        double scale = pow(1024.0, u);
        shi = hi / scale;
        slo = lo / scale;
        ustr = byte_units[u];
        dlo = sig3_decimals(slo);
        dhi = sig3_decimals(shi);
    } else {
        dlo = trimmed_decimals(lo, unit_max_decimals(unit));
        dhi = trimmed_decimals(hi, unit_max_decimals(unit));
    }
    int d = dlo > dhi ? dlo : dhi;
    int show_unit = is_bytes(unit) || (with_unit && unit[0] && strcmp(unit, "count") != 0);
    if (show_unit)
        snprintf(buf, n, "%.*f-%.*f %s", d, slo, d, shi, ustr);
    else
        snprintf(buf, n, "%.*f-%.*f", d, slo, d, shi);
}

char *mt_format_finding(const mt_finding *f, int with_unit, char *buf, size_t n)
{
    char tmp[64];
    switch (f->kind) {
    case MT_FIND_NONE:
        snprintf(buf, n, "-");
        break;
    case MT_FIND_ABSENT:
        snprintf(buf, n, "no");
        break;
    case MT_FIND_VALUE:
        if (strcmp(f->unit, "bool") == 0)
            snprintf(buf, n, "%s", f->value != 0 ? "yes" : "no");
        else
            format_one(f->value, f->unit, with_unit, buf, n);
        break;
    case MT_FIND_LOWER_BOUND:
        format_one(f->lo, f->unit, with_unit, tmp, sizeof tmp);
        snprintf(buf, n, "> %s", tmp);
        break;
    case MT_FIND_RANGE:
        format_range(f->lo, f->hi, f->unit, with_unit, buf, n);
        break;
    case MT_FIND_TEXT:
        if (f->text[0])
            snprintf(buf, n, "%.*s", (int)strnlen(f->text, sizeof f->text), f->text);
        else
            snprintf(buf, n, "-");
        break;
    case MT_FIND_SET: /* keys as they are: mt_format_members knows the abbreviations */
        mt_format_members(NULL, NULL, f->text, sizeof f->text, buf, n);
        break;
    default:
        snprintf(buf, n, "?");
        break;
    }
    return buf;
}


/* Is key one of the comma-separated keys of list? */
static int in_list(const char *list, size_t size, const char *key)
{
    size_t n = strnlen(list, size), kl = strlen(key);
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && list[j] != ',')
            j++;
        size_t s = i, e = j;
        while (s < e && list[s] == ' ')
            s++;
        while (e > s && list[e - 1] == ' ')
            e--;
        if (e - s == kl && memcmp(list + s, key, kl) == 0)
            return 1;
        i = j + 1;
    }
    return 0;
}

/* Appends ", item" (or "item" first) to buf of size n at *len, truncating. */
static void add_item(char *buf, size_t n, size_t *len, const char *item, size_t item_len)
{
    if (*len >= n - 1)
        return;
    int w = snprintf(buf + *len, n - *len, "%s%.*s", *len ? ", " : "", (int)item_len, item);
    if (w > 0)
        *len += (size_t)w < n - *len ? (size_t)w : n - 1 - *len;
}

char *mt_format_members(const mt_topology *t, const mt_object *self, const char *keys,
                        size_t keys_size, char *buf, size_t n)
{
    size_t len = 0;
    if (!n)
        return buf;
    buf[0] = '\0';
    /* Objects of the topology, in its order. */
    for (size_t i = 0; t && i < t->n_objects; i++) {
        const mt_object *o = &t->objects[i];
        if (o == self || (self && strcmp(o->key, self->key) == 0))
            continue;
        if (!in_list(keys, keys_size, o->key))
            continue;
        const char *ab = o->abbrev[0] ? o->abbrev : o->key;
        add_item(buf, n, &len, ab, strnlen(ab, sizeof o->abbrev));
    }
    /* Keys that name no object, as they are. */
    size_t kn = strnlen(keys, keys_size);
    for (size_t i = 0; i < kn;) {
        size_t j = i;
        while (j < kn && keys[j] != ',')
            j++;
        size_t s = i, e = j;
        while (s < e && keys[s] == ' ')
            s++;
        while (e > s && keys[e - 1] == ' ')
            e--;
        char key[64];
        if (e > s && e - s < sizeof key) {
            memcpy(key, keys + s, e - s);
            key[e - s] = '\0';
            if (!mt_topology_object(t, key) && !(self && strcmp(key, self->key) == 0))
                add_item(buf, n, &len, key, e - s);
        }
        i = j + 1;
    }
    if (!buf[0])
        snprintf(buf, n, "-");
    return buf;
}

void mt_format_ns(const mt_topology *t, const mt_finding *f, int with_unit, char *buf, size_t n)
{
    if (!mt_finding_has_ns(t, f)) {
        snprintf(buf, n, "-");
        return;
    }
    double k = mt_topology_ns_per_cycle(t);
    mt_finding ns = *f;
    ns.value *= k;
    ns.lo *= k;
    ns.hi *= k;
    snprintf(ns.unit, sizeof ns.unit, "ns");
    mt_format_finding(&ns, with_unit, buf, n);
}

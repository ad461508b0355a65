/* Names of the caches and the text form of findings, shared by the text
 * and JSON reports. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

static const char *const cache_names[MT_CACHE_COUNT] = {
    "L1 Data", "Texture", "Read-Only", "Constant L1", "Constant L1.5",
    "Shared Memory", "L2", "DRAM",
};
static const char *const cache_keys[MT_CACHE_COUNT] = {
    "l1d", "texture", "readonly", "const_l1", "const_l15", "shared", "l2", "dram",
};
static const char *const cache_abbrevs[MT_CACHE_COUNT] = {
    "L1D", "Tex", "RO", "CL1", "CL1.5", "Shm", "L2", "DRAM",
};

const char *mt_cache_name(mt_cache_id id)
{
    return (id >= 0 && id < MT_CACHE_COUNT) ? cache_names[id] : "?";
}

const char *mt_cache_key(mt_cache_id id)
{
    return (id >= 0 && id < MT_CACHE_COUNT) ? cache_keys[id] : "?";
}

const char *mt_cache_abbrev(mt_cache_id id)
{
    return (id >= 0 && id < MT_CACHE_COUNT) ? cache_abbrevs[id] : "?";
}

const char *mt_source_name(mt_source s)
{
    switch (s) {
    case MT_SRC_MEASURED: return "measured";
    case MT_SRC_DRIVER: return "driver";
    case MT_SRC_DERIVED: return "derived";
    }
    return "?";
}

const char *mt_finding_kind_name(mt_finding_kind k)
{
    switch (k) {
    case MT_FIND_NONE: return "none";
    case MT_FIND_VALUE: return "value";
    case MT_FIND_LOWER_BOUND: return "lower_bound";
    case MT_FIND_RANGE: return "range";
    case MT_FIND_ABSENT: return "absent";
    }
    return "?";
}

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
    return strcmp(unit, "cycles") == 0 ? 1 : 2;
}

/* One number (VALUE or a bound) with its unit. */
static void format_one(double v, const char *unit, int with_unit, char *buf, size_t n)
{
    if (is_bytes(unit)) {
        mt_format_bytes(v, buf, n);
        return;
    }
    int d = trimmed_decimals(v, unit_max_decimals(unit));
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
    default:
        snprintf(buf, n, "?");
        break;
    }
    return buf;
}

char *mt_format_shared_with(uint32_t mask, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < MT_CACHE_COUNT; i++) {
        if (!(mask & (1u << i)))
            continue;
        int w = snprintf(buf + len, len < n ? n - len : 0, "%s%s", len ? ", " : "",
                         mt_cache_abbrev((mt_cache_id)i));
        if (w > 0)
            len += (size_t)w;
        if (len >= n)
            break;
    }
    if (!buf[0])
        snprintf(buf, n, "-");
    return buf;
}

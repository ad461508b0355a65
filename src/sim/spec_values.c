/* Spec parser: typed values ("12 KiB", "36", "9.0") read from a parsed
 * section, with range checks and one-line "FILE:LINE:" errors. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec_internal.h"

const kv *mt_sp_find(const section *s, const char *key)
{
    for (int i = 0; i < s->n; i++)
        if (strcmp(s->kv[i].key, key) == 0)
            return &s->kv[i];
    return NULL;
}

mt_err mt_sp_missing(pctx *c, const section *s, const char *key)
{
    char t[64];
    return mt_sp_err(c, s->line, "%s: missing required key '%s'", mt_sp_title(s, t, sizeof t), key);
}

/* Length of the digits at s that form a decimal integer without leading
 * zeros ("0", "17"; not "017"): 0 when there are none or a leading zero is
 * followed by more digits.  Leading zeros are refused so nobody has to guess
 * whether "010" means ten or eight. */
static size_t plain_digits(const char *s)
{
    size_t n = 0;
    while (isdigit((unsigned char)s[n]))
        n++;
    return (n > 1 && s[0] == '0') ? 0 : n;
}

/* Decimal integer: digits only (no sign, no leading zeros), no junk, no
 * overflow. */
int mt_sp_parse_u64(const char *s, uint64_t *out)
{
    size_t n = plain_digits(s);
    if (!n || s[n])
        return -1;
    uint64_t v = 0;
    for (const char *p = s; *p; p++) {
        unsigned d = (unsigned)(*p - '0');
        if (v > (UINT64_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

/* Number: an integer part as for mt_sp_parse_u64, an optional fraction ('.' and
 * at least one digit) and an optional exponent ('e' or 'E', an optional
 * sign, 1 to 3 digits): "36", "0.5", "1e-4".  No sign, no hex, no "inf" or
 * "nan", nothing after it; a value strtod cannot hold exactly enough
 * (overflow, or underflow of a non-zero value) is refused too. */
static int parse_num(const char *s, double *out)
{
    size_t i = plain_digits(s);
    if (!i)
        return -1;
    if (s[i] == '.') {
        size_t f = 0;
        while (isdigit((unsigned char)s[i + 1 + f]))
            f++;
        if (!f)
            return -1;
        i += 1 + f;
    }
    if (s[i] == 'e' || s[i] == 'E') {
        i++;
        if (s[i] == '+' || s[i] == '-')
            i++;
        size_t e = 0;
        while (isdigit((unsigned char)s[i + e]))
            e++;
        if (e < 1 || e > 3)
            return -1;
        i += e;
    }
    if (s[i])
        return -1;
    errno = 0;
    char *end;
    double v = strtod(s, &end);
    if (*end || !isfinite(v) || errno == ERANGE)
        return -1;
    *out = v;
    return 0;
}

/* "<number>[ ]<unit>": a number as for parse_num without exponent (at most
 * 9 decimals), at most one space, and unit B|KiB|MiB|GiB or none; a decimal
 * must give a whole number of bytes ("1.5 MiB" yes, "1.3 KiB" no). */
static int parse_size_str(const char *s, uint64_t *out, char *why, size_t whycap)
{
    size_t n = plain_digits(s);
    if (!n) {
        snprintf(why, whycap, isdigit((unsigned char)s[0]) ? "leading zeros are not allowed"
                                                           : "not a size");
        return -1;
    }
    const char *p = s;
    unsigned __int128 ip = 0, frac = 0, scale = 1;
    for (; p < s + n; p++) {
        ip = ip * 10 + (unsigned)(*p - '0');
        if (ip > UINT64_MAX)
            goto toolarge;
    }
    if (*p == '.') {
        p++;
        int fd = 0;
        while (isdigit((unsigned char)*p)) {
            if (++fd > 9) {
                snprintf(why, whycap, "too many decimals");
                return -1;
            }
            frac = frac * 10 + (unsigned)(*p++ - '0');
            scale *= 10;
        }
        if (!fd) {
            snprintf(why, whycap, "no digits after the decimal point");
            return -1;
        }
    }
    if (*p == ' ')
        p++;
    uint64_t unit;
    if (!*p || strcmp(p, "B") == 0)
        unit = 1;
    else if (strcmp(p, "KiB") == 0)
        unit = 1ull << 10;
    else if (strcmp(p, "MiB") == 0)
        unit = 1ull << 20;
    else if (strcmp(p, "GiB") == 0)
        unit = 1ull << 30;
    else {
        snprintf(why, whycap, "unknown unit '%.32s' (use B, KiB, MiB or GiB after at most one space)",
                 p);
        return -1;
    }
    unsigned __int128 num = ip * scale + frac; /* value * scale */
    unsigned __int128 bytes_x_scale = num * unit;
    if (bytes_x_scale % scale) {
        snprintf(why, whycap, "not a whole number of bytes");
        return -1;
    }
    unsigned __int128 bytes = bytes_x_scale / scale;
    if (bytes > UINT64_MAX)
        goto toolarge;
    *out = (uint64_t)bytes;
    return 0;
toolarge:
    snprintf(why, whycap, "too large");
    return -1;
}

int mt_sp_parse_cc(const char *s, int *major, int *minor)
{
    size_t n = plain_digits(s);
    if (n < 1 || n > 2 || s[n] != '.' || !isdigit((unsigned char)s[n + 1]) || s[n + 2])
        return -1;
    *major = n == 1 ? s[0] - '0' : (s[0] - '0') * 10 + (s[1] - '0');
    *minor = s[n + 1] - '0';
    return 0;
}

/* Getters: *present (optional) says whether the key was there; absent
 * optional keys leave *out untouched so callers pre-set defaults. */
mt_err mt_sp_uint(pctx *c, const section *s, const char *key, int required, uint64_t lo,
                       uint64_t hi, uint64_t *out, int *present)
{
    const kv *k = mt_sp_find(s, key);
    if (present)
        *present = k != NULL;
    if (!k)
        return required ? mt_sp_missing(c, s, key) : MT_OK;
    uint64_t v;
    if (mt_sp_parse_u64(k->val, &v))
        return mt_sp_err(c, k->line,
                         "%s: '%s' is not a plain decimal integer (digits only, no sign, no "
                         "leading zeros)",
                         key, k->val);
    if (v < lo || v > hi)
        return mt_sp_err(c, k->line, "%s = %llu is out of range [%llu, %llu]", key,
                    (unsigned long long)v, (unsigned long long)lo, (unsigned long long)hi);
    *out = v;
    return MT_OK;
}

mt_err mt_sp_int(pctx *c, const section *s, const char *key, int required, int lo, int hi,
                      int *out, int *present)
{
    uint64_t v = 0;
    mt_err err = mt_sp_uint(c, s, key, required, (uint64_t)lo, (uint64_t)hi, &v, present);
    if (!err && mt_sp_find(s, key))
        *out = (int)v;
    return err;
}

mt_err mt_sp_u32(pctx *c, const section *s, const char *key, int required, uint32_t lo,
                      uint32_t hi, uint32_t *out, int *present)
{
    uint64_t v = 0;
    mt_err err = mt_sp_uint(c, s, key, required, lo, hi, &v, present);
    if (!err && mt_sp_find(s, key))
        *out = (uint32_t)v;
    return err;
}

mt_err mt_sp_size(pctx *c, const section *s, const char *key, int required, uint64_t lo,
                       uint64_t hi, uint64_t *out, int *present)
{
    const kv *k = mt_sp_find(s, key);
    if (present)
        *present = k != NULL;
    if (!k)
        return required ? mt_sp_missing(c, s, key) : MT_OK;
    uint64_t v;
    char why[128];
    if (parse_size_str(k->val, &v, why, sizeof why))
        return mt_sp_err(c, k->line, "%s: '%s': %s", key, k->val, why);
    if (v < lo || v > hi)
        return mt_sp_err(c, k->line, "%s = %llu B is out of range [%llu, %llu] B", key,
                    (unsigned long long)v, (unsigned long long)lo, (unsigned long long)hi);
    *out = v;
    return MT_OK;
}

mt_err mt_sp_size32(pctx *c, const section *s, const char *key, int required, uint32_t *out,
                         int *present)
{
    uint64_t v = 0;
    mt_err err = mt_sp_size(c, s, key, required, 0, UINT32_MAX, &v, present);
    if (!err && mt_sp_find(s, key))
        *out = (uint32_t)v;
    return err;
}

mt_err mt_sp_double(pctx *c, const section *s, const char *key, int required, double lo,
                         double hi, double *out, int *present)
{
    const kv *k = mt_sp_find(s, key);
    if (present)
        *present = k != NULL;
    if (!k)
        return required ? mt_sp_missing(c, s, key) : MT_OK;
    double v;
    if (parse_num(k->val, &v))
        return mt_sp_err(c, k->line, "%s: '%s' is not a number (decimal, e.g. 36, 0.5 or 1e-4)",
                         key, k->val);
    if (v < lo || v > hi)
        return mt_sp_err(c, k->line, "%s = %g is out of range [%g, %g]", key, v, lo, hi);
    *out = v;
    return MT_OK;
}

/* One of a list of words; returns its index in *out. */
mt_err mt_sp_word(pctx *c, const section *s, const char *key, const char *const *words,
                       int *out)
{
    const kv *k = mt_sp_find(s, key);
    if (!k)
        return MT_OK;
    for (int i = 0; words[i]; i++)
        if (strcmp(k->val, words[i]) == 0) {
            *out = i;
            return MT_OK;
        }
    char list[160] = "";
    for (int i = 0; words[i]; i++) {
        strncat(list, i ? ", " : "", sizeof list - strlen(list) - 1);
        strncat(list, words[i], sizeof list - strlen(list) - 1);
    }
    return mt_sp_err(c, k->line, "%s: unknown value '%s' (expected one of: %s)", key, k->val, list);
}

int mt_sp_is_pow2(uint64_t v)
{
    return v && !(v & (v - 1));
}

/* latency and latency.<path> into lat[]; base required. */
mt_err mt_sp_latencies(pctx *c, const section *s, const char *base, int required,
                            unsigned allowed_paths, double *lat, double *base_out, int *present)
{
    double v = 0;
    mt_err err = mt_sp_double(c, s, base, required, 0, MT_SIM_MAX_LATENCY, &v, present);
    if (err)
        return err;
    if (base_out)
        *base_out = v;
    for (int p = 0; p < MT_SIM_LP_COUNT; p++)
        lat[p] = v;
    for (int p = 0; p < MT_SIM_LP_COUNT; p++) {
        char key[32];
        snprintf(key, sizeof key, "%s.%s", base, mt_sp_lpath_names[p]);
        const kv *k = mt_sp_find(s, key);
        if (!k)
            continue;
        if (!(allowed_paths & (1u << p))) {
            char t[64];
            return mt_sp_err(c, k->line, "%s: %s does not serve '%s' loads", key,
                        mt_sp_title(s, t, sizeof t), mt_sp_lpath_names[p]);
        }
        err = mt_sp_double(c, s, key, 0, 0, MT_SIM_MAX_LATENCY, &lat[p], NULL);
        if (err)
            return err;
    }
    return MT_OK;
}


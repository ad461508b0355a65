/* Strict line-oriented CSV reading for replay (no quoting: the recorder
 * never writes commas inside a field). */
#include "csv_read.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

mt_err mt_csv_open(mt_csv *c, const char *path, mt_errinfo *ei)
{
    memset(c, 0, sizeof *c);
    c->path = path;
    c->f = fopen(path, "r");
    if (!c->f)
        return mt_fail(ei, MT_ERR_REPLAY, "%s: cannot open: %s", path, strerror(errno));
    return MT_OK;
}

void mt_csv_close(mt_csv *c)
{
    if (c->f)
        fclose(c->f);
    free(c->buf);
    c->f = NULL;
    c->buf = NULL;
}

mt_err mt_csv_fail(const mt_csv *c, mt_errinfo *ei, const char *fmt, ...)
{
    if (ei) {
        char msg[400];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        /* through mt_fail, which escapes control bytes echoed from the file */
        return mt_fail(ei, MT_ERR_REPLAY, "%s:%lu: %s", c->path, c->line, msg);
    }
    return MT_ERR_REPLAY;
}

int mt_csv_next(mt_csv *c, mt_err *err, mt_errinfo *ei)
{
    errno = 0;
    ssize_t n = getline(&c->buf, &c->cap, c->f);
    if (n < 0) {
        if (ferror(c->f)) {
            *err = mt_fail(ei, MT_ERR_REPLAY, "%s: read error after line %lu: %s", c->path,
                           c->line, strerror(errno ? errno : EIO));
            return -1;
        }
        if (errno == ENOMEM) {
            *err = mt_fail(ei, MT_ERR_NOMEM, "%s: out of memory reading line %lu", c->path,
                           c->line + 1);
            return -1;
        }
        return 0;
    }
    c->line++;
    if (n > 0 && c->buf[n - 1] == '\n')
        c->buf[--n] = '\0';
    if (n > 0 && c->buf[n - 1] == '\r')
        c->buf[--n] = '\0';
    if ((size_t)n != strlen(c->buf)) {
        *err = mt_csv_fail(c, ei, "line contains a NUL byte");
        return -1;
    }
    c->n_fields = 0;
    char *p = c->buf;
    for (;;) {
        if (c->n_fields == MT_CSV_MAX_FIELDS) {
            *err = mt_csv_fail(c, ei, "more than %d fields", MT_CSV_MAX_FIELDS);
            return -1;
        }
        c->field[c->n_fields++] = p;
        char *comma = strchr(p, ',');
        if (!comma)
            break;
        *comma = '\0';
        p = comma + 1;
    }
    return 1;
}

mt_err mt_csv_expect_fields(const mt_csv *c, int n, mt_errinfo *ei)
{
    if (c->n_fields != n)
        return mt_csv_fail(c, ei, "%d fields, expected %d", c->n_fields, n);
    return MT_OK;
}

mt_err mt_csv_expect_header(mt_csv *c, const char *header, mt_errinfo *ei)
{
    mt_err e = MT_OK;
    int r = mt_csv_next(c, &e, ei);
    if (r < 0)
        return e;
    if (r == 0) {
        c->line = 1;
        return mt_csv_fail(c, ei, "empty file, expected the header \"%s\"", header);
    }
    /* Rejoin the split fields to compare with the header text. */
    size_t off = 0;
    for (int i = 0; i < c->n_fields; i++) {
        size_t l = strlen(c->field[i]);
        if (strncmp(header + off, c->field[i], l) != 0)
            return mt_csv_fail(c, ei, "bad header, expected \"%s\"", header);
        off += l;
        if (i + 1 < c->n_fields) {
            if (header[off] != ',')
                return mt_csv_fail(c, ei, "bad header, expected \"%s\"", header);
            off++;
        }
    }
    if (header[off] != '\0')
        return mt_csv_fail(c, ei, "bad header, expected \"%s\"", header);
    return MT_OK;
}

mt_err mt_csv_int(const mt_csv *c, int i, const char *name, int64_t lo, int64_t hi, int64_t *out,
                  mt_errinfo *ei)
{
    const char *s = c->field[i];
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    int digits_only = (s[0] >= '0' && s[0] <= '9') || (s[0] == '-' && s[1] >= '0' && s[1] <= '9');
    if (!digits_only || *end || errno || v < lo || v > hi)
        return mt_csv_fail(c, ei, "%s \"%s\" is not an integer in [%" PRId64 ", %" PRId64 "]",
                           name, s, lo, hi);
    *out = v;
    return MT_OK;
}

mt_err mt_csv_u64(const mt_csv *c, int i, const char *name, uint64_t *out, mt_errinfo *ei)
{
    const char *s = c->field[i];
    char *end;
    errno = 0;
    /* strtoull accepts a sign; an unsigned field must be digits only. */
    unsigned long long v = (s[0] >= '0' && s[0] <= '9') ? strtoull(s, &end, 10) : 0;
    if (!(s[0] >= '0' && s[0] <= '9') || *end || errno)
        return mt_csv_fail(c, ei, "%s \"%s\" is not an unsigned 64-bit integer", name, s);
    *out = v;
    return MT_OK;
}

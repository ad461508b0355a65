/* The CSV that Nsight Compute writes: RFC 4180 records (quoted cells may
 * hold commas and doubled quotes), numbers with thousands separators.
 * Lines that are not CSV (the profiled program's own output, ==PROF==
 * lines) come back as records of one cell, which the parsers skip. */
#include <stdlib.h>
#include <string.h>

#include "model.h"

static int push(char ***cells, size_t *n, size_t *cap, const char *s, size_t len)
{
    if (*n == *cap) {
        size_t nc = *cap ? 2 * *cap : 16;
        char **g = realloc(*cells, nc * sizeof *g);
        if (!g)
            return -1;
        *cells = g;
        *cap = nc;
    }
    char *c = malloc(len + 1);
    if (!c)
        return -1;
    memcpy(c, s, len);
    c[len] = 0;
    (*cells)[(*n)++] = c;
    return 0;
}

int mt_model_csv_record(const char **p, char ***cells, size_t *n)
{
    const char *s = *p;
    *cells = NULL;
    *n = 0;
    if (!s || !*s)
        return 0;
    size_t cap = 0;
    char *buf = NULL;
    size_t blen = 0, bcap = 0;
    int quoted = 0, failed = 0;
    for (;;) {
        char ch = *s;
        int end_cell = 0, end_rec = 0;
        if (quoted) {
            if (!ch) {
                end_cell = end_rec = 1; /* unterminated quote: the cell ends with the text */
            } else if (ch == '"' && s[1] == '"') {
                s++;
            } else if (ch == '"') {
                quoted = 0;
                s++;
                continue;
            }
        } else if (ch == '"') {
            quoted = 1;
            s++;
            continue;
        } else if (ch == ',') {
            end_cell = 1;
        } else if (ch == '\n' || ch == '\r' || !ch) {
            end_cell = end_rec = 1;
        }
        if (end_cell) {
            if (push(cells, n, &cap, buf ? buf : "", blen))
                failed = 1;
            blen = 0;
            if (end_rec) {
                if (ch == '\r' && s[1] == '\n')
                    s++;
                if (ch)
                    s++;
                break;
            }
            s++;
            continue;
        }
        if (blen + 1 >= bcap) {
            size_t nc = bcap ? 2 * bcap : 64;
            char *g = realloc(buf, nc);
            if (!g) {
                failed = 1;
                break;
            }
            buf = g;
            bcap = nc;
        }
        buf[blen++] = ch;
        buf[blen] = 0;
        s++;
    }
    free(buf);
    *p = s;
    if (failed) {
        mt_model_csv_free(*cells, *n);
        *cells = NULL;
        *n = 0;
        return -1;
    }
    return 1;
}

void mt_model_csv_free(char **cells, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(cells[i]);
    free(cells);
}

int mt_model_number(const char *cell, double *out)
{
    char tmp[64];
    size_t j = 0;
    for (const char *c = cell; *c; c++) {
        if (*c == ',')
            continue; /* thousands separator */
        if (j + 1 >= sizeof tmp)
            return 0;
        tmp[j++] = *c;
    }
    tmp[j] = 0;
    if (!j)
        return 0;
    char *end;
    double v = strtod(tmp, &end);
    if (*end)
        return 0;
    *out = v;
    return 1;
}

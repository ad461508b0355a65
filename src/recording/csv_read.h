/* A strict reader for the recording's CSV files: one line at a time, fields
 * split on ',', and field parsers whose errors read "FILE:LINE: ...". */
#ifndef MT_CSV_READ_H
#define MT_CSV_READ_H

#include <stdint.h>
#include <stdio.h>

#include "../core/error.h"

#define MT_CSV_MAX_FIELDS 32

typedef struct {
    FILE *f;
    const char *path;
    unsigned long line;   /* number of the line last read (1-based) */
    char *buf;
    size_t cap;
    char *field[MT_CSV_MAX_FIELDS];
    int n_fields;
} mt_csv;

/* MT_ERR_REPLAY "PATH: cannot open: reason" when the file cannot be read. */
mt_err mt_csv_open(mt_csv *c, const char *path, mt_errinfo *ei);
void mt_csv_close(mt_csv *c);

/* Reads the next line into fields.  Returns 1 with a row, 0 at end of file,
 * -1 with *err set (read error, embedded NUL, too many fields).  A final
 * '\r' (CRLF files) is dropped. */
int mt_csv_next(mt_csv *c, mt_err *err, mt_errinfo *ei);

/* Checks the row has exactly n fields / equals header text exactly. */
mt_err mt_csv_expect_fields(const mt_csv *c, int n, mt_errinfo *ei);
mt_err mt_csv_expect_header(mt_csv *c, const char *header, mt_errinfo *ei);

/* Field i as an integer in [lo, hi]; name is used in the message. */
mt_err mt_csv_int(const mt_csv *c, int i, const char *name, int64_t lo, int64_t hi, int64_t *out,
                  mt_errinfo *ei);
mt_err mt_csv_u64(const mt_csv *c, int i, const char *name, uint64_t *out, mt_errinfo *ei);

/* MT_ERR_REPLAY "PATH:LINE: <formatted>". */
mt_err mt_csv_fail(const mt_csv *c, mt_errinfo *ei, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif

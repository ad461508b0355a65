/* Shared by the fuzz targets: the input as the C string the parsers take,
 * and the property every error message must keep whatever the input held,
 * checked on every input (a violation aborts, so libFuzzer reports it like
 * a crash and saves the input). */
#ifndef MT_FUZZ_ONE_LINE_H
#define MT_FUZZ_ONE_LINE_H

#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"

/* The fuzzer's bytes as a NUL-terminated copy (the caller frees it), or
 * NULL when memory is short.  The parsers take text; the file loaders
 * refuse NUL bytes before them, so an embedded NUL here only ends the text
 * early, as it would in C. */
static inline char *mt_fuzz_text(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (text) {
        memcpy(text, data, size);
        text[size] = '\0';
    }
    return text;
}

/* An error is one non-empty line of printable text: no newline, CR, TAB or
 * other control byte (they are escaped when a message echoes input). */
static inline void mt_fuzz_check_message(mt_err err, const mt_errinfo *ei)
{
    if (err == MT_OK)
        return;
    if (!ei->msg[0]) {
        fprintf(stderr, "error %d with an empty message\n", (int)err);
        abort();
    }
    for (const char *p = ei->msg; *p; p++)
        if ((unsigned char)*p < 0x20 || (unsigned char)*p == 0x7f) {
            fprintf(stderr, "control byte 0x%02x in message: %s\n", (unsigned char)*p, ei->msg);
            abort();
        }
}

#endif

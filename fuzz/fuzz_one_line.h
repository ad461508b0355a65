/* Shared by the fuzz targets: the property every error message must keep
 * whatever the input held, checked on every input (a violation aborts, so
 * libFuzzer reports it like a crash and saves the input). */
#ifndef MT_FUZZ_ONE_LINE_H
#define MT_FUZZ_ONE_LINE_H

#include <stdio.h>
#include <stdlib.h>

#include "core/error.h"

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

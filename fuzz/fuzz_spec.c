/* libFuzzer target: the simulator's spec parser (src/sim/spec*.c).  Bytes
 * in, parse, throw away.  Besides crashes and sanitizer reports it checks
 * what the parser promises: a rejected spec is MT_ERR_SPEC_PARSE with one
 * printable line "fuzz.spec:LINE: message", and an accepted one gives device
 * information with every global path limit set (0 would mean unlimited). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "fuzz_one_line.h"
#include "sim/spec.h"

#define FNAME "fuzz.spec"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* "fuzz.spec:" then a line number >= 1 then ": ". */
static int has_file_line(const char *msg)
{
    size_t n = strlen(FNAME ":");
    if (strncmp(msg, FNAME ":", n) != 0)
        return 0;
    const char *p = msg + n;
    if (*p < '1' || *p > '9')
        return 0;
    while (*p >= '0' && *p <= '9')
        p++;
    return p[0] == ':' && p[1] == ' ';
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = mt_fuzz_text(data, size);
    if (!text)
        return 0;
    mt_sim_spec *spec = malloc(sizeof *spec);
    if (!spec) {
        free(text);
        return 0;
    }
    mt_errinfo ei = {{0}};
    mt_err err = mt_sim_spec_parse(text, FNAME, spec, &ei);
    mt_fuzz_check_message(err, &ei);
    if (err == MT_OK) {
        mt_device_info d;
        mt_sim_spec_device_info(spec, &d);
        if (!d.path_limit_bytes[MT_PATH_GLOBAL_CG] || !d.path_limit_bytes[MT_PATH_CONSTANT]) {
            fprintf(stderr, "accepted spec gives an unlimited global or constant path\n");
            abort();
        }
    } else if (err != MT_ERR_SPEC_PARSE || !has_file_line(ei.msg)) {
        fprintf(stderr, "error %d is not 'FILE:LINE: ...': %s\n", (int)err, ei.msg);
        abort();
    }
    free(spec);
    free(text);
    return 0;
}

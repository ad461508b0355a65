/* One check of the spec tests: a spec text refused with a one-line error
 * that names the problem and where it is (docs/spec-format.md: FILE:LINE).
 * Include after cmocka.h. */
#ifndef MT_TEST_SPEC_ERROR_H
#define MT_TEST_SPEC_ERROR_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "sim/spec.h"

/* Parses a test's spec from `extra` (the test decides what it adds to). */
typedef mt_err (*spec_parse_fn)(const char *extra, mt_sim_spec *out, mt_errinfo *ei);

/* Fails the test unless parse(extra) is a spec error whose message holds
 * `want` and "FILE:" (the file name the test parses under, a line after
 * it). */
static void expect_spec_error(spec_parse_fn parse, const char *file, const char *extra,
                              const char *want)
{
    mt_sim_spec *s = malloc(sizeof *s);
    assert_non_null(s);
    mt_errinfo ei = {{0}};
    mt_err err = parse(extra, s, &ei);
    free(s);
    char where[64];
    snprintf(where, sizeof where, "%s:", file);
    if (err != MT_ERR_SPEC_PARSE)
        fail_msg("spec with\n%s\nparsed (%d), want an error with '%s'", extra, err, want);
    if (!strstr(ei.msg, want) || !strstr(ei.msg, where))
        fail_msg("message '%s' lacks '%s' or %sLINE", ei.msg, want, where);
}

#endif

/* The derivation line_by_index (src/probes/derive_line_by_index.c, method
 * in line_confirm.c): a line capped only by the capacity range at its
 * ratio's stride, both ends of which give it, takes the confidence of a
 * trusted set index that separates consecutive lines; nothing else lifts
 * it.  On hand-made topologies shaped like the H100's first run of
 * 2026-11-23 (tests/fixtures/h100-sxm5-2/report.json). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "probes/line_confirm.h"
#include "probes/probe.h"
#include "topology/topology.h"

extern const mt_derivation_desc mt_derive_line_by_index;

#define CAPPED_NOTE                                                                                \
    "238592 B fit at a sector stride, 1862 elements (lines) at a 256 B stride (best of 3 "     \
    "strides): 128.1 B per line, 0% from 128 B; 1862-1864 elements at 256 B, " MT_LINE_BOTH_ENDS \
    " 128 B (edge did not repeat: confidence 0.40)"

static void set_text(mt_object *o, const char *name, const char *text, double conf)
{
    mt_finding f = {.kind = MT_FIND_TEXT, .source = MT_SRC_MEASURED, .confidence = conf};
    snprintf(f.text, sizeof f.text, "%s", text);
    assert_int_equal(mt_object_set(o, name, NULL, &f), MT_OK);
}

/* An l1d with a 128 B line (note, confidence) and an index (text, masks,
 * confidence) over 512 sets. */
static mt_topology *h100_like(const char *line_note, double line_conf, const char *index,
                              const char *masks, double index_conf)
{
    mt_topology *t = mt_topology_new();
    assert_non_null(t);
    mt_object *o = mt_topology_add_object(t, "l1d", "L1 Data", "L1D", MT_OBJ_CACHE, 0);
    assert_non_null(o);
    mt_finding line = {.kind = MT_FIND_VALUE, .source = MT_SRC_MEASURED, .value = 128,
                       .lo = 128, .hi = 128, .confidence = line_conf};
    snprintf(line.note, sizeof line.note, "%s", line_note);
    assert_int_equal(mt_object_set(o, "line", NULL, &line), MT_OK);
    mt_finding sets = {.kind = MT_FIND_VALUE, .source = MT_SRC_MEASURED, .value = 512,
                       .lo = 512, .hi = 512, .confidence = index_conf};
    assert_int_equal(mt_object_set(o, "sets", NULL, &sets), MT_OK);
    set_text(o, "index", index, index_conf);
    if (masks)
        set_text(o, "index_masks", masks, index_conf);
    return t;
}

static const mt_finding *derived_line(mt_topology *t)
{
    mt_errinfo ei;
    assert_int_equal(mt_derive_line_by_index.derive(t, &ei), MT_OK);
    return mt_object_get(mt_topology_object(t, "l1d"), "line");
}

static void h100_mask_with_bit0_confirms(void **state)
{
    (void)state;
    mt_topology *t = h100_like(CAPPED_NOTE, 0.4, "xor",
                               "0x3601 0xc02 0x804 0x3408 0x2e10 0x2a20 0x1a40 0x80 0x1900", 0.99998);
    const mt_finding *l = derived_line(t);
    assert_true(l->confidence == 0.99998);
    assert_int_equal(l->source, MT_SRC_MEASURED);
    /* The range's reason gives way to the confirmation. */
    assert_non_null(strstr(l->note, MT_LINE_BOTH_ENDS " 128 B; confirmed by l1d.index: mask 0x3601 "
                                    "uses line-address bit 0"));
    assert_null(strstr(l->note, "edge did not repeat"));
    mt_topology_free(t);
}

static void modulo_over_sets_confirms(void **state)
{
    (void)state;
    mt_topology *t = h100_like(CAPPED_NOTE, 0.4, "modulo (line-address bits 0-12)", NULL, 0.9);
    assert_true(derived_line(t)->confidence == 0.9);
    mt_topology_free(t);
}

static void nothing_else_lifts(void **state)
{
    (void)state;
    /* No mask uses line bit 0: a 256 B line would index the same. */
    mt_topology *t = h100_like(CAPPED_NOTE, 0.4, "xor", "0xc02 0x804 0x3408", 0.99);
    assert_true(derived_line(t)->confidence == 0.4);
    mt_topology_free(t);
    /* The line was capped for another reason (no "both ends"). */
    t = h100_like("7040 B fit ...: 106.7 B per line, 17% from 128 B (beyond MT_LINE_RATIO_FIRM: "
                  "weak evidence)", 0.4, "xor", "0x3601 0xc02", 0.99);
    assert_true(derived_line(t)->confidence == 0.4);
    mt_topology_free(t);
    /* An index below the trusted level confirms nothing. */
    t = h100_like(CAPPED_NOTE, 0.3, "xor", "0x3601 0xc02", 0.4);
    assert_true(derived_line(t)->confidence == 0.3);
    mt_topology_free(t);
    /* "not modulo" is no index that separates lines. */
    t = h100_like(CAPPED_NOTE, 0.4, "not modulo (hashed or unbracketed)", NULL, 0.5);
    assert_true(derived_line(t)->confidence == 0.4);
    mt_topology_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(h100_mask_with_bit0_confirms),
        cmocka_unit_test(modulo_over_sets_confirms),
        cmocka_unit_test(nothing_else_lifts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

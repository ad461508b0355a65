/* Text formatting of sizes, findings and sets (src/report/format.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "report/report.h"

static const char *bytes(double b)
{
    static char buf[64];
    return mt_format_bytes(b, buf, sizeof buf);
}

static void test_bytes(void **state)
{
    (void)state;
    assert_string_equal(bytes(128), "128 B");
    assert_string_equal(bytes(0), "0 B");
    assert_string_equal(bytes(1023), "1023 B");
    assert_string_equal(bytes(1024), "1 KiB");
    assert_string_equal(bytes(1536), "1.5 KiB");
    assert_string_equal(bytes(25.5 * 1024), "25.5 KiB");
    assert_string_equal(bytes(224 * 1024), "224 KiB");
    assert_string_equal(bytes(50.0 * 1024 * 1024), "50 MiB");
    assert_string_equal(bytes(85520809984.0), "79.6 GiB");
    assert_string_equal(bytes(1.25 * 1024 * 1024), "1.25 MiB");
    /* 3 significant digits */
    assert_string_equal(bytes(1.126 * 1024 * 1024), "1.13 MiB");
    /* rounding to 1024 moves to the next unit */
    assert_string_equal(bytes(1048575), "1 MiB");
}

static mt_finding mk(mt_finding_kind k, double v, double lo, double hi, const char *unit)
{
    mt_finding f;
    memset(&f, 0, sizeof f);
    f.kind = k;
    f.value = v;
    f.lo = lo;
    f.hi = hi;
    snprintf(f.unit, sizeof f.unit, "%s", unit);
    return f;
}

static const char *fmt(mt_finding f, int with_unit)
{
    static char buf[64];
    return mt_format_finding(&f, with_unit, buf, sizeof buf);
}

static void test_findings(void **state)
{
    (void)state;
    assert_string_equal(fmt(mk(MT_FIND_VALUE, 224 * 1024, 0, 0, "B"), 1), "224 KiB");
    assert_string_equal(fmt(mk(MT_FIND_VALUE, 128, 0, 0, "B"), 1), "128 B");
    assert_string_equal(fmt(mk(MT_FIND_VALUE, 33, 0, 0, "cycles"), 1), "33 cycles");
    assert_string_equal(fmt(mk(MT_FIND_VALUE, 33, 0, 0, "cycles"), 0), "33");
    assert_string_equal(fmt(mk(MT_FIND_VALUE, 32.5, 0, 0, "cycles"), 1), "32.5 cycles");
    assert_string_equal(fmt(mk(MT_FIND_VALUE, 1, 0, 0, "count"), 1), "1");
    assert_string_equal(fmt(mk(MT_FIND_VALUE, 1, 0, 0, "bool"), 1), "yes");
    assert_string_equal(fmt(mk(MT_FIND_VALUE, 0, 0, 0, "bool"), 0), "no");
    assert_string_equal(fmt(mk(MT_FIND_LOWER_BOUND, 0, 64 * 1024, 0, "B"), 1), "> 64 KiB");
    assert_string_equal(fmt(mk(MT_FIND_LOWER_BOUND, 0, 600, 0, "cycles"), 1), "> 600 cycles");
    assert_string_equal(fmt(mk(MT_FIND_RANGE, 0, 22.0 * 1024, 24.5 * 1024, "B"), 1),
                        "22.0-24.5 KiB");
    assert_string_equal(fmt(mk(MT_FIND_RANGE, 0, 22.0 * 1024, 24.0 * 1024, "B"), 1), "22-24 KiB");
    assert_string_equal(fmt(mk(MT_FIND_RANGE, 0, 400, 450, "cycles"), 1), "400-450 cycles");
    assert_string_equal(fmt(mk(MT_FIND_RANGE, 0, 400, 450, "cycles"), 0), "400-450");
    /* byte ranges always keep their unit: the number alone would be ambiguous */
    assert_string_equal(fmt(mk(MT_FIND_RANGE, 0, 512, 2048, "B"), 0), "0.5-2.0 KiB");
    assert_string_equal(fmt(mk(MT_FIND_NONE, 5, 0, 0, "B"), 1), "-");
    assert_string_equal(fmt(mk(MT_FIND_ABSENT, 0, 0, 0, "B"), 1), "no");
}

static void test_text_and_set(void **state)
{
    (void)state;
    mt_finding f = mk(MT_FIND_TEXT, 0, 0, 0, "");
    snprintf(f.text, sizeof f.text, "xor of bits 7,12");
    assert_string_equal(fmt(f, 1), "xor of bits 7,12");
    f.text[0] = '\0';
    assert_string_equal(fmt(f, 1), "-");
    /* A set without a topology: its keys as they are. */
    f.kind = MT_FIND_SET;
    snprintf(f.text, sizeof f.text, "texture,readonly");
    assert_string_equal(fmt(f, 1), "texture, readonly");
    f.text[0] = '\0';
    assert_string_equal(fmt(f, 0), "-");
    /* An unknown kind is visible, not a crash. */
    assert_string_equal(fmt(mk((mt_finding_kind)42, 0, 0, 0, "B"), 1), "?");
}

static void test_members(void **state)
{
    (void)state;
    mt_topology *t = mt_topology_new();
    static const char *const keys[] = {"l1d", "texture", "readonly", "shared"};
    static const char *const abbrevs[] = {"L1D", "Tex", "RO", "Shm"};
    for (int i = 0; i < 4; i++)
        assert_non_null(mt_topology_add_object(t, keys[i], keys[i], abbrevs[i], MT_OBJ_CACHE, 0));
    mt_object *l1 = mt_topology_object(t, "l1d");
    char buf[64];
    /* Abbreviations in object order, whatever the order of the keys; self left out. */
    static const char rt[] = "readonly,texture,l1d";
    assert_string_equal(mt_format_members(t, l1, rt, sizeof rt, buf, sizeof buf), "Tex, RO");
    static const char ls[] = "shared, l1d";
    assert_string_equal(mt_format_members(t, mt_topology_object(t, "readonly"), ls, sizeof ls,
                                          buf, sizeof buf),
                        "L1D, Shm");
    /* Nothing but self, or nothing: "-". */
    static const char self[] = "l1d";
    assert_string_equal(mt_format_members(t, l1, self, sizeof self, buf, sizeof buf), "-");
    assert_string_equal(mt_format_members(t, l1, "", 1, buf, sizeof buf), "-");
    /* A key that names no object is shown as it is, after the known ones. */
    static const char unk[] = "tlb,texture";
    assert_string_equal(mt_format_members(t, l1, unk, sizeof unk, buf, sizeof buf), "Tex, tlb");
    /* An object without an abbreviation shows its key. */
    assert_non_null(mt_topology_add_object(t, "l3", "L3", "", MT_OBJ_CACHE, 0));
    static const char l3[] = "l3";
    assert_string_equal(mt_format_members(t, l1, l3, sizeof l3, buf, sizeof buf), "l3");
    /* Truncation stays terminated. */
    char small[6];
    assert_non_null(mt_format_members(t, NULL, rt, sizeof rt, small, sizeof small));
    assert_true(strlen(small) < sizeof small);
    assert_int_equal(strncmp(small, "L1D, ", 5), 0);
    mt_topology_free(t);
}

/* Entry points refuse missing arguments with a message instead of crashing.
 * (Also the only test here that pulls mt_fail from libmt_core.) */
static void test_bad_args(void **state)
{
    (void)state;
    mt_errinfo ei = {{0}};
    assert_int_equal(mt_report_text(NULL, stdout, &ei), MT_ERR_INVALID_ARG);
    assert_true(ei.msg[0] != '\0');
    mt_topology *t = mt_topology_new();
    ei.msg[0] = '\0';
    assert_int_equal(mt_report_json(t, "", &ei), MT_ERR_INVALID_ARG);
    assert_true(ei.msg[0] != '\0');
    ei.msg[0] = '\0';
    assert_int_equal(mt_report_json(NULL, "x.json", &ei), MT_ERR_INVALID_ARG);
    assert_true(ei.msg[0] != '\0');
    ei.msg[0] = '\0';
    assert_int_equal(mt_report_csv(t, NULL, &ei), MT_ERR_INVALID_ARG);
    assert_true(ei.msg[0] != '\0');
    ei.msg[0] = '\0';
    assert_int_equal(mt_report_csv(NULL, "-", &ei), MT_ERR_INVALID_ARG);
    assert_true(ei.msg[0] != '\0');
    mt_topology_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bytes),
        cmocka_unit_test(test_findings),
        cmocka_unit_test(test_text_and_set),
        cmocka_unit_test(test_members),
        cmocka_unit_test(test_bad_args),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

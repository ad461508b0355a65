/* Text formatting of sizes, findings and sharing masks (src/report/topology.c). */
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

static void test_names(void **state)
{
    (void)state;
    static const char *const names[] = {"L1 Data", "Texture", "Read-Only", "Constant L1",
                                        "Constant L1.5", "Shared Memory", "L2", "DRAM"};
    static const char *const keys[] = {"l1d", "texture", "readonly", "const_l1", "const_l15",
                                       "shared", "l2", "dram"};
    for (int i = 0; i < MT_CACHE_COUNT; i++) {
        assert_string_equal(mt_cache_name((mt_cache_id)i), names[i]);
        assert_string_equal(mt_cache_key((mt_cache_id)i), keys[i]);
    }
    assert_string_equal(mt_cache_name(MT_CACHE_COUNT), "?");
    assert_string_equal(mt_source_name(MT_SRC_DRIVER), "driver");
    assert_string_equal(mt_finding_kind_name(MT_FIND_LOWER_BOUND), "lower_bound");
}

static void test_shared_with(void **state)
{
    (void)state;
    char buf[64];
    assert_string_equal(mt_format_shared_with(0, buf, sizeof buf), "-");
    assert_string_equal(
        mt_format_shared_with((1u << MT_CACHE_TEX) | (1u << MT_CACHE_RO), buf, sizeof buf),
        "Tex, RO");
    assert_string_equal(mt_format_shared_with((1u << MT_CACHE_L1D) | (1u << MT_CACHE_SHARED),
                                              buf, sizeof buf),
                        "L1D, Shm");
    /* truncation stays terminated */
    char small[6];
    mt_format_shared_with(0xff, small, sizeof small);
    assert_true(strlen(small) < sizeof small);
}

/* Entry points refuse missing arguments with a message instead of crashing.
 * (Also the only test here that pulls mt_fail from libmt_core.) */
static void test_bad_args(void **state)
{
    (void)state;
    mt_errinfo ei = {{0}};
    assert_int_equal(mt_report_text(NULL, stdout, &ei), MT_ERR_INVALID_ARG);
    assert_true(ei.msg[0] != '\0');
    mt_topology t;
    memset(&t, 0, sizeof t);
    ei.msg[0] = '\0';
    assert_int_equal(mt_report_json(&t, "", &ei), MT_ERR_INVALID_ARG);
    assert_true(ei.msg[0] != '\0');
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bytes),
        cmocka_unit_test(test_findings),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_shared_with),
        cmocka_unit_test(test_bad_args),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

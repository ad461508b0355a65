/* Every error code has its own text and a documented exit code, and
 * mt_fail keeps messages on one line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/error.h"

static void test_every_code_has_a_distinct_text(void **state)
{
    (void)state;
    for (int i = 0; i < MT_ERR_COUNT; i++) {
        const char *s = mt_strerror((mt_err)i);
        assert_non_null(s);
        assert_true(strlen(s) > 3);
        assert_null(strchr(s, '\n'));
        for (int j = 0; j < i; j++)
            assert_string_not_equal(s, mt_strerror((mt_err)j));
    }
}

static void test_exit_codes_documented(void **state)
{
    (void)state;
    assert_int_equal(mt_exit_code(MT_OK), 0);
    for (int i = 1; i < MT_ERR_COUNT; i++) {
        int c = mt_exit_code((mt_err)i);
        if (i == MT_ERR_INTERRUPTED)
            assert_int_equal(c, 130); /* README: 128 + SIGINT */
        else
            assert_true(c >= 1 && c <= 5); /* README: 1..5 */
    }
    assert_int_equal(mt_exit_code(MT_ERR_INVALID_ARG), 2);
    assert_int_equal(mt_exit_code(MT_ERR_NO_DEVICE), 3);
    assert_int_equal(mt_exit_code(MT_ERR_DEVICE), 4);
    assert_int_equal(mt_exit_code(MT_ERR_IO), 5);
}

static void test_fail_fills_message(void **state)
{
    (void)state;
    mt_errinfo ei = {{0}};
    assert_int_equal(mt_fail(&ei, MT_ERR_IO, "cannot write %s", "x.json"), MT_ERR_IO);
    assert_string_equal(ei.msg, "cannot write x.json");
    assert_int_equal(mt_fail(NULL, MT_ERR_NOMEM, "ignored"), MT_ERR_NOMEM);
}

/* A message quoting user input (a file name, a spec value, a JSON
 * library's text) with control characters still is one line. */
static void test_fail_escapes_control_characters(void **state)
{
    (void)state;
    mt_errinfo ei = {{0}};
    mt_fail(&ei, MT_ERR_SPEC_PARSE, "spec '%s': bad", "no\nsuch\r\x1b[31m");
    assert_string_equal(ei.msg, "spec 'no\\nsuch\\r\\x1b[31m': bad");
    mt_fail(&ei, MT_ERR_SPEC_PARSE, "spec '%s': bad", "no\nsuch\r\x1b[31m\x7f");
    assert_null(strchr(ei.msg, '\n'));
    assert_null(strchr(ei.msg, '\r'));
    assert_string_equal(ei.msg, "spec 'no\\nsuch\\r\\x1b[31m\\x7f': bad");
}

/* Input echoed in a message cannot break it into lines or hide text behind
 * a carriage return: control bytes come out escaped. */
static void test_fail_escapes_control_bytes(void **state)
{
    (void)state;
    mt_errinfo ei = {{0}};
    mt_fail(&ei, MT_ERR_SPEC_PARSE, "f.spec:3: bad value '%s'", "4\r\n\tx\001\177");
    assert_string_equal(ei.msg, "f.spec:3: bad value '4\\r\\n\\tx\\x01\\x7f'");
    /* a message that fills the buffer with escapes ends whole and terminated */
    char many[600];
    memset(many, '\r', sizeof many - 1);
    many[sizeof many - 1] = '\0';
    mt_fail(&ei, MT_ERR_IO, "%s", many);
    size_t n = strlen(ei.msg);
    assert_true(n < sizeof ei.msg && n % 2 == 0);
    for (size_t i = 0; i < n; i += 2)
        assert_memory_equal(ei.msg + i, "\\r", 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_code_has_a_distinct_text),
        cmocka_unit_test(test_exit_codes_documented),
        cmocka_unit_test(test_fail_fills_message),
        cmocka_unit_test(test_fail_escapes_control_characters),
        cmocka_unit_test(test_fail_escapes_control_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

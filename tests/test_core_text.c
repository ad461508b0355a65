/* The text helpers: one-line escaping and the strict decimal parser that
 * every numeric command-line option uses. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/text.h"

static void test_escape_keeps_one_line(void **state)
{
    (void)state;
    char out[64];
    assert_string_equal(mt_escape_line("a\nb\rc\td\x01" "e\x7f", out, sizeof out),
                        "a\\nb\\rc\\td\\x01e\\x7f");
    /* Printable text, backslashes and UTF-8 stay as they are. */
    assert_string_equal(mt_escape_line("C:\\x \xc3\xa9t\xc3\xa9", out, sizeof out),
                        "C:\\x \xc3\xa9t\xc3\xa9");
    /* Escaping twice changes nothing. */
    char twice[64];
    mt_escape_line("x\ny", out, sizeof out);
    assert_string_equal(mt_escape_line(out, twice, sizeof twice), out);
    assert_string_equal(mt_escape_line(NULL, out, sizeof out), "");
}

static void test_escape_truncates_at_a_whole_escape(void **state)
{
    (void)state;
    char out[6];
    /* "ab\x01" needs 6 bytes + NUL: the escape is left out, not cut. */
    assert_string_equal(mt_escape_line("ab\x01", out, sizeof out), "ab");
    assert_string_equal(mt_escape_line("abcdefgh", out, sizeof out), "abcde");
}

static void test_decimal_strict(void **state)
{
    (void)state;
    uint64_t v = 99;
    assert_int_equal(mt_parse_decimal("0", 10, &v), 0);
    assert_int_equal(v, 0);
    assert_int_equal(mt_parse_decimal("1024", 1024, &v), 0);
    assert_int_equal(v, 1024);
    assert_int_equal(mt_parse_decimal("18446744073709551615", UINT64_MAX, &v), 0);
    assert_true(v == UINT64_MAX);
    v = 7;
    static const char *const bad[] = {"", "010", "00", "-1", "+1", " 1", "1 ", "0x10", "1e3",
                                      "1025", "18446744073709551616", "99999999999999999999",
                                      "1.0", NULL};
    for (int i = 0; bad[i]; i++) {
        uint64_t max = strcmp(bad[i], "1025") == 0 ? 1024 : UINT64_MAX;
        if (mt_parse_decimal(bad[i], max, &v) == 0)
            fail_msg("'%s' accepted", bad[i]);
    }
    assert_int_equal(mt_parse_decimal(NULL, 10, &v), -1);
    assert_int_equal(v, 7); /* untouched on failure */
    assert_int_equal(mt_parse_decimal("9", 8, &v), -1);
}

static void test_signal_names(void **state)
{
    (void)state;
    assert_string_equal(mt_signal_name(SIGINT), "SIGINT");
    assert_string_equal(mt_signal_name(SIGTERM), "SIGTERM");
    assert_string_equal(mt_signal_name(SIGUSR1), "signal");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_escape_keeps_one_line),
        cmocka_unit_test(test_escape_truncates_at_a_whole_escape),
        cmocka_unit_test(test_decimal_strict),
        cmocka_unit_test(test_signal_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

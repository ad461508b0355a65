/* The developer timers (MT_PHASE_TIMES): off by default, phases add up by
 * name in the order they first appear, and a full table keeps counting in
 * its last row instead of dropping time. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "core/phase_times.h"

static void test_off_by_default_and_adds_by_name(void **state)
{
    (void)state;
    mt_phase_add("ignored", 1.0); /* off: nothing kept */
    assert_false(mt_phase_enabled());
    assert_null(mt_phase_get(0));
    mt_phase_enable(true);
    mt_phase_add("a", 0.25);
    mt_phase_add("b", 1.0);
    mt_phase_add("a", 0.5);
    const mt_phase *a = mt_phase_get(0), *b = mt_phase_get(1);
    assert_non_null(a);
    assert_non_null(b);
    assert_null(mt_phase_get(2));
    assert_string_equal(a->name, "a");
    assert_true(a->seconds == 0.75 && a->count == 2);
    assert_string_equal(b->name, "b");
    assert_true(b->seconds == 1.0 && b->count == 1);
    double t0 = mt_phase_now(), t1 = mt_phase_now();
    assert_true(t1 >= t0 && t0 > 0);
}

static void test_full_table_counts_the_rest(void **state)
{
    (void)state;
    mt_phase_enable(true);
    char name[32];
    for (int i = 0; i < MT_PHASE_MAX + 5; i++) {
        snprintf(name, sizeof name, "p%d", i);
        mt_phase_add(name, 1.0);
    }
    const mt_phase *last = mt_phase_get(MT_PHASE_MAX - 1);
    assert_non_null(last);
    assert_null(mt_phase_get(MT_PHASE_MAX));
    assert_string_equal(last->name, "(other)");
    double total = 0;
    for (size_t i = 0; mt_phase_get(i); i++)
        total += mt_phase_get(i)->seconds;
    /* Every second added since the first test's 1.75 is still there. */
    assert_true(total == 1.75 + MT_PHASE_MAX + 5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_off_by_default_and_adds_by_name),
        cmocka_unit_test(test_full_table_counts_the_rest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

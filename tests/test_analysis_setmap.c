/* Per-set capacity map (analysis/setmap.c): usable ways from clean laps,
 * the short sets as a coset of the label space, consecutive labels. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "analysis/setmap.h"

static void usable_is_largest_clean_k(void **state)
{
    (void)state;
    uint32_t u = 99;
    /* 4 ways: k = 1..4 clean in both laps, k = 5 never */
    const uint32_t full[] = {2, 2, 2, 2, 0};
    assert_int_equal(mt_setmap_usable(full, 5, &u), 0);
    assert_int_equal(u, 4);
    /* a set of 3: k = 4 and 5 miss in every lap */
    const uint32_t three[] = {2, 2, 2, 0, 0};
    assert_int_equal(mt_setmap_usable(three, 5, &u), 0);
    assert_int_equal(u, 3);
    /* spikes in both laps of k = 2 cannot hide that k = 3 was clean once */
    const uint32_t gap[] = {2, 0, 1, 0, 0};
    assert_int_equal(mt_setmap_usable(gap, 5, &u), 1);
    assert_int_equal(u, 3);
    /* nothing clean: no line stays (or every lap was disturbed) */
    const uint32_t none[] = {0, 0, 0};
    assert_int_equal(mt_setmap_usable(none, 3, &u), 0);
    assert_int_equal(u, 0);
    /* more than the ways the geometry gave: k = kmax clean */
    const uint32_t more[] = {1, 1, 1};
    mt_setmap_usable(more, 3, &u);
    assert_int_equal(u, 3);
}

static void quarter_of_512_is_a_coset(void **state)
{
    (void)state;
    /* labels 0..127 of 512: bits 7 and 8 are zero */
    uint64_t labels[128], eq[9], rhs = 0;
    uint32_t n_eq = 0;
    for (uint64_t t = 0; t < 128; t++)
        labels[t] = t;
    assert_true(mt_setmap_coset(labels, 128, 9, eq, &n_eq, &rhs));
    assert_int_equal(n_eq, 2);
    char text[64];
    mt_setmap_coset_text(eq, n_eq, rhs, text, sizeof text);
    assert_string_equal(text, "b7=0 b8=0");
    /* an odd coset: labels t with t0 ^ t3 = 1 and t5 = 1 over 6 bits */
    uint64_t odd[16];
    size_t n = 0;
    for (uint64_t t = 0; t < 64; t++)
        if (((t ^ t >> 3) & 1) && (t >> 5 & 1))
            odd[n++] = t;
    assert_int_equal(n, 16);
    assert_true(mt_setmap_coset(odd, n, 6, eq, &n_eq, &rhs));
    mt_setmap_coset_text(eq, n_eq, rhs, text, sizeof text);
    assert_string_equal(text, "b0^b3=1 b5=1");
    /* one label is a coset of the zero space: every bit fixed */
    uint64_t one = 5;
    assert_true(mt_setmap_coset(&one, 1, 3, eq, &n_eq, &rhs));
    mt_setmap_coset_text(eq, n_eq, rhs, text, sizeof text);
    assert_string_equal(text, "b0=1 b1=0 b2=1");
    /* every label: no equation */
    uint64_t all[4] = {0, 1, 2, 3};
    assert_true(mt_setmap_coset(all, 4, 2, eq, &n_eq, &rhs));
    assert_int_equal(n_eq, 0);
    mt_setmap_coset_text(eq, n_eq, rhs, text, sizeof text);
    assert_string_equal(text, "all sets");
}

static void non_cosets_are_refused(void **state)
{
    (void)state;
    uint64_t eq[9], rhs;
    uint32_t n_eq;
    uint64_t three[] = {0, 1, 2}; /* spans 4 labels, has 3 */
    assert_false(mt_setmap_coset(three, 3, 2, eq, &n_eq, &rhs));
    uint64_t range[96]; /* 0..95: 96 is no power of two */
    for (uint64_t t = 0; t < 96; t++)
        range[t] = t;
    assert_false(mt_setmap_coset(range, 96, 9, eq, &n_eq, &rhs));
    uint64_t four[] = {0, 1, 2, 4}; /* four labels spanning 8 */
    assert_false(mt_setmap_coset(four, 4, 3, eq, &n_eq, &rhs));
    assert_false(mt_setmap_coset(four, 0, 3, eq, &n_eq, &rhs));
}

static void consecutive_labels(void **state)
{
    (void)state;
    uint64_t a[] = {5, 6, 7, 8}, b[] = {5, 6, 8};
    assert_true(mt_setmap_consecutive(a, 4));
    assert_false(mt_setmap_consecutive(b, 3));
    assert_false(mt_setmap_consecutive(a, 0));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(usable_is_largest_clean_k),
        cmocka_unit_test(quarter_of_512_is_a_coset),
        cmocka_unit_test(non_cosets_are_refused),
        cmocka_unit_test(consecutive_labels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

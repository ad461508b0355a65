/* GF(2) helpers of the set-index hash recovery (analysis/gf2.c): reduced
 * row echelon form, rank, row-space equality and the set label. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "analysis/gf2.h"

static void rref_of_hand_example(void **state)
{
    (void)state;
    /* 0b0110, 0b0011, 0b0101: the third is the XOR of the first two. */
    uint64_t m[] = {0x6, 0x3, 0x5};
    assert_int_equal(mt_gf2_rref(m, 3), 2);
    /* span{0x3, 0x6} = {0, 0x3, 0x5, 0x6}: the row with pivot bit 0 must
     * have bit 1 clear (0x5), the row with pivot bit 1 bit 0 clear (0x6). */
    assert_int_equal(m[0], 0x5);
    assert_int_equal(m[1], 0x6);
    assert_int_equal(m[2], 0);
}

static void drawn_masks_are_canonical(void **state)
{
    (void)state;
    /* Mask i = bit i plus bits from n up (tools/spec_whole.py's draws, and
     * tests/specs-geometry/lru-hash-64x4.spec): already reduced. */
    uint64_t m[] = {0x41, 0x82, 0x104, 0x208, 0x410, 0x820};
    uint64_t copy[6];
    for (int i = 0; i < 6; i++)
        copy[i] = m[i];
    assert_int_equal(mt_gf2_rref(copy, 6), 6);
    for (int i = 0; i < 6; i++)
        assert_int_equal(copy[i], m[i]);
}

static void rank_and_same_span(void **state)
{
    (void)state;
    uint64_t a[] = {0x41, 0x82, 0x104};
    uint64_t b[] = {0x41 ^ 0x82, 0x82, 0x104 ^ 0x41}; /* an invertible recombination */
    uint64_t c[] = {0x41, 0x82, 0x105};              /* a different space */
    assert_int_equal(mt_gf2_rank(a, 3), 3);
    assert_true(mt_gf2_same_span(a, 3, b, 3));
    assert_false(mt_gf2_same_span(a, 3, c, 3));
    /* Zero rows do not change a span; a lower rank does. */
    uint64_t d[] = {0x41, 0, 0x82, 0x104};
    assert_true(mt_gf2_same_span(a, 3, d, 4));
    assert_false(mt_gf2_same_span(a, 2, a, 3));
    uint64_t dep[] = {0x3, 0x5, 0x6};
    assert_int_equal(mt_gf2_rank(dep, 3), 2);
}

static void apply_gives_parities(void **state)
{
    (void)state;
    uint64_t m[] = {0x41, 0x82};
    assert_int_equal(mt_gf2_apply(m, 2, 0x0), 0);
    assert_int_equal(mt_gf2_apply(m, 2, 0x1), 1);
    assert_int_equal(mt_gf2_apply(m, 2, 0x40), 1);  /* bit 6 is in mask 0 */
    assert_int_equal(mt_gf2_apply(m, 2, 0x41), 0);  /* both: even parity */
    assert_int_equal(mt_gf2_apply(m, 2, 0x80), 2);
    assert_int_equal(mt_gf2_apply(m, 2, 0xc3), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rref_of_hand_example),
        cmocka_unit_test(drawn_masks_are_canonical),
        cmocka_unit_test(rank_and_same_span),
        cmocka_unit_test(apply_gives_parities),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

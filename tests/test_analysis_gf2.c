/* GF(2) helpers of the set-index hash recovery (analysis/gf2.c): reduced
 * row echelon form, rank, row-space equality and the set label. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
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

/* The H100's L1 masks (tests/fixtures/h100-sxm5-2, line bits 0-13, rank
 * 9): already reduced. */
static const uint64_t h100_masks[] = {0x3601, 0xc02, 0x804, 0x3408, 0x2e10,
                                      0x2a20, 0x1a40, 0x80,  0x1900};

static void pivot_vector_has_its_label(void **state)
{
    (void)state;
    uint64_t m[9];
    memcpy(m, h100_masks, sizeof m);
    assert_int_equal(mt_gf2_rref(m, 9), 9);
    for (int k = 0; k < 9; k++)
        assert_int_equal(m[k], h100_masks[k]);
    for (uint64_t label = 0; label < 512; label++) {
        uint64_t x = mt_gf2_pivot_vector(m, 9, label);
        assert_int_equal(mt_gf2_apply(m, 9, x), label);
        assert_true(x < 512); /* the pivots are bits 0-8 */
    }
}

static void null_basis_spans_the_set(void **state)
{
    (void)state;
    uint64_t b[14];
    /* 14 bits, rank 9: 5 free bits (9-13), 32 lines per set. */
    assert_int_equal(mt_gf2_null_basis(h100_masks, 9, 14, b), 5);
    for (int j = 0; j < 5; j++) {
        assert_int_equal(mt_gf2_apply(h100_masks, 9, b[j]), 0);
        assert_true(b[j] >> (9 + j) == 1); /* highest bit: the j-th free bit */
    }
    /* The 2^5 combinations are distinct lines, all of label 0; a line
     * outside the span has another label or is one of them. */
    uint64_t seen[32];
    for (uint32_t k = 0; k < 32; k++) {
        uint64_t x = 0;
        for (int j = 0; j < 5; j++)
            if (k & (1u << j))
                x ^= b[j];
        for (uint32_t i = 0; i < k; i++)
            assert_true(seen[i] != x);
        seen[k] = x;
    }
    uint32_t zero = 0;
    for (uint64_t x = 0; x < (1u << 14); x++)
        zero += mt_gf2_apply(h100_masks, 9, x) == 0;
    assert_int_equal(zero, 32);
    /* Modulo 8 sets (masks 1, 2, 4) over 5 bits: the multiples of 8. */
    uint64_t mod[] = {0x1, 0x2, 0x4};
    assert_int_equal(mt_gf2_null_basis(mod, 3, 5, b), 2);
    assert_int_equal(b[0], 0x8);
    assert_int_equal(b[1], 0x10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rref_of_hand_example),
        cmocka_unit_test(drawn_masks_are_canonical),
        cmocka_unit_test(rank_and_same_span),
        cmocka_unit_test(apply_gives_parities),
        cmocka_unit_test(pivot_vector_has_its_label),
        cmocka_unit_test(null_basis_spans_the_set),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

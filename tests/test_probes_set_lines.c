/* Lines of one cache set (src/probes/set_lines.c): modulo and XOR indices
 * through the same call, checked against the index they were built from. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "analysis/gf2.h"
#include "probes/set_lines.h"

static void modulo_lines_are_label_plus_multiples(void **state)
{
    (void)state;
    mt_set_index ix = {.ways = 4, .sets = 240, .line = 128, .lines_known = 1u << 13};
    uint32_t l[5];
    assert_true(mt_set_lines(&ix, 7, 5, l));
    for (uint32_t k = 0; k < 5; k++)
        assert_int_equal(l[k], 7 + 240 * k);
    /* Set 239's fifth line is 239 + 4 x 240 = 1199: beyond 1024 known lines. */
    ix.lines_known = 1024;
    assert_false(mt_set_lines(&ix, 239, 5, l));
    assert_true(mt_set_lines(&ix, 0, 5, l));
    assert_false(mt_set_lines(&ix, 240, 1, l)); /* no such set */
}

static void xor_lines_share_their_label(void **state)
{
    (void)state;
    /* The H100's L1 index (tests/fixtures/h100-sxm5-2). */
    static const uint64_t m[] = {0x3601, 0xc02, 0x804, 0x3408, 0x2e10, 0x2a20, 0x1a40, 0x80,
                                 0x1900};
    mt_set_index ix = {.ways = 4, .sets = 512, .line = 128, .xor_index = true, .rank = 9,
                       .bits = 14, .lines_known = 1u << 14};
    memcpy(ix.masks, m, sizeof m);
    uint32_t l[33];
    for (uint64_t label = 0; label < 512; label += 37) {
        assert_true(mt_set_lines(&ix, label, 5, l));
        for (uint32_t k = 0; k < 5; k++) {
            assert_int_equal(mt_gf2_apply(m, 9, l[k]), label);
            assert_true(l[k] < (1u << 14));
            for (uint32_t i = 0; i < k; i++)
                assert_true(l[i] != l[k]);
        }
        /* Five lines need three null-space vectors: free bits 9-11, so
         * every line lies below 2^12 (a short chain). */
        assert_true(l[4] < (1u << 12));
    }
    /* 32 lines per set lie below 2^14, not 33. */
    assert_true(mt_set_lines(&ix, 3, 32, l));
    assert_false(mt_set_lines(&ix, 3, 33, l));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(modulo_lines_are_label_plus_multiples),
        cmocka_unit_test(xor_lines_share_their_label),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

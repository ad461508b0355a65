/* Set-index masks from one eviction set (src/probes/evict_masks.c)
 * against model oracles: a linear index given as masks (the row space
 * comes back, in reduced row echelon form), modulo over a power of two
 * (the unit rows), an index that is not linear (modulo 96: a prediction
 * fails), a budget too small, and an oracle's error passed through. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/gf2.h"
#include "probes/evict_masks.h"

/* A cache of `ways` ways whose set of line x is mask parities (n masks)
 * or, with n 0, x mod modulo: the target goes when the pool holds `ways`
 * lines of its set. */
typedef struct {
    const uint64_t *masks;
    uint32_t n, ways;
    uint64_t modulo, calls;
    int fail_at;
} model;

static uint64_t set_of(const model *m, uint64_t x)
{
    return m->n ? mt_gf2_apply(m->masks, m->n, x) : x % m->modulo;
}

static mt_err oracle(void *ctx, uint64_t target, const mt_line_list *l, bool *evicts)
{
    model *m = ctx;
    if (m->fail_at && ++m->calls == (uint64_t)m->fail_at)
        return MT_ERR_DEVICE;
    uint64_t in_set = 0, s = set_of(m, target);
    for (uint32_t i = 0; i < l->n; i++)
        for (uint32_t k = 0; k < l->iv[i].count; k++) {
            uint64_t x = (uint64_t)l->iv[i].first + k;
            assert_true(x != target);
            in_set += set_of(m, x) == s;
        }
    *evicts = in_set >= m->ways;
    return MT_OK;
}

/* The first `ways` lines after the target in its set. */
static void set_lines(const model *m, uint64_t target, uint64_t *e)
{
    uint32_t at = 0;
    for (uint64_t x = target + 1; at < m->ways; x++)
        if (set_of(m, x) == set_of(m, target))
            e[at++] = x;
}

static void recovers_the_row_space(void **state)
{
    (void)state;
    /* 6 set bits over line bits 0-11, each mixing a low bit with high ones */
    static const uint64_t masks[] = {0x801, 0x402, 0x284, 0x108, 0x810, 0x620};
    model m = {.masks = masks, .n = 6, .ways = 4};
    uint64_t e[4];
    set_lines(&m, 5, e);
    mt_evict_masks out;
    assert_int_equal(mt_evict_masks_measure(5, e, 4, 12, 0, 4, 1, oracle, &m, &out), MT_OK);
    assert_true(out.verified);
    assert_int_equal(out.rank, 6);
    assert_true(mt_gf2_same_span(out.masks, out.rank, masks, 6));
    assert_int_equal(out.predictions, 8);
    /* about bits x (rank + 1) tests, plus the predictions */
    assert_true(out.tests <= 12 * 7 + 8);
    /* rows in reduced row echelon form: increasing lowest bits */
    for (uint32_t k = 1; k < out.rank; k++)
        assert_true((out.masks[k] & -out.masks[k]) > (out.masks[k - 1] & -out.masks[k - 1]));
}

static void modulo_gives_unit_rows(void **state)
{
    (void)state;
    model m = {.ways = 8, .modulo = 64};
    uint64_t e[8];
    set_lines(&m, 0, e);
    mt_evict_masks out;
    assert_int_equal(mt_evict_masks_measure(0, e, 8, 14, 0, 4, 2, oracle, &m, &out), MT_OK);
    assert_true(out.verified);
    assert_int_equal(out.rank, 6);
    for (uint32_t k = 0; k < 6; k++)
        assert_int_equal(out.masks[k], 1ull << k);
}

static void not_linear_is_not_verified(void **state)
{
    (void)state;
    model m = {.ways = 4, .modulo = 96};
    uint64_t e[4];
    set_lines(&m, 3, e);
    mt_evict_masks out;
    assert_int_equal(mt_evict_masks_measure(3, e, 4, 12, 0, 4, 3, oracle, &m, &out), MT_OK);
    assert_false(out.verified);
    assert_non_null(strstr(out.why, "prediction failed"));
}

static void budget_and_errors(void **state)
{
    (void)state;
    static const uint64_t masks[] = {0x801, 0x402, 0x284, 0x108};
    model m = {.masks = masks, .n = 4, .ways = 4};
    uint64_t e[4];
    set_lines(&m, 0, e);
    mt_evict_masks out;
    assert_int_equal(mt_evict_masks_measure(0, e, 4, 12, 10, 4, 1, oracle, &m, &out), MT_OK);
    assert_false(out.verified);
    assert_int_equal(out.tests, 10);
    assert_non_null(strstr(out.why, "budget"));
    m.fail_at = 3;
    assert_int_equal(mt_evict_masks_measure(0, e, 4, 12, 0, 4, 1, oracle, &m, &out),
                     MT_ERR_DEVICE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(recovers_the_row_space),
        cmocka_unit_test(modulo_gives_unit_rows),
        cmocka_unit_test(not_linear_is_not_verified),
        cmocka_unit_test(budget_and_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

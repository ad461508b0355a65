/* The eviction-set reduction (src/probes/evict_reduce.c): removing a range
 * of positions from a list of intervals, and the group-testing reduction
 * against a model oracle (a target evicted when the list holds W lines of
 * its set), with its budget and an oracle's error passed through. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "probes/evict_reduce.h"

static void remove_cuts_and_splits(void **state)
{
    (void)state;
    mt_line_interval a[2] = {{10, 5}, {20, 3}}, b[3];
    mt_line_list in = {.iv = a, .n = 2, .cap = 2, .lines = 8}, out = {.iv = b, .cap = 3};
    /* positions 0-4 are lines 10-14, 5-7 lines 20-22 */
    assert_true(mt_line_list_remove(&in, 3, 6, &out));
    assert_int_equal(out.n, 2);
    assert_int_equal(out.lines, 5);
    assert_int_equal(out.iv[0].first, 10);
    assert_int_equal(out.iv[0].count, 3);
    assert_int_equal(out.iv[1].first, 21);
    assert_int_equal(out.iv[1].count, 2);
    /* a hole in one interval splits it */
    assert_true(mt_line_list_remove(&in, 1, 2, &out));
    assert_int_equal(out.n, 3);
    assert_int_equal(out.iv[1].first, 12);
    assert_int_equal(out.iv[1].count, 3);
    /* the whole list, and nothing */
    assert_true(mt_line_list_remove(&in, 0, 8, &out));
    assert_int_equal(out.n, 0);
    assert_int_equal(out.lines, 0);
    assert_true(mt_line_list_remove(&in, 8, 8, &out));
    assert_int_equal(out.lines, 8);
    /* more intervals than out holds */
    out.cap = 2;
    assert_false(mt_line_list_remove(&in, 1, 2, &out));
}

/* A cache of `sets` modulo sets x `ways`: the target (line 0) goes when the
 * list holds `ways` lines of set 0. */
typedef struct {
    uint64_t sets, ways, calls;
    int fail_at;
} model;

static mt_err model_oracle(void *ctx, const mt_line_list *l, bool *evicts)
{
    model *m = ctx;
    if (m->fail_at && ++m->calls == (uint64_t)m->fail_at)
        return MT_ERR_DEVICE;
    uint64_t in_set = 0;
    for (uint32_t i = 0; i < l->n; i++)
        for (uint32_t k = 0; k < l->iv[i].count; k++)
            in_set += (l->iv[i].first + k) % m->sets == 0;
    *evicts = in_set >= m->ways;
    return MT_OK;
}

static void reduces_to_the_ways(void **state)
{
    (void)state;
    enum { CAP = 4096 };
    static const uint64_t cases[][2] = {{64, 4}, {256, 16}, {1000, 12}, {96, 2}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        mt_line_interval *a = malloc(CAP * sizeof *a), *b = malloc(CAP * sizeof *b);
        assert_non_null(a);
        assert_non_null(b);
        model m = {.sets = cases[c][0], .ways = cases[c][1]};
        uint64_t pool = m.sets * m.ways;
        a[0] = (mt_line_interval){1, (uint32_t)pool};
        mt_line_list l = {.iv = a, .n = 1, .cap = CAP, .lines = pool};
        mt_line_list s = {.iv = b, .cap = CAP};
        mt_evict_reduce_stats st = {0};
        assert_int_equal(mt_evict_reduce(&l, &s, 0, model_oracle, &m, &st), MT_OK);
        assert_int_equal(l.lines, m.ways);
        for (uint32_t i = 0; i < l.n; i++)
            for (uint32_t k = 0; k < l.iv[i].count; k++)
                assert_int_equal((l.iv[i].first + k) % m.sets, 0);
        assert_false(st.budget_spent);
        assert_true(st.tests > 0);
        /* The same search on a budget of a tenth of its tests stops. */
        uint64_t full = st.tests;
        assert_true(full >= 10);
        a[0] = (mt_line_interval){1, (uint32_t)pool};
        l.n = 1;
        l.lines = pool;
        st = (mt_evict_reduce_stats){0};
        assert_int_equal(mt_evict_reduce(&l, &s, full / 10, model_oracle, &m, &st), MT_OK);
        assert_true(st.budget_spent);
        assert_true(st.tests <= full / 10);
        free(a);
        free(b);
    }
}

static void oracle_errors_pass_through(void **state)
{
    (void)state;
    mt_line_interval a[64], b[64];
    model m = {.sets = 8, .ways = 4, .fail_at = 3};
    a[0] = (mt_line_interval){1, 32};
    mt_line_list l = {.iv = a, .n = 1, .cap = 64, .lines = 32}, s = {.iv = b, .cap = 64};
    mt_evict_reduce_stats st = {0};
    assert_int_equal(mt_evict_reduce(&l, &s, 0, model_oracle, &m, &st), MT_ERR_DEVICE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(remove_cuts_and_splits),
        cmocka_unit_test(reduces_to_the_ways),
        cmocka_unit_test(oracle_errors_pass_through),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

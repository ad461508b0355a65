/* The per-set replacement models and the classification of their victims
 * (analysis/policy_sets.c, used by probe_policy.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "analysis/analysis.h"

#define N(a) (sizeof(a) / sizeof(a)[0])

static void models_predict_the_textbook_victims(void **state)
{
    (void)state;
    /* 4 ways: fill A0..A3, new line 4: every model evicts A0. */
    static const uint32_t fill[] = {0, 1, 2, 3, 4};
    for (int m = 0; m < MT_MODEL_COUNT; m++)
        assert_int_equal(mt_policy_predict_victim((mt_policy_model)m, 4, fill, N(fill)), 0);
    /* A hit on A0 first: LRU evicts A1, FIFO still A0, the tree A2
     * (docs/spec-format.md: "LRU evicts B but plru evicts C"). */
    static const uint32_t hit[] = {0, 1, 2, 3, 0, 4};
    assert_int_equal(mt_policy_predict_victim(MT_MODEL_LRU, 4, hit, N(hit)), 1);
    assert_int_equal(mt_policy_predict_victim(MT_MODEL_FIFO, 4, hit, N(hit)), 0);
    assert_int_equal(mt_policy_predict_victim(MT_MODEL_PLRU, 4, hit, N(hit)), 2);
    /* Hits in reverse order: LRU's victim is the line filled last. */
    static const uint32_t rev[] = {0, 1, 2, 3, 3, 2, 1, 0, 4};
    assert_int_equal(mt_policy_predict_victim(MT_MODEL_LRU, 4, rev, N(rev)), 3);
    assert_int_equal(mt_policy_predict_victim(MT_MODEL_FIFO, 4, rev, N(rev)), 0);
    /* 2 ways: the tree is LRU; 3 ways: no tree; no miss: no victim. */
    static const uint32_t two[] = {0, 1, 0, 2};
    assert_int_equal(mt_policy_predict_victim(MT_MODEL_PLRU, 2, two, N(two)), 1);
    assert_int_equal(mt_policy_predict_victim(MT_MODEL_PLRU, 3, fill, 4), -1);
    assert_int_equal(mt_policy_predict_victim(MT_MODEL_LRU, 4, fill, 4), -1);
}

static const mt_policy_sets_limits lim = {0.1, 1e-3};

/* Three tests (fill, hit A0, reversed) at `ways` ways, every model's
 * prediction filled in. */
static void setup(mt_policy_sets_test *t, uint32_t ways)
{
    memset(t, 0, 3 * sizeof *t);
    uint32_t ids[3][3 * 16 + 1];
    size_t n[3] = {0, 0, 0};
    for (int k = 0; k < 3; k++) {
        for (uint32_t j = 0; j < ways; j++)
            ids[k][n[k]++] = j;
        if (k == 1)
            ids[k][n[k]++] = 0;
        for (uint32_t j = ways; k == 2 && j-- > 0;)
            ids[k][n[k]++] = j;
        ids[k][n[k]++] = ways;
        for (int m = 0; m < MT_MODEL_COUNT; m++)
            t[k].predicted[m] = mt_policy_predict_victim((mt_policy_model)m, ways, ids[k], n[k]);
    }
}

static void deterministic_victims_name_the_model(void **state)
{
    (void)state;
    mt_policy_sets_test t[3];
    setup(t, 4);
    for (int k = 0; k < 3; k++)
        t[k].victim[t[k].predicted[MT_MODEL_PLRU]] = 96;
    t[1].victim[3] += 3; /* a few stray first misses (timer outliers) */
    mt_policy_sets_obs obs = {4, 3, t};
    mt_policy_sets_verdict v = mt_classify_policy_sets(&obs, &lim);
    assert_int_equal(v.cls, MT_SETS_DETERMINISTIC);
    assert_int_equal(v.fits, 1u << MT_MODEL_PLRU);
    assert_true(v.p_other < 1e-30);
    /* The same victims at 2 ways fit LRU and the tree alike. */
    setup(t, 2);
    for (int k = 0; k < 3; k++)
        t[k].victim[t[k].predicted[MT_MODEL_LRU]] = 96;
    obs.ways = 2;
    v = mt_classify_policy_sets(&obs, &lim);
    assert_int_equal(v.fits, (1u << MT_MODEL_LRU) | (1u << MT_MODEL_PLRU));
}

static void unordered_victims_tell_random_from_fermi(void **state)
{
    (void)state;
    mt_policy_sets_test t[3];
    setup(t, 4);
    for (int k = 0; k < 3; k++)
        for (uint32_t j = 0; j < 4; j++)
            t[k].victim[j] = 24 + (j == (uint32_t)k); /* even: random */
    mt_policy_sets_obs obs = {4, 3, t};
    mt_policy_sets_verdict v = mt_classify_policy_sets(&obs, &lim);
    assert_int_equal(v.cls, MT_SETS_RANDOM);
    /* Fermi at 4 ways, preferred way holding A2: 1/2, 1/6, 1/6, 1/6. */
    for (int k = 0; k < 3; k++)
        for (uint32_t j = 0; j < 4; j++)
            t[k].victim[j] = j == 2 ? 48 : 16;
    v = mt_classify_policy_sets(&obs, &lim);
    assert_int_equal(v.cls, MT_SETS_FERMI);
    assert_int_equal(v.top_line, 2);
    /* Fermi at 2 ways preferring A0 evicts A0 3/4 of the time, which is
     * FIFO's victim in every test: 75% is not FIFO's 90%. */
    setup(t, 2);
    for (int k = 0; k < 3; k++) {
        t[k].victim[0] = 72;
        t[k].victim[1] = 24;
    }
    obs.ways = 2;
    v = mt_classify_policy_sets(&obs, &lim);
    assert_int_equal(v.cls, MT_SETS_FERMI);
    assert_int_equal(v.fits, 0u);
}

static void sets_without_a_miss_are_none_of_these(void **state)
{
    (void)state;
    mt_policy_sets_test t[3];
    setup(t, 4);
    for (int k = 0; k < 3; k++) {
        t[k].no_miss = 80;
        t[k].victim[1] = 16;
    }
    mt_policy_sets_obs obs = {4, 3, t};
    mt_policy_sets_verdict v = mt_classify_policy_sets(&obs, &lim);
    assert_int_equal(v.cls, MT_SETS_NONE_OF_THESE);
    assert_true(v.no_miss_share > 0.8);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(models_predict_the_textbook_victims),
        cmocka_unit_test(deterministic_victims_name_the_model),
        cmocka_unit_test(unordered_victims_tell_random_from_fermi),
        cmocka_unit_test(sets_without_a_miss_are_none_of_these),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

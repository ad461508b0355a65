/* Binomial tails, the one-sided Fisher test and the replacement class. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "analysis/analysis.h"

static void binomial_tails_reference_values(void **state)
{
    (void)state;
    /* P(X <= 1 | 10, 0.2) = 0.8^10 + 10 * 0.2 * 0.8^9 */
    assert_float_equal(mt_binom_at_most(10, 1, 0.2), 0.3758096384, 1e-10);
    assert_float_equal(mt_binom_at_most(10, 10, 0.2), 1.0, 0);
    assert_float_equal(mt_binom_at_most(10, 0, 0.5), 1.0 / 1024.0, 1e-15);
    assert_float_equal(mt_binom_at_least(10, 10, 0.75), 0.0563135147, 1e-10);
    /* The two tails meet: P(X <= k) + P(X >= k + 1) = 1. */
    for (uint64_t k = 0; k < 20; k++)
        assert_float_equal(mt_binom_at_most(20, k, 0.3) + mt_binom_at_least(20, k + 1, 0.3), 1.0,
                           1e-12);
}

static void fisher_reference_values(void **state)
{
    (void)state;
    /* a: 0 of 4 missed, b: 4 of 4: of C(8,4) = 70 splits of the 4 misses
     * only one puts none in a. */
    assert_float_equal(mt_fisher_fewer(0, 4, 4, 4), 1.0 / 70.0, 1e-12);
    /* The same rates: not fewer. */
    assert_true(mt_fisher_fewer(5, 10, 5, 10) > 0.5);
    /* Many loads, 2% against 30%: far below any alpha; reversed: near 1. */
    assert_true(mt_fisher_fewer(20, 1000, 300, 1000) < 1e-30);
    assert_true(mt_fisher_fewer(300, 1000, 20, 1000) > 0.999);
    assert_float_equal(mt_fisher_fewer(0, 10, 0, 10), 1.0, 1e-12); /* no misses at all */
}

static const mt_policy_limits lim = {0.2, 0.6, 0.2, 0.75, 1e-3};

static void policy_clean_classes(void **state)
{
    (void)state;
    const mt_miss_count all = {96, 96}, none = {0, 96};
    mt_policy_verdict v = mt_classify_policy(none, all, none, &lim);
    assert_int_equal(v.cls, MT_POLICY_RECENCY);
    assert_true(v.p_unordered < 1e-9); /* 0.8^96 */
    assert_false(v.no_contention);
    v = mt_classify_policy(all, all, none, &lim);
    assert_int_equal(v.cls, MT_POLICY_INSERTION);
    assert_true(v.p_unordered < 1e-15); /* 0.75^96 * 0.8^96 */
    v = mt_classify_policy((mt_miss_count){10, 96}, all, (mt_miss_count){40, 96}, &lim);
    assert_int_equal(v.cls, MT_POLICY_UNORDERED);
    v = mt_classify_policy((mt_miss_count){40, 96}, all, (mt_miss_count){5, 96}, &lim);
    assert_int_equal(v.cls, MT_POLICY_UNCLASSIFIED);
    assert_false(v.no_contention);
}

static void policy_weak_evidence_is_open(void **state)
{
    (void)state;
    /* Fermi's policy with 3 ways (seed 102): 62% of the oldest evicted
     * passes the 0.6 share, but 3/4 per line makes that likely. */
    mt_policy_verdict v = mt_classify_policy((mt_miss_count){34, 55}, (mt_miss_count){34, 55},
                                             (mt_miss_count){7, 55}, &lim);
    assert_int_equal(v.cls, MT_POLICY_INSERTION);
    assert_true(v.p_unordered > 0.05); /* far above any alpha */
    /* 10 youngest lines with one miss (seed 296): random does that often. */
    v = mt_classify_policy((mt_miss_count){1, 10}, (mt_miss_count){9, 10}, (mt_miss_count){1, 10},
                           &lim);
    assert_int_equal(v.cls, MT_POLICY_RECENCY);
    assert_true(v.p_unordered > 0.1);
}

/* A hashed direct-mapped L1 (CI seed 37): the new lines displace lines in
 * other sets, so the touched lines stay, but so do the untouched ones: the
 * touch saved nothing and recency may not be claimed. */
static void policy_needs_the_touch_to_matter(void **state)
{
    (void)state;
    mt_policy_verdict v = mt_classify_policy((mt_miss_count){4, 64}, (mt_miss_count){4, 64},
                                             (mt_miss_count){0, 64}, &lim);
    assert_int_equal(v.cls, MT_POLICY_UNCLASSIFIED);
    assert_true(v.no_contention);
    assert_true(v.p_touch > 0.5);
    /* Half the untouched lines evicted, none of the touched: it mattered. */
    v = mt_classify_policy((mt_miss_count){0, 64}, (mt_miss_count){32, 64}, (mt_miss_count){0, 64},
                           &lim);
    assert_int_equal(v.cls, MT_POLICY_RECENCY);
    assert_true(v.p_touch < 1e-9);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(binomial_tails_reference_values),
        cmocka_unit_test(fisher_reference_values),
        cmocka_unit_test(policy_clean_classes),
        cmocka_unit_test(policy_weak_evidence_is_open),
        cmocka_unit_test(policy_needs_the_touch_to_matter),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

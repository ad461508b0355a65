/* Derivation shared_sizes_agree: a doubted size that agrees with the
 * trusted size of a cache sharing its physical array takes that size; one
 * that disagrees, or whose sharing is not trusted, keeps its doubt. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "probes/probe.h"

extern const mt_derivation_desc mt_derive_shared_sizes_agree;

static mt_finding size_value(double v, double conf)
{
    mt_finding f = {0};
    f.kind = MT_FIND_VALUE;
    f.source = MT_SRC_MEASURED;
    f.value = f.lo = f.hi = v;
    f.confidence = conf;
    snprintf(f.unit, sizeof f.unit, "B");
    return f;
}

static mt_finding shared_set(const char *members, double conf)
{
    mt_finding f = {0};
    f.kind = MT_FIND_SET;
    f.confidence = conf;
    snprintf(f.text, sizeof f.text, "%s", members);
    return f;
}

/* l1d with a trusted 238592 B, texture with `tex` at 0.3; texture lists
 * l1d as sharing its array with confidence `share_conf`. */
static mt_topology *h100_like(double tex, double share_conf)
{
    mt_topology *t = mt_topology_new();
    assert_non_null(t);
    static const char *const keys[] = {"l1d", "texture", "readonly"};
    for (size_t i = 0; i < 3; i++)
        assert_non_null(mt_topology_add_object(t, keys[i], keys[i], "X", MT_OBJ_CACHE, 0));
    mt_finding f = size_value(238592, 0.999);
    assert_int_equal(mt_object_set(mt_topology_object(t, "l1d"), "size", NULL, &f), MT_OK);
    f = size_value(tex, 0.3);
    assert_int_equal(mt_object_set(mt_topology_object(t, "texture"), "size", NULL, &f), MT_OK);
    f = shared_set("l1d,readonly", share_conf);
    assert_int_equal(mt_object_set(mt_topology_object(t, "texture"), "shared_with", NULL, &f),
                     MT_OK);
    return t;
}

static void test_agreeing_size_takes_the_trusted_one(void **state)
{
    (void)state;
    mt_topology *t = h100_like(238208, 0.999);
    mt_errinfo ei = {{0}};
    assert_int_equal(mt_derive_shared_sizes_agree.derive(t, &ei), MT_OK);
    const mt_finding *f = mt_topology_get(t, "texture", "size");
    assert_int_equal(f->kind, MT_FIND_VALUE);
    assert_int_equal(f->source, MT_SRC_DERIVED);
    assert_true(f->value == 238592);
    assert_true(f->confidence > 0.89 && f->confidence < 0.9);
    assert_non_null(strstr(f->note, "238208 B"));
    /* The trusted size itself is untouched. */
    assert_int_equal(mt_topology_get(t, "l1d", "size")->source, MT_SRC_MEASURED);
    mt_topology_free(t);
}

static void test_disagreeing_size_keeps_its_doubt(void **state)
{
    (void)state;
    /* 5% below: beyond MT_CAPACITY_AGREEMENT. */
    mt_topology *t = h100_like(226662, 0.999);
    mt_errinfo ei = {{0}};
    assert_int_equal(mt_derive_shared_sizes_agree.derive(t, &ei), MT_OK);
    const mt_finding *f = mt_topology_get(t, "texture", "size");
    assert_int_equal(f->source, MT_SRC_MEASURED);
    assert_true(f->value == 226662 && f->confidence == 0.3);
    mt_topology_free(t);
}

static void test_untrusted_sharing_says_nothing(void **state)
{
    (void)state;
    mt_topology *t = h100_like(238208, 0.4);
    mt_errinfo ei = {{0}};
    assert_int_equal(mt_derive_shared_sizes_agree.derive(t, &ei), MT_OK);
    const mt_finding *f = mt_topology_get(t, "texture", "size");
    assert_int_equal(f->source, MT_SRC_MEASURED);
    assert_true(f->confidence == 0.3);
    mt_topology_free(t);
}

static void test_one_contradicting_member_vetoes(void **state)
{
    (void)state;
    mt_topology *t = h100_like(238208, 0.999);
    /* readonly shares the array too, trusted, and measured 10% more. */
    mt_finding f = size_value(262451, 0.999);
    assert_int_equal(mt_object_set(mt_topology_object(t, "readonly"), "size", NULL, &f), MT_OK);
    mt_errinfo ei = {{0}};
    assert_int_equal(mt_derive_shared_sizes_agree.derive(t, &ei), MT_OK);
    const mt_finding *g = mt_topology_get(t, "texture", "size");
    assert_int_equal(g->source, MT_SRC_MEASURED);
    assert_true(g->confidence == 0.3);
    mt_topology_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_agreeing_size_takes_the_trusted_one),
        cmocka_unit_test(test_disagreeing_size_keeps_its_doubt),
        cmocka_unit_test(test_untrusted_sharing_says_nothing),
        cmocka_unit_test(test_one_contradicting_member_vetoes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The topology model (src/topology/topology.c): objects and named findings
 * added, found, replaced and removed in order; thresholds once per name;
 * refusals of bad keys; enum names both ways. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "topology/topology.h"

static mt_finding val(double v, const char *unit)
{
    mt_finding f;
    memset(&f, 0, sizeof f);
    f.kind = MT_FIND_VALUE;
    f.value = v;
    snprintf(f.unit, sizeof f.unit, "%s", unit);
    return f;
}

static void test_new_free(void **state)
{
    (void)state;
    mt_topology *t = mt_topology_new();
    assert_non_null(t);
    assert_int_equal(t->n_objects, 0);
    assert_null(t->objects);
    assert_int_equal(t->n_thresholds, 0);
    assert_null(mt_topology_object(t, "l1d"));
    assert_null(mt_topology_get(t, "l1d", "size"));
    mt_topology_free(t);
    mt_topology_free(NULL); /* NULL-safe */
}

static void test_objects(void **state)
{
    (void)state;
    mt_topology *t = mt_topology_new();
    mt_object *a = mt_topology_add_object(t, "l1d", "L1 Data", "L1D", MT_OBJ_CACHE,
                                          MT_OBJ_IN_TABLE | MT_OBJ_SHAREABLE);
    assert_non_null(a);
    assert_string_equal(a->key, "l1d");
    assert_string_equal(a->name, "L1 Data");
    assert_string_equal(a->abbrev, "L1D");
    assert_int_equal(a->type, MT_OBJ_CACHE);
    assert_int_equal(a->flags, MT_OBJ_IN_TABLE | MT_OBJ_SHAREABLE);
    assert_false(a->probed);
    assert_int_equal(a->n_findings, 0);

    /* Many objects: the array grows, order and contents kept. */
    char key[24];
    for (int i = 0; i < 100; i++) {
        snprintf(key, sizeof key, "obj%d", i);
        assert_non_null(mt_topology_add_object(t, key, key, "o", MT_OBJ_TLB, 0));
    }
    assert_int_equal(t->n_objects, 101);
    assert_string_equal(t->objects[0].key, "l1d");
    for (int i = 0; i < 100; i++) {
        snprintf(key, sizeof key, "obj%d", i);
        assert_string_equal(t->objects[i + 1].key, key);
        assert_ptr_equal(mt_topology_object(t, key), &t->objects[i + 1]);
    }

    /* An existing key returns the existing object, which keeps its own. */
    size_t n = t->n_objects;
    mt_object *again = mt_topology_add_object(t, "l1d", "Other", "X", MT_OBJ_GPU, 0);
    assert_ptr_equal(again, &t->objects[0]);
    assert_int_equal(t->n_objects, n);
    assert_string_equal(again->name, "L1 Data");
    assert_int_equal(again->type, MT_OBJ_CACHE);

    /* NULL name and abbrev fall back to the key and the name. */
    mt_object *g = mt_topology_add_object(t, "gpu", NULL, NULL, MT_OBJ_GPU, 0);
    assert_string_equal(g->name, "gpu");
    assert_string_equal(g->abbrev, "gpu");

    /* Refused keys. */
    assert_null(mt_topology_add_object(t, "", "x", "x", MT_OBJ_CACHE, 0));
    assert_null(mt_topology_add_object(t, NULL, "x", "x", MT_OBJ_CACHE, 0));
    assert_null(mt_topology_add_object(t, "a,b", "x", "x", MT_OBJ_CACHE, 0));
    assert_null(mt_topology_add_object(t, "a b", "x", "x", MT_OBJ_CACHE, 0));
    assert_null(mt_topology_add_object(t, "abcdefghijklmnopqrstuvwx", "x", "x", MT_OBJ_CACHE, 0));
    assert_non_null(
        mt_topology_add_object(t, "abcdefghijklmnopqrstuvw", "x", "x", MT_OBJ_CACHE, 0));
    assert_null(mt_topology_add_object(NULL, "k", "x", "x", MT_OBJ_CACHE, 0));
    /* Names that are too long are cut, not refused. */
    mt_object *lng = mt_topology_add_object(t, "long", "a name longer than thirty-one chars",
                                            "ABBREVIATION", MT_OBJ_LINK, 0);
    assert_non_null(lng);
    assert_int_equal(strlen(lng->name), sizeof lng->name - 1);
    assert_int_equal(strlen(lng->abbrev), sizeof lng->abbrev - 1);
    mt_topology_free(t);
}

static void test_findings(void **state)
{
    (void)state;
    mt_topology *t = mt_topology_new();
    mt_object *o = mt_topology_add_object(t, "l2", "L2", "L2", MT_OBJ_CACHE, MT_OBJ_IN_TABLE);
    mt_finding f = val(1024, "B");
    assert_int_equal(mt_object_set(o, "size", NULL, &f), MT_OK);
    f = val(128, "B");
    assert_int_equal(mt_object_set(o, "line", "line size", &f), MT_OK);
    f = val(200, "cycles");
    assert_int_equal(mt_object_set(o, "latency", "hit latency", &f), MT_OK);
    assert_int_equal(o->n_findings, 3);
    assert_string_equal(o->findings[0].name, "size");
    assert_string_equal(o->findings[0].label, "size"); /* no label: the name */
    assert_string_equal(o->findings[1].label, "line size");
    assert_string_equal(o->findings[2].name, "latency");

    const mt_finding *g = mt_object_get(o, "line");
    assert_non_null(g);
    assert_true(g->value == 128);
    assert_null(mt_object_get(o, "sector"));
    assert_null(mt_object_get(NULL, "line"));
    assert_ptr_equal(mt_topology_get(t, "l2", "line"), g);
    assert_null(mt_topology_get(t, "l3", "line"));
    assert_null(mt_topology_get(t, "l2", "nothing"));

    /* Replacing keeps the position; label NULL keeps the label. */
    f = val(256, "B");
    assert_int_equal(mt_object_set(o, "line", NULL, &f), MT_OK);
    assert_int_equal(o->n_findings, 3);
    assert_string_equal(o->findings[1].name, "line");
    assert_string_equal(o->findings[1].label, "line size");
    assert_true(o->findings[1].f.value == 256);
    assert_int_equal(mt_object_set(o, "line", "line (bytes)", &f), MT_OK);
    assert_string_equal(o->findings[1].label, "line (bytes)");

    /* A finding set from another of the same object while the array grows. */
    for (int i = 0; i < 20; i++) {
        char name[16];
        snprintf(name, sizeof name, "extra%d", i);
        assert_int_equal(mt_object_set(o, name, NULL, mt_object_get(o, "latency")), MT_OK);
    }
    assert_int_equal(o->n_findings, 23);
    assert_true(mt_object_get(o, "extra19")->value == 200);
    assert_string_equal(mt_object_get(o, "extra19")->unit, "cycles");
    /* Setting a finding to itself changes nothing. */
    assert_int_equal(mt_object_set(o, "size", NULL, mt_object_get(o, "size")), MT_OK);
    assert_true(mt_object_get(o, "size")->value == 1024);

    /* Removing keeps the order of the others; absent names are a no-op. */
    mt_object_remove(o, "line");
    assert_int_equal(o->n_findings, 22);
    assert_null(mt_object_get(o, "line"));
    assert_string_equal(o->findings[0].name, "size");
    assert_string_equal(o->findings[1].name, "latency");
    assert_string_equal(o->findings[2].name, "extra0");
    mt_object_remove(o, "line");
    mt_object_remove(o, NULL);
    mt_object_remove(NULL, "size");
    assert_int_equal(o->n_findings, 22);
    mt_object_remove(o, "extra19"); /* the last one */
    assert_int_equal(o->n_findings, 21);
    assert_string_equal(o->findings[20].name, "extra18");
    /* Set again after removal: appended at the end. */
    f = val(64, "B");
    assert_int_equal(mt_object_set(o, "line", NULL, &f), MT_OK);
    assert_string_equal(o->findings[21].name, "line");

    /* Refusals. */
    assert_int_equal(mt_object_set(o, "", NULL, &f), MT_ERR_INVALID_ARG);
    assert_int_equal(mt_object_set(o, NULL, NULL, &f), MT_ERR_INVALID_ARG);
    assert_int_equal(mt_object_set(o, "a,b", NULL, &f), MT_ERR_INVALID_ARG);
    assert_int_equal(mt_object_set(o, "x", NULL, NULL), MT_ERR_INVALID_ARG);
    assert_int_equal(mt_object_set(NULL, "x", NULL, &f), MT_ERR_INVALID_ARG);
    char longname[MT_NAME_LEN + 1];
    memset(longname, 'n', MT_NAME_LEN);
    longname[MT_NAME_LEN] = '\0';
    assert_int_equal(mt_object_set(o, longname, NULL, &f), MT_ERR_INVALID_ARG);
    longname[MT_NAME_LEN - 1] = '\0';
    assert_int_equal(mt_object_set(o, longname, NULL, &f), MT_OK);
    char longlabel[MT_LABEL_LEN + 1];
    memset(longlabel, 'l', MT_LABEL_LEN);
    longlabel[MT_LABEL_LEN] = '\0';
    assert_int_equal(mt_object_set(o, "y", longlabel, &f), MT_ERR_INVALID_ARG);
    assert_null(mt_object_get(o, "y"));
    mt_topology_free(t);
}

static void test_value_or(void **state)
{
    (void)state;
    mt_finding f = val(42, "cycles");
    assert_true(mt_finding_value_or(&f, -1) == 42);
    f.kind = MT_FIND_LOWER_BOUND;
    f.lo = 7;
    assert_true(mt_finding_value_or(&f, -1) == -1);
    f.kind = MT_FIND_NONE;
    assert_true(mt_finding_value_or(&f, 3) == 3);
    assert_true(mt_finding_value_or(NULL, 5) == 5);
}

static void test_thresholds(void **state)
{
    (void)state;
    mt_topology *t = mt_topology_new();
    assert_int_equal(mt_topology_note_threshold(t, "ks_alpha", 1e-3, "why"), MT_OK);
    assert_int_equal(mt_topology_note_threshold(t, "gap", 8, NULL), MT_OK);
    /* Once per name: the first value stays. */
    assert_int_equal(mt_topology_note_threshold(t, "ks_alpha", 0.5, "other"), MT_OK);
    assert_int_equal(t->n_thresholds, 2);
    assert_string_equal(t->thresholds[0].name, "ks_alpha");
    assert_true(t->thresholds[0].value == 1e-3);
    assert_string_equal(t->thresholds[0].why, "why");
    assert_string_equal(t->thresholds[1].why, "");
    assert_int_equal(mt_topology_note_threshold(t, "", 1, "x"), MT_ERR_INVALID_ARG);
    assert_int_equal(mt_topology_note_threshold(NULL, "x", 1, "x"), MT_ERR_INVALID_ARG);
    char name[16];
    for (int i = 2; i < MT_MAX_THRESHOLDS; i++) {
        snprintf(name, sizeof name, "t%d", i);
        assert_int_equal(mt_topology_note_threshold(t, name, i, "x"), MT_OK);
    }
    assert_int_equal(t->n_thresholds, MT_MAX_THRESHOLDS);
    assert_int_equal(mt_topology_note_threshold(t, "one_too_many", 1, "x"), MT_ERR_INVALID_ARG);
    /* A name already there is still fine when full. */
    assert_int_equal(mt_topology_note_threshold(t, "gap", 9, "x"), MT_OK);
    assert_int_equal(t->n_thresholds, MT_MAX_THRESHOLDS);
    mt_topology_free(t);
}

static void test_names(void **state)
{
    (void)state;
    static const char *const kinds[] = {"none",   "value", "lower_bound", "range",
                                        "absent", "text",  "set"};
    for (int k = 0; k <= MT_FIND_SET; k++) {
        mt_finding_kind back;
        assert_string_equal(mt_finding_kind_name((mt_finding_kind)k), kinds[k]);
        assert_int_equal(mt_finding_kind_from_name(kinds[k], &back), 0);
        assert_int_equal(back, k);
    }
    static const char *const sources[] = {"measured", "driver", "derived"};
    for (int s = 0; s <= MT_SRC_DERIVED; s++) {
        mt_source back;
        assert_string_equal(mt_source_name((mt_source)s), sources[s]);
        assert_int_equal(mt_source_from_name(sources[s], &back), 0);
        assert_int_equal(back, s);
    }
    static const char *const types[] = {"gpu", "cache", "memory", "tlb", "link"};
    for (int y = 0; y < MT_OBJ_TYPE_COUNT; y++) {
        mt_object_type back;
        assert_string_equal(mt_object_type_name((mt_object_type)y), types[y]);
        assert_int_equal(mt_object_type_from_name(types[y], &back), 0);
        assert_int_equal(back, y);
    }
    mt_finding_kind k = MT_FIND_VALUE;
    mt_source s = MT_SRC_DRIVER;
    mt_object_type y = MT_OBJ_TLB;
    assert_int_equal(mt_finding_kind_from_name("Value", &k), -1);
    assert_int_equal(mt_finding_kind_from_name(NULL, &k), -1);
    assert_int_equal(k, MT_FIND_VALUE); /* untouched on failure */
    assert_int_equal(mt_source_from_name("guessed", &s), -1);
    assert_int_equal(s, MT_SRC_DRIVER);
    assert_int_equal(mt_object_type_from_name("", &y), -1);
    assert_int_equal(y, MT_OBJ_TLB);
    assert_string_equal(mt_finding_kind_name((mt_finding_kind)99), "?");
    assert_string_equal(mt_source_name((mt_source)-1), "?");
    assert_string_equal(mt_object_type_name(MT_OBJ_TYPE_COUNT), "?");
}

/* Set membership matches whole keys only. */
static void test_set_has(void **state)
{
    (void)state;
    mt_finding f;
    memset(&f, 0, sizeof f);
    f.kind = MT_FIND_SET;
    snprintf(f.text, sizeof f.text, "texture,readonly");
    assert_int_equal(mt_finding_set_has(&f, "texture"), 1);
    assert_int_equal(mt_finding_set_has(&f, "readonly"), 1);
    assert_int_equal(mt_finding_set_has(&f, "read"), 0);   /* prefix of a key */
    assert_int_equal(mt_finding_set_has(&f, "only"), 0);   /* suffix of a key */
    assert_int_equal(mt_finding_set_has(&f, "l1d"), 0);
    assert_int_equal(mt_finding_set_has(&f, ""), 0);
    f.kind = MT_FIND_TEXT;                                /* not a set */
    assert_int_equal(mt_finding_set_has(&f, "texture"), 0);
    assert_int_equal(mt_finding_set_has(NULL, "texture"), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_new_free),   cmocka_unit_test(test_objects),
        cmocka_unit_test(test_findings),   cmocka_unit_test(test_value_or),
        cmocka_unit_test(test_thresholds), cmocka_unit_test(test_names),
        cmocka_unit_test(test_set_has),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

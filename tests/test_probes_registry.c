/* The probe registry: descriptors well formed, order from requirements,
 * --only closes over requirements, skipped probes take their dependants. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "probes/probe.h"

static void plan_names(const mt_probe_options *o, char *buf, size_t n)
{
    const mt_probe_desc *order[MT_MAX_PROBES];
    size_t k = 0, len = 0;
    mt_errinfo ei = {{0}};
    assert_int_equal(mt_probe_plan(o, order, &k, &ei), MT_OK);
    buf[0] = '\0';
    for (size_t i = 0; i < k; i++)
        len += (size_t)snprintf(buf + len, n - len, "%s%s", i ? "," : "", order[i]->name);
}

static bool object_declared(const char *id)
{
    const char *dot = strchr(id, '.');
    if (!dot)
        return false;
    for (const mt_probe_desc *const *p = mt_probe_registry; *p; p++)
        for (const mt_object_decl *o = (*p)->objects; o && o->key; o++)
            if (strlen(o->key) == (size_t)(dot - id) && strncmp(o->key, id, (size_t)(dot - id)) == 0)
                return true;
    return false;
}

static void test_descriptors_well_formed(void **state)
{
    (void)state;
    int n = 0;
    for (const mt_probe_desc *const *p = mt_probe_registry; *p; p++, n++) {
        const mt_probe_desc *d = *p;
        assert_non_null(d->name);
        assert_true(strlen(d->name) > 0 && strlen(d->summary) > 10);
        assert_non_null(d->run);
        assert_ptr_equal(mt_probe_find(d->name), d);
        for (const mt_finding_decl *f = d->provides; f && f->id; f++) {
            assert_true(object_declared(f->id));
            assert_true(f->label && *f->label);
        }
    }
    assert_true(n >= 9);
    for (const mt_derivation_desc *const *d = mt_derivation_registry; *d; d++)
        for (const mt_finding_decl *f = (*d)->provides; f && f->id; f++)
            assert_true(object_declared(f->id));
}

static void test_default_order_is_the_historic_one(void **state)
{
    (void)state;
    mt_probe_options o;
    mt_probe_options_default(&o);
    char buf[256];
    plan_names(&o, buf, sizeof buf);
    assert_string_equal(buf, "calibrate,clock,shared,banks,l1d,texture,readonly,constant,l2,l2map,l1_miss,dram,sharing,replacement,geometry,l1d_profile,cache_geom,policy");
}

static void test_only_closes_over_requirements(void **state)
{
    (void)state;
    mt_probe_options o;
    mt_probe_options_default(&o);
    mt_errinfo ei = {{0}};
    assert_int_equal(mt_probe_parse_only("sharing", &o, &ei), MT_OK);
    char buf[256];
    plan_names(&o, buf, sizeof buf);
    assert_string_equal(buf, "calibrate,clock,l1d,texture,readonly,sharing");
    mt_probe_options_default(&o);
    assert_int_equal(mt_probe_parse_only("l2,shared", &o, &ei), MT_OK);
    plan_names(&o, buf, sizeof buf);
    assert_string_equal(buf, "calibrate,clock,shared,l2");
}

static void test_skip_takes_dependants(void **state)
{
    (void)state;
    mt_probe_options o;
    mt_probe_options_default(&o);
    o.skip[0] = "texture";
    o.skip[1] = NULL;
    char buf[256];
    plan_names(&o, buf, sizeof buf);
    assert_string_equal(buf, "calibrate,clock,shared,banks,l1d,readonly,constant,l2,l2map,dram,replacement,geometry,l1d_profile,policy");
}

static void test_parse_only_errors(void **state)
{
    (void)state;
    mt_probe_options o;
    mt_probe_options_default(&o);
    mt_errinfo ei = {{0}};
    assert_int_equal(mt_probe_parse_only("l1d,warp9", &o, &ei), MT_ERR_INVALID_ARG);
    assert_non_null(strstr(ei.msg, "warp9"));
    assert_non_null(strstr(ei.msg, "sharing")); /* lists the known names */
    assert_int_equal(mt_probe_parse_only("calibrate", &o, &ei), MT_ERR_INVALID_ARG);
    assert_int_equal(mt_probe_parse_only("", &o, &ei), MT_ERR_INVALID_ARG);
    char names[256];
    mt_probe_names(names, sizeof names);
    assert_string_equal(names, "shared, banks, l1d, texture, readonly, constant, l2, l2map, l1_miss, dram, sharing, replacement, l1d_profile");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_descriptors_well_formed),
        cmocka_unit_test(test_default_order_is_the_historic_one),
        cmocka_unit_test(test_only_closes_over_requirements),
        cmocka_unit_test(test_skip_takes_dependants),
        cmocka_unit_test(test_parse_only_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

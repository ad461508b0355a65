/* provenance.disturbed and the device's other processes through the JSON
 * writer and the strict reader (issue 7). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <stdio.h>
#include <jansson.h>

#include "topology/topology.h"
#include "topology/topology_json.h"

static mt_topology *degraded(void)
{
    mt_topology *t = mt_topology_new();
    assert_non_null(t);
    snprintf(t->prov.tool_version, sizeof t->prov.tool_version, "0.1.0");
    t->dev.other_processes = 2;
    t->dev.other_busy = 1;
    snprintf(t->dev.other_process_list, sizeof t->dev.other_process_list, "12 python, 13 dcgm");
    mt_provenance_add_disturbed(&t->prov, "probe l2: reference L2 latency %d cycles vs %d", 567,
                                270);
    mt_provenance_add_disturbed(&t->prov, "probe dram: uses l2.latency, which was disturbed");
    return t;
}

static void round_trip(void **state)
{
    (void)state;
    mt_topology *t = degraded(), *back = NULL;
    json_t *doc = mt_topology_to_json(t);
    assert_non_null(doc);
    mt_errinfo ei = {{0}};
    assert_int_equal(mt_topology_from_json(doc, &back, &ei), MT_OK);
    assert_int_equal(back->prov.n_disturbed, 2);
    assert_string_equal(back->prov.disturbed[0], "probe l2: reference L2 latency 567 cycles vs 270");
    assert_int_equal(back->dev.other_processes, 2);
    assert_int_equal(back->dev.other_busy, 1);
    assert_string_equal(back->dev.other_process_list, "12 python, 13 dcgm");
    mt_topology_free(back);
    /* Reports written before these fields: absent means none / unknown. */
    json_object_del(json_object_get(doc, "provenance"), "disturbed");
    json_object_del(json_object_get(doc, "device"), "other_processes");
    json_object_del(json_object_get(doc, "device"), "other_busy");
    assert_int_equal(mt_topology_from_json(doc, &back, &ei), MT_OK);
    assert_int_equal(back->prov.n_disturbed, 0);
    assert_int_equal(back->dev.other_processes, -1);
    assert_int_equal(back->dev.other_busy, -1);
    mt_topology_free(back);
    json_decref(doc);
    mt_topology_free(t);
}

static void malformed_is_refused(void **state)
{
    (void)state;
    mt_topology *t = degraded(), *back = NULL;
    json_t *doc = mt_topology_to_json(t);
    json_t *prov = json_object_get(doc, "provenance");
    mt_errinfo ei = {{0}};
    json_object_set_new(prov, "disturbed", json_array());
    assert_int_equal(mt_topology_from_json(doc, &back, &ei), MT_ERR_JSON);
    assert_non_null(strstr(ei.msg, "disturbed"));
    json_t *arr = json_array();
    json_array_append_new(arr, json_integer(3));
    json_object_set_new(prov, "disturbed", arr);
    assert_int_equal(mt_topology_from_json(doc, &back, &ei), MT_ERR_JSON);
    assert_non_null(strstr(ei.msg, "provenance.disturbed[0]"));
    json_decref(doc);
    mt_topology_free(t);
}

static void causes_beyond_the_limit_are_counted(void **state)
{
    (void)state;
    mt_provenance p;
    memset(&p, 0, sizeof p);
    for (int i = 0; i < MT_MAX_DISTURBED + 3; i++)
        mt_provenance_add_disturbed(&p, "cause %d", i);
    char want[32];
    snprintf(want, sizeof want, "cause %d", MT_MAX_DISTURBED - 2);
    assert_string_equal(p.disturbed[MT_MAX_DISTURBED - 2], want);
    assert_string_equal(p.disturbed[MT_MAX_DISTURBED - 1], "... and 4 more disturbed measurements");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(round_trip),
        cmocka_unit_test(malformed_is_refused),
        cmocka_unit_test(causes_beyond_the_limit_are_counted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

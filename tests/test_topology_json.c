/* The report document (src/topology/topology_json.c): what is written
 * reads back into an equal topology (every finding kind, every object type
 * and flag, provenance, thresholds, timing), and the reader refuses what
 * the writer never writes with one line that names the member. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report_fixture.h"
#include "topology/device_json.h"
#include "topology/topology_json.h"

#define V1_REPORT "tests/fixtures/h100-sxm5/report.json"

#include "tmpdir_fixture.h"

/* Equal numbers: exactly, or (rel_tol > 0) within a relative tolerance. */
static void num_eq(double a, double b, double rel_tol, const char *what)
{
    if (a == b)
        return;
    if (rel_tol > 0 && fabs(a - b) <= rel_tol * fabs(a))
        return;
    fail_msg("%s: %.17g != %.17g", what, a, b);
}

/* Two topologies are equal: every member a reader can see. */
static void assert_topology_equal(const mt_topology *a, const mt_topology *b, double tol)
{
    assert_memory_equal(&a->dev, &b->dev, sizeof a->dev);
    assert_string_equal(a->prov.tool_version, b->prov.tool_version);
    assert_string_equal(a->prov.command_line, b->prov.command_line);
    assert_string_equal(a->prov.time_utc, b->prov.time_utc);
    assert_string_equal(a->prov.source, b->prov.source);
    assert_string_equal(a->prov.replay_of, b->prov.replay_of);
    assert_string_equal(a->prov.error, b->prov.error);
    assert_string_equal(a->prov.probes_missing, b->prov.probes_missing);
    assert_int_equal(a->n_objects, b->n_objects);
    for (size_t i = 0; i < a->n_objects; i++) {
        const mt_object *x = &a->objects[i], *y = &b->objects[i];
        assert_string_equal(x->key, y->key);
        assert_string_equal(x->name, y->name);
        assert_string_equal(x->abbrev, y->abbrev);
        assert_int_equal(x->type, y->type);
        assert_int_equal(x->flags, y->flags);
        assert_int_equal(x->probed, y->probed);
        assert_int_equal(x->n_findings, y->n_findings);
        for (size_t k = 0; k < x->n_findings; k++) {
            const mt_named_finding *p = &x->findings[k], *q = &y->findings[k];
            char what[96];
            snprintf(what, sizeof what, "%s.%s", x->key, p->name);
            assert_string_equal(p->name, q->name);
            assert_string_equal(p->label, q->label);
            assert_int_equal(p->f.kind, q->f.kind);
            assert_int_equal(p->f.source, q->f.source);
            if (p->f.kind == MT_FIND_VALUE)
                num_eq(p->f.value, q->f.value, tol, what);
            if (p->f.kind == MT_FIND_LOWER_BOUND || p->f.kind == MT_FIND_RANGE)
                num_eq(p->f.lo, q->f.lo, tol, what);
            if (p->f.kind == MT_FIND_RANGE)
                num_eq(p->f.hi, q->f.hi, tol, what);
            if (p->f.kind == MT_FIND_TEXT || p->f.kind == MT_FIND_SET)
                assert_string_equal(p->f.text, q->f.text);
            assert_string_equal(p->f.unit, q->f.unit);
            assert_string_equal(p->f.method, q->f.method);
            num_eq(p->f.confidence, q->f.confidence, tol, what);
            assert_string_equal(p->f.note, q->f.note);
        }
    }
    assert_int_equal(a->n_thresholds, b->n_thresholds);
    for (int i = 0; i < a->n_thresholds; i++) {
        assert_string_equal(a->thresholds[i].name, b->thresholds[i].name);
        num_eq(a->thresholds[i].value, b->thresholds[i].value, tol, "threshold");
        assert_string_equal(a->thresholds[i].why, b->thresholds[i].why);
    }
    assert_int_equal(a->n_times, b->n_times);
    for (int i = 0; i < a->n_times; i++) {
        assert_string_equal(a->times[i].probe, b->times[i].probe);
        num_eq(a->times[i].seconds, b->times[i].seconds, tol, "seconds");
        assert_int_equal(a->times[i].experiments, b->times[i].experiments);
    }
    num_eq(a->total_seconds, b->total_seconds, tol, "total_seconds");
    assert_int_equal(a->total_experiments, b->total_experiments);
}

/* The fixture plus what it lacks: every object type, both flags in every
 * combination, a missing-probes list, an error, non-integral numbers. */
static mt_topology *full_topology(void)
{
    mt_topology *t = fx_topology();
    snprintf(t->prov.replay_of, sizeof t->prov.replay_of, "/data/rec");
    snprintf(t->prov.error, sizeof t->prov.error, "l2 probe: GPU kernel timed out");
    snprintf(t->prov.probes_missing, sizeof t->prov.probes_missing, "tlb,assoc");
    mt_object *tlb = mt_topology_add_object(t, "tlb_l1", "L1 TLB", "TLB1", MT_OBJ_TLB,
                                            MT_OBJ_SHAREABLE);
    assert_non_null(tlb);
    tlb->probed = true;
    mt_finding f = fx_value(16, "count", MT_SRC_MEASURED, "stride-sweep", 0.875);
    snprintf(f.note, sizeof f.note, "knee at 16 pages of 2 MiB");
    assert_int_equal(mt_object_set(tlb, "entries", "entries", &f), MT_OK);
    f = fx_value(1.0 / 3.0, "cycles", MT_SRC_DERIVED, "difference", 1.0 / 7.0);
    assert_int_equal(mt_object_set(tlb, "miss_cost", "miss cost", &f), MT_OK);
    f = fx_kind(MT_FIND_SET, "", MT_SRC_DRIVER, "", 1);
    assert_int_equal(mt_object_set(tlb, "shared_by", "shared by", &f), MT_OK); /* empty set */
    mt_object *link = mt_topology_add_object(t, "nvlink", "NVLink", "NVL", MT_OBJ_LINK,
                                             MT_OBJ_IN_TABLE);
    assert_non_null(link);
    f = fx_kind(MT_FIND_ABSENT, "", MT_SRC_DRIVER, "attribute", 1);
    assert_int_equal(mt_object_set(link, "peer", "peer access", &f), MT_OK);
    mt_topology_add_object(t, "empty", "", "", MT_OBJ_MEMORY, 0); /* no findings, blank names */
    t->times[0].seconds = 0.123456789;
    return t;
}

static mt_topology *round_trip(const mt_topology *t)
{
    mt_errinfo ei = {{0}};
    json_t *doc = NULL;
    mt_err e = mt_topology_build_json(t, &doc, &ei);
    if (e)
        fail_msg("build: %s", ei.msg);
    mt_topology *back = NULL;
    e = mt_topology_from_json(doc, &back, &ei);
    json_decref(doc);
    if (e)
        fail_msg("read: %s", ei.msg);
    return back;
}

static void test_round_trip(void **state)
{
    (void)state;
    mt_topology *t = full_topology();
    mt_topology *back = round_trip(t);
    assert_topology_equal(t, back, 0);
    /* Every kind was there. */
    int seen[MT_FIND_SET + 1] = {0};
    for (size_t i = 0; i < back->n_objects; i++)
        for (size_t k = 0; k < back->objects[i].n_findings; k++)
            seen[back->objects[i].findings[k].f.kind] = 1;
    for (int k = 0; k <= MT_FIND_SET; k++)
        if (!seen[k])
            fail_msg("no finding of kind %s", mt_finding_kind_name((mt_finding_kind)k));
    mt_topology_free(back);

    /* The to_json shorthand gives the same document. */
    json_t *a = mt_topology_to_json(t), *b = NULL;
    assert_non_null(a);
    assert_int_equal(mt_topology_build_json(t, &b, NULL), MT_OK);
    assert_true(json_equal(a, b));
    json_decref(a);
    json_decref(b);

    /* An empty topology too. */
    mt_topology *empty = mt_topology_new();
    back = round_trip(empty);
    assert_topology_equal(empty, back, 0);
    mt_topology_free(back);
    mt_topology_free(empty);
    mt_topology_free(t);
}

/* Through a file written as the report writes it (10 significant digits):
 * equal to within that, and writing what was read gives the same bytes. */
static void test_file_round_trip(void **state)
{
    (void)state;
    mt_topology *t = full_topology();
    const size_t flags = JSON_INDENT(2) | JSON_REAL_PRECISION(10);
    char p1[128], p2[128];
    snprintf(p1, sizeof p1, "%s/a.json", tmpdir);
    snprintf(p2, sizeof p2, "%s/b.json", tmpdir);
    json_t *doc = mt_topology_to_json(t);
    assert_int_equal(json_dump_file(doc, p1, flags), 0);
    json_decref(doc);
    mt_errinfo ei = {{0}};
    mt_topology *back = NULL;
    if (mt_topology_read_file(p1, &back, &ei))
        fail_msg("%s", ei.msg);
    assert_topology_equal(t, back, 1e-9);
    doc = mt_topology_to_json(back);
    assert_int_equal(json_dump_file(doc, p2, flags), 0);
    json_decref(doc);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "cmp -s '%s' '%s'", p1, p2);
    assert_int_equal(system(cmd), 0);
    mt_topology_free(back);
    mt_topology_free(t);
}

/* The shape of the document (the schema has the whole of it). */
static void test_shape(void **state)
{
    (void)state;
    mt_topology *t = full_topology();
    json_t *d = mt_topology_to_json(t);
    assert_string_equal(json_string_value(json_object_get(d, "schema_version")), "2.3.0");
    const json_t *pm = json_object_get(json_object_get(d, "provenance"), "probes_missing");
    assert_int_equal(json_array_size(pm), 2);
    assert_string_equal(json_string_value(json_array_get(pm, 1)), "assoc");
    const json_t *objs = json_object_get(d, "objects");
    assert_int_equal(json_array_size(objs), t->n_objects);
    const json_t *l1 = json_array_get(objs, 0);
    assert_string_equal(json_string_value(json_object_get(l1, "key")), "l1d");
    assert_string_equal(json_string_value(json_object_get(l1, "type")), "cache");
    assert_string_equal(json_string_value(json_object_get(l1, "abbrev")), "L1D");
    const json_t *fl = json_object_get(l1, "flags");
    assert_true(json_is_true(json_object_get(fl, "in_table")));
    assert_true(json_is_true(json_object_get(fl, "shareable")));
    const json_t *fs = json_object_get(l1, "findings");
    /* findings in the order they were set */
    const char *first = json_object_iter_key(json_object_iter((json_t *)fs));
    assert_string_equal(first, "size");
    const json_t *size = json_object_get(fs, "size");
    assert_int_equal(json_object_size(size), 8); /* label kind value unit source method conf note */
    assert_true(json_is_integer(json_object_get(size, "value")));
    const json_t *sw = json_object_get(fs, "shared_with");
    assert_null(json_object_get(sw, "text"));
    const json_t *m = json_object_get(sw, "members");
    assert_int_equal(json_array_size(m), 2);
    assert_string_equal(json_string_value(json_array_get(m, 0)), "texture");
    assert_string_equal(json_string_value(json_object_get(sw, "label")), "shared with");
    /* none: no data members, unit kept */
    const json_t *l15 = json_object_get(json_object_get(json_array_get(objs, 4), "findings"),
                                        "size");
    assert_string_equal(json_string_value(json_object_get(l15, "kind")), "none");
    assert_int_equal(json_object_size(l15), 7);
    assert_string_equal(json_string_value(json_object_get(l15, "unit")), "B");
    json_decref(d);

    /* No missing probes: null. */
    t->prov.probes_missing[0] = '\0';
    d = mt_topology_to_json(t);
    assert_true(json_is_null(json_object_get(json_object_get(d, "provenance"), "probes_missing")));
    json_decref(d);
    mt_topology_free(t);
}

/* What JSON cannot hold is refused with a message naming the finding. */
static void test_writer_refuses(void **state)
{
    (void)state;
    mt_topology *t = fx_topology();
    mt_errinfo ei = {{0}};
    json_t *doc = (json_t *)1;
    fx_finding(t, "l2", "latency")->value = NAN;
    assert_int_equal(mt_topology_build_json(t, &doc, &ei), MT_ERR_JSON);
    assert_null(doc);
    assert_non_null(strstr(ei.msg, "l2.latency value"));
    assert_null(mt_topology_to_json(t));
    fx_finding(t, "l2", "latency")->value = 262;

    fx_finding(t, "l1d", "size")->kind = (mt_finding_kind)42;
    assert_int_equal(mt_topology_build_json(t, &doc, &ei), MT_ERR_JSON);
    assert_non_null(strstr(ei.msg, "l1d.size"));
    assert_non_null(strstr(ei.msg, "kind"));
    fx_finding(t, "l1d", "size")->kind = MT_FIND_VALUE;

    mt_topology_object(t, "gpu")->flags = 1u << 7;
    assert_int_equal(mt_topology_build_json(t, &doc, &ei), MT_ERR_JSON);
    assert_non_null(strstr(ei.msg, "gpu"));
    assert_non_null(strstr(ei.msg, "flags"));
    mt_topology_object(t, "gpu")->flags = 0;
    assert_int_equal(mt_topology_build_json(t, &doc, &ei), MT_OK);
    json_decref(doc);
    assert_int_equal(mt_topology_build_json(NULL, &doc, &ei), MT_ERR_INVALID_ARG);
    mt_topology_free(t);
}

/* ---------- reader errors ---------- */

/* A valid document to break. */
static json_t *good_doc(void)
{
    mt_topology *t = full_topology();
    json_t *d = mt_topology_to_json(t);
    mt_topology_free(t);
    assert_non_null(d);
    return d;
}

static json_t *obj_at(json_t *d, size_t i)
{
    return json_array_get(json_object_get(d, "objects"), i);
}

static json_t *finding_at(json_t *d, size_t i, const char *name)
{
    return json_object_get(json_object_get(obj_at(d, i), "findings"), name);
}

/* Reading d fails with MT_ERR_JSON and one line holding every needle. */
static void refused(json_t *d, const char *needle1, const char *needle2)
{
    mt_errinfo ei = {{0}};
    mt_topology *t = (mt_topology *)1;
    mt_err e = mt_topology_from_json(d, &t, &ei);
    json_decref(d);
    if (e != MT_ERR_JSON)
        fail_msg("expected MT_ERR_JSON for %s, got %d (%s)", needle1, (int)e, ei.msg);
    assert_null(t);
    assert_null(strchr(ei.msg, '\n'));
    if (getenv("MT_SHOW_ERRORS")) /* to read the messages: MT_SHOW_ERRORS=1 */
        fprintf(stderr, "%s\n", ei.msg);
    if (!strstr(ei.msg, needle1) || (needle2 && !strstr(ei.msg, needle2)))
        fail_msg("message \"%s\" lacks \"%s\" / \"%s\"", ei.msg, needle1, needle2 ? needle2 : "");
}

/* With a measured clock, findings in cycles carry *_ns members; the reader
 * accepts them only on findings in cycles, as numbers, and ignores them. */
static void test_ns_members(void **state)
{
    (void)state;
    mt_topology *t = full_topology();
    fx_add_clock(t, 2000); /* 0.5 ns per cycle */
    json_t *d = mt_topology_to_json(t);
    assert_non_null(d);
    json_t *far = NULL, *size = NULL, *lat = NULL;
    for (size_t i = 0; i < json_array_size(json_object_get(d, "objects")); i++) {
        const char *key = json_string_value(json_object_get(obj_at(d, i), "key"));
        if (strcmp(key, "l2") == 0)
            far = finding_at(d, i, "far_latency"), lat = finding_at(d, i, "latency");
        if (strcmp(key, "l1d") == 0)
            size = finding_at(d, i, "size");
    }
    assert_non_null(far);
    assert_true(json_real_value(json_object_get(far, "lo_ns")) == 200.0 ||
                json_integer_value(json_object_get(far, "lo_ns")) == 200);
    assert_non_null(json_object_get(far, "hi_ns"));
    assert_null(json_object_get(far, "value_ns"));
    assert_null(json_object_get(size, "value_ns")); /* bytes */
    mt_topology *back = round_trip(t);
    assert_topology_equal(t, back, 0);
    mt_topology_free(back);
    /* Refused: ns on a finding in bytes, and ns that is not a number. */
    json_t *d2 = json_deep_copy(d);
    json_object_set_new(size, "value_ns", json_real(1.0));
    refused(d, "\"value_ns\" is not a member", NULL);
    json_object_set_new(lat, "value_ns", json_string("fast"));
    (void)lat;
    json_decref(d2);
    d = mt_topology_to_json(t);
    for (size_t i = 0; i < json_array_size(json_object_get(d, "objects")); i++)
        if (strcmp(json_string_value(json_object_get(obj_at(d, i), "key")), "l2") == 0)
            json_object_set_new(finding_at(d, i, "latency"), "value_ns", json_string("fast"));
    refused(d, "value_ns", NULL);
    mt_topology_free(t);
}

static void test_reader_errors(void **state)
{
    (void)state;
    json_t *d;

    d = good_doc();
    json_object_set_new(d, "schema_version", json_string("1.0.0"));
    refused(d, "schema_version", "major version 1");
    d = good_doc();
    json_object_set_new(d, "schema_version", json_string("3.1.0"));
    refused(d, "schema_version", "major version 3");
    d = good_doc();
    json_object_set_new(d, "schema_version", json_string("2.0"));
    refused(d, "schema_version", "MAJOR.MINOR.PATCH");
    d = good_doc();
    json_object_del(d, "schema_version");
    refused(d, "missing \"schema_version\"", NULL);

    /* Missing members at each level. */
    d = good_doc();
    json_object_del(d, "objects");
    refused(d, "missing \"objects\"", NULL);
    d = good_doc();
    json_object_del(json_object_get(d, "provenance"), "probes_missing");
    refused(d, "provenance", "missing \"probes_missing\"");
    d = good_doc();
    json_object_del(finding_at(d, 6, "latency"), "unit");
    refused(d, "objects.l2.findings.latency", "missing \"unit\"");
    d = good_doc();
    json_object_del(obj_at(d, 0), "flags");
    refused(d, "objects.l1d", "missing \"flags\"");
    d = good_doc();
    json_object_del(json_object_get(obj_at(d, 0), "flags"), "shareable");
    refused(d, "objects.l1d.flags", "missing \"shareable\"");
    d = good_doc();
    json_object_del(finding_at(d, 1, "size"), "hi");
    refused(d, "objects.texture.findings.size", "missing \"hi\"");
    d = good_doc();
    json_object_del(json_object_get(d, "device"), "sm_count");
    refused(d, "device", "missing \"sm_count\"");

    /* Wrong types. */
    d = good_doc();
    json_object_set_new(obj_at(d, 0), "probed", json_string("yes"));
    refused(d, "objects.l1d", "\"probed\" is not a boolean");
    d = good_doc();
    json_object_set_new(finding_at(d, 0, "size"), "value", json_string("224 KiB"));
    refused(d, "objects.l1d.findings.size", "\"value\" is not a number");
    d = good_doc();
    json_object_set_new(d, "thresholds", json_object());
    refused(d, "\"thresholds\" is not an array", NULL);
    d = good_doc();
    json_object_set_new(json_object_get(d, "timing"), "total_experiments", json_real(1.5));
    refused(d, "timing", "\"total_experiments\" is not an integer");
    d = good_doc();
    json_object_set_new(json_object_get(d, "provenance"), "command_line", json_integer(3));
    refused(d, "provenance", "\"command_line\" is not a string or null");

    /* Unknown names and values. */
    d = good_doc();
    json_object_set_new(finding_at(d, 0, "size"), "kind", json_string("guess"));
    refused(d, "objects.l1d.findings.size", "unknown \"kind\" \"guess\"");
    d = good_doc();
    json_object_set_new(finding_at(d, 0, "size"), "source", json_string("rumour"));
    refused(d, "objects.l1d.findings.size", "unknown \"source\"");
    d = good_doc();
    json_object_set_new(finding_at(d, 0, "size"), "unit", json_string("furlongs"));
    refused(d, "objects.l1d.findings.size", "unknown \"unit\" \"furlongs\"");
    d = good_doc();
    json_object_set_new(obj_at(d, 0), "type", json_string("register"));
    refused(d, "objects.l1d", "unknown \"type\"");
    d = good_doc();
    json_object_set_new(d, "caches", json_object());
    refused(d, "unknown member \"caches\"", NULL);
    d = good_doc();
    json_object_set_new(json_object_get(obj_at(d, 0), "flags"), "hot", json_true());
    refused(d, "objects.l1d.flags", "unknown member \"hot\"");
    d = good_doc();
    json_object_set_new(json_object_get(d, "device"), "tflops", json_integer(1));
    refused(d, "device", "unknown key \"tflops\"");

    /* Each kind has exactly its members. */
    d = good_doc();
    json_object_set_new(finding_at(d, 1, "size"), "value", json_integer(3)); /* a range */
    refused(d, "objects.texture.findings.size", "\"value\" is not a member of a \"range\"");
    d = good_doc();
    json_object_set_new(finding_at(d, 0, "shared_with"), "text", json_string("texture"));
    refused(d, "objects.l1d.findings.shared_with", "\"text\"");
    d = good_doc();
    json_object_set_new(finding_at(d, 4, "size"), "value", json_integer(0)); /* none */
    refused(d, "objects.const_l15.findings.size", "\"none\"");
    d = good_doc();
    json_array_append_new(json_object_get(finding_at(d, 0, "shared_with"), "members"),
                          json_string("a,b"));
    refused(d, "objects.l1d.findings.shared_with.members[2]", "not a key");

    /* Ranges and lengths. */
    d = good_doc();
    json_object_set_new(finding_at(d, 0, "size"), "confidence", json_real(1.5));
    refused(d, "objects.l1d.findings.size", "\"confidence\" = 1.5 is out of range");
    d = good_doc();
    char longname[80];
    memset(longname, 'x', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    json_object_set_new(obj_at(d, 0), "name", json_string(longname));
    refused(d, "objects.l1d", "\"name\" is longer than 31 characters");
    d = good_doc();
    json_object_set_new(obj_at(d, 1), "key", json_string("l1d"));
    refused(d, "objects[1]", "a second object \"l1d\"");
    d = good_doc();
    json_object_set_new(obj_at(d, 1), "key", json_string("tex ture"));
    refused(d, "objects[1]", "not a key");
    d = good_doc();
    json_object_set_new(json_object_get(obj_at(d, 0), "findings"), "bad name",
                        json_object_get(finding_at(d, 0, "size"), "kind"));
    json_incref(json_object_get(finding_at(d, 0, "size"), "kind"));
    refused(d, "objects.l1d", "finding name \"bad name\"");
    d = good_doc();
    json_object_set_new(json_object_get(d, "provenance"), "probes_missing", json_array());
    refused(d, "provenance", "\"probes_missing\" is empty");
    d = good_doc();
    json_object_set_new(json_object_get(d, "tool"), "name", json_string("othertool"));
    refused(d, "tool", "\"othertool\"");
    d = json_array();
    refused(d, "not a JSON object", NULL);

    /* A control character of the document never breaks the line. */
    d = good_doc();
    json_object_set_new(finding_at(d, 0, "size"), "kind", json_string("val\nue"));
    refused(d, "unknown \"kind\" \"val?ue\"", NULL);
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_read_file_errors(void **state)
{
    (void)state;
    char path[128];
    mt_errinfo ei = {{0}};
    mt_topology *t = (mt_topology *)1;

    snprintf(path, sizeof path, "%s/none.json", tmpdir);
    assert_int_equal(mt_topology_read_file(path, &t, &ei), MT_ERR_IO);
    assert_null(t);
    assert_non_null(strstr(ei.msg, "none.json"));

    snprintf(path, sizeof path, "%s/syntax.json", tmpdir);
    write_text(path, "{\"schema_version\": \"2.0.0\",\n  \"tool\": }\n");
    assert_int_equal(mt_topology_read_file(path, &t, &ei), MT_ERR_JSON);
    assert_non_null(strstr(ei.msg, "syntax.json:2:"));
    assert_null(strchr(ei.msg, '\n'));

    snprintf(path, sizeof path, "%s/dup.json", tmpdir);
    write_text(path, "{\"schema_version\": \"2.0.0\", \"schema_version\": \"2.0.0\"}\n");
    assert_int_equal(mt_topology_read_file(path, &t, &ei), MT_ERR_JSON);
    assert_non_null(strstr(ei.msg, "duplicate"));

    /* Errors in the content start with the file's path. */
    snprintf(path, sizeof path, "%s/v2.json", tmpdir);
    json_t *d = good_doc();
    json_object_del(finding_at(d, 6, "latency"), "note");
    assert_int_equal(json_dump_file(d, path, 0), 0);
    json_decref(d);
    assert_int_equal(mt_topology_read_file(path, &t, &ei), MT_ERR_JSON);
    assert_non_null(strstr(ei.msg, path));
    assert_non_null(strstr(ei.msg, "objects.l2.findings.latency: missing \"note\""));

    assert_int_equal(mt_topology_read_file("", &t, &ei), MT_ERR_INVALID_ARG);
    assert_int_equal(mt_topology_from_json(NULL, &t, &ei), MT_ERR_INVALID_ARG);

    /* A report written before schema 2 (the H100 fixture) is refused by version. */
    if (access(V1_REPORT, R_OK) != 0)
        fail_msg("run from the repository root: %s not found", V1_REPORT);
    assert_int_equal(mt_topology_read_file(V1_REPORT, &t, &ei), MT_ERR_JSON);
    assert_non_null(strstr(ei.msg, "major version 1"));
}

/* The device block: concurrent_experiments and max_sequence are written,
 * and read as optional (0) because recordings made before them lack them;
 * the H100 fixture's device block (schema 1) still loads. */
static void test_device_optional(void **state)
{
    (void)state;
    mt_device_info d, back;
    fx_device(&d);
    json_t *j = mt_device_to_json(&d);
    assert_int_equal(json_integer_value(json_object_get(j, "concurrent_experiments")), 132);
    assert_int_equal(json_integer_value(json_object_get(j, "max_sequence")), 1 << 20);
    mt_errinfo ei = {{0}};
    assert_int_equal(mt_device_from_json(j, &back, "device", &ei), MT_OK);
    assert_memory_equal(&d, &back, sizeof d);
    json_object_del(j, "concurrent_experiments");
    json_object_del(j, "max_sequence");
    assert_int_equal(mt_device_from_json(j, &back, "device", &ei), MT_OK);
    assert_int_equal(back.concurrent_experiments, 0);
    assert_int_equal(back.max_sequence, 0);
    assert_int_equal(back.sm_count, 132);
    json_object_set_new(j, "max_sequence", json_integer(-1));
    assert_int_equal(mt_device_from_json(j, &back, "device", &ei), MT_ERR_JSON);
    assert_non_null(strstr(ei.msg, "max_sequence"));
    json_object_del(j, "max_sequence");
    json_object_del(j, "warp_size");
    assert_int_equal(mt_device_from_json(j, &back, "device", &ei), MT_ERR_JSON);
    assert_non_null(strstr(ei.msg, "missing \"warp_size\""));
    json_decref(j);

    json_error_t je;
    json_t *v1 = json_load_file(V1_REPORT, 0, &je);
    if (!v1)
        fail_msg("%s: %s", V1_REPORT, je.text);
    assert_int_equal(mt_device_from_json(json_object_get(v1, "device"), &back, "device", &ei),
                     MT_OK);
    assert_int_equal(back.cc_major, 9);
    assert_int_equal(back.concurrent_experiments, 0);
    json_decref(v1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),       cmocka_unit_test(test_file_round_trip),
        cmocka_unit_test(test_shape),            cmocka_unit_test(test_writer_refuses),
        cmocka_unit_test(test_ns_members), cmocka_unit_test(test_reader_errors),    cmocka_unit_test(test_read_file_errors),
        cmocka_unit_test(test_device_optional),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

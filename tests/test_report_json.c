/* The JSON report: written to a temporary directory, read back with
 * jansson, validated against schema/memtopo-report.schema.json when the
 * system Python has jsonschema, and its failure modes (no half files). */
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
#include <sys/stat.h>
#include <unistd.h>

#include "report/report.h"
#include "report_fixture.h"
#include "topology/device_json.h"
#include "topology/topology_json.h"

#define SCHEMA "schema/memtopo-report.schema.json"
#define CHECKER "tests/check_schema.py"

#include "tmpdir_fixture.h"

static int exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

static json_t *write_and_load(const mt_topology *t, const char *name, char *path, size_t n)
{
    snprintf(path, n, "%s/%s", tmpdir, name);
    mt_errinfo ei = {{0}};
    mt_err e = mt_report_json(t, path, &ei);
    if (e)
        fail_msg("mt_report_json: %s", ei.msg);
    char tmp[300];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    assert_false(exists(tmp));
    json_error_t je;
    json_t *root = json_load_file(path, 0, &je);
    if (!root)
        fail_msg("%s:%d: %s", path, je.line, je.text);
    return root;
}

static const json_t *at(const json_t *root, const char *dotted)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", dotted);
    const json_t *v = root;
    for (char *save = NULL, *k = strtok_r(buf, ".", &save); k; k = strtok_r(NULL, ".", &save)) {
        v = json_object_get(v, k);
        if (!v)
            fail_msg("no %s (at %s)", dotted, k);
    }
    return v;
}

static const char *str_at(const json_t *root, const char *dotted)
{
    const json_t *v = at(root, dotted);
    assert_true(json_is_string(v));
    return json_string_value(v);
}

static double num_at(const json_t *root, const char *dotted)
{
    const json_t *v = at(root, dotted);
    assert_true(json_is_number(v));
    return json_number_value(v);
}

/* The object with this key in "objects". */
static json_t *obj(const json_t *root, const char *key)
{
    size_t i;
    json_t *o;
    json_array_foreach(json_object_get(root, "objects"), i, o)
        if (strcmp(json_string_value(json_object_get(o, "key")), key) == 0)
            return o;
    fail_msg("no object %s", key);
    return NULL;
}

/* Finding `name` of object `key`. */
static json_t *fnd(const json_t *root, const char *key, const char *name)
{
    json_t *f = json_object_get(json_object_get(obj(root, key), "findings"), name);
    if (!f)
        fail_msg("no finding %s.%s", key, name);
    return f;
}

static void test_fields(void **state)
{
    (void)state;
    mt_topology *t = fx_topology();
    char path[256];
    json_t *r = write_and_load(t, "report.json", path, sizeof path);

    assert_string_equal(str_at(r, "schema_version"), "2.3.0");
    assert_string_equal(str_at(r, "tool.name"), "memtopo");
    assert_string_equal(str_at(r, "tool.version"), "0.9.1");
    assert_string_equal(str_at(r, "provenance.command_line"), "memtopo --json out.json");
    assert_string_equal(str_at(r, "provenance.source"), "cuda");
    assert_true(json_is_null(at(r, "provenance.replay_of")));
    assert_true(json_is_null(at(r, "provenance.error")));
    assert_true(json_is_null(at(r, "provenance.probes_missing")));

    assert_string_equal(str_at(r, "device.name"), "NVIDIA H100 80GB HBM3");
    assert_true(json_is_integer(at(r, "device.clock_khz")));
    assert_int_equal(json_integer_value(at(r, "device.clock_khz")), 1980000);
    assert_int_equal(json_integer_value(at(r, "device.global_mem_bytes")), 85520809984LL);
    assert_int_equal(json_integer_value(at(r, "device.path_limit_bytes.const")), 65536);
    assert_int_equal(json_integer_value(at(r, "device.carveout_percent")), 100);
    assert_int_equal(json_integer_value(at(r, "device.concurrent_experiments")), 132);

    /* objects in the order they were added */
    const json_t *objs = at(r, "objects");
    assert_int_equal(json_array_size(objs), FX_N_OBJECTS);
    for (size_t i = 0; i < FX_N_OBJECTS; i++)
        assert_string_equal(json_string_value(json_object_get(json_array_get(objs, i), "key")),
                            fx_objects[i].key);

    /* value: integral bytes are integers */
    json_t *l1 = obj(r, "l1d");
    assert_string_equal(str_at(l1, "name"), "L1 Data");
    assert_string_equal(str_at(l1, "type"), "cache");
    assert_true(json_is_true(at(l1, "probed")));
    assert_true(json_is_true(at(l1, "flags.in_table")));
    json_t *sz = fnd(r, "l1d", "size");
    assert_string_equal(str_at(sz, "kind"), "value");
    assert_string_equal(str_at(sz, "label"), "size");
    assert_true(json_is_integer(at(sz, "value")));
    assert_int_equal(json_integer_value(at(sz, "value")), 229376);
    assert_string_equal(str_at(sz, "unit"), "B");
    assert_string_equal(str_at(sz, "source"), "measured");
    assert_string_equal(str_at(sz, "method"), "pchase-fine+opt+ks");
    assert_true(fabs(num_at(sz, "confidence") - 0.95) < 1e-12);
    assert_true(fabs(num_at(fnd(r, "l1d", "miss_penalty"), "value") - 230.5) < 1e-12);
    assert_string_equal(str_at(fnd(r, "l1d", "miss_penalty"), "source"), "derived");
    assert_string_equal(str_at(fnd(r, "l1d", "miss_penalty"), "label"), "miss penalty");
    const json_t *sw = at(fnd(r, "l1d", "shared_with"), "members");
    assert_int_equal(json_array_size(sw), 2);
    assert_string_equal(json_string_value(json_array_get(sw, 0)), "texture");
    assert_string_equal(json_string_value(json_array_get(sw, 1)), "readonly");
    assert_string_equal(str_at(fnd(r, "l1d", "shared_with"), "kind"), "set");

    /* range */
    json_t *ts = fnd(r, "texture", "size");
    assert_string_equal(str_at(ts, "kind"), "range");
    assert_true(fabs(num_at(ts, "lo") - 22528) < 1e-9);
    assert_true(fabs(num_at(ts, "hi") - 25088) < 1e-9);
    assert_null(json_object_get(ts, "value"));
    assert_string_equal(str_at(ts, "note"),
                        "non-LRU replacement: first eviction between lo and hi");

    /* lower bound; readonly has no sharing finding */
    json_t *rs = fnd(r, "readonly", "size");
    assert_string_equal(str_at(rs, "kind"), "lower_bound");
    assert_int_equal(json_integer_value(at(rs, "lo")), 65536);
    assert_null(json_object_get(rs, "hi"));
    assert_null(json_object_get(rs, "value"));
    assert_null(json_object_get(at(obj(r, "readonly"), "findings"), "shared_with"));
    assert_int_equal(json_array_size(at(fnd(r, "const_l1", "shared_with"), "members")), 0);

    /* none: a finding of kind "none"; the unprobed object */
    assert_false(json_is_true(at(obj(r, "const_l15"), "probed")));
    assert_string_equal(str_at(fnd(r, "const_l15", "size"), "kind"), "none");
    assert_null(json_object_get(fnd(r, "const_l15", "size"), "value"));

    /* absent: no numbers */
    json_t *ps = fnd(r, "l2", "per_sm");
    assert_string_equal(str_at(ps, "kind"), "absent");
    assert_string_equal(str_at(ps, "unit"), "count");
    assert_null(json_object_get(ps, "value"));
    assert_string_equal(str_at(fnd(r, "dram", "size"), "source"), "driver");

    /* text */
    json_t *h = fnd(r, "l2", "slice_hash");
    assert_string_equal(str_at(h, "kind"), "text");
    assert_string_equal(str_at(h, "text"), "xor of bits 7,12 \"folded\"");
    assert_string_equal(str_at(h, "label"), "slice hash");

    /* findings outside the table sit on their objects */
    assert_int_equal(json_integer_value(at(fnd(r, "l1d", "caches_global_loads"), "value")), 1);
    assert_string_equal(str_at(fnd(r, "l1d", "caches_global_loads"), "unit"), "bool");
    assert_int_equal(json_integer_value(at(fnd(r, "l2", "partition_size"), "value")), 25 << 20);
    assert_string_equal(str_at(fnd(r, "l2", "far_latency"), "kind"), "range");
    assert_string_equal(str_at(fnd(r, "gpu", "timer_overhead_fine"), "unit"), "cycles");
    assert_string_equal(str_at(fnd(r, "gpu", "timer_overhead_agg"), "kind"), "none");
    assert_string_equal(str_at(obj(r, "gpu"), "type"), "gpu");
    assert_false(json_is_true(at(obj(r, "gpu"), "flags.in_table")));

    /* thresholds and timing */
    const json_t *th = at(r, "thresholds");
    assert_int_equal(json_array_size(th), 2);
    assert_string_equal(json_string_value(json_object_get(json_array_get(th, 0), "name")),
                        "ks_alpha");
    assert_true(fabs(json_number_value(json_object_get(json_array_get(th, 0), "value")) - 1e-3) <
                1e-15);
    const json_t *pr = at(r, "timing.probes");
    assert_int_equal(json_array_size(pr), 2);
    assert_string_equal(json_string_value(json_object_get(json_array_get(pr, 1), "probe")), "l2");
    assert_int_equal(json_integer_value(json_object_get(json_array_get(pr, 0), "experiments")),
                     120);
    assert_true(fabs(num_at(r, "timing.total_seconds") - 4.75) < 1e-12);
    assert_int_equal(json_integer_value(at(r, "timing.total_experiments")), 160);

    /* the device block reads back into the same struct */
    mt_device_info back;
    mt_errinfo ei = {{0}};
    mt_err e = mt_device_from_json(at(r, "device"), &back, "device", &ei);
    if (e)
        fail_msg("%s", ei.msg);
    assert_memory_equal(&back, &t->dev, sizeof back);
    json_decref(r);

    /* and the whole file reads back into the same topology */
    mt_topology *again = NULL;
    e = mt_topology_read_file(path, &again, &ei);
    if (e)
        fail_msg("%s", ei.msg);
    assert_int_equal(again->n_objects, t->n_objects);
    assert_string_equal(mt_topology_get(again, "l2", "slice_hash")->text,
                        "xor of bits 7,12 \"folded\"");
    mt_topology_free(again);
    mt_topology_free(t);
}

static int have_jsonschema(void)
{
    return system("/usr/bin/python3 -c 'import jsonschema' >/dev/null 2>&1") == 0;
}

static int check_schema(const char *path)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "/usr/bin/python3 %s %s '%s' >/dev/null", CHECKER, SCHEMA, path);
    return system(cmd);
}

/* Writes doc to name in tmpdir and returns the checker's status. */
static int check_doc(json_t *doc, const char *name)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    assert_int_equal(json_dump_file(doc, path, JSON_INDENT(2)), 0);
    json_decref(doc);
    return check_schema(path);
}

static json_t *fx_doc(void)
{
    mt_topology *t = fx_topology();
    json_t *d = mt_topology_to_json(t);
    mt_topology_free(t);
    assert_non_null(d);
    return d;
}

static void test_schema(void **state)
{
    (void)state;
    if (!have_jsonschema())
        skip();
    if (access(SCHEMA, R_OK) != 0 || access(CHECKER, R_OK) != 0)
        fail_msg("run from the repository root: %s or %s not found", SCHEMA, CHECKER);
    mt_topology *t = fx_topology();
    char path[256];
    json_decref(write_and_load(t, "valid.json", path, sizeof path));
    assert_int_equal(check_schema(path), 0);

    /* A run that stopped early names why; a replay names the missing probes. */
    snprintf(t->prov.error, sizeof t->prov.error, "l2 probe: GPU kernel timed out");
    snprintf(t->prov.probes_missing, sizeof t->prov.probes_missing, "tlb,assoc");
    json_t *r = write_and_load(t, "stopped.json", path, sizeof path);
    assert_string_equal(str_at(r, "provenance.error"), "l2 probe: GPU kernel timed out");
    assert_int_equal(json_array_size(at(r, "provenance.probes_missing")), 2);
    json_decref(r);
    assert_int_equal(check_schema(path), 0);

    /* A new object with a new finding is valid without a schema change. */
    mt_object *tlb = mt_topology_add_object(t, "tlb", "L1 TLB", "TLB", MT_OBJ_TLB, 0);
    mt_finding f = fx_value(16, "count", MT_SRC_MEASURED, "stride-sweep", 0.9);
    assert_int_equal(mt_object_set(tlb, "entries", "entries", &f), MT_OK);
    r = write_and_load(t, "tlb.json", path, sizeof path);
    assert_int_equal(json_integer_value(at(fnd(r, "tlb", "entries"), "value")), 16);
    assert_string_equal(str_at(obj(r, "tlb"), "type"), "tlb");
    json_decref(r);
    assert_int_equal(check_schema(path), 0);

    /* An empty topology (nothing measured) is valid too. */
    mt_topology *empty = mt_topology_new();
    json_decref(write_and_load(empty, "empty.json", path, sizeof path));
    assert_int_equal(check_schema(path), 0);
    mt_topology_free(empty);

    /* The schema is strict: an unknown unit is refused ... */
    snprintf(fx_finding(t, "l1d", "size")->unit, sizeof f.unit, "furlongs");
    json_decref(write_and_load(t, "bad_unit.json", path, sizeof path));
    assert_int_not_equal(check_schema(path), 0);
    mt_topology_free(t);

    /* ... and so is a confidence outside [0, 1] ... */
    t = fx_topology();
    fx_finding(t, "l2", "far_latency")->confidence = 1.5;
    json_decref(write_and_load(t, "bad_conf.json", path, sizeof path));
    assert_int_not_equal(check_schema(path), 0);
    mt_topology_free(t);

    /* ... and each kind has exactly its members. */
    json_t *d = fx_doc();
    json_object_set_new(fnd(d, "texture", "size"), "value", json_integer(1)); /* range */
    assert_int_not_equal(check_doc(d, "range_value.json"), 0);
    d = fx_doc();
    json_object_del(fnd(d, "texture", "size"), "hi");
    assert_int_not_equal(check_doc(d, "range_no_hi.json"), 0);
    d = fx_doc();
    json_object_set_new(fnd(d, "const_l15", "size"), "lo", json_integer(1)); /* none */
    assert_int_not_equal(check_doc(d, "none_lo.json"), 0);
    d = fx_doc();
    json_object_set_new(fnd(d, "l2", "per_sm"), "value", json_integer(1)); /* absent */
    assert_int_not_equal(check_doc(d, "absent_value.json"), 0);
    d = fx_doc();
    json_object_set_new(fnd(d, "l1d", "shared_with"), "text", json_string("texture"));
    assert_int_not_equal(check_doc(d, "set_text.json"), 0);
    d = fx_doc();
    json_object_del(fnd(d, "l1d", "shared_with"), "members");
    assert_int_not_equal(check_doc(d, "set_no_members.json"), 0);
    d = fx_doc();
    json_object_del(fnd(d, "l2", "slice_hash"), "text");
    assert_int_not_equal(check_doc(d, "text_no_text.json"), 0);
    d = fx_doc();
    json_object_del(fnd(d, "l1d", "size"), "label");
    assert_int_not_equal(check_doc(d, "no_label.json"), 0);
    d = fx_doc();
    json_object_set_new(fnd(d, "l1d", "size"), "kind", json_string("guess"));
    assert_int_not_equal(check_doc(d, "bad_kind.json"), 0);
    d = fx_doc();
    json_object_set_new(fnd(d, "l1d", "size"), "extra", json_true());
    assert_int_not_equal(check_doc(d, "extra_member.json"), 0);
    d = fx_doc();
    json_object_set_new(d, "schema_version", json_string("1.0.0"));
    assert_int_not_equal(check_doc(d, "old_version.json"), 0);
    d = fx_doc();
    json_object_del(json_object_get(obj(d, "l1d"), "flags"), "shareable");
    assert_int_not_equal(check_doc(d, "no_flag.json"), 0);
    /* the untouched document still passes (the checks above fail for their reason) */
    assert_int_equal(check_doc(fx_doc(), "untouched.json"), 0);
}

static void test_unwritable(void **state)
{
    (void)state;
    mt_topology *t = fx_topology();
    mt_errinfo ei = {{0}};
    char path[256], tmp[300];

    /* Directory does not exist. */
    snprintf(path, sizeof path, "%s/no/such/dir/r.json", tmpdir);
    assert_int_equal(mt_report_json(t, path, &ei), MT_ERR_IO);
    assert_non_null(strstr(ei.msg, "r.json"));
    assert_null(strchr(ei.msg, '\n'));
    assert_false(exists(path));

    /* The path is a directory: refused before any temporary is made. */
    snprintf(path, sizeof path, "%s/adir", tmpdir);
    assert_int_equal(mkdir(path, 0700), 0);
    ei.msg[0] = '\0';
    assert_int_equal(mt_report_json(t, path, &ei), MT_ERR_IO);
    assert_non_null(strstr(ei.msg, "is a directory"));
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    assert_false(exists(tmp));
    mt_topology_free(t);
}

/* A non-finite number is refused before anything is written: an existing
 * report stays untouched. */
static void test_nan_keeps_old_file(void **state)
{
    (void)state;
    mt_topology *t = fx_topology();
    char path[256];
    json_decref(write_and_load(t, "keep.json", path, sizeof path));
    struct stat before;
    assert_int_equal(stat(path, &before), 0);

    fx_finding(t, "l2", "latency")->value = NAN;
    mt_errinfo ei = {{0}};
    assert_int_equal(mt_report_json(t, path, &ei), MT_ERR_JSON);
    assert_non_null(strstr(ei.msg, "l2.latency value"));
    struct stat after;
    assert_int_equal(stat(path, &after), 0);
    assert_int_equal(before.st_size, after.st_size);
    assert_int_equal(before.st_ino, after.st_ino);
    mt_topology_free(t);
}

/* Non-UTF-8 bytes in a command line become '?', the document stays valid. */
static void test_non_utf8(void **state)
{
    (void)state;
    mt_topology *t = fx_topology();
    snprintf(t->prov.command_line, sizeof t->prov.command_line, "memtopo --out caf\xe9");
    char path[256];
    json_t *r = write_and_load(t, "utf8.json", path, sizeof path);
    assert_string_equal(str_at(r, "provenance.command_line"), "memtopo --out caf?");
    json_decref(r);
    mt_topology_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fields),
        cmocka_unit_test(test_schema),
        cmocka_unit_test(test_unwritable),
        cmocka_unit_test(test_nan_keeps_old_file),
        cmocka_unit_test(test_non_utf8),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

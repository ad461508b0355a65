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

#include "report/device_json.h"
#include "report/report.h"
#include "report_fixture.h"

#define SCHEMA "schema/memtopo-report.schema.json"
#define CHECKER "tests/check_schema.py"

static char tmpdir[64];

static int setup(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/mt_report_json_XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

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

static void test_fields(void **state)
{
    (void)state;
    mt_topology t;
    fx_topology(&t);
    char path[256];
    json_t *r = write_and_load(&t, "report.json", path, sizeof path);

    assert_string_equal(str_at(r, "schema_version"), "1.0.0");
    assert_string_equal(str_at(r, "tool.name"), "memtopo");
    assert_string_equal(str_at(r, "tool.version"), "0.9.1");
    assert_string_equal(str_at(r, "provenance.command_line"), "memtopo --json out.json");
    assert_string_equal(str_at(r, "provenance.source"), "cuda");
    assert_true(json_is_null(at(r, "provenance.replay_of")));
    assert_true(json_is_null(at(r, "provenance.error")));

    assert_string_equal(str_at(r, "device.name"), "NVIDIA H100 80GB HBM3");
    assert_true(json_is_integer(at(r, "device.clock_khz")));
    assert_int_equal(json_integer_value(at(r, "device.clock_khz")), 1980000);
    assert_int_equal(json_integer_value(at(r, "device.global_mem_bytes")), 85520809984LL);
    assert_int_equal(json_integer_value(at(r, "device.path_limit_bytes.const")), 65536);
    assert_int_equal(json_integer_value(at(r, "device.carveout_percent")), 100);

    /* value: integral bytes are integers */
    assert_string_equal(str_at(r, "caches.l1d.name"), "L1 Data");
    assert_true(json_is_true(at(r, "caches.l1d.probed")));
    assert_string_equal(str_at(r, "caches.l1d.size.kind"), "value");
    assert_true(json_is_integer(at(r, "caches.l1d.size.value")));
    assert_int_equal(json_integer_value(at(r, "caches.l1d.size.value")), 229376);
    assert_string_equal(str_at(r, "caches.l1d.size.unit"), "B");
    assert_string_equal(str_at(r, "caches.l1d.size.source"), "measured");
    assert_string_equal(str_at(r, "caches.l1d.size.method"), "pchase-fine+opt+ks");
    assert_true(fabs(num_at(r, "caches.l1d.size.confidence") - 0.95) < 1e-12);
    assert_true(fabs(num_at(r, "caches.l1d.miss_penalty.value") - 230.5) < 1e-12);
    assert_string_equal(str_at(r, "caches.l1d.miss_penalty.source"), "derived");
    const json_t *sw = at(r, "caches.l1d.shared_with");
    assert_int_equal(json_array_size(sw), 2);
    assert_string_equal(json_string_value(json_array_get(sw, 0)), "texture");
    assert_string_equal(json_string_value(json_array_get(sw, 1)), "readonly");
    assert_true(json_is_true(at(r, "caches.l1d.sharing_tested")));

    /* range */
    assert_string_equal(str_at(r, "caches.texture.size.kind"), "range");
    assert_true(fabs(num_at(r, "caches.texture.size.lo") - 22528) < 1e-9);
    assert_true(fabs(num_at(r, "caches.texture.size.hi") - 25088) < 1e-9);
    assert_null(json_object_get(at(r, "caches.texture.size"), "value"));
    assert_string_equal(str_at(r, "caches.texture.size.note"),
                        "non-LRU replacement: first eviction between lo and hi");

    /* lower bound */
    assert_string_equal(str_at(r, "caches.readonly.size.kind"), "lower_bound");
    assert_int_equal(json_integer_value(at(r, "caches.readonly.size.lo")), 65536);
    assert_null(json_object_get(at(r, "caches.readonly.size"), "hi"));
    assert_null(json_object_get(at(r, "caches.readonly.size"), "value"));
    assert_true(json_is_false(at(r, "caches.readonly.sharing_tested")));
    assert_int_equal(json_array_size(at(r, "caches.readonly.shared_with")), 0);

    /* none -> null, and the unprobed cache */
    assert_true(json_is_null(at(r, "caches.readonly.line")));
    assert_true(json_is_false(at(r, "caches.const_l15.probed")));
    assert_true(json_is_null(at(r, "caches.const_l15.size")));

    /* absent: no numbers, unit filled in from the field */
    assert_string_equal(str_at(r, "caches.l2.per_sm.kind"), "absent");
    assert_string_equal(str_at(r, "caches.l2.per_sm.unit"), "count");
    assert_null(json_object_get(at(r, "caches.l2.per_sm"), "value"));
    assert_string_equal(str_at(r, "caches.dram.size.source"), "driver");

    /* extra findings */
    assert_int_equal(json_integer_value(at(r, "findings.l1_caches_global.value")), 1);
    assert_string_equal(str_at(r, "findings.l1_caches_global.unit"), "bool");
    assert_int_equal(json_integer_value(at(r, "findings.l2_partition_size.value")), 25 << 20);
    assert_string_equal(str_at(r, "findings.l2_far_latency.kind"), "range");
    assert_string_equal(str_at(r, "findings.timer_overhead_fine.unit"), "cycles");
    assert_true(json_is_null(at(r, "findings.timer_overhead_agg")));

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
    assert_memory_equal(&back, &t.dev, sizeof back);
    json_decref(r);
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

static void test_schema(void **state)
{
    (void)state;
    if (!have_jsonschema())
        skip();
    if (access(SCHEMA, R_OK) != 0 || access(CHECKER, R_OK) != 0)
        fail_msg("run from the repository root: %s or %s not found", SCHEMA, CHECKER);
    mt_topology t;
    fx_topology(&t);
    char path[256];
    json_decref(write_and_load(&t, "valid.json", path, sizeof path));
    assert_int_equal(check_schema(path), 0);

    /* A run that stopped early names why. */
    snprintf(t.prov.error, sizeof t.prov.error, "l2 probe: GPU kernel timed out");
    json_t *r = write_and_load(&t, "stopped.json", path, sizeof path);
    assert_string_equal(str_at(r, "provenance.error"), "l2 probe: GPU kernel timed out");
    json_decref(r);
    assert_int_equal(check_schema(path), 0);

    /* An empty topology (nothing measured) is valid too. */
    mt_topology empty;
    memset(&empty, 0, sizeof empty);
    json_decref(write_and_load(&empty, "empty.json", path, sizeof path));
    assert_int_equal(check_schema(path), 0);

    /* The schema is strict: an unknown unit is refused ... */
    snprintf(t.cache[MT_CACHE_L1D].size.unit, sizeof t.cache[0].size.unit, "furlongs");
    json_decref(write_and_load(&t, "bad_unit.json", path, sizeof path));
    assert_int_not_equal(check_schema(path), 0);

    /* ... and so is a confidence outside [0, 1]. */
    fx_topology(&t);
    t.prov.error[0] = '\0';
    t.l2_far_latency.confidence = 1.5;
    json_decref(write_and_load(&t, "bad_conf.json", path, sizeof path));
    assert_int_not_equal(check_schema(path), 0);
}

static void test_unwritable(void **state)
{
    (void)state;
    mt_topology t;
    fx_topology(&t);
    mt_errinfo ei = {{0}};
    char path[256], tmp[300];

    /* Directory does not exist. */
    snprintf(path, sizeof path, "%s/no/such/dir/r.json", tmpdir);
    assert_int_equal(mt_report_json(&t, path, &ei), MT_ERR_IO);
    assert_non_null(strstr(ei.msg, "r.json.tmp"));
    assert_null(strchr(ei.msg, '\n'));
    assert_false(exists(path));

    /* The path is a directory: writing the temporary works, the rename
     * fails, and the temporary must be gone afterwards. */
    snprintf(path, sizeof path, "%s/adir", tmpdir);
    assert_int_equal(mkdir(path, 0700), 0);
    ei.msg[0] = '\0';
    assert_int_equal(mt_report_json(&t, path, &ei), MT_ERR_IO);
    assert_true(ei.msg[0] != '\0');
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    assert_false(exists(tmp));
}

/* A non-finite number is refused before anything is written: an existing
 * report stays untouched. */
static void test_nan_keeps_old_file(void **state)
{
    (void)state;
    mt_topology t;
    fx_topology(&t);
    char path[256];
    json_decref(write_and_load(&t, "keep.json", path, sizeof path));
    struct stat before;
    assert_int_equal(stat(path, &before), 0);

    t.cache[MT_CACHE_L2].latency.value = NAN;
    mt_errinfo ei = {{0}};
    assert_int_equal(mt_report_json(&t, path, &ei), MT_ERR_JSON);
    assert_non_null(strstr(ei.msg, "l2.latency value"));
    struct stat after;
    assert_int_equal(stat(path, &after), 0);
    assert_int_equal(before.st_size, after.st_size);
    assert_int_equal(before.st_ino, after.st_ino);
}

/* Non-UTF-8 bytes in a command line become '?', the document stays valid. */
static void test_non_utf8(void **state)
{
    (void)state;
    mt_topology t;
    fx_topology(&t);
    snprintf(t.prov.command_line, sizeof t.prov.command_line, "memtopo --out caf\xe9");
    char path[256];
    json_t *r = write_and_load(&t, "utf8.json", path, sizeof path);
    assert_string_equal(str_at(r, "provenance.command_line"), "memtopo --out caf?");
    json_decref(r);
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

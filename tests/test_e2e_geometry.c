/* End to end on the simulator: the geometry probes (probe_geometry.c
 * for the L1 data cache, probe_cache_geometry.c for the texture, read-only,
 * constant L1 and L1.5 caches) on every spec of tests/specs-geometry/ and
 * tests/specs-carveout/ and on the presets.  Truth: the spec's ways and
 * size / line / ways sets of the physical cache serving each path (the L1
 * at the default carveout).
 *  - A modulo-indexed cache (any policy: the stride test needs none) must
 *    be reported exactly: index "modulo" (over the line-address bits the
 *    strides decided), ways and sets the spec's, trusted.
 *    The constant L1.5 only where the bank holds the chains that decide
 *    its plateau (W elements 2 S lines apart, below).
 *  - Any other index must not be called modulo with trust; its ways and
 *    sets must be ranges holding the truth, or flagged (below the trusted
 *    confidence): e2e_truth.c's geometry_ok, which the randomized test
 *    applies too. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>
#include <unistd.h>

#include "e2e_truth.c"
#include "probes/probe.h"
#include "sim/sim.h"
#include "topology/topology_json.h"
#include "e2e_measure.h"
#include "spec_dir.h"

/* Presets with an L1 data cache (maxwell's global loads skip the L1). */
static const char *const presets[] = {"kepler", "pascal", "v100", "turing", "a100", "h100", NULL};

static void geometry_only(const mt_device_info *d, mt_probe_options *o)
{
    (void)d;
    mt_errinfo ei;
    /* Nothing but the geometry probes and what they require. */
    assert_int_equal(mt_probe_parse_only("geometry,cache_geom", o, &ei), MT_OK);
}

static const mt_cache_id geometry_caches[] = {MT_CACHE_L1D, MT_CACHE_TEX, MT_CACHE_RO,
                                              MT_CACHE_CONST_L1, MT_CACHE_CONST_L15};

/* Whether the probe must give cache id's exact geometry: a modulo index (or
 * one set), and for the constant L1.5 a bank that holds a chain of W
 * elements 2 S lines apart (the stride past the plateau, method.md). */
static bool must_be_exact(const mt_truth_cache *tr, mt_cache_id id, double ways, double sets,
                          uint64_t limit)
{
    const mt_sim_cache_spec *cs = tr->cs;
    if (!(cs->index == MT_SIM_INDEX_MODULO || cs->fully_assoc || sets == 1))
        return false;
    return id != MT_CACHE_CONST_L15 || ways * 2 * sets * tr->line <= (double)limit;
}

/* Checks one cache's geometry findings against the truth; returns whether
 * they called the index modulo (trusted). */
static bool check_cache(const char *spec, const mt_topology *t, const mt_truth_cache *tr,
                        mt_cache_id id, uint64_t limit, bool strict)
{
    const char *key = mt_cache_key(id);
    const mt_finding *w = mt_topology_get(t, key, "ways");
    const mt_finding *n = mt_topology_get(t, key, "sets");
    const mt_finding *ix = mt_topology_get(t, key, "index");
    if (!tr->present)
        return false;
    const mt_sim_cache_spec *cs = tr->cs;
    double ways = cs->fully_assoc ? (double)(tr->size / tr->line) : cs->ways;
    double sets = (double)(tr->size / tr->line) / ways;
    char msg[1024] = "";
    /* The strict specs: a "modulo" over bits where the index is hashed is
     * wrong even when flagged (the contract alone would let it pass). */
    g_mode = strict ? MT_TRUTH_EXACT : MT_TRUTH_CONTRACT;
    if (geometry_ok(t, key, tr, limit, msg, sizeof msg))
        fail_msg("%s: %s", spec, msg);
    bool modulo = ix && ix->kind == MT_FIND_TEXT && strncmp(ix->text, "modulo", 6) == 0 &&
                  ix->confidence >= MT_TRUTH_TRUSTED;
    if (!must_be_exact(tr, id, ways, sets, limit))
        return modulo;
    if (!w || !n || !ix)
        fail_msg("%s: the %s geometry findings are missing", spec, key);
    if (!modulo || w->kind != MT_FIND_VALUE || w->value != ways || n->kind != MT_FIND_VALUE ||
        n->value != sets || w->confidence < MT_TRUTH_TRUSTED)
        fail_msg("%s: %s %s %g x %s %g ways (index %s), want %g sets x %g ways: %s", spec, key,
                 mt_finding_kind_name(n->kind), n->value, mt_finding_kind_name(w->kind),
                 w->value, ix->text, sets, ways, w->note);
    return modulo;
}

/* Runs the geometry probes (and what they require) on one spec or preset
 * and checks every cache's findings against the truth. */
static void check_geometry(const char *spec, bool strict)
{
    print_message("spec %s\n", spec);
    mt_backend *be;
    mt_topology *t = e2e_measure(spec, geometry_only, &be);

    const mt_sim_spec *s = mt_backend_sim_spec(be);
    mt_truth_cache truth[MT_CACHE_COUNT];
    uint32_t shared[MT_CACHE_COUNT];
    mt_truth_from_spec(s, truth, shared);
    assert_non_null(truth[MT_CACHE_L1D].cs);
    for (size_t i = 0; i < sizeof geometry_caches / sizeof *geometry_caches; i++)
        check_cache(spec, t, &truth[geometry_caches[i]], geometry_caches[i],
                    t->dev.path_limit_bytes[mt_cache_path(geometry_caches[i])], strict);
    /* The decision threshold is printed with the result. */
    bool listed = false;
    for (int i = 0; i < t->n_thresholds; i++)
        listed = listed || strcmp(t->thresholds[i].name, "GEOMETRY_ALPHA") == 0;
    assert_true(listed);
    mt_topology_free(t);
    mt_backend_destroy(be);
}

static void check_spec(const char *path, void *user)
{
    check_geometry(path, user != NULL);
}

static void test_geometry_specs(void **state)
{
    (void)state;
    int n = for_each_spec("tests/specs-geometry", check_spec, "strict");
    if (n < 0)
        fail_msg("cannot open tests/specs-geometry");
    assert_true(n >= 14);
    assert_true(for_each_spec("tests/specs-carveout", check_spec, NULL) >= 5);
}

static void test_presets(void **state)
{
    (void)state;
    for (int i = 0; presets[i]; i++)
        check_geometry(presets[i], false);
}

/* The JSON report carries every cache's geometry and the reader gives it
 * back unchanged (schema 2.3.0). */
static void test_json_read_back(void **state)
{
    (void)state;
    mt_backend *be;
    mt_topology *t = e2e_measure("tests/specs-geometry/caches-small-l15.spec", geometry_only, &be);
    char path[] = "/tmp/mt-geometry-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    json_t *doc = mt_topology_to_json(t);
    assert_non_null(doc);
    assert_int_equal(json_dump_file(doc, path, JSON_REAL_PRECISION(10)), 0);
    json_decref(doc);
    mt_topology *back = NULL;
    mt_errinfo ei = {{0}};
    if (mt_topology_read_file(path, &back, &ei) != MT_OK)
        fail_msg("read back: %s", ei.msg);
    unlink(path);
    static const char *const names[] = {"ways", "sets", "index"};
    for (size_t i = 0; i < sizeof geometry_caches / sizeof *geometry_caches; i++)
        for (size_t k = 0; k < 3; k++) {
            const char *key = mt_cache_key(geometry_caches[i]);
            const mt_finding *a = mt_topology_get(t, key, names[k]);
            const mt_finding *b = mt_topology_get(back, key, names[k]);
            if (!a || !b)
                fail_msg("%s.%s missing (%s)", key, names[k], a ? "read back" : "measured");
            assert_int_equal(a->kind, b->kind);
            if (a->kind == MT_FIND_VALUE)
                assert_true(a->value == b->value);
            else if (a->kind == MT_FIND_RANGE)
                assert_true(a->lo == b->lo && a->hi == b->hi);
            else
                assert_string_equal(a->text, b->text);
            assert_true(a->confidence == b->confidence);
            assert_string_equal(a->note, b->note);
        }
    mt_topology_free(back);
    mt_topology_free(t);
    mt_backend_destroy(be);
}

/* Both geometry probes are part of the default run (issue 8: they cost
 * well under a second on the H100) and --only selects them; --only
 * without them leaves them out. */
static void test_default(void **state)
{
    (void)state;
    mt_probe_options opt;
    mt_probe_options_default(&opt);
    assert_true(e2e_planned(&opt, "geometry"));
    assert_true(e2e_planned(&opt, "cache_geom"));
    mt_errinfo ei;
    assert_int_equal(mt_probe_parse_only("l1d", &opt, &ei), MT_OK);
    assert_false(e2e_planned(&opt, "geometry"));
    assert_int_equal(mt_probe_parse_only("cache_geom", &opt, &ei), MT_OK);
    assert_true(e2e_planned(&opt, "geometry")); /* what it requires (l1d.index) */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_geometry_specs),
        cmocka_unit_test(test_presets),
        cmocka_unit_test(test_json_read_back),
        cmocka_unit_test(test_default),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

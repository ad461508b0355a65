/* End to end on the simulator: the geometry probes (probe_geometry.c
 * for the L1 data cache, probe_cache_geometry.c for the texture, read-only,
 * constant L1 and L1.5 caches; part of the default run) on every spec of
 * tests/specs-geometry/ and tests/specs-carveout/ and on the presets.
 * Truth: the spec's ways and size / line / ways sets of the physical cache
 * serving each path (the L1 at the default carveout).
 *  - A modulo-indexed cache (any policy: the stride test needs none) must
 *    be reported exactly: index "modulo" (over the line-address bits the
 *    strides decided), ways and sets the spec's, trusted.
 *    The constant L1.5 only where the bank holds the chains that decide
 *    its plateau (W elements 2 S lines apart, below).
 *  - An L1 data cache with a linear (XOR) index over power-of-two sets
 *    (index = hash, or the sim's xor fold) must be recovered exactly:
 *    index "xor", ways and sets the spec's, masks spanning the spec's row
 *    space (geometry_hash.c).
 *  - Any other index must not be called modulo with trust; its ways and
 *    sets must be exact, ranges or lower bounds holding the truth, or
 *    flagged (below the trusted confidence), and masks (of any cache)
 *    must span the index's row space: e2e_truth.c's geometry_ok, which the
 *    randomized test applies too.
 * Every run is also judged by the contract's truth (e2e_truth.c), which
 * must itself reject wrong masks. */
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
#include "topology/topology_json.h"
#include "sim/sim.h"
#include "topology/topology_json.h"
#include "e2e_measure.h"
#include "spec_dir.h"

/* Presets with an L1 data cache (maxwell's global loads skip the L1). */
static const char *const presets[] = {"kepler", "pascal", "v100", "turing", "a100", "h100", NULL};

static void geometry_only(const mt_device_info *d, mt_probe_options *o)
{
    (void)d;
    /* Nothing but the geometry probes (and policy, which --geometry brings
     * too) and what they require. */
    o->only_set = true;
    o->geometry = true;
}

/* The truth rejects masks that index other sets (one bit flipped in the
 * first mask) and accepts an invertible recombination of the rows. */
static void check_truth_judges_masks(const mt_sim_spec *s, mt_topology *t)
{
    mt_finding *mk = (mt_finding *)mt_topology_get(t, "l1d", "index_masks");
    char msg[2048], saved[sizeof mk->text];
    memcpy(saved, mk->text, sizeof saved);
    /* Parsed from the copy: the rewrites below overwrite mk->text. */
    unsigned long long m0 = strtoull(saved, NULL, 16);
    const char *rest = strchr(saved, ' ');
    snprintf(mk->text, sizeof mk->text, "0x%llx%s", m0 ^ 0x2, rest ? rest : "");
    if (strcmp(mk->text, saved) != 0 && mt_truth_check_mode(s, t, MT_TRUTH_CONTRACT, msg,
                                                             sizeof msg) == 0)
        fail_msg("the truth accepted wrong masks %s (right: %s)", mk->text, saved);
    if (rest) { /* row 0 replaced by row 0 XOR row 1: the same row space */
        unsigned long long m1 = strtoull(rest, NULL, 16);
        const char *tail = strchr(rest + 1, ' ');
        snprintf(mk->text, sizeof mk->text, "0x%llx 0x%llx%s", m0 ^ m1, m1, tail ? tail : "");
        if (mt_truth_check_mode(s, t, MT_TRUTH_CONTRACT, msg, sizeof msg) != 0)
            fail_msg("the truth rejected recombined masks %s: %s", mk->text, msg);
    }
    memcpy(mk->text, saved, sizeof saved);
}

/* The JSON writer and reader carry the masks unchanged. */
static void check_masks_read_back(const mt_topology *t, const mt_finding *mk)
{
    json_t *doc = NULL;
    mt_topology *back = NULL;
    mt_errinfo ei;
    assert_int_equal(mt_topology_build_json(t, &doc, &ei), MT_OK);
    assert_int_equal(mt_topology_from_json(doc, &back, &ei), MT_OK);
    const mt_finding *b = mt_topology_get(back, "l1d", "index_masks");
    assert_non_null(b);
    assert_int_equal(b->kind, MT_FIND_TEXT);
    assert_string_equal(b->text, mk->text);
    mt_topology_free(back);
    json_decref(doc);
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

/* An L1 data cache with a linear index over power-of-two sets: recovered
 * exactly (xor, ways, sets, masks), the masks judged by the truth and
 * read back from the JSON unchanged. */
static void check_l1d_hash(const char *spec, const mt_sim_spec *s, mt_topology *t,
                           const mt_truth_cache *tr)
{
    const mt_sim_cache_spec *cs = tr->cs;
    double ways = cs->fully_assoc ? (double)(tr->size / tr->line) : cs->ways;
    double sets = (double)(tr->size / tr->line) / ways;
    if (cs->index == MT_SIM_INDEX_MODULO || cs->fully_assoc ||
        !linear_index(cs, (uint64_t)sets, 64, NULL, NULL))
        return;
    const mt_finding *w = mt_topology_get(t, "l1d", "ways");
    const mt_finding *n = mt_topology_get(t, "l1d", "sets");
    const mt_finding *ix = mt_topology_get(t, "l1d", "index");
    const mt_finding *mk = mt_topology_get(t, "l1d", "index_masks");
    if (!w || !n || !ix)
        fail_msg("%s: the l1d geometry findings are missing", spec);
    if (!mk || mk->kind != MT_FIND_TEXT || strcmp(ix->text, "xor") != 0 ||
        w->kind != MT_FIND_VALUE || w->value != ways || n->kind != MT_FIND_VALUE ||
        n->value != sets || w->confidence < MT_TRUTH_TRUSTED)
        fail_msg("%s: %g sets x %g ways (index %s), want %g x %g recovered as xor: %s", spec,
                 n->value, w->value, ix->text, sets, ways, ix->note);
    print_message("  masks %s\n", mk->text);
    check_truth_judges_masks(s, t);
    check_masks_read_back(t, mk);
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
    check_l1d_hash(spec, s, t, &truth[MT_CACHE_L1D]);
    char msg[2048];
    if (mt_truth_check_mode(s, t, MT_TRUTH_CONTRACT, msg, sizeof msg) != 0)
        fail_msg("%s: the contract's truth: %s", spec, msg);
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
    assert_true(n >= 22);
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

/* Both geometry probes and the policy probe are part of the default run
 * (issue 8: they cost well under a second on the H100); --only leaves
 * them out unless --geometry asks for them; --only cannot name them. */
static void test_default_and_only(void **state)
{
    (void)state;
    mt_probe_options opt;
    mt_probe_options_default(&opt);
    static const char *const names[] = {"geometry", "cache_geom", "policy"};
    mt_errinfo ei;
    for (size_t i = 0; i < 3; i++) {
        mt_probe_options_default(&opt);
        assert_true(e2e_planned(&opt, names[i]));
        assert_int_equal(mt_probe_parse_only(names[i], &opt, &ei), MT_ERR_INVALID_ARG);
        assert_int_equal(mt_probe_parse_only("l1d", &opt, &ei), MT_OK);
        assert_false(e2e_planned(&opt, names[i]));
        opt.geometry = true;
        assert_true(e2e_planned(&opt, names[i]));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_geometry_specs),
        cmocka_unit_test(test_presets),
        cmocka_unit_test(test_json_read_back),
        cmocka_unit_test(test_default_and_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

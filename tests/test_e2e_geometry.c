/* End to end on the simulator: the geometry probe (probe_geometry.c,
 * part of the default run) on every spec of tests/specs-geometry/ and
 * tests/specs-carveout/ and on the presets with an L1 data cache.  Truth:
 * the spec's ways and size / line / ways sets of the cache serving
 * ld.global.ca at the default carveout.
 *  - A modulo-indexed cache (any policy: the stride test needs none) must
 *    be reported exactly: index "modulo", ways and sets the spec's, trusted.
 *  - A linear (XOR) index over power-of-two sets (index = hash, or the
 *    sim's xor fold) must be recovered exactly: index "xor", ways and sets
 *    the spec's, masks spanning the spec's row space (geometry_hash.c).
 *  - Any other index must not be called modulo with trust; its ways and
 *    sets must be exact, ranges or lower bounds holding the truth, or
 *    flagged (below the trusted confidence).
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

#include "e2e_truth.c"
#include "probes/probe.h"
#include "topology/topology_json.h"
#include "sim/sim.h"
#include "e2e_measure.h"
#include "spec_dir.h"

/* Presets with an L1 data cache (maxwell's global loads skip the L1). */
static const char *const presets[] = {"kepler", "pascal", "v100", "turing", "a100", "h100", NULL};

static bool honest(const mt_finding *f, double want)
{
    if (f->confidence < MT_TRUTH_TRUSTED)
        return true;
    if (f->kind == MT_FIND_VALUE)
        return f->value == want;
    return (f->kind == MT_FIND_RANGE && f->lo <= want && want <= f->hi) ||
           (f->kind == MT_FIND_LOWER_BOUND && f->lo <= want);
}

static void geometry_only(const mt_device_info *d, mt_probe_options *o)
{
    (void)d;
    o->only_set = true; /* nothing but the opt-in probe and what it requires */
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

/* Runs the geometry probe (and what it requires) on one spec or preset
 * and checks its findings against the truth; returns whether it called
 * the index modulo. */
static bool check_geometry(const char *spec)
{
    print_message("spec %s\n", spec);
    mt_backend *be;
    mt_topology *t = e2e_measure(spec, geometry_only, &be);

    const mt_sim_spec *s = mt_backend_sim_spec(be);
    mt_truth_cache truth[MT_CACHE_COUNT];
    uint32_t shared[MT_CACHE_COUNT];
    mt_truth_from_spec(s, truth, shared);
    const mt_sim_cache_spec *cs = truth[MT_CACHE_L1D].cs;
    assert_non_null(cs);
    uint64_t size = mt_sim_cache_size(cs, s->carveout_smem);
    double ways = cs->fully_assoc ? (double)(size / cs->line) : cs->ways;
    double sets = (double)(size / cs->line) / ways;

    const mt_finding *w = mt_topology_get(t, "l1d", "ways");
    const mt_finding *n = mt_topology_get(t, "l1d", "sets");
    const mt_finding *ix = mt_topology_get(t, "l1d", "index");
    if (!w || !n || !ix)
        fail_msg("%s: the geometry findings are missing", spec);
    bool modulo = ix->kind == MT_FIND_TEXT && strcmp(ix->text, "modulo") == 0 &&
                  ix->confidence >= MT_TRUTH_TRUSTED;
    if (cs->index == MT_SIM_INDEX_MODULO || cs->fully_assoc) {
        if (!modulo || w->kind != MT_FIND_VALUE || w->value != ways || n->kind != MT_FIND_VALUE ||
            n->value != sets || w->confidence < MT_TRUTH_TRUSTED)
            fail_msg("%s: %s %g x %s %g ways (index %s), want %g sets x %g ways: %s", spec,
                     mt_finding_kind_name(n->kind), n->value, mt_finding_kind_name(w->kind),
                     w->value, ix->text, sets, ways, w->note);
    } else if (linear_index(cs, (uint64_t)sets, 64, NULL, NULL)) {
        const mt_finding *mk = mt_topology_get(t, "l1d", "index_masks");
        if (!mk || mk->kind != MT_FIND_TEXT || strcmp(ix->text, "xor") != 0 ||
            w->kind != MT_FIND_VALUE || w->value != ways || n->kind != MT_FIND_VALUE ||
            n->value != sets || w->confidence < MT_TRUTH_TRUSTED)
            fail_msg("%s: %g sets x %g ways (index %s), want %g x %g recovered as xor: %s", spec,
                     n->value, w->value, ix->text, sets, ways, ix->note);
        print_message("  masks %s\n", mk->text);
        check_truth_judges_masks(s, t);
        check_masks_read_back(t, mk);
    } else if (!honest(w, ways) || !honest(n, sets)) {
        fail_msg("%s: ways [%g, %g] or sets [%g, %g] miss the truth %g x %g", spec, w->lo, w->hi,
                 n->lo, n->hi, sets, ways);
    }
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
    return modulo;
}

static void check_spec(const char *path, void *user)
{
    bool modulo = check_geometry(path);
    /* The hashed specs must be seen as not modulo (truth alone would let a
     * flagged "modulo" pass). */
    if (user && (strstr(path, "hash") || strstr(path, "xor")) && modulo)
        fail_msg("%s: a hashed index called modulo", path);
}

static void test_geometry_specs(void **state)
{
    (void)state;
    int n = for_each_spec("tests/specs-geometry", check_spec, "strict");
    if (n < 0)
        fail_msg("cannot open tests/specs-geometry");
    assert_true(n >= 18);
    assert_true(for_each_spec("tests/specs-carveout", check_spec, NULL) >= 5);
}

static void test_presets(void **state)
{
    (void)state;
    for (int i = 0; presets[i]; i++)
        check_geometry(presets[i]);
}

/* The default run plans the probe; --only leaves it out unless
 * --geometry asks for it; --only cannot name it. */
static void test_default_and_only(void **state)
{
    (void)state;
    mt_probe_options opt;
    mt_probe_options_default(&opt);
    assert_true(e2e_planned(&opt, "geometry"));
    mt_errinfo ei;
    assert_int_equal(mt_probe_parse_only("geometry", &opt, &ei), MT_ERR_INVALID_ARG);
    assert_int_equal(mt_probe_parse_only("l1d", &opt, &ei), MT_OK);
    assert_false(e2e_planned(&opt, "geometry"));
    opt.geometry = true;
    assert_true(e2e_planned(&opt, "geometry"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_geometry_specs),
        cmocka_unit_test(test_presets),
        cmocka_unit_test(test_default_and_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

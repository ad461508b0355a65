/* End to end on the simulator: the geometry probe (probe_geometry.c,
 * --geometry) on every spec of tests/specs-geometry/ and
 * tests/specs-carveout/ and on the presets with an L1 data cache.  Truth:
 * the spec's ways and size / line / ways sets of the cache serving
 * ld.global.ca at the default carveout.
 *  - A modulo-indexed cache (any policy: the stride test needs none) must
 *    be reported exactly: index "modulo", ways and sets the spec's, trusted.
 *  - Any other index must not be called modulo with trust; its ways and
 *    sets must be ranges holding the truth, or flagged (below the trusted
 *    confidence). */
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
    return f->kind == MT_FIND_RANGE && f->lo <= want && want <= f->hi;
}

static void geometry_only(const mt_device_info *d, mt_probe_options *o)
{
    (void)d;
    o->only_set = true; /* nothing but the opt-in probe and what it requires */
    o->geometry = true;
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
    } else if (!honest(w, ways) || !honest(n, sets)) {
        fail_msg("%s: ways [%g, %g] or sets [%g, %g] miss the truth %g x %g", spec, w->lo, w->hi,
                 n->lo, n->hi, sets, ways);
    }
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
    assert_true(n >= 11);
    assert_true(for_each_spec("tests/specs-carveout", check_spec, NULL) >= 5);
}

static void test_presets(void **state)
{
    (void)state;
    for (int i = 0; presets[i]; i++)
        check_geometry(presets[i]);
}

/* Without --geometry the probe is not planned (the default run is
 * unchanged), and --only cannot select it. */
static void test_opt_in(void **state)
{
    (void)state;
    mt_probe_options opt;
    mt_probe_options_default(&opt);
    assert_false(e2e_planned(&opt, "geometry"));
    mt_errinfo ei;
    assert_int_equal(mt_probe_parse_only("geometry", &opt, &ei), MT_ERR_INVALID_ARG);
    opt.geometry = true;
    assert_true(e2e_planned(&opt, "geometry"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_geometry_specs),
        cmocka_unit_test(test_presets),
        cmocka_unit_test(test_opt_in),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

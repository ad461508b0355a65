/* End to end on the simulator: the opt-in global access granularity probe
 * (probe_access.c, --access) on the presets and on every spec of
 * tests/specs-access/ (a costing sector and line; bank wavefront passes;
 * a costing sector alone), judged exactly by e2e_truth_access.c: the
 * units, the pass model and the costs of both paths, all measured. */
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

#define ACCESS_SPEC_DIR "tests/specs-access"

/* Nothing but the opt-in probe. */
static void access_only(const mt_device_info *d, mt_probe_options *o)
{
    (void)d;
    o->only_set = true;
    o->access = true;
}

static void check_access(const char *spec, void *user)
{
    (void)user;
    print_message("spec %s\n", spec);
    mt_backend *be;
    mt_topology *t = e2e_measure(spec, access_only, &be);
    const mt_sim_spec *s = mt_backend_sim_spec(be);
    char msg[4096] = "";
    g_mode = MT_TRUTH_EXACT;
    int bad = access_check(s, t, msg, sizeof msg);
    if (bad)
        fail_msg("%s: %d mismatches:\n%s", spec, bad, msg);
    /* Both paths ran and stated a rule. */
    assert_int_equal(mt_topology_get(t, "l1d", "coalescing")->kind, MT_FIND_TEXT);
    assert_int_equal(mt_topology_get(t, "l2", "coalescing")->kind, MT_FIND_TEXT);
    mt_topology_free(t);
    mt_backend_destroy(be);
}

static void test_presets(void **state)
{
    (void)state;
    check_access("h100", NULL);
    check_access("v100", NULL);
    check_access("kepler", NULL);
}

static void test_spec_files(void **state)
{
    (void)state;
    int n = for_each_spec(ACCESS_SPEC_DIR, check_access, NULL);
    if (n < 0)
        fail_msg("cannot open %s", ACCESS_SPEC_DIR);
    assert_true(n >= 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_presets),
        cmocka_unit_test(test_spec_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

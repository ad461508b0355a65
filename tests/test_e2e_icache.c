/* End to end on the simulator: the opt-in instruction-cache probe
 * (probe_icache.c, --icache) on the H100 and V100 presets and on every
 * spec of tests/specs-icache/, judged by the truth of e2e_truth_icache.c
 * exactly (each level the sweep can see measured; sizes a range holding
 * the spec's, cycles per instruction within max(0.1, 3%)).  A spec without
 * [icache] sections leaves every icache finding unset. */
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

#define ICACHE_SPEC_DIR "tests/specs-icache"

/* Nothing but the opt-in probe. */
static void icache_only(const mt_device_info *d, mt_probe_options *o)
{
    (void)d;
    o->only_set = true;
    o->icache = true;
}

static void check_icache(const char *spec, void *user)
{
    (void)user;
    print_message("spec %s\n", spec);
    mt_backend *be;
    mt_topology *t = e2e_measure(spec, icache_only, &be);
    const mt_sim_spec *s = mt_backend_sim_spec(be);
    char msg[4096] = "";
    g_mode = MT_TRUTH_EXACT;
    int bad = icache_check(s, t, msg, sizeof msg);
    if (bad)
        fail_msg("%s: %d mismatches:\n%s", spec, bad, msg);
    /* The first level is found whenever the spec has one. */
    const mt_finding *lat = mt_topology_get(t, "icache1", "latency");
    assert_non_null(lat);
    assert_int_equal(lat->kind, s->n_icaches ? MT_FIND_VALUE : MT_FIND_NONE);
    mt_topology_free(t);
    mt_backend_destroy(be);
}

static void test_presets(void **state)
{
    (void)state;
    check_icache("h100", NULL);
    check_icache("v100", NULL);
    /* No [icache] sections: nothing measured, nothing claimed. */
    check_icache("a100", NULL);
}

static void test_spec_files(void **state)
{
    (void)state;
    int n = for_each_spec(ICACHE_SPEC_DIR, check_icache, NULL);
    if (n < 0)
        fail_msg("cannot open %s", ICACHE_SPEC_DIR);
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

/* End to end on the simulator: the opt-in cluster probes (probe_dsm.c,
 * probe_tma.c, --cluster) on the H100 preset (exactly: DSM latency within
 * 2 cycles, bandwidths within 3%), on every spec of tests/specs-cluster/
 * (under the contract, with the DSM and TMA latencies required to be
 * confident values), on a device before Hopper ("not supported") and in a
 * whole default run with --cluster (the contract over every finding). */
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

#define CLUSTER_SPEC_DIR "tests/specs-cluster"

/* Nothing but the opt-in probes and what they require. */
static void cluster_only(const mt_device_info *d, mt_probe_options *o)
{
    (void)d;
    o->only_set = true;
    o->cluster = true;
}

static void cluster_too(const mt_device_info *d, mt_probe_options *o)
{
    (void)d;
    o->cluster = true;
}

static void assert_confident(const mt_topology *t, const char *key, const char *name)
{
    const mt_finding *f = mt_topology_get(t, key, name);
    if (!f || f->kind != MT_FIND_VALUE || f->confidence < MT_TRUTH_TRUSTED)
        fail_msg("%s.%s is not a confident value", key, name);
}

static void check_spec(const char *spec, mt_truth_mode mode)
{
    print_message("spec %s\n", spec);
    mt_backend *be;
    mt_topology *t = e2e_measure(spec, cluster_only, &be);
    char msg[4096] = "";
    g_mode = mode;
    int bad = cluster_check(mt_backend_sim_spec(be), t, msg, sizeof msg);
    if (bad)
        fail_msg("%s: %d mismatches:\n%s", spec, bad, msg);
    assert_confident(t, "dsm", "latency");
    assert_confident(t, "dsm", "latency_local");
    assert_confident(t, "dsm", "bandwidth");
    assert_confident(t, "tma", "latency");
    assert_confident(t, "tma", "plain_latency");
    mt_topology_free(t);
    mt_backend_destroy(be);
}

static void check_contract(const char *spec, void *user)
{
    (void)user;
    check_spec(spec, MT_TRUTH_CONTRACT);
}

static void test_h100(void **state)
{
    (void)state;
    check_spec("h100", MT_TRUTH_EXACT);
}

static void test_spec_files(void **state)
{
    (void)state;
    int n = for_each_spec(CLUSTER_SPEC_DIR, check_contract, NULL);
    if (n < 0)
        fail_msg("cannot open %s", CLUSTER_SPEC_DIR);
    assert_true(n >= 3);
}

/* Before Hopper: no clusters, no bulk copies, and nothing measured. */
static void test_not_supported(void **state)
{
    (void)state;
    mt_backend *be;
    mt_topology *t = e2e_measure("a100", cluster_only, &be);
    const char *ids[][2] = {{"dsm", "max_cluster_size"}, {"tma", "bulk_copy"}};
    for (int i = 0; i < 2; i++) {
        const mt_finding *f = mt_topology_get(t, ids[i][0], ids[i][1]);
        assert_non_null(f);
        assert_int_equal(f->kind, MT_FIND_TEXT);
        assert_string_equal(f->text, "not supported");
        assert_non_null(strstr(f->note, "compute capability 8.0"));
    }
    const mt_finding *l = mt_topology_get(t, "dsm", "latency");
    assert_true(!l || l->kind == MT_FIND_NONE);
    mt_topology_free(t);
    mt_backend_destroy(be);
}

static void test_default_run_with_cluster(void **state)
{
    (void)state;
    mt_backend *be;
    mt_topology *t = e2e_measure(CLUSTER_SPEC_DIR "/cluster-pairs-only.spec", cluster_too, &be);
    char msg[4096];
    int bad = mt_truth_check_mode(mt_backend_sim_spec(be), t, MT_TRUTH_CONTRACT, msg, sizeof msg);
    if (bad)
        fail_msg("%d mismatches:\n%s", bad, msg);
    mt_topology_free(t);
    mt_backend_destroy(be);
}

/* --cluster plans both probes; the default run neither. */
static void test_opt_in(void **state)
{
    (void)state;
    mt_probe_options o;
    mt_probe_options_default(&o);
    assert_false(e2e_planned(&o, "dsm"));
    assert_false(e2e_planned(&o, "tma"));
    o.cluster = true;
    assert_true(e2e_planned(&o, "dsm"));
    assert_true(e2e_planned(&o, "tma"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_opt_in),
        cmocka_unit_test(test_h100),
        cmocka_unit_test(test_spec_files),
        cmocka_unit_test(test_not_supported),
        cmocka_unit_test(test_default_run_with_cluster),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* End to end on the simulator: the policy probe (probe_policy.c, with
 * --geometry) on every spec of tests/specs-policy/ (each policy the format
 * allows, 1 to 16 ways, modulo and hashed indices) and tests/specs-geometry/.
 *  - Every spec passes the truth contract (e2e_truth.c judges l1d.policy
 *    and the whole-cache replacement class).
 *  - A modulo-indexed spec must get a named, trusted policy: "not tested"
 *    or a flagged answer would pass the contract but fail the issue.
 *  - So must a hashed index whose XOR masks the geometry recovered (the
 *    sets' lines come from the masks' null space, set_lines.c); at least
 *    HASHED_TESTED_MIN specs are of that kind, so the check cannot pass
 *    by recovering none.  A hashed index the geometry did not recover
 *    must be "not tested", with its reason. */
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

static void with_geometry(const mt_device_info *d, mt_probe_options *o)
{
    (void)d;
    o->geometry = true;
}

/* Specs whose hashed index was recovered and tested per set: all 19 of
 * tests/specs-policy and tests/specs-geometry whose index the line and
 * geometry probes recover today (one fewer means a recovery was lost). */
#define HASHED_TESTED_MIN 19

static void check_spec(const char *spec, void *user)
{
    int *hashed_tested = user;
    print_message("spec %s\n", spec);
    mt_backend *be;
    mt_topology *t = e2e_measure(spec, with_geometry, &be);
    char msg[4096];
    if (mt_truth_check_mode(mt_backend_sim_spec(be), t, MT_TRUTH_CONTRACT, msg, sizeof msg))
        fail_msg("%s: %s", spec, msg);
    const mt_sim_cache_spec *cs = NULL;
    const mt_sim_spec *s = mt_backend_sim_spec(be);
    mt_truth_cache truth[MT_CACHE_COUNT];
    uint32_t shared[MT_CACHE_COUNT];
    mt_truth_from_spec(s, truth, shared);
    cs = truth[MT_CACHE_L1D].cs;
    assert_non_null(cs);
    const mt_finding *p = mt_topology_get(t, "l1d", "policy");
    assert_non_null(p);
    if (cs->index == MT_SIM_INDEX_MODULO || cs->fully_assoc) {
        if (p->kind != MT_FIND_TEXT || p->confidence < MT_TRUTH_TRUSTED)
            fail_msg("%s: modulo index, but the policy is %s (conf %.2f): %s", spec, p->text,
                     p->confidence, p->note);
    } else {
        const mt_finding *ix = mt_topology_get(t, "l1d", "index");
        bool recovered = ix && ix->kind == MT_FIND_TEXT && strcmp(ix->text, "xor") == 0 &&
                         ix->confidence >= MT_TRUTH_TRUSTED;
        if (recovered && (p->kind != MT_FIND_TEXT || p->confidence < MT_TRUTH_TRUSTED))
            fail_msg("%s: XOR index recovered, but the policy is %s (conf %.2f): %s", spec,
                     p->text, p->confidence, p->note);
        if (!recovered && (p->kind != MT_FIND_NONE || strncmp(p->note, "not tested: ", 12)))
            fail_msg("%s: a hashed index not recovered, but tested per set: %s", spec, p->text);
        /* The evidence says where the lines came from (a direct-mapped
         * cache has none: no replacement choice to test). */
        const mt_finding *ev = mt_topology_get(t, "l1d", "policy_evidence");
        if (recovered && strncmp(p->text, "direct-mapped", 13) != 0 &&
            (!ev || !strstr(ev->note, "XOR index")))
            fail_msg("%s: the evidence does not say the lines came from the XOR index: %s",
                     spec, ev ? ev->note : "(none)");
        *hashed_tested += recovered;
    }
    mt_topology_free(t);
    mt_backend_destroy(be);
}

static void test_policy_specs(void **state)
{
    (void)state;
    int hashed_tested = 0;
    assert_true(for_each_spec("tests/specs-policy", check_spec, &hashed_tested) >= 26);
    assert_true(for_each_spec("tests/specs-geometry", check_spec, &hashed_tested) >= 11);
    print_message("%d hashed specs tested per set\n", hashed_tested);
    assert_true(hashed_tested >= HASHED_TESTED_MIN);
}

/* In the default run, like the geometry it stands on; --only cannot
 * select it, and leaves it out unless --geometry asks for it. */
static void test_default_and_only(void **state)
{
    (void)state;
    mt_probe_options opt;
    mt_probe_options_default(&opt);
    assert_true(e2e_planned(&opt, "policy"));
    mt_errinfo ei;
    assert_int_equal(mt_probe_parse_only("policy", &opt, &ei), MT_ERR_INVALID_ARG);
    assert_int_equal(mt_probe_parse_only("l1d", &opt, &ei), MT_OK);
    assert_false(e2e_planned(&opt, "policy"));
    opt.geometry = true;
    assert_true(e2e_planned(&opt, "policy"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_policy_specs),
        cmocka_unit_test(test_default_and_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* End to end on the simulator: the opt-in TLB probe (probe_tlb.c, --tlb)
 * on the H100 preset and on every spec of tests/specs-tlb/, judged by the
 * TLB truth of e2e_truth_tlb.c exactly (entries and page exact, reach
 * within one page, penalty within max(4 cycles, 5%); a level the spec does
 * not have only bounded): these specs are built so that each of their
 * levels fits the memory and the L2 the probe's chains may use.  One spec
 * also runs the whole default run with --tlb under the contract, so the
 * TLBs are seen not to disturb the other findings. */
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

#define TLB_SPEC_DIR "tests/specs-tlb"

/* Nothing but the opt-in probe and what it requires. */
static void tlb_only(const mt_device_info *d, mt_probe_options *o)
{
    (void)d;
    o->only_set = true;
    o->tlb = true;
}

static void tlb_too(const mt_device_info *d, mt_probe_options *o)
{
    (void)d;
    o->tlb = true;
}

static void check_tlb(const char *spec, void *user)
{
    (void)user;
    print_message("spec %s\n", spec);
    mt_backend *be;
    mt_topology *t = e2e_measure(spec, tlb_only, &be);
    const mt_sim_spec *s = mt_backend_sim_spec(be);
    char msg[4096] = "";
    g_mode = MT_TRUTH_EXACT;
    int bad = tlb_check(s, t, msg, sizeof msg);
    if (bad)
        fail_msg("%s: %d mismatches:\n%s", spec, bad, msg);
    /* The first level is found whenever the spec has one. */
    const mt_finding *e = mt_topology_get(t, "tlb1", "entries");
    assert_non_null(e);
    assert_int_equal(e->kind, s->n_tlbs ? MT_FIND_VALUE : MT_FIND_LOWER_BOUND);
    mt_topology_free(t);
    mt_backend_destroy(be);
}

static void test_h100(void **state)
{
    (void)state;
    check_tlb("h100", NULL);
}

static void test_spec_files(void **state)
{
    (void)state;
    int n = for_each_spec(TLB_SPEC_DIR, check_tlb, NULL);
    if (n < 0)
        fail_msg("cannot open %s", TLB_SPEC_DIR);
    assert_true(n >= 3);
}

static void test_default_run_undisturbed(void **state)
{
    (void)state;
    mt_backend *be;
    mt_topology *t = e2e_measure(TLB_SPEC_DIR "/tlb-small-pages.spec", tlb_too, &be);
    char msg[4096];
    int bad = mt_truth_check_mode(mt_backend_sim_spec(be), t, MT_TRUTH_CONTRACT, msg, sizeof msg);
    if (bad)
        fail_msg("%d mismatches:\n%s", bad, msg);
    mt_topology_free(t);
    mt_backend_destroy(be);
}

/* The sharing specs: every level's sms_per_group measured (tlb_check
 * judges the values exactly): SM 0's group of the spec's groups of SMs. */
static void test_sharing_measured(void **state)
{
    (void)state;
    static const char *const specs[] = {TLB_SPEC_DIR "/tlb-share-per-sm.spec",
                                        TLB_SPEC_DIR "/tlb-share-groups.spec"};
    static const double want[][2] = {{1, 16}, {2, 8}};
    for (int i = 0; i < 2; i++) {
        mt_backend *be;
        mt_topology *t = e2e_measure(specs[i], tlb_only, &be);
        static const char *const keys[] = {"tlb1", "tlb2"};
        for (int d = 0; d < 2; d++) {
            const mt_finding *f = mt_topology_get(t, keys[d], "sms_per_group");
            assert_non_null(f);
            if (f->kind != MT_FIND_VALUE || f->value != want[i][d] || f->confidence < 0.5)
                fail_msg("%s %s sms_per_group: kind %d %.0f (conf %.2f), want %.0f", specs[i],
                         keys[d], f->kind, f->value, f->confidence, want[i][d]);
        }
        mt_topology_free(t);
        mt_backend_destroy(be);
    }
}

/* Set-associative first levels (tests/specs-tlbset/): never confidently
 * wrong (the contract) on every spec; on the ones whose sets' span a
 * chain's stride reaches, the one-set pattern (tlb_sets.c) gives every TLB
 * finding exactly (entries, page, reach, ways, groups: the exact truth). */
static void check_tlbset(const char *spec, void *user)
{
    (void)user;
    static const char *const exact_specs[] = {"tlb-4way.spec",      "tlb-16way-8m.spec",
                                              "tlb-8way-256k.spec", "tlb-64way-64k.spec",
                                              "tlb-2way-2m.spec",   "tlb-32way-4m.spec"};
    bool exact_one = false;
    for (size_t i = 0; i < sizeof exact_specs / sizeof *exact_specs; i++)
        exact_one = exact_one || strstr(spec, exact_specs[i]) != NULL;
    mt_backend *be;
    mt_topology *t = e2e_measure(spec, tlb_only, &be);
    const mt_sim_spec *s = mt_backend_sim_spec(be);
    char msg[4096] = "";
    /* The contract over every level; exactness of the first level below
     * (a set-associative second level is flagged or a bound: not read). */
    g_mode = MT_TRUTH_CONTRACT;
    int bad = tlb_check(s, t, msg, sizeof msg);
    if (bad)
        fail_msg("%s: %d mismatches:\n%s", spec, bad, msg);
    const mt_finding *e = mt_topology_get(t, "tlb1", "entries");
    assert_non_null(e);
    if (exact_one) {
        const mt_finding *w = mt_topology_get(t, "tlb1", "ways");
        const mt_finding *p = mt_topology_get(t, "tlb1", "page");
        const mt_finding *g = mt_topology_get(t, "tlb1", "sms_per_group");
        assert_true(e->kind == MT_FIND_VALUE && e->confidence >= 0.5);
        assert_true(e->value == s->tlb[0].entries);
        assert_true(p && p->kind == MT_FIND_VALUE && p->value == (double)s->tlb[0].page);
        assert_true(w && w->kind == MT_FIND_VALUE && w->value == s->tlb[0].ways);
        uint32_t grp = s->tlb[0].sms_per_group && s->tlb[0].sms_per_group < (uint32_t)s->sm_count
                           ? s->tlb[0].sms_per_group
                           : (uint32_t)s->sm_count;
        if (g && g->kind != MT_FIND_NONE)
            assert_true(g->kind == MT_FIND_VALUE && g->value == grp);
    }
    mt_topology_free(t);
    mt_backend_destroy(be);
}

static void test_set_associative(void **state)
{
    (void)state;
    assert_true(for_each_spec("tests/specs-tlbset", check_tlbset, NULL) >= 7);
}

/* --tlb plans the probe; the default run does not. */
static void test_opt_in(void **state)
{
    (void)state;
    mt_probe_options o;
    mt_probe_options_default(&o);
    assert_false(e2e_planned(&o, "tlb"));
    o.tlb = true;
    assert_true(e2e_planned(&o, "tlb"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_opt_in),
        cmocka_unit_test(test_h100),
        cmocka_unit_test(test_spec_files),
        cmocka_unit_test(test_default_run_undisturbed),
        cmocka_unit_test(test_sharing_measured),
        cmocka_unit_test(test_set_associative),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* End to end on the simulator: the L2 geometry (probe l2_geom,
 * probe_l2_geometry.c: opt-in with --geometry) on every spec of
 * tests/specs-l2geom/ and on the presets.  Truth: one partition's ways,
 * size / partitions / line / ways sets and index (an SM allocates only in
 * its own partition), as e2e_truth.c judges them for the randomized test.
 *  - "modulo" in a spec's name: a modulo L2 (LRU, FIFO; one, two
 *    partitions; a power-of-two set count or not; a partition larger than
 *    the longest chain one fine run times): ways and sets exact, index
 *    "modulo", with the line's confidence.
 *  - "hash" in its name: an XOR hash over power-of-two sets whose
 *    partition fits the 2 MiB the hash recovery tests: index "xor", ways
 *    and sets exact, masks spanning the spec's rows (the truth checks).
 *  - "evict" in its name (a hashed partition over that span, LRU, FIFO or
 *    pseudo-LRU): ways and sets exact from an eviction set over the whole
 *    partition (l2_evict.c, MT_KIND_EVICT); where the partition's sets
 *    are a power of two (a linear index: masks, the format's xor, modulo)
 *    the masks too, over the whole partition (evict_masks.c; the truth
 *    checks their row space), and the sets from their rank where the
 *    driver's L2 is not a whole number of partitions (the "driver" specs).
 *  - "random" in its name: ways not a trusted value (a range or bound).
 *  - any other (the sim's xor fold over a partition larger than that
 *    span): a range or bound holding the truth, never a wrong value.
 * And: the probe is opt-in; the truth rejects wrong L2 ways and masks;
 * with no L2 line established (tests/specs/l2-line-bound-refuted.spec,
 * line-sets-defeat-strides.spec) the findings say "not measured" and why. */
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

/* --only l2 --geometry: the L2 probe, the geometry probes and l2_geom. */
static void l2_geometry_only(const mt_device_info *d, mt_probe_options *o)
{
    (void)d;
    o->only[0] = "l2";
    o->only[1] = NULL;
    o->only_set = true;
    o->geometry = true;
}

/* One partition's truth: ways, sets. */
static void partition_truth(const mt_sim_spec *s, double *ways, double *sets)
{
    const mt_sim_cache_spec *l2 = &s->cache[s->l2];
    double parts = l2->partitions > 1 ? l2->partitions : 1;
    *ways = l2->ways;
    *sets = (double)l2->size / parts / l2->line / l2->ways;
}

/* Measures one spec and judges it: the contract's truth always, and the
 * exact geometry its name promises. */
static void check_spec(const char *path, void *user)
{
    print_message("spec %s\n", path);
    mt_backend *be;
    mt_topology *t = e2e_measure(path, l2_geometry_only, &be);
    const mt_sim_spec *s = mt_backend_sim_spec(be);
    char msg[4096] = "";
    if (mt_truth_check_mode(s, t, MT_TRUTH_CONTRACT, msg, sizeof msg) != 0)
        fail_msg("%s: the contract's truth: %s", path, msg);
    const mt_finding *w = F(t, "l2", "ways"), *n = F(t, "l2", "sets"), *ix = F(t, "l2", "index");
    const mt_finding *line = F(t, "l2", "line");
    double ways, sets;
    partition_truth(s, &ways, &sets);
    print_message("  %s x %g ways, %g sets (%s), index %s\n", mt_finding_kind_name(w->kind),
                  w->value, n->value, mt_finding_kind_name(n->kind), ix->text);
    const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    bool want_modulo = strstr(name, "modulo") != NULL, want_xor = strstr(name, "hash") != NULL;
    if (want_modulo || want_xor) {
        const char *want = want_modulo ? "modulo" : "xor";
        if (w->kind != MT_FIND_VALUE || w->value != ways || n->kind != MT_FIND_VALUE ||
            n->value != sets || strncmp(ix->text, want, strlen(want)) != 0 ||
            w->confidence < line->confidence)
            fail_msg("%s: %s %g ways x %s %g sets (index %s, conf %.2f), want %g x %g %s: %s",
                     path, mt_finding_kind_name(w->kind), w->value,
                     mt_finding_kind_name(n->kind), n->value, ix->text, w->confidence, ways,
                     sets, want, w->note);
    }
    /* The presets (user non-NULL): exact wherever an eviction set is
     * promised, a partition over 2 MiB under LRU, FIFO or pseudo-LRU. */
    const mt_sim_cache_spec *l2s = &s->cache[s->l2];
    double part_bytes = (double)l2s->size / (l2s->partitions > 1 ? l2s->partitions : 1);
    bool evictable = part_bytes > 2.0 * 1024 * 1024 && (l2s->repl == MT_SIM_REPL_LRU ||
                                                         l2s->repl == MT_SIM_REPL_FIFO ||
                                                         l2s->repl == MT_SIM_REPL_PLRU);
    bool want_evict = strncmp(name, "evict", 5) == 0 || (user && evictable);
    if (want_evict && (w->kind != MT_FIND_VALUE || w->value != ways || n->kind != MT_FIND_VALUE ||
                       n->value != sets || w->confidence < 0.5 || n->confidence < 0.5))
        fail_msg("%s: %s %g ways x %s %g sets (conf %.2f), want %g x %g from an eviction set: "
                 "%s", path, mt_finding_kind_name(w->kind), w->value,
                 mt_finding_kind_name(n->kind), n->value, w->confidence, ways, sets, w->note);
    double part_sets = part_bytes / l2s->line / l2s->ways;
    uint64_t whole_sets = (uint64_t)part_sets;
    bool linear = (double)whole_sets == part_sets && (whole_sets & (whole_sets - 1)) == 0;
    const mt_finding *mk = F(t, "l2", "index_masks");
    if (want_evict && linear && (mk->kind != MT_FIND_TEXT || mk->confidence < 0.5))
        fail_msg("%s: %g sets (a power of two), but no l2.index_masks from the eviction set: %s",
                 path, part_sets, mk->note);
    if (strstr(name, "random") && w->kind == MT_FIND_VALUE && w->confidence >= 0.5)
        fail_msg("%s: random replacement, but ways %g at conf %.2f: %s", path, w->value,
                 w->confidence, w->note);
    if (want_xor && F(t, "l2", "index_masks")->kind != MT_FIND_TEXT)
        fail_msg("%s: no l2.index_masks", path);
    /* A partitioned L2: the findings say they are one partition's. */
    if (s->cache[s->l2].partitions > 1 && w->kind != MT_FIND_NONE &&
        !strstr(w->note, "one partition's"))
        fail_msg("%s: l2.ways does not say it is one partition's: %s", path, w->note);
    mt_topology_free(t);
    mt_backend_destroy(be);
}

static void test_specs(void **state)
{
    (void)state;
    int n = for_each_spec("tests/specs-l2geom", check_spec, NULL);
    if (n < 0)
        fail_msg("cannot open tests/specs-l2geom");
    assert_true(n >= 17);
}

/* Every preset under the contract; those whose partition is over the
 * recovery's span with LRU, FIFO or pseudo-LRU: ways and sets exact. */
static void test_presets(void **state)
{
    (void)state;
    static const char *const presets[] = {"kepler", "maxwell", "pascal", "v100",
                                          "turing", "a100",    "h100",   NULL};
    static int presets_flag;
    for (int i = 0; presets[i]; i++)
        check_spec(presets[i], &presets_flag);
}

/* Opt-in: the default run and --only l2 leave it out, --geometry brings it. */
static void test_opt_in(void **state)
{
    (void)state;
    mt_probe_options o;
    mt_probe_options_default(&o);
    assert_false(e2e_planned(&o, "l2_geom"));
    o.only[0] = "l2";
    o.only[1] = NULL;
    o.only_set = true;
    assert_false(e2e_planned(&o, "l2_geom"));
    o.geometry = true;
    assert_true(e2e_planned(&o, "l2_geom"));
}

/* The truth rejects a wrong L2 way count and masks of another index (it
 * would otherwise pass whatever the probe says). */
static void test_truth_rejects(void **state)
{
    (void)state;
    mt_backend *be;
    mt_topology *t = e2e_measure("tests/specs-l2geom/plru-hash-2x64x16.spec", l2_geometry_only,
                                 &be);
    const mt_sim_spec *s = mt_backend_sim_spec(be);
    char msg[4096] = "";
    assert_int_equal(mt_truth_check_mode(s, t, MT_TRUTH_CONTRACT, msg, sizeof msg), 0);
    mt_finding *w = (mt_finding *)mt_topology_get(t, "l2", "ways");
    mt_finding *mk = (mt_finding *)mt_topology_get(t, "l2", "index_masks");
    assert_non_null(w);
    assert_non_null(mk);
    w->value += 1;
    assert_int_not_equal(mt_truth_check_mode(s, t, MT_TRUTH_CONTRACT, msg, sizeof msg), 0);
    w->value -= 1;
    char saved[sizeof mk->text];
    memcpy(saved, mk->text, sizeof saved);
    snprintf(mk->text, sizeof mk->text, "0x%llx%s", strtoull(saved, NULL, 16) ^ 0x4,
             strchr(saved, ' ') ? strchr(saved, ' ') : "");
    msg[0] = '\0';
    assert_int_not_equal(mt_truth_check_mode(s, t, MT_TRUTH_CONTRACT, msg, sizeof msg), 0);
    assert_non_null(strstr(msg, "l2 index_masks"));
    mt_topology_free(t);
    mt_backend_destroy(be);
    /* And the eviction set's exact ways and sets of a partition over 2 MiB. */
    t = e2e_measure("tests/specs-l2geom/evict-fifo-xor-2x8MiB-4096x16.spec", l2_geometry_only,
                    &be);
    s = mt_backend_sim_spec(be);
    msg[0] = '\0';
    assert_int_equal(mt_truth_check_mode(s, t, MT_TRUTH_CONTRACT, msg, sizeof msg), 0);
    w = (mt_finding *)mt_topology_get(t, "l2", "ways");
    mt_finding *n = (mt_finding *)mt_topology_get(t, "l2", "sets");
    assert_int_equal(w->kind, MT_FIND_VALUE);
    assert_int_equal(n->kind, MT_FIND_VALUE);
    w->value -= 1;
    assert_int_not_equal(mt_truth_check_mode(s, t, MT_TRUTH_CONTRACT, msg, sizeof msg), 0);
    w->value += 1;
    n->value *= 2; /* the whole L2's sets, not one partition's */
    msg[0] = '\0';
    assert_int_not_equal(mt_truth_check_mode(s, t, MT_TRUTH_CONTRACT, msg, sizeof msg), 0);
    assert_non_null(strstr(msg, "l2 sets"));
    n->value /= 2;
    /* and masks over the whole partition: one row changed is another index */
    mk = (mt_finding *)mt_topology_get(t, "l2", "index_masks");
    assert_int_equal(mk->kind, MT_FIND_TEXT);
    assert_non_null(strstr(mk->note, "line bits 0-"));
    memcpy(saved, mk->text, sizeof saved);
    snprintf(mk->text, sizeof mk->text, "0x%llx%s", strtoull(saved, NULL, 16) ^ 0x100000,
             strchr(saved, ' ') ? strchr(saved, ' ') : "");
    msg[0] = '\0';
    assert_int_not_equal(mt_truth_check_mode(s, t, MT_TRUTH_CONTRACT, msg, sizeof msg), 0);
    assert_non_null(strstr(msg, "l2 index_masks"));
    mt_topology_free(t);
    mt_backend_destroy(be);
}

/* No L2 line established (the line test left a range: a set conflict ended
 * the wide-stride count early, or resident lines refuted it): the ways and
 * sets are not measured, and the findings say so and why instead of
 * staying silent; their ranges (1 to the L2's size in fill units) hold the
 * truth and the index claims nothing. */
static void test_unmeasured_says_why(void **state)
{
    (void)state;
    static const char *const specs[] = {"tests/specs/l2-line-bound-refuted.spec",
                                        "tests/specs/line-sets-defeat-strides.spec"};
    for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) {
        mt_backend *be;
        mt_topology *t = e2e_measure(specs[i], l2_geometry_only, &be);
        const mt_sim_spec *s = mt_backend_sim_spec(be);
        char msg[4096] = "";
        if (mt_truth_check_mode(s, t, MT_TRUTH_CONTRACT, msg, sizeof msg) != 0)
            fail_msg("%s: %s", specs[i], msg);
        const mt_finding *line = mt_topology_get(t, "l2", "line");
        assert_non_null(line);
        assert_int_equal(line->kind, MT_FIND_RANGE);
        double truth[2];
        partition_truth(s, &truth[0], &truth[1]);
        static const char *const counted[] = {"ways", "sets"};
        for (size_t k = 0; k < 2; k++) {
            const mt_finding *f = mt_topology_get(t, "l2", counted[k]);
            assert_non_null(f);
            assert_int_equal(f->kind, MT_FIND_RANGE);
            assert_true(f->lo <= truth[k] && truth[k] <= f->hi);
            assert_non_null(strstr(f->note, "not measured: the L2 line is not established"));
        }
        const mt_finding *index = mt_topology_get(t, "l2", "index");
        assert_non_null(index);
        assert_int_equal(index->kind, MT_FIND_TEXT);
        assert_string_equal(index->text, "not measured");
        assert_true(index->confidence < 0.5);
        assert_non_null(strstr(index->note, "not measured: the L2 line is not established"));
        mt_topology_free(t);
        mt_backend_destroy(be);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_opt_in),
        cmocka_unit_test(test_truth_rejects),
        cmocka_unit_test(test_unmeasured_says_why),
        cmocka_unit_test(test_specs),
        cmocka_unit_test(test_presets),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

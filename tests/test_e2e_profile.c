/* End to end: the L1 miss profile (probe_l1_profile.c) on spec files whose
 * profile is known from the model, held to the truth of e2e_truth.c (a
 * noise-free simulation of the same chains) and to what the model says in
 * closed form; and its findings survive the JSON writer and reader. */
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
#include "topology/topology_json.h"
#include "e2e_measure.h"

/* Measures a spec, checks it against the truth under the contract (some
 * of these specs' sizes are ranges under timer spikes) and returns the
 * topology; the tests then ask for the profile the model gives. */
static mt_topology *measure(const char *spec, mt_backend **be)
{
    mt_topology *t = e2e_measure(spec, NULL, be);
    char msg[4096];
    int bad = mt_truth_check_mode(mt_backend_sim_spec(*be), t, MT_TRUTH_CONTRACT, msg, sizeof msg);
    if (bad)
        fail_msg("%s: %d mismatches:\n%s", spec, bad, msg);
    const mt_finding *p = mt_topology_get(t, "l1d", "miss_profile");
    assert_non_null(p);
    print_message("%s: %s\n", spec, p->text);
    return t;
}

static const mt_finding *get(const mt_topology *t, const char *name)
{
    const mt_finding *f = mt_topology_get(t, "l1d", name);
    assert_non_null(f);
    return f;
}

static void lru_modulo_thrashes_at_nine_eighths(void **state)
{
    (void)state;
    mt_backend *be;
    mt_topology *t = measure("tests/specs/profile-lru-modulo.spec", &be);
    /* 64 sets x 8 ways x 128 B: set s thrashes fully once it holds 9 lines,
     * so at 64 x 8 + r lines r sets (9r lines) miss: 0.9 of the loads at
     * r = 0.9 x 512 / (9 - 0.9) = 56.9, i.e. from 569 lines (71.1 KiB). */
    const mt_finding *th = get(t, "thrash_footprint");
    assert_int_equal(th->kind, MT_FIND_RANGE);
    assert_true(th->lo < 569 * 128.0 && th->hi >= 569 * 128.0);
    assert_true(th->confidence >= MT_TRUTH_TRUSTED);
    /* Whole runs of sets at an odd step: single lines. */
    const mt_finding *g = get(t, "miss_granule");
    assert_int_equal(g->kind, MT_FIND_VALUE);
    assert_float_equal(g->value, 128, 0);
    mt_topology_free(t);
    mt_backend_destroy(be);
}

static void random_never_thrashes(void **state)
{
    (void)state;
    mt_backend *be;
    mt_topology *t = measure("tests/specs/profile-random.spec", &be);
    const mt_finding *th = get(t, "thrash_footprint");
    assert_int_equal(th->kind, MT_FIND_LOWER_BOUND);
    /* The steady rise of random replacement is no staircase of plateaus. */
    assert_null(strstr(get(t, "miss_profile")->text, "plateau"));
    mt_topology_free(t);
    mt_backend_destroy(be);
}

static void fully_associative_thrashes_one_step_up(void **state)
{
    (void)state;
    mt_backend *be;
    mt_topology *t = measure("tests/specs/profile-fullassoc-lru.spec", &be);
    const mt_finding *th = get(t, "thrash_footprint");
    assert_int_equal(th->kind, MT_FIND_RANGE);
    assert_float_equal(th->lo, 16384, 0);
    /* No footprint misses in part: no evidence of groups either way. */
    assert_int_equal(get(t, "miss_granule")->kind, MT_FIND_NONE);
    mt_topology_free(t);
    mt_backend_destroy(be);
}

static void index_grouping_four_lines_reads_512_bytes(void **state)
{
    (void)state;
    mt_backend *be;
    mt_topology *t = measure("tests/specs/profile-hash-quads.spec", &be);
    const mt_finding *g = get(t, "miss_granule");
    assert_int_equal(g->kind, MT_FIND_VALUE);
    assert_float_equal(g->value, 512, 0);
    assert_true(g->confidence >= MT_TRUTH_TRUSTED);
    /* Written and read back: the same three findings. */
    json_t *doc = mt_topology_to_json(t);
    assert_non_null(doc);
    mt_topology *back = NULL;
    mt_errinfo ei = {{0}};
    assert_int_equal(mt_topology_from_json(doc, &back, &ei), MT_OK);
    static const char *const names[] = {"thrash_footprint", "miss_profile", "miss_granule"};
    for (size_t i = 0; i < 3; i++) {
        const mt_finding *a = get(t, names[i]), *b = get(back, names[i]);
        assert_int_equal(a->kind, b->kind);
        /* The members each kind has in JSON (schema: value, lo, hi). */
        if (a->kind == MT_FIND_VALUE)
            assert_float_equal(a->value, b->value, 0);
        if (a->kind == MT_FIND_RANGE || a->kind == MT_FIND_LOWER_BOUND)
            assert_float_equal(a->lo, b->lo, 0);
        if (a->kind == MT_FIND_RANGE)
            assert_float_equal(a->hi, b->hi, 0);
        assert_string_equal(a->text, b->text);
        assert_string_equal(a->note, b->note);
    }
    json_decref(doc);
    mt_topology_free(back);
    mt_topology_free(t);
    mt_backend_destroy(be);
}

static void fifo_and_plru_hold_the_truth(void **state)
{
    (void)state;
    static const char *const specs[] = {"tests/specs/profile-fifo-modulo.spec",
                                        "tests/specs/profile-plru-modulo.spec"};
    for (size_t i = 0; i < 2; i++) {
        mt_backend *be;
        mt_topology *t = measure(specs[i], &be);
        assert_int_equal(get(t, "thrash_footprint")->kind, MT_FIND_RANGE);
        mt_topology_free(t);
        mt_backend_destroy(be);
    }
}

/* The truth can fail: claims the noise-free simulation contradicts. */
static void truth_rejects_wrong_claims(void **state)
{
    (void)state;
    mt_backend *be;
    mt_topology *t = measure("tests/specs/profile-lru-modulo.spec", &be);
    const mt_sim_spec *s = mt_backend_sim_spec(be);
    mt_object *o = mt_topology_object(t, "l1d");
    assert_non_null(o);
    char msg[4096];
    /* A granule of two lines, where the runs of sets end mid-pair. */
    mt_finding g = *get(t, "miss_granule");
    g.value = 256;
    assert_int_equal(mt_object_set(o, "miss_granule", NULL, &g), MT_OK);
    assert_true(mt_truth_check_mode(s, t, MT_TRUTH_CONTRACT, msg, sizeof msg) > 0);
    assert_non_null(strstr(msg, "miss_granule"));
    g.value = 128;
    assert_int_equal(mt_object_set(o, "miss_granule", NULL, &g), MT_OK);
    /* A thrash footprint 5 steps too early, and a bound well above it (the
     * truth allows 0.07 either way of the 0.9). */
    mt_finding th = *get(t, "thrash_footprint"), saved = th;
    double step = th.hi - th.lo;
    th.lo -= 5 * step;
    th.hi -= 5 * step;
    assert_int_equal(mt_object_set(o, "thrash_footprint", NULL, &th), MT_OK);
    assert_true(mt_truth_check_mode(s, t, MT_TRUTH_CONTRACT, msg, sizeof msg) > 0);
    th.kind = MT_FIND_LOWER_BOUND;
    th.lo = saved.hi + 6 * step;
    assert_int_equal(mt_object_set(o, "thrash_footprint", NULL, &th), MT_OK);
    assert_true(mt_truth_check_mode(s, t, MT_TRUTH_CONTRACT, msg, sizeof msg) > 0);
    assert_int_equal(mt_object_set(o, "thrash_footprint", NULL, &saved), MT_OK);
    /* A profile text whose share is off, and one that cannot be read. */
    mt_finding p = *get(t, "miss_profile");
    snprintf(p.text, sizeof p.text, "50%% up to %.3f KiB", saved.lo / 1024);
    assert_int_equal(mt_object_set(o, "miss_profile", NULL, &p), MT_OK);
    assert_true(mt_truth_check_mode(s, t, MT_TRUTH_CONTRACT, msg, sizeof msg) > 0);
    snprintf(p.text, sizeof p.text, "mostly hits");
    assert_int_equal(mt_object_set(o, "miss_profile", NULL, &p), MT_OK);
    assert_true(mt_truth_check_mode(s, t, MT_TRUTH_CONTRACT, msg, sizeof msg) > 0);
    /* Flagged (confidence below 0.5), a claim passes the contract. */
    p.confidence = 0.3;
    assert_int_equal(mt_object_set(o, "miss_profile", NULL, &p), MT_OK);
    assert_int_equal(mt_truth_check_mode(s, t, MT_TRUTH_CONTRACT, msg, sizeof msg), 0);
    mt_topology_free(t);
    mt_backend_destroy(be);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lru_modulo_thrashes_at_nine_eighths),
        cmocka_unit_test(random_never_thrashes),
        cmocka_unit_test(fully_associative_thrashes_one_step_up),
        cmocka_unit_test(index_grouping_four_lines_reads_512_bytes),
        cmocka_unit_test(fifo_and_plru_hold_the_truth),
        cmocka_unit_test(truth_rejects_wrong_claims),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

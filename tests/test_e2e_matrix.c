/* End to end on the simulator: the opt-in latency matrix (probe_matrix.c,
 * --matrix) on the H100 preset and on every spec of tests/specs-matrix/,
 * judged by the truth of e2e_truth_matrix.c exactly (every cell within 2
 * cycles of the spec's latency plus the penalties of the TLB levels it
 * misses), and which cells each spec lets a chain reach: those must be
 * numbers, the others "not measurable". */
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

#define MATRIX_SPEC_DIR "tests/specs-matrix"
/* Specs the contract judges at the matrix's edges (unseen random draws). */
#define MATRIX_EDGE_DIR "tests/specs-matrix-edge"

/* Nothing but the opt-in probe and what it requires. */
static void matrix_only(const mt_device_info *d, mt_probe_options *o)
{
    (void)d;
    o->only_set = true;
    o->matrix = true;
}

static const mt_finding *cell(const mt_topology *t, const char *row, int missed)
{
    char name[MT_NAME_LEN];
    snprintf(name, sizeof name, "lat_%s_tlbmiss%d", row, missed);
    const mt_finding *f = mt_topology_get(t, "gpu", name);
    if (!f)
        fail_msg("gpu.%s not reported", name);
    return f;
}

static bool is_number(const mt_finding *f)
{
    return f->kind == MT_FIND_VALUE;
}

static bool not_measurable(const mt_finding *f)
{
    return f->kind == MT_FIND_TEXT && strncmp(f->text, "not measurable: ", 16) == 0;
}

/* The cells a spec's hierarchy lets a chain reach: every row without TLB
 * misses (the far row only with partitions); with TLB misses the L2 and
 * DRAM rows up to the last level (each spec's levels all fit the L2's
 * resident share), never the L1 row (a level reaches at least 4 GiB: far
 * more pages than an L1 has lines). */
static void check_matrix(const char *spec, void *user)
{
    (void)user;
    print_message("spec %s\n", spec);
    mt_backend *be;
    mt_topology *t = e2e_measure(spec, matrix_only, &be);
    const mt_sim_spec *s = mt_backend_sim_spec(be);
    char msg[4096] = "";
    mt_truth_cache truth[MT_CACHE_COUNT];
    uint32_t shared[MT_CACHE_COUNT];
    mt_truth_from_spec(s, truth, shared);
    g_mode = MT_TRUTH_EXACT;
    int bad = matrix_check(s, t, truth, msg, sizeof msg);
    if (bad)
        fail_msg("%s: %d mismatches:\n%s", spec, bad, msg);
    bool far = truth[MT_CACHE_L2].cs && truth[MT_CACHE_L2].cs->partitions > 1;
    for (int j = 0; j < 4; j++) {
        bool reach = j <= s->n_tlbs;
        assert_true(j == 0 ? is_number(cell(t, "l1", j)) : not_measurable(cell(t, "l1", j)));
        assert_true(reach ? is_number(cell(t, "l2near", j)) : not_measurable(cell(t, "l2near", j)));
        assert_true(reach && far ? is_number(cell(t, "l2far", j))
                                 : not_measurable(cell(t, "l2far", j)));
        assert_true(reach ? is_number(cell(t, "dram", j)) : not_measurable(cell(t, "dram", j)));
    }
    mt_topology_free(t);
    mt_backend_destroy(be);
}

static void test_h100(void **state)
{
    (void)state;
    check_matrix("h100", NULL);
}

static void test_spec_files(void **state)
{
    (void)state;
    int n = for_each_spec(MATRIX_SPEC_DIR, check_matrix, NULL);
    if (n < 0)
        fail_msg("cannot open %s", MATRIX_SPEC_DIR);
    assert_true(n >= 2);
}

/* A wrong cell is caught: the truth check is not vacuous. */
static void test_truth_catches_a_wrong_cell(void **state)
{
    (void)state;
    mt_backend *be;
    mt_topology *t = e2e_measure("h100", matrix_only, &be);
    const mt_sim_spec *s = mt_backend_sim_spec(be);
    mt_truth_cache truth[MT_CACHE_COUNT];
    uint32_t shared[MT_CACHE_COUNT];
    mt_truth_from_spec(s, truth, shared);
    mt_finding f = *cell(t, "l2near", 1);
    f.value += 3; /* one TLB penalty off by 3 cycles */
    assert_int_equal(mt_object_set(mt_topology_object(t, "gpu"), "lat_l2near_tlbmiss1", NULL, &f),
                     MT_OK);
    char msg[4096] = "";
    g_mode = MT_TRUTH_CONTRACT;
    assert_int_equal(matrix_check(s, t, truth, msg, sizeof msg), 1);
    mt_topology_free(t);
    mt_backend_destroy(be);
}

/* Measures an edge spec and checks the contract's truth (a cell wrong at
 * a trusted confidence fails); the caller checks how the cell said it. */
static mt_topology *measure_edge(const char *spec, mt_backend **be)
{
    print_message("spec %s\n", spec);
    mt_topology *t = e2e_measure(spec, matrix_only, be);
    const mt_sim_spec *s = mt_backend_sim_spec(*be);
    mt_truth_cache truth[MT_CACHE_COUNT];
    uint32_t shared[MT_CACHE_COUNT];
    mt_truth_from_spec(s, truth, shared);
    char msg[4096] = "";
    g_mode = MT_TRUTH_CONTRACT;
    if (matrix_check(s, t, truth, msg, sizeof msg))
        fail_msg("%s: %s", spec, msg);
    return t;
}

/* The TLB level found but its page not sized: no stride is sure of one
 * element per page, so the columns that miss a level are not measurable
 * (a fixed stride below the page timed TLB hits there). */
static void test_page_unknown(void **state)
{
    (void)state;
    mt_backend *be;
    mt_topology *t = measure_edge(MATRIX_EDGE_DIR "/page-unknown.spec", &be);
    assert_int_equal(mt_topology_get(t, "tlb1", "page")->kind, MT_FIND_NONE);
    assert_true(is_number(cell(t, "dram", 0)) || cell(t, "dram", 0)->kind == MT_FIND_RANGE);
    for (int j = 1; j < 4; j++) {
        const mt_finding *f = cell(t, "dram", j);
        assert_true(not_measurable(f));
        if (j == 1)
            assert_non_null(strstr(f->text, "page size"));
    }
    mt_topology_free(t);
    mt_backend_destroy(be);
}

/* An L1 size in doubt (confidence 0.3): the L1-hit cell, whose chain that
 * size dimensions, is no surer than it. */
static void test_l1_size_in_doubt(void **state)
{
    (void)state;
    mt_backend *be;
    mt_topology *t = measure_edge(MATRIX_EDGE_DIR "/l1-size-doubt.spec", &be);
    const mt_finding *size = mt_topology_get(t, "l1d", "size");
    assert_true(size->confidence < 0.5);
    const mt_finding *f = cell(t, "l1", 0);
    assert_true(f->kind == MT_FIND_VALUE || f->kind == MT_FIND_RANGE);
    assert_true(f->confidence <= size->confidence);
    assert_non_null(strstr(f->note, "l1d.size"));
    mt_topology_free(t);
    mt_backend_destroy(be);
}

/* --matrix plans the probe and the TLB probe it needs; the default run
 * plans neither. */
static void test_opt_in(void **state)
{
    (void)state;
    mt_probe_options o;
    mt_probe_options_default(&o);
    assert_false(e2e_planned(&o, "matrix"));
    assert_false(e2e_planned(&o, "tlb"));
    o.matrix = true;
    assert_true(e2e_planned(&o, "matrix"));
    assert_true(e2e_planned(&o, "tlb"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_opt_in),
        cmocka_unit_test(test_h100),
        cmocka_unit_test(test_page_unknown),
        cmocka_unit_test(test_l1_size_in_doubt),
        cmocka_unit_test(test_spec_files),
        cmocka_unit_test(test_truth_catches_a_wrong_cell),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The L2 near/far map from per-line latencies (src/probes/l2_near_map.c),
 * on synthetic maps whose groups and near lines are known. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analysis_synth.h"
#include "probes/l2_near_map.h"

#define LINES 432
#define NEAR 270.0
#define FAR 297.0

/* Home partition of line k: a hash, as the simulator and GPUs do. */
static unsigned home(size_t k, unsigned parts)
{
    mt_rng r = {.s = 0x9e3779b97f4a7c15ull * (k + 1)};
    return (unsigned)(mt_rng_next(&r) % parts);
}

/* v[s * LINES + k]: SM s attached to part_of[s], noise sd per line. */
static double *synth_map(const unsigned *part_of, size_t sms, unsigned parts, double near,
                         double far, double sd, uint64_t seed)
{
    double *v = malloc(sms * LINES * sizeof *v);
    assert_non_null(v);
    mt_rng r = {.s = seed};
    for (size_t s = 0; s < sms; s++)
        for (size_t k = 0; k < LINES; k++)
            v[s * LINES + k] = (home(k, parts) == part_of[s] ? near : far) + sd * synth_gauss(&r);
    return v;
}

/* Uneven blocks of SMs over three partitions: three groups numbered from
 * SM 0, each SM's near lines exactly its partition's, nothing shared. */
static void groups_are_the_partitions(void **state)
{
    (void)state;
    const unsigned part_of[] = {2, 2, 2, 0, 1, 1, 1, 1, 0, 2};
    size_t sms = sizeof part_of / sizeof *part_of;
    double *v = synth_map(part_of, sms, 3, NEAR, FAR, 3.0, 1);
    mt_near_map m;
    assert_int_equal(mt_near_map_build(v, sms, LINES, NAN, &m), MT_OK);
    assert_true(m.two_classes);
    assert_int_equal(m.n_groups, 3);
    const int want[] = {0, 0, 0, 1, 2, 2, 2, 2, 1, 0};
    for (size_t s = 0; s < sms; s++) {
        assert_int_equal(m.group[s], want[s]);
        size_t near = 0, right = 0;
        for (size_t k = 0; k < LINES; k++) {
            bool is_near = m.mark[s * LINES + k] == MT_LINE_NEAR;
            near += is_near;
            right += is_near == (home(k, 3) == part_of[s]);
        }
        assert_int_equal(right, LINES);
        assert_true(fabs(m.near_share[s] - (double)near / LINES) < 1e-12);
        assert_true(fabs(m.near_share[s] - 1.0 / 3) < 0.1);
    }
    assert_true(m.misclass < 1e-3);
    assert_true(m.disagree == 0);
    assert_true(m.overlap == 0);
    mt_near_map_free(&m);
    free(v);
}

/* One latency: every line near, one group, no cut. */
static void one_class_is_one_group(void **state)
{
    (void)state;
    const unsigned part_of[] = {0, 0, 0, 0, 0, 0};
    double *v = synth_map(part_of, 6, 1, NEAR, FAR, 4.0, 2);
    mt_near_map m;
    assert_int_equal(mt_near_map_build(v, 6, LINES, NAN, &m), MT_OK);
    assert_false(m.two_classes);
    assert_true(isnan(m.threshold));
    assert_int_equal(m.n_groups, 1);
    for (size_t s = 0; s < 6; s++)
        assert_true(m.near_share[s] == 1.0);
    mt_near_map_free(&m);
    free(v);
}

/* Lines above the miss threshold are neither near nor far and do not
 * count in the share; an SM of its own partition is its own group. */
static void misses_are_left_out(void **state)
{
    (void)state;
    const unsigned part_of[] = {0, 1};
    double *v = synth_map(part_of, 2, 2, NEAR, FAR, 2.0, 3);
    for (size_t k = 0; k < LINES; k += 9)
        v[k] = 700; /* SM 0 missed these lines: DRAM */
    mt_near_map m;
    assert_int_equal(mt_near_map_build(v, 2, LINES, 400, &m), MT_OK);
    assert_int_equal(m.misses, (LINES + 8) / 9);
    assert_int_equal(m.mark[0], MT_LINE_MISS);
    assert_int_equal(m.n_groups, 2);
    size_t near = 0, hits = 0;
    for (size_t k = 0; k < LINES; k++)
        if (m.mark[k] != MT_LINE_MISS) {
            hits++;
            near += home(k, 2) == 0;
        }
    assert_true(fabs(m.near_share[0] - (double)near / (double)hits) < 1e-12);
    mt_near_map_free(&m);
    free(v);
}

/* Near and far 24 cycles apart under 8 cycles of noise per line: two
 * classes, but they overlap, and the map says so (misclassified lines
 * expected, SMs of one partition disagree), which the probe turns into low
 * confidence. */
static void overlapping_classes_are_flagged(void **state)
{
    (void)state;
    const unsigned part_of[] = {0, 1, 0, 1, 0, 1, 0, 1};
    double *v = synth_map(part_of, 8, 2, NEAR, NEAR + 24, 8.0, 4);
    mt_near_map m;
    assert_int_equal(mt_near_map_build(v, 8, LINES, NAN, &m), MT_OK);
    assert_true(m.two_classes);
    assert_true(m.misclass > MAP_MAX_MISCLASS);
    assert_true(m.disagree > MAP_MAX_MISCLASS);
    mt_near_map_free(&m);
    free(v);
}

/* The foreign share: disjoint classes far apart give almost none; a
 * cut through one bell curve gives a large one. */
static void foreign_share_of_a_split(void **state)
{
    (void)state;
    mt_rng r = {.s = 5};
    double x[400];
    synth_fill(&r, x, 200, NEAR, 2.0);
    synth_fill(&r, x + 200, 200, FAR, 2.0);
    assert_true(mt_near_far_foreign_share(x, 400, (NEAR + FAR) / 2) < 1e-6);
    synth_fill(&r, x, 400, NEAR, 10.0);
    assert_true(mt_near_far_foreign_share(x, 400, NEAR) > 0.05);
    assert_true(mt_near_far_foreign_share(x, 400, NEAR + 1000) == 1); /* one class empty */
}

static void bad_arguments(void **state)
{
    (void)state;
    mt_near_map m;
    double v = 1;
    assert_int_equal(mt_near_map_build(NULL, 1, 1, NAN, &m), MT_ERR_INVALID_ARG);
    assert_int_equal(mt_near_map_build(&v, 0, 1, NAN, &m), MT_ERR_INVALID_ARG);
    mt_near_map_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(groups_are_the_partitions), cmocka_unit_test(one_class_is_one_group),
        cmocka_unit_test(misses_are_left_out), cmocka_unit_test(overlapping_classes_are_flagged),
        cmocka_unit_test(foreign_share_of_a_split), cmocka_unit_test(bad_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

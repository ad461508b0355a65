/* Steps of a miss curve and the aligned groups misses come in
 * (src/analysis/miss_profile.c): the L1 profile probe's analysis. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <math.h>

#include "analysis/miss_profile.h"

static void h100_like_curve_has_two_plateaus(void **state)
{
    (void)state;
    /* The H100's shape: none, a rise, a plateau, a jump, a plateau. */
    const double y[] = {0, 0, 0, 0, 0.05, 0.12, 0.19, 0.26, 0.27, 0.26, 0.27, 0.26,
                        0.52, 0.53, 0.52, 0.52, 0.53};
    size_t n = sizeof y / sizeof *y;
    mt_profile_step st[sizeof y / sizeof *y];
    size_t m = mt_profile_steps(y, n, 0.03, 0.005, 4, st);
    assert_int_equal(m, 4);
    assert_int_equal(st[0].kind, MT_STEP_FLAT);
    assert_int_equal(st[0].first, 0);
    assert_int_equal(st[0].last, 3);
    assert_int_equal(st[1].kind, MT_STEP_RISE);
    assert_int_equal(st[1].first, 4);
    assert_int_equal(st[1].last, 6);
    assert_int_equal(st[2].kind, MT_STEP_FLAT);
    assert_int_equal(st[2].first, 7);
    assert_int_equal(st[2].last, 11);
    assert_int_equal(st[3].kind, MT_STEP_FLAT);
    assert_int_equal(st[3].first, 12);
    assert_int_equal(st[3].last, 16);
}

static void steady_rise_is_no_staircase(void **state)
{
    (void)state;
    /* A random policy's slow rise: 0.012 per point, so any 3 points span
     * less than the spread, yet the slope says it is no plateau. */
    double y[30];
    for (size_t i = 0; i < 30; i++)
        y[i] = 0.012 * (double)i;
    mt_profile_step st[30];
    size_t m = mt_profile_steps(y, 30, 0.03, 0.005, 4, st);
    assert_int_equal(m, 1);
    assert_int_equal(st[0].kind, MT_STEP_RISE);
    assert_int_equal(st[0].first, 0);
    assert_int_equal(st[0].last, 29);
    /* The same points with a tolerant slope: flats. */
    m = mt_profile_steps(y, 30, 0.03, 0.02, 3, st);
    assert_true(m > 1);
    assert_int_equal(st[0].kind, MT_STEP_FLAT);
}

static void fall_after_plateau(void **state)
{
    (void)state;
    const double y[] = {0.5, 0.5, 0.5, 0.5, 0.3, 0.1, 0.1, 0.1, 0.1};
    mt_profile_step st[9];
    size_t m = mt_profile_steps(y, 9, 0.03, 0.005, 4, st);
    assert_int_equal(m, 3);
    assert_int_equal(st[1].kind, MT_STEP_FALL);
    assert_int_equal(st[1].first, 4);
    assert_int_equal(st[1].last, 4);
}

/* Sets lines [a, b) of m as missed. */
static void miss_run(uint8_t *m, uint32_t a, uint32_t b)
{
    for (uint32_t k = a; k < b; k++)
        m[k] = 1;
}

static void groups_of_four(void **state)
{
    (void)state;
    /* Three footprints whose misses are whole aligned groups of 4 lines. */
    uint8_t a[64] = {0}, b[68] = {0}, c[72] = {0};
    miss_run(a, 0, 8);
    miss_run(a, 32, 36);
    miss_run(b, 4, 12);
    miss_run(b, 64, 68);
    miss_run(c, 0, 4);
    miss_run(c, 40, 48);
    miss_run(c, 68, 72);
    const mt_miss_map maps[] = {{a, 64}, {b, 68}, {c, 72}};
    mt_granule g;
    mt_miss_granule(maps, 3, 64, 1.0, &g);
    assert_int_equal(g.partial, 3);
    assert_int_equal(g.group, 4);
    assert_int_equal(g.whole, 3);
    assert_int_equal(g.miss_groups, 3 + 3 + 4);
    assert_int_equal(g.split_next, 3);
    assert_true(g.log10_chance < -3);
}

static void modulo_runs_of_odd_length_are_single_lines(void **state)
{
    (void)state;
    /* LRU with a modulo index: runs of overflowing sets; at an odd run
     * length the group at its end is mixed. */
    uint8_t a[70] = {0};
    miss_run(a, 0, 6);
    miss_run(a, 32, 38);
    uint8_t b[75] = {0};
    miss_run(b, 0, 11);
    miss_run(b, 32, 43);
    const mt_miss_map even_only[] = {{a, 70}};
    const mt_miss_map both[] = {{a, 70}, {b, 75}};
    mt_granule g;
    mt_miss_granule(even_only, 1, 64, 0.75, &g);
    assert_int_equal(g.group, 2); /* runs of 6 from 0 and 32: pairs whole */
    mt_miss_granule(both, 2, 64, 0.75, &g);
    assert_int_equal(g.group, 1);
    assert_int_equal(g.split_next, 1);
    /* Half the footprints whole: enough only for a share of 1/2. */
    mt_miss_granule(both, 2, 64, 0.5, &g);
    assert_int_equal(g.group, 2);
    assert_int_equal(g.whole, 1);
}

static void no_partial_footprint_is_no_evidence(void **state)
{
    (void)state;
    uint8_t none[16] = {0}, all[16];
    memset(all, 1, sizeof all);
    const mt_miss_map maps[] = {{none, 16}, {all, 16}};
    mt_granule g;
    mt_miss_granule(maps, 2, 64, 0.75, &g);
    assert_int_equal(g.partial, 0);
    assert_int_equal(g.group, 1);
}

static void largest_group_tried_caps(void **state)
{
    (void)state;
    uint8_t a[256] = {0};
    miss_run(a, 0, 128);
    const mt_miss_map maps[] = {{a, 256}};
    mt_granule g;
    mt_miss_granule(maps, 1, 16, 0.75, &g);
    assert_int_equal(g.group, 16);
    assert_int_equal(g.split_next, 0);
    assert_int_equal(g.miss_groups, 8);
}

/* The H100's sequential profile at the default carveout as the lead
 * recorded it (tests/fixtures/h100-sxm5-2/l1profile/p16.txt: footprints
 * 200-256 KiB, 512 B apart, the last lap's missing lines as hex), analysed
 * as the probe does from its 233 KiB size: one plateau of 512 missing lines
 * over 241-250 KiB, and misses in aligned groups of 4 lines. */
#define H100_SIZE (233u * 1024)
#define H100_MAX 160
static void h100_recorded_profile(void **state)
{
    (void)state;
    FILE *f = fopen("tests/fixtures/h100-sxm5-2/l1profile/p16.txt", "r");
    assert_non_null(f);
    static char line[8192];
    static uint8_t bits[H100_MAX][2048];
    double y[H100_MAX], fp[H100_MAX];
    mt_miss_map maps[H100_MAX];
    size_t n = 0;
    while (n < H100_MAX && fgets(line, sizeof line, f)) {
        unsigned long bytes;
        int pct;
        char order[4];
        double lap1;
        int used = 0;
        if (sscanf(line, "F %lu pct %d %3s laps: %lf%n", &bytes, &pct, order, &lap1, &used) != 4 ||
            strcmp(order, "seq") != 0 || bytes < H100_SIZE)
            continue;
        const char *map = strstr(line, " map ");
        assert_non_null(map);
        map += 5;
        uint32_t lines = (uint32_t)(bytes / 128), missed = 0;
        assert_true(lines <= 2048);
        for (uint32_t k = 0; k < lines; k++) {
            char hex[2] = {map[k / 4], 0};
            bits[n][k] = (strtoul(hex, NULL, 16) >> (k % 4)) & 1;
            missed += bits[n][k];
        }
        maps[n] = (mt_miss_map){bits[n], lines};
        y[n] = (double)missed / (H100_SIZE / 128);
        fp[n] = (double)bytes / 1024;
        n++;
    }
    fclose(f);
    assert_true(n > 40);
    /* The probe's plateau rule at this size and step (probe_l1_profile.c):
     * 1/48 of the size wide, 0.03 spread, 0.005 of the size per size/128. */
    double steps_per_size = (double)H100_SIZE / 512;
    size_t points = (size_t)(steps_per_size / 48) + 2;
    mt_profile_step st[H100_MAX];
    size_t m = mt_profile_steps(y, n, 0.03, 0.005 * 128 / steps_per_size, points, st);
    size_t flats = 0;
    for (size_t i = 0; i < m; i++) {
        if (st[i].kind != MT_STEP_FLAT)
            continue;
        flats++;
        assert_true(fp[st[i].first] <= 242 && fp[st[i].last] >= 249.5);
        for (size_t k = st[i].first; k <= st[i].last; k++)
            assert_true(fabs(y[k] * (H100_SIZE / 128) - 512) <= 32);
    }
    assert_int_equal(flats, 1);
    mt_granule g;
    mt_miss_granule(maps, n, 64, 0.75, &g);
    assert_int_equal(g.group, 4);
    assert_true(g.partial > 20);
    assert_true(g.log10_chance < -3);
    /* 4 footprints of the rise (233.5, 234.5, 239.5, 240.5 KiB) lose single
     * lines too: all footprints whole would say single lines. */
    assert_int_equal(g.partial - g.whole, 4);
    mt_miss_granule(maps, n, 64, 1.0, &g);
    assert_int_equal(g.group, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(h100_like_curve_has_two_plateaus),
        cmocka_unit_test(steady_rise_is_no_staircase),
        cmocka_unit_test(fall_after_plateau),
        cmocka_unit_test(groups_of_four),
        cmocka_unit_test(modulo_runs_of_odd_length_are_single_lines),
        cmocka_unit_test(no_partial_footprint_is_no_evidence),
        cmocka_unit_test(largest_group_tried_caps),
        cmocka_unit_test(h100_recorded_profile),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The L2 findings that follow the per-SM map (derive_l2_latency_from_map.c,
 * derive_l2_partition_vs_map.c) and the miss penalty that subtracts the
 * near latency (derive_l2_miss_penalty.c), on hand-made topologies with
 * the H100's numbers and those of the random specs behind them. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "probes/confidence.h"
#include "probes/l2_near_map.h"
#include "probes/latency_precision.h"
#include "probes/probe.h"

static mt_finding value(double v, double conf, const char *unit)
{
    mt_finding f;
    memset(&f, 0, sizeof f);
    f.kind = MT_FIND_VALUE;
    f.source = MT_SRC_MEASURED;
    f.value = f.lo = f.hi = v;
    f.confidence = conf;
    strcpy(f.unit, unit);
    strcpy(f.method, "test");
    return f;
}

static void put(mt_topology *t, const char *key, const char *name, mt_finding f)
{
    mt_object *o = mt_topology_add_object(t, key, key, key, MT_OBJ_CACHE, 0);
    assert_non_null(o);
    assert_int_equal(mt_object_set(o, name, NULL, &f), MT_OK);
}

static void derive(mt_topology *t, const char *name)
{
    for (const mt_derivation_desc *const *d = mt_derivation_registry; *d; d++)
        if (strcmp((*d)->name, name) == 0) {
            mt_errinfo ei = {{0}};
            assert_int_equal((*d)->derive(t, &ei), MT_OK);
            return;
        }
    fail_msg("no derivation %s", name);
}

/* The H100 of 2026-11-23: SM 0's split overlaps (278/299 at 0.3), the map
 * is trusted (270/301 at 0.9), DRAM 688.6; map_conf sets the map's. */
static mt_topology *h100(double map_conf)
{
    mt_topology *t = mt_topology_new();
    assert_non_null(t);
    put(t, "l2", "size", value(52428800, 1, "B"));
    put(t, "l2", "latency", value(278, MT_CONF_INCONSISTENT, "cycles"));
    put(t, "l2", "far_latency", value(299, MT_CONF_INCONSISTENT, "cycles"));
    put(t, "l2", "partition_size", value(23961600, 1, "B"));
    put(t, "l2", "map_groups", value(2, map_conf, "count"));
    put(t, "l2", "near_share", value(0.493, map_conf, ""));
    put(t, "l2", "near_latency_g0", value(270, map_conf, "cycles"));
    put(t, "l2", "far_latency_g0", value(301, map_conf, "cycles"));
    put(t, "dram", "latency", value(688.6, 0.95, "cycles"));
    return t;
}

static void trusted_map_gives_the_latencies_and_the_penalty(void **state)
{
    (void)state;
    mt_topology *t = h100(0.9);
    derive(t, "l2_latency_from_map");
    derive(t, "l2_miss_penalty");
    const mt_finding *near = mt_topology_get(t, "l2", "latency");
    const mt_finding *far = mt_topology_get(t, "l2", "far_latency");
    assert_int_equal(near->kind, MT_FIND_VALUE);
    assert_true(near->value == 270 && far->value == 301);
    assert_true(near->confidence == 0.9 && near->source == MT_SRC_DERIVED);
    assert_string_equal(near->method, "l2-map, SM 0's group");
    assert_non_null(strstr(near->note, "SM 0's own near/far split gave 278.0"));
    const mt_finding *pen = mt_topology_get(t, "l2", "miss_penalty");
    assert_true(pen->kind == MT_FIND_VALUE && pen->value > 418.5 && pen->value < 418.7);
    assert_true(pen->confidence == MT_CONF_DIFFERENCE_ACROSS);
    mt_topology_free(t);
}

/* A map its checks doubted changes nothing, and the penalty is no surer
 * than the latency it subtracts. */
static void doubted_map_changes_nothing(void **state)
{
    (void)state;
    mt_topology *t = h100(MT_CONF_INCONSISTENT);
    derive(t, "l2_latency_from_map");
    derive(t, "l2_miss_penalty");
    const mt_finding *near = mt_topology_get(t, "l2", "latency");
    assert_true(near->value == 278 && near->source == MT_SRC_MEASURED);
    assert_true(mt_topology_get(t, "l2", "far_latency")->value == 299);
    const mt_finding *pen = mt_topology_get(t, "l2", "miss_penalty");
    assert_true(pen->confidence == MT_CONF_INCONSISTENT);
    mt_topology_free(t);
}

/* A near latency known as a range gives a penalty range. */
static void range_latency_gives_a_penalty_range(void **state)
{
    (void)state;
    mt_topology *t = h100(0.9);
    mt_finding r = value(270, 0.9, "cycles");
    r.kind = MT_FIND_RANGE;
    r.lo = 266;
    r.hi = 273;
    put(t, "l2", "near_latency_g0", r);
    derive(t, "l2_latency_from_map");
    derive(t, "l2_miss_penalty");
    assert_int_equal(mt_topology_get(t, "l2", "latency")->kind, MT_FIND_RANGE);
    const mt_finding *pen = mt_topology_get(t, "l2", "miss_penalty");
    assert_int_equal(pen->kind, MT_FIND_RANGE);
    assert_true(pen->lo > 415.5 && pen->lo < 415.7 && pen->hi > 422.5 && pen->hi < 422.7);
    mt_topology_free(t);
}

/* Partition size against the map: l2 size, measured partition, groups,
 * near share; returns the partition size's confidence after the check. */
static double partition_conf(double l2, double part, double groups, double share)
{
    mt_topology *t = mt_topology_new();
    assert_non_null(t);
    put(t, "l2", "size", value(l2, 1, "B"));
    put(t, "l2", "partition_size", value(part, 1, "B"));
    put(t, "l2", "map_groups", value(groups, 0.9, "count"));
    put(t, "l2", "near_share", value(share, 0.9, ""));
    derive(t, "l2_partition_vs_map");
    const mt_finding *f = mt_topology_get(t, "l2", "partition_size");
    double conf = f->confidence;
    assert_true(f->value == part);
    if (conf < 0.5)
        assert_non_null(strstr(f->note, "contradicted by the L2 map"));
    mt_topology_free(t);
    return conf;
}

static void partition_above_the_maps_partitions_is_flagged(void **state)
{
    (void)state;
    /* The H100: 22.9 MiB of 50 MiB, two groups, share 0.493: consistent. */
    assert_true(partition_conf(52428800, 23961600, 2, 0.493) == 1);
    /* Random spec 562: one SM (one group), share 0.514: at least two
     * partitions of 25165824 B, 26738688 measured (+6%). */
    assert_true(partition_conf(50331648, 26738688, 1, 0.514) == MT_CONF_INCONSISTENT);
    /* Random spec 656: four groups, 9437184 B of a 33554432 B L2 (+12.5%). */
    assert_true(partition_conf(33554432, 9437184, 4, 0.25) == MT_CONF_INCONSISTENT);
    /* Within the slack above four partitions (+2%): kept. */
    assert_true(partition_conf(33554432, 1.02 * 33554432 / 4, 4, 0.25) == 1);
    /* A share of 0.6 may be 0.7 (4 errors of 0.025): two partitions at
     * least, so 20 MB of 33.5 is too much; a share of 0.92 may be a whole
     * L2 (one group): then nothing is impossible. */
    assert_true(partition_conf(33554432, 20000000, 1, 0.6) == MT_CONF_INCONSISTENT);
    assert_true(partition_conf(33554432, 20000000, 1, 0.92) == 1);
}

/* One class of line latencies: tight ones resolve any far class that
 * would move the near latency by more than 2 cycles, spread ones do not
 * (and NAN lines are left out). */
static void one_class_hidden_gap_follows_the_spread(void **state)
{
    (void)state;
    double tight[64], spread[64];
    for (int i = 0; i < 64; i++) {
        tight[i] = 200 + (i % 3) * 0.25;  /* robust sd 0.37 */
        spread[i] = 200 + (i % 9) * 2.5;  /* robust sd ~7 */
    }
    tight[5] = NAN;
    double g = mt_one_class_hidden_gap(tight, 64);
    assert_true(g > 0 && g <= MT_LATENCY_MAX_HALF_WIDTH);
    assert_true(mt_one_class_hidden_gap(spread, 64) > 20);
    assert_true(isinf(mt_one_class_hidden_gap(spread, 1)));
}

/* Two intervals held together at 0.999: 0.9995 each. */
static void bonferroni_level_splits_the_misses(void **state)
{
    (void)state;
    assert_true(fabs(mt_bonferroni_level(0.999, 2) - 0.9995) < 1e-12);
    assert_true(fabs(mt_bonferroni_level(0.999, 0) - 0.999) < 1e-12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(trusted_map_gives_the_latencies_and_the_penalty),
        cmocka_unit_test(doubted_map_changes_nothing),
        cmocka_unit_test(range_latency_gives_a_penalty_range),
        cmocka_unit_test(partition_above_the_maps_partitions_is_flagged),
        cmocka_unit_test(one_class_hidden_gap_follows_the_spread),
        cmocka_unit_test(bonferroni_level_splits_the_misses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

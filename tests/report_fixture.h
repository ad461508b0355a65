/* A hand-built topology for the report and topology tests: H100-like
 * numbers, every finding kind (value, lower bound, range, absent, none,
 * text, set) and source used at least once, so the renderers' and the JSON
 * reader's branches all run.  Objects, names and labels are the ones the
 * probes use (fx_objects), in the probes' order. */
#ifndef MT_TEST_REPORT_FIXTURE_H
#define MT_TEST_REPORT_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topology/topology.h"

/* The objects the probes create, in their order. */
static const struct {
    const char *key, *name, *abbrev;
    mt_object_type type;
    unsigned flags;
} fx_objects[] = {
    {"l1d", "L1 Data", "L1D", MT_OBJ_CACHE, MT_OBJ_IN_TABLE | MT_OBJ_SHAREABLE},
    {"texture", "Texture", "Tex", MT_OBJ_CACHE, MT_OBJ_IN_TABLE | MT_OBJ_SHAREABLE},
    {"readonly", "Read-Only", "RO", MT_OBJ_CACHE, MT_OBJ_IN_TABLE | MT_OBJ_SHAREABLE},
    {"const_l1", "Constant L1", "CL1", MT_OBJ_CACHE, MT_OBJ_IN_TABLE},
    {"const_l15", "Constant L1.5", "CL1.5", MT_OBJ_CACHE, MT_OBJ_IN_TABLE},
    {"shared", "Shared Memory", "Shm", MT_OBJ_MEMORY, MT_OBJ_IN_TABLE},
    {"l2", "L2", "L2", MT_OBJ_CACHE, MT_OBJ_IN_TABLE},
    {"dram", "DRAM", "DRAM", MT_OBJ_MEMORY, MT_OBJ_IN_TABLE},
    {"tlb1", "L1 TLB", "TLB1", MT_OBJ_TLB, 0},
    {"tlb2", "L2 TLB", "TLB2", MT_OBJ_TLB, 0},
    {"tlb3", "L3 TLB", "TLB3", MT_OBJ_TLB, 0},
    {"gpu", "GPU", "GPU", MT_OBJ_GPU, 0},
};
#define FX_N_OBJECTS (sizeof fx_objects / sizeof fx_objects[0])

/* Table findings with their labels. */
static const struct {
    const char *name, *label;
} fx_table[] = {
    {"size", "size"},
    {"line", "line"},
    {"sector", "sector"},
    {"latency", "latency"},
    {"miss_penalty", "miss penalty"},
    {"shared_with", "shared with"},
    {"per_sm", "per SM"},
};
#define FX_N_TABLE (sizeof fx_table / sizeof fx_table[0])

/* The findings outside the table, in the probes' order. */
static const struct {
    const char *key, *name, *label, *unit;
} fx_other[] = {
    {"l1d", "caches_global_loads", "global loads (ld.global.ca) cached", "bool"},
    {"l1d", "replacement", "replacement policy", ""},
    {"l1d", "ways", "ways", "count"},
    {"l1d", "sets", "sets", "count"},
    {"l1d", "index", "set index", ""},
    {"l1d", "index_masks", "set-index XOR masks", ""},
    {"l1d", "thrash_footprint", "full-thrash footprint", "B"},
    {"l1d", "miss_profile", "misses above the size", ""},
    {"l1d", "miss_granule", "misses come in groups of", "B"},
    {"l2", "partition_size", "partition size (measured)", "B"},
    {"l2", "far_latency", "far-partition hit latency", "cycles"},
    {"l2", "mean_latency", "mean hit latency over partitions", "cycles"},
    {"gpu", "timer_overhead_fine", "timer overhead per fine-grained sample", "cycles"},
    {"gpu", "timer_overhead_agg", "loop overhead per aggregate load", "cycles"},
    {"gpu", "sm_clock", "SM clock in effect (measured)", "MHz"},
};
#define FX_N_OTHER (sizeof fx_other / sizeof fx_other[0])

/* Labels of the L2 near/far map's findings (probe_l2_map.c; per group
 * for groups 0-7: "near share of SM group 0"). */
static inline const char *fx_map_label(const char *name)
{
    static const struct {
        const char *name, *label;
        bool group; /* name is a prefix followed by the group's digit */
    } map[] = {
        {"sm_map", "SM groups by near lines (SM 0 first)", false},
        {"map_groups", "SM groups with different near lines", false},
        {"near_share", "share of lines near (mean over SMs)", false},
        {"far_penalty", "far minus near latency (map)", false},
        {"near_share_g", "near share of SM group", true},
        {"near_latency_g", "near latency of SM group", true},
        {"far_latency_g", "far latency of SM group", true},
    };
    static char buf[MT_LABEL_LEN];
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
        size_t n = strlen(map[i].name);
        if (!map[i].group && strcmp(name, map[i].name) == 0)
            return map[i].label;
        if (map[i].group && strncmp(name, map[i].name, n) == 0 && name[n] >= '0' &&
            name[n] <= '7' && !name[n + 1]) {
            snprintf(buf, sizeof buf, "%s %c", map[i].label, name[n]);
            return buf;
        }
    }
    return NULL;
}

static inline const char *fx_label(const char *name)
{
    for (size_t i = 0; i < FX_N_TABLE; i++)
        if (strcmp(fx_table[i].name, name) == 0)
            return fx_table[i].label;
    for (size_t i = 0; i < FX_N_OTHER; i++)
        if (strcmp(fx_other[i].name, name) == 0)
            return fx_other[i].label;
    return fx_map_label(name);
}

/* A topology with every object of fx_objects and nothing measured. */
static inline mt_topology *fx_objects_only(void)
{
    mt_topology *t = mt_topology_new();
    if (!t)
        abort();
    for (size_t i = 0; i < FX_N_OBJECTS; i++)
        if (!mt_topology_add_object(t, fx_objects[i].key, fx_objects[i].name,
                                    fx_objects[i].abbrev, fx_objects[i].type, fx_objects[i].flags))
            abort();
    return t;
}

static inline mt_finding fx_kind(mt_finding_kind k, const char *unit, mt_source src,
                                 const char *method, double conf)
{
    mt_finding f;
    memset(&f, 0, sizeof f);
    f.kind = k;
    f.source = src;
    snprintf(f.unit, sizeof f.unit, "%s", unit);
    snprintf(f.method, sizeof f.method, "%s", method);
    f.confidence = conf;
    return f;
}

static inline mt_finding fx_value(double v, const char *unit, mt_source src,
                                  const char *method, double conf)
{
    mt_finding f = fx_kind(MT_FIND_VALUE, unit, src, method, conf);
    f.value = v;
    return f;
}

/* Sets finding `name` of object `key` (label from the catalogue). */
static inline void fx_set(mt_topology *t, const char *key, const char *name, mt_finding f)
{
    mt_object *o = mt_topology_object(t, key);
    if (!o || mt_object_set(o, name, fx_label(name), &f) != MT_OK)
        abort();
}

static inline void fx_device(mt_device_info *d)
{
    memset(d, 0, sizeof *d);
    snprintf(d->name, sizeof d->name, "NVIDIA H100 80GB HBM3");
    snprintf(d->backend, sizeof d->backend, "cuda");
    d->ordinal = 0;
    d->cc_major = 9;
    d->cc_minor = 0;
    d->sm_count = 132;
    d->clock_khz = 1980000;
    d->mem_clock_khz = 2619000;
    d->bus_width_bits = 5120;
    d->global_mem_bytes = 85520809984ull; /* 79.6 GiB */
    d->l2_bytes = 50ull << 20;
    d->persisting_l2_max_bytes = 32505856ull;
    d->smem_per_block = 48u << 10;
    d->smem_per_block_optin = 227u << 10;
    d->smem_per_sm = 228u << 10;
    d->const_mem_bytes = 64u << 10;
    d->max_threads_per_block = 1024;
    d->max_threads_per_sm = 2048;
    d->warp_size = 32;
    d->regs_per_sm = 65536;
    d->carveout_percent = 100;
    d->carveout_smem_bytes = 228u << 10;
    snprintf(d->driver_version, sizeof d->driver_version, "12.4");
    snprintf(d->runtime_version, sizeof d->runtime_version, "12.4");
    for (int p = 0; p < MT_NUM_PATHS; p++)
        d->path_limit_bytes[p] = 1ull << 30;
    d->path_limit_bytes[4] = 64u << 10; /* const */
    d->max_fine_loads = 4096;
    d->max_threads_per_experiment = 1024;
    d->concurrent_experiments = 132;
    d->max_sequence = 1u << 20;
}

/* The caller frees it (mt_topology_free). */
static inline mt_topology *fx_topology(void)
{
    mt_topology *t = fx_objects_only();
    fx_device(&t->dev);

    snprintf(t->prov.tool_version, sizeof t->prov.tool_version, "0.9.1");
    snprintf(t->prov.command_line, sizeof t->prov.command_line, "memtopo --json out.json");
    snprintf(t->prov.time_utc, sizeof t->prov.time_utc, "2024-05-01T12:00:00Z");
    snprintf(t->prov.source, sizeof t->prov.source, "cuda");

    mt_topology_object(t, "l1d")->probed = 1;
    fx_set(t, "l1d", "size", fx_value(229376, "B", MT_SRC_MEASURED, "pchase-fine+opt+ks", 0.95));
    fx_set(t, "l1d", "line", fx_value(128, "B", MT_SRC_MEASURED, "capacity-ratio", 0.9));
    fx_set(t, "l1d", "sector", fx_value(32, "B", MT_SRC_MEASURED, "miss-spacing", 0.85));
    fx_set(t, "l1d", "latency",
           fx_value(33, "cycles", MT_SRC_MEASURED, "pchase-fine-median", 0.99));
    fx_set(t, "l1d", "miss_penalty",
           fx_value(230.5, "cycles", MT_SRC_DERIVED, "l2-minus-l1", 0.9));
    mt_finding sw = fx_kind(MT_FIND_SET, "", MT_SRC_MEASURED, "pair-eviction", 0.9);
    snprintf(sw.text, sizeof sw.text, "texture,readonly");
    fx_set(t, "l1d", "shared_with", sw);
    fx_set(t, "l1d", "per_sm", fx_value(1, "count", MT_SRC_MEASURED, "warp-disturb", 0.8));
    fx_set(t, "l1d", "caches_global_loads",
           fx_value(1, "bool", MT_SRC_MEASURED, "ca-vs-cg", 0.99));

    mt_topology_object(t, "texture")->probed = 1;
    mt_finding r = fx_kind(MT_FIND_RANGE, "B", MT_SRC_MEASURED, "pchase-fine+opt+ks", 0.6);
    r.lo = 22.0 * 1024;
    r.hi = 24.5 * 1024;
    snprintf(r.note, sizeof r.note, "non-LRU replacement: first eviction between lo and hi");
    fx_set(t, "texture", "size", r);
    snprintf(sw.text, sizeof sw.text, "readonly,l1d"); /* shown in object order */
    fx_set(t, "texture", "shared_with", sw);

    mt_topology_object(t, "readonly")->probed = 1;
    mt_finding lb = fx_kind(MT_FIND_LOWER_BOUND, "B", MT_SRC_MEASURED, "pchase-fine+opt+ks", 0.7);
    lb.lo = 64 * 1024;
    snprintf(lb.note, sizeof lb.note, "no eviction up to the 64 KiB sweep limit (--max-footprint)");
    fx_set(t, "readonly", "size", lb);
    /* no shared_with: "?" in the table */

    mt_topology_object(t, "const_l1")->probed = 1;
    fx_set(t, "const_l1", "size", fx_value(2048, "B", MT_SRC_MEASURED, "pchase-fine+opt+ks", 0.9));
    sw.text[0] = '\0'; /* tested, shares with nothing: "-" */
    fx_set(t, "const_l1", "shared_with", sw);

    /* Constant L1.5 not probed: its size declared, NONE. */
    fx_set(t, "const_l15", "size", fx_kind(MT_FIND_NONE, "B", MT_SRC_MEASURED, "", 0));

    mt_topology_object(t, "shared")->probed = 1;
    fx_set(t, "shared", "size", fx_value(233472, "B", MT_SRC_DRIVER, "driver-attribute", 1.0));
    fx_set(t, "shared", "latency",
           fx_value(29.5, "cycles", MT_SRC_MEASURED, "pchase-fine-median", 0.99));

    mt_topology_object(t, "l2")->probed = 1;
    fx_set(t, "l2", "size",
           fx_value(50.0 * 1024 * 1024, "B", MT_SRC_DRIVER, "driver-attribute", 1.0));
    fx_set(t, "l2", "line", fx_value(128, "B", MT_SRC_MEASURED, "capacity-ratio", 0.8));
    fx_set(t, "l2", "latency",
           fx_value(262, "cycles", MT_SRC_MEASURED, "pchase-fine-median", 0.97));
    fx_set(t, "l2", "per_sm", fx_kind(MT_FIND_ABSENT, "count", MT_SRC_MEASURED, "n/a", 1));
    fx_set(t, "l2", "partition_size",
           fx_value(25.0 * 1024 * 1024, "B", MT_SRC_MEASURED, "pchase-agg+opt", 0.75));
    mt_finding far = fx_kind(MT_FIND_RANGE, "cycles", MT_SRC_MEASURED, "pchase-fine-median", 0.6);
    far.lo = 400;
    far.hi = 450;
    fx_set(t, "l2", "far_latency", far);
    mt_finding hash = fx_kind(MT_FIND_TEXT, "", MT_SRC_MEASURED, "set-conflicts", 0.8);
    snprintf(hash.text, sizeof hash.text, "xor of bits 7,12 \"folded\"");
    mt_object_set(mt_topology_object(t, "l2"), "slice_hash", "slice hash", &hash);

    mt_topology_object(t, "dram")->probed = 1;
    fx_set(t, "dram", "size", fx_value(85520809984.0, "B", MT_SRC_DRIVER, "driver-attribute", 1.0));
    mt_finding dl = fx_kind(MT_FIND_LOWER_BOUND, "cycles", MT_SRC_MEASURED, "pchase-fine-median",
                            0.5);
    dl.lo = 600;
    fx_set(t, "dram", "latency", dl);

    fx_set(t, "gpu", "timer_overhead_fine",
           fx_value(26, "cycles", MT_SRC_MEASURED, "path-none", 0.99));
    fx_set(t, "gpu", "timer_overhead_agg", fx_kind(MT_FIND_NONE, "cycles", MT_SRC_MEASURED, "", 0));

    mt_topology_note_threshold(t, "ks_alpha", 1e-3,
                               "about 0.1 expected false change verdicts in a run of a hundred "
                               "tests, while real miss patterns give p-values far below 1e-10");
    mt_topology_note_threshold(t, "min_class_gap_cycles", 8,
                               "smallest real gap between levels is > 20 cycles");

    t->n_times = 2;
    snprintf(t->times[0].probe, sizeof t->times[0].probe, "l1d");
    t->times[0].seconds = 1.25;
    t->times[0].experiments = 120;
    snprintf(t->times[1].probe, sizeof t->times[1].probe, "l2");
    t->times[1].seconds = 3.5;
    t->times[1].experiments = 40;
    t->total_seconds = 4.75;
    t->total_experiments = 160;
    return t;
}

/* Finding `name` of object `key` for changing it in a test (abort if none). */
static inline mt_finding *fx_finding(mt_topology *t, const char *key, const char *name)
{
    mt_finding *f = (mt_finding *)mt_topology_get(t, key, name);
    if (!f)
        abort();
    return f;
}

/* Adds a measured SM clock of `mhz` (probe_clock.c's finding), which makes
 * renderers show latencies in ns as well. */
static inline void fx_add_clock(mt_topology *t, double mhz)
{
    mt_finding f = fx_value(mhz, "MHz", MT_SRC_MEASURED, "clock64 vs globaltimer", 0.95);
    assert_int_equal(mt_object_set(mt_topology_object(t, "gpu"), "sm_clock",
                                   fx_label("sm_clock"), &f),
                     MT_OK);
}

#endif

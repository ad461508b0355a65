/* A hand-built topology for the report tests: H100-like numbers, and every
 * finding kind (value, lower bound, range, absent, none) and source used
 * at least once, so the renderers' branches all run. */
#ifndef MT_TEST_REPORT_FIXTURE_H
#define MT_TEST_REPORT_FIXTURE_H

#include <stdio.h>
#include <string.h>

#include "report/topology.h"

static mt_finding fx_value(double v, const char *unit, mt_source src, const char *method,
                           double conf)
{
    mt_finding f;
    memset(&f, 0, sizeof f);
    f.kind = MT_FIND_VALUE;
    f.source = src;
    f.value = v;
    snprintf(f.unit, sizeof f.unit, "%s", unit);
    snprintf(f.method, sizeof f.method, "%s", method);
    f.confidence = conf;
    return f;
}

static void fx_topology(mt_topology *t)
{
    memset(t, 0, sizeof *t);
    mt_device_info *d = &t->dev;
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

    snprintf(t->prov.tool_version, sizeof t->prov.tool_version, "0.9.1");
    snprintf(t->prov.command_line, sizeof t->prov.command_line, "memtopo --json out.json");
    snprintf(t->prov.time_utc, sizeof t->prov.time_utc, "2024-05-01T12:00:00Z");
    snprintf(t->prov.source, sizeof t->prov.source, "cuda");

    mt_cache_report *l1 = &t->cache[MT_CACHE_L1D];
    l1->probed = 1;
    l1->size = fx_value(229376, "B", MT_SRC_MEASURED, "pchase-fine+opt+ks", 0.95);
    l1->line = fx_value(128, "B", MT_SRC_MEASURED, "capacity-ratio", 0.9);
    l1->sector = fx_value(32, "B", MT_SRC_MEASURED, "miss-spacing", 0.85);
    l1->latency = fx_value(33, "cycles", MT_SRC_MEASURED, "pchase-fine-median", 0.99);
    l1->miss_penalty = fx_value(230.5, "cycles", MT_SRC_DERIVED, "l2-minus-l1", 0.9);
    l1->per_sm = fx_value(1, "count", MT_SRC_MEASURED, "warp-disturb", 0.8);
    l1->shared_with = (1u << MT_CACHE_L1D) | (1u << MT_CACHE_TEX) | (1u << MT_CACHE_RO);
    l1->sharing_tested = 1;

    mt_cache_report *tex = &t->cache[MT_CACHE_TEX];
    tex->probed = 1;
    tex->size.kind = MT_FIND_RANGE;
    tex->size.lo = 22.0 * 1024;
    tex->size.hi = 24.5 * 1024;
    snprintf(tex->size.unit, sizeof tex->size.unit, "B");
    snprintf(tex->size.method, sizeof tex->size.method, "pchase-fine+opt+ks");
    tex->size.confidence = 0.6;
    snprintf(tex->size.note, sizeof tex->size.note,
             "non-LRU replacement: first eviction between lo and hi");
    tex->shared_with = (1u << MT_CACHE_L1D) | (1u << MT_CACHE_RO);
    tex->sharing_tested = 1;

    mt_cache_report *ro = &t->cache[MT_CACHE_RO];
    ro->probed = 1;
    ro->size.kind = MT_FIND_LOWER_BOUND;
    ro->size.lo = 64 * 1024;
    snprintf(ro->size.unit, sizeof ro->size.unit, "B");
    snprintf(ro->size.method, sizeof ro->size.method, "pchase-fine+opt+ks");
    ro->size.confidence = 0.7;
    snprintf(ro->size.note, sizeof ro->size.note,
             "no eviction up to the 64 KiB sweep limit (--max-footprint)");
    ro->sharing_tested = 0; /* "?" in the table */

    mt_cache_report *c1 = &t->cache[MT_CACHE_CONST_L1];
    c1->probed = 1;
    c1->size = fx_value(2048, "B", MT_SRC_MEASURED, "pchase-fine+opt+ks", 0.9);
    c1->sharing_tested = 1; /* tested, shares with nothing: "-" */

    /* Constant L1.5 not probed: all NONE. */

    mt_cache_report *sh = &t->cache[MT_CACHE_SHARED];
    sh->probed = 1;
    sh->size = fx_value(233472, "B", MT_SRC_DRIVER, "driver-attribute", 1.0);
    sh->latency = fx_value(29.5, "cycles", MT_SRC_MEASURED, "pchase-fine-median", 0.99);

    mt_cache_report *l2 = &t->cache[MT_CACHE_L2];
    l2->probed = 1;
    l2->size = fx_value(50.0 * 1024 * 1024, "B", MT_SRC_DRIVER, "driver-attribute", 1.0);
    l2->line = fx_value(128, "B", MT_SRC_MEASURED, "capacity-ratio", 0.8);
    l2->latency = fx_value(262, "cycles", MT_SRC_MEASURED, "pchase-fine-median", 0.97);
    l2->per_sm.kind = MT_FIND_ABSENT;
    snprintf(l2->per_sm.method, sizeof l2->per_sm.method, "n/a");
    l2->per_sm.confidence = 1;

    mt_cache_report *dr = &t->cache[MT_CACHE_DRAM];
    dr->probed = 1;
    dr->size = fx_value(85520809984.0, "B", MT_SRC_DRIVER, "driver-attribute", 1.0);
    dr->latency.kind = MT_FIND_LOWER_BOUND;
    dr->latency.lo = 600;
    snprintf(dr->latency.unit, sizeof dr->latency.unit, "cycles");
    snprintf(dr->latency.method, sizeof dr->latency.method, "pchase-fine-median");
    dr->latency.confidence = 0.5;

    t->l1_caches_global = fx_value(1, "bool", MT_SRC_MEASURED, "ca-vs-cg", 0.99);
    t->l2_partition_size = fx_value(25.0 * 1024 * 1024, "B", MT_SRC_MEASURED, "pchase-agg+opt",
                                    0.75);
    t->l2_far_latency.kind = MT_FIND_RANGE;
    t->l2_far_latency.lo = 400;
    t->l2_far_latency.hi = 450;
    snprintf(t->l2_far_latency.unit, sizeof t->l2_far_latency.unit, "cycles");
    snprintf(t->l2_far_latency.method, sizeof t->l2_far_latency.method, "pchase-fine-median");
    t->l2_far_latency.confidence = 0.6;
    t->timer_overhead_fine = fx_value(26, "cycles", MT_SRC_MEASURED, "path-none", 0.99);
    /* timer_overhead_agg left NONE */

    t->n_thresholds = 2;
    snprintf(t->thresholds[0].name, sizeof t->thresholds[0].name, "ks_alpha");
    t->thresholds[0].value = 1e-3;
    snprintf(t->thresholds[0].why, sizeof t->thresholds[0].why,
             "about 0.1 expected false change verdicts in a run of a hundred tests, while real "
             "miss patterns give p-values far below 1e-10");
    snprintf(t->thresholds[1].name, sizeof t->thresholds[1].name, "min_class_gap_cycles");
    t->thresholds[1].value = 8;
    snprintf(t->thresholds[1].why, sizeof t->thresholds[1].why,
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
}

#endif

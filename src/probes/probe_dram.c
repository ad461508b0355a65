/* DRAM: its size from the driver, its latency from a cold chain through
 * ld.global.cg whose stride skips whole L2 lines and DRAM bursts, so every
 * load misses the (flushed) L2.  The L2's miss penalty is derived from this
 * latency afterwards (derive_l2_miss_penalty.c). */
#include "confidence.h"
#include "probe_internal.h"

#define DRAM_STRIDE 2048u
#define DRAM_LOADS 4096u

static mt_err dram(mt_probe_ctx *c)
{
    mt_mark_probed(c, "dram");
    mt_finding f;
    if (c->dev.global_mem_bytes) {
        f = mt_find_value((double)c->dev.global_mem_bytes, "B", MT_SRC_DRIVER, "driver attribute",
                          MT_CONF_DRIVER, "global memory");
        mt_set(c, "dram", "size", &f);
    }
    double lat;
    mt_progress(c, "DRAM latency");
    mt_err err = mt_measure_agg_latency(c, MT_PATH_GLOBAL_CG, (uint64_t)DRAM_STRIDE * DRAM_LOADS,
                                        DRAM_STRIDE, 0, &lat, NULL);
    if (err != MT_OK)
        return err;
    c->cs[MT_CACHE_DRAM].latency = lat;
    f = mt_find_value(lat, "cycles", MT_SRC_MEASURED, "pchase-aggregate cold", MT_CONF_AGG_MIXED,
                      "cold %u-load chain at %u B stride through ld.global.cg (L2 flushed), "
                      "loop overhead subtracted; includes address translation",
                      DRAM_LOADS, DRAM_STRIDE);
    mt_set(c, "dram", "latency", &f);
    return MT_OK;
}

static const mt_object_decl objects[] = {
    {"dram", "DRAM", "DRAM", MT_OBJ_MEMORY, MT_OBJ_IN_TABLE, 80}, {NULL}};
static const mt_finding_decl provides[] = {
    {"dram.size", "size"}, {"dram.latency", "latency"}, {NULL}};
const mt_probe_desc mt_probe_dram = {
    .name = "dram", .summary = "DRAM: size (driver) and cold-miss latency",
    .rank = 70, .objects = objects, .provides = provides, .run = dram,
};

/* Shared memory: its size from the driver, its latency from an aggregate
 * chase without bank conflicts (one thread, stride 4 B). */
#include "confidence.h"
#include "probe_internal.h"

#define SHARED_CHAIN_BYTES 4096u /* 1024 words: many laps, no conflicts */

static mt_err shared(mt_probe_ctx *c)
{
    mt_mark_probed(c, "shared");
    mt_finding f;
    if (c->dev.smem_per_sm) {
        f = mt_find_value(c->dev.smem_per_sm, "B", MT_SRC_DRIVER, "driver attribute",
                          MT_CONF_DRIVER,
                          "shared memory per SM; %u B per block after opt-in, %u B static",
                          c->dev.smem_per_block_optin, c->dev.smem_per_block);
        mt_set(c, "shared", "size", &f);
    }
    double lat;
    mt_progress(c, "shared memory latency");
    mt_err err = mt_measure_agg_latency(c, MT_PATH_SHARED, SHARED_CHAIN_BYTES, 4, 1, &lat, NULL);
    if (err != MT_OK)
        return err;
    c->cs[MT_CACHE_SHARED].latency = lat;
    f = mt_find_value(lat, "cycles", MT_SRC_MEASURED, "pchase-aggregate", MT_CONF_AGG_MEDIAN,
                      "4 KiB chain, stride 4 B, no bank conflicts (one thread); loop "
                      "overhead %.1f subtracted", c->overhead_agg);
    mt_set(c, "shared", "latency", &f);
    return MT_OK;
}

static const mt_object_decl objects[] = {
    {"shared", "Shared Memory", "Shm", MT_OBJ_MEMORY, MT_OBJ_IN_TABLE, 60}, {NULL}};
static const mt_finding_decl provides[] = {
    {"shared.size", "size"}, {"shared.latency", "latency"}, {NULL}};
const mt_probe_desc mt_probe_shared = {
    .name = "shared", .summary = "shared memory: size (driver) and latency",
    .rank = 10, .objects = objects, .provides = provides, .run = shared,
};

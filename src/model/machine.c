/* The machine the model needs, read from a topology's findings.  Each
 * input remembers the finding (or driver attribute) it came from, so the
 * CLI prints it next to its value; the few with a defensible default say
 * so (`assumed`), the others stop the model with the option to measure. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model.h"

typedef struct {
    const char *key;   /* object.finding, also the what-if key */
    const char *unit;
    const char *hint;  /* the memtopo option that measures it */
} input_desc;

static const input_desc inputs[MT_MI_COUNT] = {
    [MT_MI_SM_COUNT] = {"device.sm_count", "count", "the device query"},
    [MT_MI_CLOCK_MHZ] = {"gpu.sm_clock", "MHz", "the default probes"},
    [MT_MI_WARP_SIZE] = {"device.warp_size", "threads", "the device query"},
    [MT_MI_SCHEDULERS] = {"device.schedulers", "count", "the compute capability"},
    [MT_MI_MAX_WARPS_SM] = {"device.max_warps_sm", "warps", "the device query"},
    [MT_MI_MAX_BLOCKS_SM] = {"device.max_blocks_sm", "blocks", "the compute capability"},
    [MT_MI_REGS_SM] = {"device.regs_sm", "registers", "the device query"},
    [MT_MI_SMEM_SM] = {"device.smem_sm", "B", "the device query"},
    [MT_MI_SMEM_RESERVED] = {"device.smem_reserved_block", "B", "the compute capability"},
    [MT_MI_UNIFIED_L1] = {"l1d.carveout_unified", "B", "--carveout all"},
    [MT_MI_L1_SIZE] = {"l1d.size", "B", "the default probes"},
    [MT_MI_L1_LAT] = {"l1d.latency", "cycles", "the default probes"},
    [MT_MI_SECTOR] = {"l1d.sector", "B", "the default probes"},
    [MT_MI_SHARED_LAT] = {"shared.latency", "cycles", "the default probes"},
    [MT_MI_BANKS] = {"shared.banks", "count", "the default probes"},
    [MT_MI_CONFLICT_CYCLES] = {"shared.conflict_cycles", "cycles", "the default probes"},
    [MT_MI_L2_SIZE] = {"l2.size", "B", "the default probes"},
    [MT_MI_L2_NEAR_LAT] = {"l2.latency", "cycles", "the default probes"},
    [MT_MI_L2_FAR_LAT] = {"l2.far_latency", "cycles", "the default probes"},
    [MT_MI_L2_NEAR_SHARE] = {"l2.near_share", "share", "the default probes"},
    [MT_MI_DRAM_LAT] = {"dram.latency", "cycles", "the default probes"},
    [MT_MI_L1_BW_READ] = {"l1d.bw_read", "B/clk/SM", "--bandwidth"},
    [MT_MI_L1_BW_WRITE] = {"l1d.bw_write", "B/clk/SM", "--bandwidth"},
    [MT_MI_L1_BW_COPY] = {"l1d.bw_copy", "B/clk/SM", "--bandwidth"},
    [MT_MI_SHARED_BW] = {"shared.bw_read", "B/clk/SM", "--bandwidth"},
    [MT_MI_L2_GBPS_READ] = {"l2.gbps_read_whole", "GB/s", "--bandwidth"},
    [MT_MI_L2_GBPS_WRITE] = {"l2.gbps_write", "GB/s", "--bandwidth"},
    [MT_MI_L2_GBPS_COPY] = {"l2.gbps_copy", "GB/s", "--bandwidth"},
    [MT_MI_DRAM_GBPS_READ] = {"dram.gbps_read", "GB/s", "--bandwidth"},
    [MT_MI_DRAM_GBPS_WRITE] = {"dram.gbps_write", "GB/s", "--bandwidth"},
    [MT_MI_DRAM_GBPS_COPY] = {"dram.gbps_copy", "GB/s", "--bandwidth"},
    [MT_MI_L2_MLP] = {"l2.mlp", "loads", "--bandwidth"},
    [MT_MI_DRAM_MLP] = {"dram.mlp", "loads", "--bandwidth"},
    [MT_MI_ALU_LAT] = {"model.alu_latency", "cycles", "(not measured by memtopo)"},
};

const char *mt_model_input_key(mt_model_input_id id) { return inputs[id].key; }
const char *mt_model_input_unit(mt_model_input_id id) { return inputs[id].unit; }
const char *mt_model_input_hint(mt_model_input_id id) { return inputs[id].hint; }

/* Defaults with a reason (docs/model.md, "Assumptions"):
 *  - 4 warp schedulers per SM on every compute capability from 7.0 on
 *    (Volta's SM and all later ones are split in four sub-partitions);
 *  - resident blocks per SM by compute capability (the CUDA programming
 *    guide's table: 32 on 7.0, 8.0 and 9.0; 16 on 7.5, 8.6 and 8.9);
 *  - 1 KiB of shared memory reserved per block from 8.0 on (the driver
 *    reports it; 0 before);
 *  - the ALU dependent-issue latency, 4 cycles on sm_70+ (Jia et al.'s
 *    Volta and Turing microbenchmarks; memtopo does not measure it). */
#define MODEL_SCHEDULERS_SM70 4
#define MODEL_ALU_LATENCY 4.0
#define MODEL_SMEM_RESERVED_SM80 1024.0

static int blocks_per_sm_of_cc(int major, int minor)
{
    if (major == 7)
        return minor == 5 ? 16 : 32;
    if (major == 8)
        return minor == 0 ? 32 : 16;
    if (major >= 9)
        return 32;
    return 0;
}

static void put(mt_model_machine *m, mt_model_input_id id, double v, const char *source,
                int assumed)
{
    if (!(isfinite(v) && v > 0))
        return;
    m->in[id].value = v;
    m->in[id].set = 1;
    m->in[id].assumed = assumed;
    snprintf(m->in[id].source, sizeof m->in[id].source, "%s", source);
}

/* A VALUE finding `obj.name` of t (a bound or range does not feed the model). */
static void from_finding(mt_model_machine *m, mt_model_input_id id, const mt_topology *t,
                         const char *obj, const char *name)
{
    const mt_finding *f = mt_topology_get(t, obj, name);
    if (f && f->kind == MT_FIND_VALUE) {
        char src[64];
        snprintf(src, sizeof src, "%s.%s", obj, name);
        put(m, id, f->value, src, 0);
    }
}

static void carveout_sizes(const mt_topology *t, mt_model_machine *m)
{
    const mt_object *o = mt_topology_object(t, "l1d");
    if (!o)
        return;
    for (size_t i = 0; i < o->n_findings && m->n_carveouts < 16; i++) {
        unsigned kib;
        char tail;
        const mt_named_finding *nf = &o->findings[i];
        if (sscanf(nf->name, "size_at_carveout_%uKiB%c", &kib, &tail) == 1 &&
            nf->f.kind == MT_FIND_VALUE) {
            m->carveout_smem[m->n_carveouts] = kib * 1024.0;
            m->carveout_l1[m->n_carveouts] = nf->f.value;
            m->n_carveouts++;
        }
    }
}

/* Inputs the model cannot do without (every other one has a default or a
 * fallback): latencies and the machine's shape. */
static const mt_model_input_id required[] = {
    MT_MI_SM_COUNT, MT_MI_CLOCK_MHZ, MT_MI_WARP_SIZE, MT_MI_MAX_WARPS_SM, MT_MI_REGS_SM,
    MT_MI_SMEM_SM, MT_MI_L1_SIZE, MT_MI_L1_LAT, MT_MI_SECTOR, MT_MI_SHARED_LAT,
    MT_MI_L2_SIZE, MT_MI_L2_NEAR_LAT, MT_MI_DRAM_LAT, MT_MI_L1_BW_READ,
    MT_MI_L2_GBPS_READ, MT_MI_DRAM_GBPS_READ, MT_MI_L2_MLP, MT_MI_DRAM_MLP,
};

mt_err mt_model_machine_from_topology(const mt_topology *t, mt_model_machine *m, mt_errinfo *ei)
{
    memset(m, 0, sizeof *m);
    const mt_device_info *d = &t->dev;
    snprintf(m->gpu, sizeof m->gpu, "%s", d->name);
    put(m, MT_MI_SM_COUNT, d->sm_count, "device.sm_count", 0);
    put(m, MT_MI_CLOCK_MHZ, d->clock_khz / 1000.0, "device.clock_khz (max clock)", 0);
    from_finding(m, MT_MI_CLOCK_MHZ, t, "gpu", "sm_clock");
    put(m, MT_MI_WARP_SIZE, d->warp_size, "device.warp_size", 0);
    if (d->cc_major >= 7)
        put(m, MT_MI_SCHEDULERS, MODEL_SCHEDULERS_SM70, "compute capability >= 7.0", 1);
    if (d->warp_size > 0)
        put(m, MT_MI_MAX_WARPS_SM, (double)d->max_threads_per_sm / d->warp_size,
            "device.max_threads_per_sm / warp", 0);
    put(m, MT_MI_MAX_BLOCKS_SM, blocks_per_sm_of_cc(d->cc_major, d->cc_minor),
        "compute capability (CUDA guide table)", 1);
    put(m, MT_MI_REGS_SM, d->regs_per_sm, "device.regs_per_sm", 0);
    put(m, MT_MI_SMEM_SM, d->smem_per_sm, "device.smem_per_sm_bytes", 0);
    if (d->cc_major >= 8)
        put(m, MT_MI_SMEM_RESERVED, MODEL_SMEM_RESERVED_SM80, "compute capability >= 8.0", 1);
    from_finding(m, MT_MI_UNIFIED_L1, t, "l1d", "carveout_unified");
    from_finding(m, MT_MI_L1_SIZE, t, "l1d", "size");
    from_finding(m, MT_MI_L1_LAT, t, "l1d", "latency");
    from_finding(m, MT_MI_SECTOR, t, "l1d", "sector");
    from_finding(m, MT_MI_SHARED_LAT, t, "shared", "latency");
    from_finding(m, MT_MI_BANKS, t, "shared", "banks");
    from_finding(m, MT_MI_CONFLICT_CYCLES, t, "shared", "conflict_cycles");
    from_finding(m, MT_MI_L2_SIZE, t, "l2", "size");
    from_finding(m, MT_MI_L2_NEAR_LAT, t, "l2", "latency");
    from_finding(m, MT_MI_L2_FAR_LAT, t, "l2", "far_latency");
    from_finding(m, MT_MI_L2_NEAR_SHARE, t, "l2", "near_share");
    from_finding(m, MT_MI_DRAM_LAT, t, "dram", "latency");
    from_finding(m, MT_MI_L1_BW_READ, t, "l1d", "bw_read");
    from_finding(m, MT_MI_L1_BW_WRITE, t, "l1d", "bw_write");
    from_finding(m, MT_MI_L1_BW_COPY, t, "l1d", "bw_copy");
    from_finding(m, MT_MI_SHARED_BW, t, "shared", "bw_read");
    /* The L2 read ceiling: the whole-L2 read when measured (every SM
     * reading its own data, as a kernel does), else the near read. */
    from_finding(m, MT_MI_L2_GBPS_READ, t, "l2", "gbps_read");
    from_finding(m, MT_MI_L2_GBPS_READ, t, "l2", "gbps_read_whole");
    from_finding(m, MT_MI_L2_GBPS_WRITE, t, "l2", "gbps_write");
    from_finding(m, MT_MI_L2_GBPS_COPY, t, "l2", "gbps_copy");
    from_finding(m, MT_MI_DRAM_GBPS_READ, t, "dram", "gbps_read");
    from_finding(m, MT_MI_DRAM_GBPS_WRITE, t, "dram", "gbps_write");
    from_finding(m, MT_MI_DRAM_GBPS_COPY, t, "dram", "gbps_copy");
    from_finding(m, MT_MI_L2_MLP, t, "l2", "mlp");
    from_finding(m, MT_MI_DRAM_MLP, t, "dram", "mlp");
    put(m, MT_MI_ALU_LAT, MODEL_ALU_LATENCY, "sm_70+ dependent-issue latency (published)", 1);
    carveout_sizes(t, m);

    /* Fallbacks that are the same quantity seen another way (stated). */
    if (!m->in[MT_MI_L2_FAR_LAT].set && m->in[MT_MI_L2_NEAR_LAT].set) {
        m->in[MT_MI_L2_FAR_LAT] = m->in[MT_MI_L2_NEAR_LAT];
        m->in[MT_MI_L2_FAR_LAT].assumed = 1;
        snprintf(m->in[MT_MI_L2_FAR_LAT].source, 64, "l2.latency (no far latency measured)");
    }
    if (!m->in[MT_MI_L2_NEAR_SHARE].set)
        put(m, MT_MI_L2_NEAR_SHARE, 1.0, "all near (l2.near_share not measured)", 1);
    if (!m->in[MT_MI_SHARED_BW].set && m->in[MT_MI_L1_BW_READ].set) {
        m->in[MT_MI_SHARED_BW] = m->in[MT_MI_L1_BW_READ];
        m->in[MT_MI_SHARED_BW].assumed = 1;
    }
    if (!m->in[MT_MI_CONFLICT_CYCLES].set && m->in[MT_MI_BANKS].set)
        put(m, MT_MI_CONFLICT_CYCLES, 2.0, "one pass of 2 cycles per way (sm_70+)", 1);
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
        if (!m->in[required[i]].set)
            return mt_fail(ei, MT_ERR_INVALID_ARG,
                           "model: the topology has no %s (measure it with memtopo %s)",
                           inputs[required[i]].key, inputs[required[i]].hint);
    return MT_OK;
}

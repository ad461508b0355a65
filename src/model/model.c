/* The prediction: occupancy and waves, the representative warp's
 * intervals, GPUMech's multithreading model, then contention (miss slots,
 * bandwidth per level) and the last wave.  docs/model.md has the
 * equations; the comments here say why each step is as it is. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "model.h"
#include "model_internal.h"

static const char *const cpi_names[MT_CPI_COUNT] = {
    "base", "dependences", "L1/shared", "L2 near", "L2 far", "DRAM", "MSHR queue",
    "L1 bandwidth", "L2 bandwidth", "DRAM bandwidth", "bank conflicts", "barriers", "tail"};
static const char *const cpi_keys[MT_CPI_COUNT] = {
    "base", "dependences", "l1", "l2_near", "l2_far", "dram", "mshr",
    "bw_l1", "bw_l2", "bw_dram", "bank_conflicts", "barriers", "tail"};
const char *mt_cpi_name(mt_cpi_part p) { return p < MT_CPI_COUNT ? cpi_names[p] : "?"; }
const char *mt_cpi_key(mt_cpi_part p) { return p < MT_CPI_COUNT ? cpi_keys[p] : "?"; }

static double in(const mt_model_machine *m, mt_model_input_id id) { return m->in[id].value; }

void mt_model_note(mt_model_result *r, const char *fmt, ...)
{
    if (r->n_notes >= MT_MODEL_MAX_NOTES)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->notes[r->n_notes++], sizeof r->notes[0], fmt, ap);
    va_end(ap);
}

double mt_model_l1_at_carveout(const mt_model_machine *m, double smem)
{
    if (smem > 0 && m->in[MT_MI_UNIFIED_L1].set) {
        double l1 = in(m, MT_MI_UNIFIED_L1) - smem;
        if (l1 > 0)
            return l1;
    }
    if (smem > 0)
        for (int i = 0; i < m->n_carveouts; i++)
            if (fabs(m->carveout_smem[i] - smem) < 1024)
                return m->carveout_l1[i];
    return in(m, MT_MI_L1_SIZE);
}

/* Resident blocks per SM and what limits them. */
static mt_err occupancy(const mt_model_machine *m, const mt_model_kernel *k,
                        const mt_model_options *o, mt_model_result *r, mt_errinfo *ei)
{
    double warp = in(m, MT_MI_WARP_SIZE);
    double wpb = ceil(k->block_threads / warp);
    double lim = floor(in(m, MT_MI_MAX_WARPS_SM) / wpb);
    snprintf(r->occupancy_limit, sizeof r->occupancy_limit, "warps");
    double blocks = m->in[MT_MI_MAX_BLOCKS_SM].set ? in(m, MT_MI_MAX_BLOCKS_SM) : INFINITY;
    if (blocks < lim) {
        lim = blocks;
        snprintf(r->occupancy_limit, sizeof r->occupancy_limit, "blocks");
    }
    if (k->regs_per_thread > 0) {
        double per_warp = ceil(k->regs_per_thread * warp / MODEL_REG_UNIT) * MODEL_REG_UNIT;
        double by_regs = floor(in(m, MT_MI_REGS_SM) / (per_warp * wpb));
        if (by_regs < lim) {
            lim = by_regs;
            snprintf(r->occupancy_limit, sizeof r->occupancy_limit, "registers");
        }
    }
    if (k->smem_per_block > 0) {
        double avail = k->carveout_smem > 0 ? k->carveout_smem : in(m, MT_MI_SMEM_SM);
        double by_smem = floor(avail / (k->smem_per_block + in(m, MT_MI_SMEM_RESERVED)));
        if (by_smem < lim) {
            lim = by_smem;
            snprintf(r->occupancy_limit, sizeof r->occupancy_limit, "shared");
        }
    }
    if (o->occupancy > 0) {
        double forced = floor(o->occupancy * in(m, MT_MI_MAX_WARPS_SM) / wpb);
        if (forced < 1)
            forced = 1;
        if (forced < lim) {
            lim = forced;
            snprintf(r->occupancy_limit, sizeof r->occupancy_limit, "forced");
        }
    }
    if (!(lim >= 1))
        return mt_fail(ei, MT_ERR_INVALID_ARG,
                       "model: kernel %s does not fit on an SM (%s: %.0f threads, %.0f registers, "
                       "%.0f B shared per block)",
                       k->name, r->occupancy_limit, k->block_threads, k->regs_per_thread,
                       k->smem_per_block);
    r->blocks_per_sm = lim;
    r->warps_per_sm = lim * wpb;
    return MT_OK;
}

/* Time per byte at a level where reads and writes share the bandwidth:
 * inverse bandwidths interpolated by the write share between the read-only
 * (0), copy (1/2) and write-only (1) measurements; a missing one falls back
 * to its neighbour. */
double mt_model_mix_cost(double bw_read, double bw_copy, double bw_write, double write_share)
{
    if (!(bw_copy > 0))
        bw_copy = bw_write > 0 ? 2.0 / (1.0 / bw_read + 1.0 / bw_write) : bw_read;
    if (!(bw_write > 0))
        bw_write = bw_copy;
    if (write_share <= 0.5)
        return (1 - 2 * write_share) / bw_read + 2 * write_share / bw_copy;
    return (2 - 2 * write_share) / bw_copy + (2 * write_share - 1) / bw_write;
}

/* Bytes per cycle per SM from a GPU-wide GB/s figure, shared by the SMs
 * that are active (a partial last wave gets more each). */
double mt_model_per_sm(double gbps, double clock_mhz, double active_sms)
{
    return gbps * 1e9 / (clock_mhz * 1e6) / active_sms;
}

mt_err mt_model_predict(const mt_model_machine *m, const mt_model_kernel *k,
                        const mt_model_options *o, mt_model_result *r, mt_errinfo *ei)
{
    memset(r, 0, sizeof *r);
    if (!(k->grid_blocks >= 1) || !(k->block_threads >= 1) || !(k->inst > 0))
        return mt_fail(ei, MT_ERR_INVALID_ARG,
                       "model: kernel %s has no launch or no instructions (grid %.0f, block %.0f, "
                       "%.0f instructions per warp)",
                       k->name, k->grid_blocks, k->block_threads, k->inst);
    r->clock_mhz = o->clock_mhz > 0 ? o->clock_mhz : in(m, MT_MI_CLOCK_MHZ);
    /* At another SM clock, what lies beyond the SM (the L2 and DRAM) takes
     * the same time, so fewer or more SM cycles than measured; the L1 and
     * shared memory run with the SM and keep their cycles. */
    mt_model_machine at_clock = *m;
    double ratio = r->clock_mhz / in(m, MT_MI_CLOCK_MHZ);
    at_clock.in[MT_MI_L2_NEAR_LAT].value *= ratio;
    at_clock.in[MT_MI_L2_FAR_LAT].value *= ratio;
    at_clock.in[MT_MI_DRAM_LAT].value *= ratio;
    m = &at_clock;
    mt_err e = occupancy(m, k, o, r, ei);
    if (e != MT_OK)
        return e;
    r->l1_bytes = mt_model_l1_at_carveout(m, k->carveout_smem);
    double sms = in(m, MT_MI_SM_COUNT);
    double per_wave = sms * r->blocks_per_sm;
    double full = floor(k->grid_blocks / per_wave);
    double rem = k->grid_blocks - full * per_wave;
    r->waves = k->grid_blocks / per_wave;
    double wpb = ceil(k->block_threads / in(m, MT_MI_WARP_SIZE));

    mt_model_wave w;
    if (full > 0) {
        mt_model_wave_eval(m, k, o, r, r->blocks_per_sm * wpb, sms, &w);
        r->load_latency = w.load_latency;
        for (int c = 0; c < MT_CPI_COUNT; c++)
            r->stack[c] += full * w.stack[c];
        r->cycles += full * w.cycles;
    }
    if (rem > 0) {
        double blocks_last = ceil(rem / sms);
        double active = rem < sms ? rem : sms;
        mt_model_wave_eval(m, k, o, r, blocks_last * wpb, active, &w);
        if (full == 0)
            r->load_latency = w.load_latency;
        /* The last wave lasts as long as its fullest SM; the SM slots it
         * leaves empty are the tail. */
        double busy = rem / (sms * blocks_last);
        for (int c = 0; c < MT_CPI_COUNT; c++)
            r->stack[c] += busy * w.stack[c];
        r->stack[MT_CPI_TAIL] += (1 - busy) * w.cycles;
        r->cycles += w.cycles;
    }
    r->seconds = r->cycles / (r->clock_mhz * 1e6);
    mt_model_limit_sentence(r);
    mt_model_assumptions(m, k, o, r);
    return MT_OK;
}

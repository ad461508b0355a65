/* One wave of the kernel on one SM: the representative warp's intervals
 * (loads grouped until their first use, ALU results read too early,
 * barriers), the multithreading model per scheduler, then contention:
 * M/D/1 queueing per bandwidth level below saturation, and the throughput
 * bounds (bytes / bandwidth per level, misses x latency / MLP by Little's
 * law) that take over when demand reaches the measured peak. */
#include <math.h>
#include <string.h>

#include "model_internal.h"

enum { CL_DEP, CL_GLOBAL, CL_SHARED, CL_BARRIER, CL_COUNT };

static double in(const mt_model_machine *m, mt_model_input_id id) { return m->in[id].value; }

/* Shares of the average global load latency by the level that serves it. */
static double load_latency(const mt_model_machine *m, const mt_model_kernel *k, double parts[4])
{
    double h1 = k->l1_hit, h2 = k->l2_hit, s = in(m, MT_MI_L2_NEAR_SHARE);
    parts[0] = h1 * in(m, MT_MI_L1_LAT);
    parts[1] = (1 - h1) * h2 * s * in(m, MT_MI_L2_NEAR_LAT);
    parts[2] = (1 - h1) * h2 * (1 - s) * in(m, MT_MI_L2_FAR_LAT);
    parts[3] = (1 - h1) * (1 - h2) * in(m, MT_MI_DRAM_LAT);
    return parts[0] + parts[1] + parts[2] + parts[3];
}

static double issue_cycles(const mt_model_kernel *k)
{
    return k->inst + k->inst_fp64 * (MODEL_ISSUE_FP64_COST - 1) +
           k->inst_sfu * (MODEL_ISSUE_SFU_COST - 1);
}

/* ALU instructions that wait, and their mean wait, for latency L. */
static void dep_class(const mt_model_kernel *k, double L, double *count, double *stall)
{
    double n = 0, cycles = 0;
    for (int d = 1; d <= MT_MODEL_MAX_DEP; d++)
        if (L > d) {
            n += k->alu_dep[d];
            cycles += k->alu_dep[d] * (L - d);
        }
    *count = n;
    *stall = n > 0 ? cycles / n : 0;
}

/* The level's demand time (cycles) for one SM in this wave. */
typedef struct {
    double t_l1, t_l2, t_dram, t_mshr;
    double per_req_l1, per_req_l2, per_req_dram; /* service of one load request, cycles */
} demand;

static void demands(const mt_model_machine *m, const mt_model_kernel *k, double clock,
                    double warps, double active, double lat_l2, demand *d)
{
    double sector = in(m, MT_MI_SECTOR);
    double h1 = k->l1_hit, h2 = k->l2_hit;
    double ld_b = k->ld_global * k->ld_sectors * sector;
    double st_b = k->st_global * k->st_sectors * sector;
    double l1_cost = mt_model_mix_cost(in(m, MT_MI_L1_BW_READ), in(m, MT_MI_L1_BW_COPY),
                                       in(m, MT_MI_L1_BW_WRITE),
                                       ld_b + st_b > 0 ? st_b / (ld_b + st_b) : 0);
    double wavefront = in(m, MT_MI_BANKS) > 0 ? in(m, MT_MI_BANKS) * MODEL_BANK_WIDTH_B : 128;
    double sh_b = (k->ld_shared + k->st_shared) * fmax(k->bank_ways, 1) * wavefront;
    /* Atomics and reductions pass the L1 and are done at the L2: their
     * sectors travel both ways. */
    double at_b = k->atomics * k->atomic_sectors * sector;
    /* The L1 moves at most one wavefront (banks x width bytes) a pass: a
     * divergent or conflicting request costs its passes, not its bytes. */
    double by_bytes = (ld_b + st_b + at_b) * l1_cost;
    double by_passes = k->l1_wavefronts * wavefront / in(m, MT_MI_L1_BW_READ);
    d->t_l1 = warps * (fmax(by_bytes, by_passes) + sh_b / in(m, MT_MI_SHARED_BW));

    double l2_rd = ld_b * (1 - h1) + at_b, l2_wr = st_b + at_b;
    double gb_rd = in(m, MT_MI_L2_GBPS_READ);
    double l2_cost = mt_model_mix_cost(
        mt_model_per_sm(gb_rd, clock, active), mt_model_per_sm(in(m, MT_MI_L2_GBPS_COPY), clock, active),
        mt_model_per_sm(in(m, MT_MI_L2_GBPS_WRITE), clock, active),
        l2_rd + l2_wr > 0 ? l2_wr / (l2_rd + l2_wr) : 0);
    d->t_l2 = warps * (l2_rd + l2_wr) * l2_cost;

    double dr = k->dram_read_bytes >= 0 ? k->dram_read_bytes : l2_rd * (1 - h2);
    double dw = k->dram_write_bytes >= 0 ? k->dram_write_bytes : l2_wr * (1 - h2);
    double dram_cost = mt_model_mix_cost(
        mt_model_per_sm(in(m, MT_MI_DRAM_GBPS_READ), clock, active),
        mt_model_per_sm(in(m, MT_MI_DRAM_GBPS_COPY), clock, active),
        mt_model_per_sm(in(m, MT_MI_DRAM_GBPS_WRITE), clock, active), dr + dw > 0 ? dw / (dr + dw) : 0);
    d->t_dram = warps * (dr + dw) * dram_cost;

    /* Little's law: misses occupy a slot for their latency, and the SM
     * keeps at most the measured MLP in flight per level. */
    double miss_sectors = k->ld_global * k->ld_sectors * (1 - h1);
    d->t_mshr = warps * miss_sectors *
                (h2 * lat_l2 / in(m, MT_MI_L2_MLP) + (1 - h2) * in(m, MT_MI_DRAM_LAT) / in(m, MT_MI_DRAM_MLP));

    d->per_req_l1 = k->ld_sectors * sector * l1_cost;
    d->per_req_l2 = k->ld_sectors * sector * (1 - h1) * l2_cost;
    d->per_req_dram = k->ld_sectors * sector * (1 - h1) * (1 - h2) * dram_cost;
}

/* M/D/1 wait of one request with service time s at utilisation rho. */
static double md1_wait(double s, double rho)
{
    rho = fmin(rho, MODEL_RHO_MAX_UTIL);
    return s * rho / (2 * (1 - rho));
}

void mt_model_wave_eval(const mt_model_machine *m, const mt_model_kernel *k,
                        const mt_model_options *o, const mt_model_result *r, double warps,
                        double active_sms, mt_model_wave *w)
{
    memset(w, 0, sizeof *w);
    double sched = m->in[MT_MI_SCHEDULERS].set ? in(m, MT_MI_SCHEDULERS) : 1;
    double per_sched = warps / sched;
    double parts[4];
    double amat = load_latency(m, k, parts);
    w->load_latency = amat;
    double dist = k->use_distance > 0 ? k->use_distance : 0;

    double count[CL_COUNT], stall[CL_COUNT];
    dep_class(k, in(m, MT_MI_ALU_LAT), &count[CL_DEP], &stall[CL_DEP]);
    count[CL_GLOBAL] = k->ld_intervals;
    stall[CL_GLOBAL] = fmax(amat - dist, 0);
    double bank_extra = (fmax(k->bank_ways, 1) - 1) * in(m, MT_MI_CONFLICT_CYCLES);
    count[CL_SHARED] = k->sh_intervals;
    stall[CL_SHARED] = fmax(in(m, MT_MI_SHARED_LAT) + bank_extra - dist, 0);
    /* A barrier waits for the block's other warps on this scheduler: on
     * average half of them still have an interval's instructions to issue. */
    double wpb_sched = fmax(ceil(k->block_threads / in(m, MT_MI_WARP_SIZE)) / sched, 1);
    double intervals = count[CL_DEP] + count[CL_GLOBAL] + count[CL_SHARED] + k->barriers;
    double insts = issue_cycles(k);
    count[CL_BARRIER] = k->barriers;
    stall[CL_BARRIER] = 0.5 * (wpb_sched - 1) * (intervals > 0 ? insts / intervals : insts);

    double c_mt = mt_model_multithread(o->sched, per_sched, insts, count, stall, CL_COUNT);
    double issue = per_sched * insts;
    if (issue > c_mt)
        issue = c_mt;
    w->stack[MT_CPI_BASE] = issue;
    double visible = c_mt - issue, weight = 0;
    for (int c = 0; c < CL_COUNT; c++)
        weight += count[c] * stall[c];
    if (visible > 0 && weight > 0) {
        double f = visible / weight;
        w->stack[MT_CPI_DEP] += f * count[CL_DEP] * stall[CL_DEP];
        w->stack[MT_CPI_BARRIER] += f * count[CL_BARRIER] * stall[CL_BARRIER];
        double g = f * count[CL_GLOBAL] * stall[CL_GLOBAL];
        if (amat > 0)
            for (int l = 0; l < 4; l++)
                w->stack[MT_CPI_L1 + l] += g * parts[l] / amat;
        double sh = f * count[CL_SHARED] * stall[CL_SHARED];
        double sh_all = in(m, MT_MI_SHARED_LAT) + bank_extra;
        w->stack[MT_CPI_BANK] += sh * bank_extra / sh_all;
        w->stack[MT_CPI_L1] += sh * (1 - bank_extra / sh_all);
    }

    demand d;
    double lat_l2 = (parts[1] + parts[2]) > 0
                        ? in(m, MT_MI_L2_NEAR_SHARE) * in(m, MT_MI_L2_NEAR_LAT) +
                              (1 - in(m, MT_MI_L2_NEAR_SHARE)) * in(m, MT_MI_L2_FAR_LAT)
                        : in(m, MT_MI_L2_NEAR_LAT);
    demands(m, k, r->clock_mhz, warps, active_sms, lat_l2, &d);
    /* Queueing below saturation: each stalling load group waits for the
     * requests ahead of it at each level. */
    double q_l1 = k->ld_intervals * md1_wait(d.per_req_l1, d.t_l1 / c_mt);
    double q_l2 = k->ld_intervals * md1_wait(d.per_req_l2, d.t_l2 / c_mt);
    double q_dram = k->ld_intervals * md1_wait(d.per_req_dram, d.t_dram / c_mt);
    w->stack[MT_CPI_BW_L1] += q_l1;
    w->stack[MT_CPI_BW_L2] += q_l2;
    w->stack[MT_CPI_BW_DRAM] += q_dram;
    double c = c_mt + q_l1 + q_l2 + q_dram;
    /* Throughput bounds: the slowest one, when above, sets the time. */
    const double bound[4] = {d.t_mshr, d.t_l1, d.t_l2, d.t_dram};
    const mt_cpi_part part[4] = {MT_CPI_MSHR, MT_CPI_BW_L1, MT_CPI_BW_L2, MT_CPI_BW_DRAM};
    int top = 0;
    for (int i = 1; i < 4; i++)
        if (bound[i] > bound[top])
            top = i;
    if (bound[top] > c) {
        w->stack[part[top]] += bound[top] - c;
        c = bound[top];
    }
    w->cycles = c;
}

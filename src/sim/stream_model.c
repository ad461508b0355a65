/* The simulator's throughput model (stream_model.h; docs/spec-format.md,
 * "Throughput"): a roofline per level (the slowest of the per-SM figure,
 * the GPU-wide figure shared by the busy SMs, and Little's law on the
 * bytes in flight) and the stream experiment built on it. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "stream_model.h"

static double min2(double a, double b)
{
    return a < b ? a : b;
}

/* Bytes one miss slot holds: an L2 sector (the request size behind the L1). */
static double request_bytes(const mt_sim_spec *s)
{
    return (double)s->cache[s->l2].sector;
}

void mt_sim_stream_level_at(const mt_sim_spec *s, int level, mt_path p, mt_sim_stream_level *out)
{
    memset(out, 0, sizeof *out);
    out->level = level;
    int lp = mt_sim_lpath_of(p);
    const mt_sim_bw_spec *l2bw = &s->tp.cache[s->l2];
    if (level == MT_SIM_LEVEL_SHARED) {
        out->read_sm = s->tp.shared.read;
        out->write_sm = s->tp.shared.write;
        out->latency = s->shared.latency[0];
        return;
    }
    if (level == MT_SIM_LEVEL_DRAM) {
        /* Per SM, DRAM data comes through the L2's links. */
        out->read_sm = l2bw->read;
        out->write_sm = l2bw->write;
        out->read_gpu = s->tp.dram.read_gpu;
        out->write_gpu = s->tp.dram.write_gpu;
        out->latency = s->dram.latency[lp < 0 ? MT_SIM_LP_CG : lp];
        out->behind_l1 = 1;
        return;
    }
    const mt_sim_cache_spec *cs = &s->cache[level];
    const mt_sim_bw_spec *b = &s->tp.cache[level];
    out->read_sm = b->read;
    out->write_sm = b->write;
    out->read_gpu = b->read_gpu;
    out->write_gpu = b->write_gpu;
    int q = lp < 0 ? MT_SIM_LP_CG : lp;
    out->latency = cs->latency[q];
    if (cs->is_l2) {
        /* Lines are homed evenly over the partitions: one in P is near. */
        double P = cs->partitions > 1 ? cs->partitions : 1;
        out->latency = (cs->latency[q] + (P - 1) * cs->far_latency[q]) / P;
        out->behind_l1 = 1;
    }
}

void mt_sim_stream_level_for(const mt_sim_spec *s, mt_path p, uint64_t bytes_per_sm,
                             uint64_t total_bytes, int active_sms, mt_sim_stream_level *out)
{
    if (p == MT_PATH_SHARED) {
        mt_sim_stream_level_at(s, MT_SIM_LEVEL_SHARED, p, out);
        return;
    }
    int lp = mt_sim_lpath_of(p);
    uint32_t smem = mt_sim_carveout_smem(s, -1);
    int best = -1;
    for (int i = 0; i < s->n_caches; i++) {
        const mt_sim_cache_spec *cs = &s->cache[i];
        if (cs->is_l2 || lp < 0 || !(cs->serves & (1u << lp)))
            continue;
        uint64_t cap = mt_sim_cache_size(cs, smem) * (cs->slices ? cs->slices : 1);
        if (bytes_per_sm <= cap && (best < 0 || cs->level < s->cache[best].level))
            best = i;
    }
    if (best < 0) {
        const mt_sim_cache_spec *l2 = &s->cache[s->l2];
        uint64_t part = l2->size / (l2->partitions > 1 ? l2->partitions : 1);
        /* Every SM streaming: each partition holds the lines homed in it,
         * so the whole L2 serves the data. */
        uint64_t cap = active_sms >= s->sm_count ? l2->size : part;
        best = total_bytes <= cap ? s->l2 : MT_SIM_LEVEL_DRAM;
    }
    mt_sim_stream_level_at(s, best, p, out);
}

double mt_sim_stream_rate(const mt_sim_spec *s, const mt_sim_stream_level *l, int write,
                          double inflight_bytes, int active_sms)
{
    double r = write ? l->write_sm : l->read_sm;
    double gpu = write ? l->write_gpu : l->read_gpu;
    if (gpu > 0 && active_sms > 0)
        r = min2(r, gpu / active_sms);
    if (!write) {
        /* Stores do not wait for an answer; loads do (Little's law). */
        double inflight = inflight_bytes;
        if (l->behind_l1)
            inflight = min2(inflight, (double)s->tp.mshr * request_bytes(s));
        r = min2(r, inflight / l->latency);
    }
    return r;
}

double mt_sim_copy_rate(double read_rate, double write_rate)
{
    return 2.0 / (1.0 / read_rate + 1.0 / write_rate);
}

double mt_sim_chase_rate(const mt_sim_spec *s, const mt_sim_stream_level *l, double chases,
                         int active_sms)
{
    double inflight = l->behind_l1 ? min2(chases, (double)s->tp.mshr) : chases;
    double rb = request_bytes(s);
    double r = min2(inflight / l->latency, l->read_sm / rb);
    if (l->read_gpu > 0 && active_sms > 0)
        r = min2(r, l->read_gpu / (rb * active_sms));
    return r;
}

double mt_sim_stream_ceiling(const mt_sim_spec *s, int level, mt_path p, mt_stream_op op)
{
    mt_sim_stream_level l;
    mt_sim_stream_level_at(s, level, p, &l);
    double inflight = (double)s->max_threads_per_sm * 16.0 * MT_STREAM_MAX_IN_FLIGHT;
    double rd = mt_sim_stream_rate(s, &l, 0, inflight, s->sm_count);
    double wr = mt_sim_stream_rate(s, &l, 1, inflight, s->sm_count);
    return op == MT_STREAM_WRITE ? wr : op == MT_STREAM_COPY ? mt_sim_copy_rate(rd, wr) : rd;
}

double mt_sim_mlp(const mt_sim_spec *s, int level, double chases)
{
    mt_sim_stream_level l;
    mt_sim_stream_level_at(s, level, MT_PATH_GLOBAL_CG, &l);
    return mt_sim_chase_rate(s, &l, chases, 1) * l.latency;
}

double mt_sim_mlp_gpu(const mt_sim_spec *s, int level, double chases)
{
    mt_sim_stream_level l;
    mt_sim_stream_level_at(s, level, MT_PATH_GLOBAL_CG, &l);
    return s->sm_count * mt_sim_chase_rate(s, &l, chases, s->sm_count) * l.latency;
}

mt_err mt_sim_stream_run(const mt_sim_spec *s, const mt_experiment *e, mt_rng *rng,
                         mt_result *out, mt_errinfo *ei)
{
    const mt_stream *st = &e->u.stream;
    uint32_t S = (uint32_t)s->sm_count;
    /* Blocks go round-robin over the SMs: the busiest holds k of them.  A
     * balanced read (backend.h) hands its repeats out on demand; the
     * model serves every SM alike, so each still reads its own share
     * `repeats` times and the time is the same. */
    uint32_t k = (st->blocks + S - 1) / S;
    int active = (int)(st->blocks < S ? st->blocks : S);
    if ((uint64_t)k * st->threads > (uint64_t)s->max_threads_per_sm)
        return mt_fail(ei, MT_ERR_INVALID_ARG,
                       "stream: %u blocks of %u threads on one SM exceed its %d threads", k,
                       st->threads, s->max_threads_per_sm);
    /* A block's share: its own part of the data, or the share W of a read
     * with shared data (backend.h). */
    double block_share = (double)mt_stream_block_share(e);
    double share = block_share * k; /* data of the busiest SM */
    uint64_t span_sm = (uint64_t)(st->op == MT_STREAM_COPY ? 2 * share : share);
    /* A block's round wider than its share wraps around it (backend.h). */
    double round = (double)st->threads * st->vector_bytes * st->in_flight;
    double moved_sm = (round > block_share ? round : block_share) * k;
    mt_sim_stream_level l;
    mt_sim_stream_level_for(s, e->chain[0].path, span_sm, e->chain[0].footprint, active, &l);
    double busy;
    if (st->op == MT_STREAM_CHASE) {
        double loads = (double)k * st->threads * st->repeats;
        busy = loads / mt_sim_chase_rate(s, &l, (double)k * st->threads, active);
    } else {
        double inflight = (double)k * st->threads * st->vector_bytes * st->in_flight;
        double rd = mt_sim_stream_rate(s, &l, 0, inflight, active);
        double wr = mt_sim_stream_rate(s, &l, 1, inflight, active);
        double moved = moved_sm * st->repeats;
        busy = st->op == MT_STREAM_READ    ? moved / rd
               : st->op == MT_STREAM_WRITE ? moved / wr
                                           : 2 * moved / mt_sim_copy_rate(rd, wr);
    }
    double cycles = MT_SIM_STREAM_START_CYCLES + l.latency +
                    busy * (1.0 + MT_SIM_STREAM_NOISE * mt_rng_gauss(rng));
    int mhz = s->actual_clock_mhz ? s->actual_clock_mhz : s->clock_mhz;
    double ns = cycles * 1000.0 / mhz;
    memset(out, 0, sizeof *out);
    out->sm_ran = -1;
    out->cycles[0] = malloc(2 * sizeof *out->cycles[0]);
    if (!out->cycles[0])
        return mt_fail(ei, MT_ERR_NOMEM, "out of memory for a stream result");
    /* Too long for a 32-bit sample: saturated, as the GPU's kernel does. */
    out->cycles[0][0] = cycles < UINT32_MAX ? (uint32_t)llround(cycles) : UINT32_MAX;
    out->cycles[0][1] = ns < UINT32_MAX ? (uint32_t)llround(ns) : UINT32_MAX;
    out->n[0] = 2;
    return MT_OK;
}

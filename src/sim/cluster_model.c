/* Thread-block clusters and bulk copies in the simulator (cluster_model.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cluster_model.h"
#include "stream_model.h"

double mt_sim_cluster_copy_cycles(const mt_sim_cluster_spec *k, mt_cluster_op op, uint64_t bytes)
{
    if (op == MT_CLUSTER_BULK_COPY)
        return k->tma_latency + (double)bytes / k->tma_bw;
    return k->copy_latency + (double)bytes / k->copy_bw;
}

static uint32_t sample_of(double x)
{
    if (!(x >= 1.0)) /* also NaN */
        return 1;
    return x < 4294967295.0 ? (uint32_t)llround(x) : UINT32_MAX;
}

static mt_err run_chase(const mt_sim_spec *s, const mt_experiment *e, mt_rng *rng, mt_result *out,
                        mt_errinfo *ei)
{
    int local = e->u.cluster.target_rank == 0;
    double lat = local ? s->shared.latency[0] : s->cluster.remote_latency;
    double noise = local ? s->shared.noise : s->cluster.remote_noise;
    out->cycles[0] = malloc(sizeof *out->cycles[0]);
    if (!out->cycles[0])
        return mt_fail(ei, MT_ERR_NOMEM, "out of memory for a cluster chase");
    out->n[0] = 1;
    /* Aggregate (backend.h): the sum of the loads' Gaussian noise is one
     * Gaussian. */
    double total = e->loads * (lat + s->loop_overhead) +
                   noise * sqrt((double)e->loads) * mt_rng_gauss(rng);
    out->cycles[0][0] = sample_of(total);
    return MT_OK;
}

mt_err mt_sim_cluster_run(const mt_sim_spec *s, const mt_experiment *e, mt_rng *rng,
                          mt_result *out, mt_errinfo *ei)
{
    memset(out, 0, sizeof *out);
    out->sm_ran = e->sm >= 0 ? e->sm : 0;
    const mt_cluster *k = &e->u.cluster;
    if (!s->cluster.present)
        return mt_fail(ei, MT_ERR_UNSUPPORTED, "the simulated device has no clusters ([cluster])");
    if (k->op == MT_CLUSTER_CHASE)
        return run_chase(s, e, rng, out, ei);
    double busy = k->op == MT_CLUSTER_STREAM
                      ? (double)k->bytes * k->repeats / s->cluster.link_bw
                      : k->repeats * mt_sim_cluster_copy_cycles(&s->cluster, k->op, k->bytes);
    double cycles = MT_SIM_STREAM_START_CYCLES + busy * (1.0 + MT_SIM_STREAM_NOISE * mt_rng_gauss(rng));
    int mhz = s->actual_clock_mhz ? s->actual_clock_mhz : s->clock_mhz;
    double ns = cycles * 1000.0 / mhz;
    out->sm_ran = -1;
    out->cycles[0] = malloc(2 * sizeof *out->cycles[0]);
    if (!out->cycles[0])
        return mt_fail(ei, MT_ERR_NOMEM, "out of memory for a cluster result");
    out->cycles[0][0] = sample_of(cycles);
    out->cycles[0][1] = sample_of(ns);
    out->n[0] = 2;
    return MT_OK;
}

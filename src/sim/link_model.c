/* The link model (link_model.h). */
#include <math.h>
#include <stdlib.h>

#include "link_model.h"

const mt_sim_link_spec *mt_sim_link_of(const mt_sim_spec *s, int32_t peer)
{
    if (peer == MT_LINK_HOST)
        return s->host_link.present ? &s->host_link : NULL;
    if (peer < 0 || peer >= MT_SIM_MAX_LINKS || !s->link[peer].present)
        return NULL;
    return &s->link[peer];
}

int mt_sim_has_links(const mt_sim_spec *s)
{
    for (int i = 0; i < MT_SIM_MAX_LINKS; i++)
        if (s->link[i].present)
            return 1;
    return s->host_link.present;
}

static uint32_t saturate(double x)
{
    if (!(x >= 1.0)) /* also catches NaN */
        return 1;
    return x >= 4294967295.0 ? UINT32_MAX : (uint32_t)llround(x);
}

static void query(const mt_sim_link_spec *l, uint32_t *f)
{
    for (int i = 0; i < MT_LINK_QUERY_FIELDS; i++)
        f[i] = MT_LINK_NOT_AVAILABLE;
    f[MT_LINK_F_PEER_ACCESS] = l ? (uint32_t)l->peer_access : 0;
    f[MT_LINK_F_TYPE] = l ? (uint32_t)l->type : MT_LINK_TYPE_NONE;
    if (!l)
        return;
    if (l->type == MT_LINK_TYPE_NVLINK) {
        f[MT_LINK_F_NVLINKS] = l->nvlinks;
        f[MT_LINK_F_NVLINK_VERSION] = l->nvlink_version;
    } else {
        f[MT_LINK_F_PCIE_GEN] = l->pcie_gen;
        f[MT_LINK_F_PCIE_WIDTH] = l->pcie_width;
    }
    f[MT_LINK_F_PERF_RANK] = l->perf_rank;
    f[MT_LINK_F_ATOMICS] = (uint32_t)l->atomics;
}

static double gbps_of(const mt_sim_link_spec *l, mt_link_op op)
{
    switch (op) {
    case MT_LINK_SM_READ: return l->read_gbps;
    case MT_LINK_SM_WRITE: return l->write_gbps;
    case MT_LINK_COPY_IN: return l->copy_in_gbps;
    default: return l->copy_out_gbps;
    }
}

mt_err mt_sim_link_run(const mt_sim_spec *s, const mt_experiment *e, mt_rng *rng, mt_result *out,
                       mt_errinfo *ei)
{
    const mt_link *q = &e->u.link;
    const mt_sim_link_spec *l = mt_sim_link_of(s, q->peer);
    uint32_t n = e->mode == MT_MODE_FINE ? e->loads : 1;
    if (q->op != MT_LINK_QUERY && !l)
        return mt_fail(ei, MT_ERR_UNSUPPORTED, "the spec describes no link to %s %d",
                       q->peer == MT_LINK_HOST ? "the host" : "GPU", (int)q->peer);
    /* Copies need no peer access (the driver stages them); SM loads do. */
    if ((q->op == MT_LINK_CHASE || q->op == MT_LINK_SM_READ || q->op == MT_LINK_SM_WRITE) &&
        !l->peer_access)
        return mt_fail(ei, MT_ERR_UNSUPPORTED, "no peer access to GPU %d", (int)q->peer);
    out->cycles[0] = malloc((size_t)n * sizeof *out->cycles[0]);
    if (!out->cycles[0])
        return mt_fail(ei, MT_ERR_NOMEM, "out of memory for %u samples", n);
    out->n[0] = n;
    out->sm_ran = 0;
    if (q->op == MT_LINK_QUERY) {
        query(l, out->cycles[0]);
        return MT_OK;
    }
    if (q->op == MT_LINK_CHASE) {
        /* Every load crosses the link (no cache of this GPU keeps it):
         * the link's latency, its noise, the fine timer overhead and the
         * spec's timer outliers. */
        for (uint32_t k = 0; k < n; k++) {
            double x = l->latency + s->timer_overhead;
            if (l->noise > 0)
                x += l->noise * mt_rng_gauss(rng);
            if (s->outlier_rate > 0 && mt_rng_uniform(rng) < s->outlier_rate)
                x += s->outlier_cycles * (0.5 + mt_rng_uniform(rng));
            out->cycles[0][k] = saturate(x);
        }
        return MT_OK;
    }
    /* GB/s is bytes per ns: each repeat costs its setup and its bytes. */
    double ns = q->repeats * (MT_SIM_LINK_SETUP_NS + (double)q->bytes / gbps_of(l, q->op));
    ns *= 1.0 + MT_SIM_LINK_TIME_NOISE * mt_rng_gauss(rng);
    out->cycles[0][0] = saturate(ns);
    return MT_OK;
}

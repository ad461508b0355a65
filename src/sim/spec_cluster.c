/* The [cluster] section of a sim spec (docs/spec-format.md, "Clusters and
 * TMA"): thread-block clusters reading each other's shared memory and the
 * bulk copy engine, on devices of compute capability 9.0 or later. */
#include "../backend/backend.h"
#include "spec_internal.h"

const char *const mt_sp_cluster_keys[] = {
    "max_size",    "portable_size", "remote_latency", "remote_noise", "link_bw",
    "tma_latency", "tma_bw",        "copy_latency",   "copy_bw",      NULL};

static int key_line(const section *s, const char *key)
{
    const kv *k = mt_sp_find(s, key);
    return k ? k->line : s->line;
}

mt_err mt_sp_read_cluster(pctx *c, const section *s, mt_sim_spec *o)
{
    mt_sim_cluster_spec *k = &o->cluster;
    mt_err err;
    k->present = 1;
    if (o->cc_major < 9)
        return mt_sp_err(c, s->line, "[cluster]: thread-block clusters need compute_capability "
                                     "9.0 or later ([device] says %d.%d)",
                         o->cc_major, o->cc_minor);
    if (o->smem_per_block < MT_SIM_MIN_CLUSTER_SMEM)
        return mt_sp_err(c, s->line, "[cluster]: smem_per_block %u B is below %u B (the copies "
                                     "of the cluster probe)",
                         o->smem_per_block, MT_SIM_MIN_CLUSTER_SMEM);
    if ((err = mt_sp_u32(c, s, "max_size", 1, 2, MT_CLUSTER_MAX_SIZE, &k->max_size, NULL)))
        return err;
    k->portable_size = k->max_size < MT_SIM_MAX_CLUSTER_PORTABLE ? k->max_size
                                                                 : MT_SIM_MAX_CLUSTER_PORTABLE;
    if ((err = mt_sp_u32(c, s, "portable_size", 0, 2, MT_SIM_MAX_CLUSTER_PORTABLE,
                         &k->portable_size, NULL)))
        return err;
    if (k->portable_size > k->max_size)
        return mt_sp_err(c, key_line(s, "portable_size"),
                         "portable_size %u exceeds max_size %u", k->portable_size, k->max_size);
    if ((err = mt_sp_double(c, s, "remote_latency", 1, 1, MT_SIM_MAX_LATENCY, &k->remote_latency,
                            NULL)))
        return err;
    /* By default the remote loads are as noisy as the local ones, within
     * the limit below. */
    double most = MT_SIM_NOISE_PER_LATENCY * k->remote_latency;
    k->remote_noise = o->shared.noise < most ? o->shared.noise : most;
    if ((err = mt_sp_double(c, s, "remote_noise", 0, 0, MT_SIM_MAX_LATENCY, &k->remote_noise,
                            NULL)) ||
        (err = mt_sp_double(c, s, "link_bw", 1, MT_SIM_MIN_BW, MT_SIM_MAX_BW_SM, &k->link_bw,
                            NULL)) ||
        (err = mt_sp_double(c, s, "tma_latency", 1, 1, MT_SIM_MAX_COPY_LATENCY, &k->tma_latency,
                            NULL)) ||
        (err = mt_sp_double(c, s, "tma_bw", 1, MT_SIM_MIN_BW, MT_SIM_MAX_COPY_BW, &k->tma_bw,
                            NULL)) ||
        (err = mt_sp_double(c, s, "copy_latency", 1, 1, MT_SIM_MAX_COPY_LATENCY,
                            &k->copy_latency, NULL)) ||
        (err = mt_sp_double(c, s, "copy_bw", 1, MT_SIM_MIN_BW, MT_SIM_MAX_COPY_BW, &k->copy_bw,
                            NULL)))
        return err;
    /* As on every other path (MT_SIM_NOISE_PER_LATENCY): noise beyond an
     * eighth of the latency is no GPU's, and would take the probe's
     * chases far longer than a run may. */
    if (k->remote_noise > MT_SIM_NOISE_PER_LATENCY * k->remote_latency)
        return mt_sp_err(c, key_line(s, "remote_noise"),
                         "remote_noise %g exceeds remote_latency / 8 = %g", k->remote_noise,
                         MT_SIM_NOISE_PER_LATENCY * k->remote_latency);
    return MT_OK;
}

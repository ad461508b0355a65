/* Cluster experiments (MT_KIND_CLUSTER, backend.h): their builders, op
 * names and shape check. */
#include <string.h>

#include "experiment_cluster.h"

static const char *const op_names[MT_CLUSTER_OP_COUNT] = {"chase", "stream", "bulk_copy",
                                                          "plain_copy"};

const char *mt_cluster_op_name(mt_cluster_op op)
{
    return ((int)op >= 0 && op < MT_CLUSTER_OP_COUNT) ? op_names[op] : "?";
}

int mt_cluster_op_from_name(const char *s, mt_cluster_op *out)
{
    for (int i = 0; s && i < MT_CLUSTER_OP_COUNT; i++)
        if (strcmp(s, op_names[i]) == 0) {
            *out = (mt_cluster_op)i;
            return 0;
        }
    return -1;
}

mt_experiment mt_exp_cluster_chase(uint32_t cluster_size, uint32_t target_rank,
                                   uint64_t footprint, uint32_t stride, uint32_t warmup_laps,
                                   uint32_t loads, mt_mode mode)
{
    mt_experiment e = mt_exp_chase(MT_PATH_SHARED, footprint, stride, warmup_laps, loads, mode);
    e.kind = MT_KIND_CLUSTER;
    e.scope = MT_SCOPE_GPU; /* its blocks occupy several SMs: nothing runs beside it */
    e.u.cluster.op = MT_CLUSTER_CHASE;
    e.u.cluster.cluster_size = cluster_size;
    e.u.cluster.target_rank = target_rank;
    e.u.cluster.threads = 1;
    e.u.cluster.blocks = 1;
    return e;
}

mt_experiment mt_exp_cluster_stream(uint32_t cluster_size, uint32_t target_rank, uint32_t threads,
                                    uint64_t bytes, uint32_t repeats)
{
    mt_experiment e = mt_exp_chase(MT_PATH_SHARED, bytes, 16, 0, repeats, MT_MODE_AGGREGATE);
    e.kind = MT_KIND_CLUSTER;
    e.scope = MT_SCOPE_GPU; /* its blocks occupy several SMs: nothing runs beside it */
    e.u.cluster.op = MT_CLUSTER_STREAM;
    e.u.cluster.cluster_size = cluster_size;
    e.u.cluster.target_rank = target_rank;
    e.u.cluster.threads = threads;
    e.u.cluster.blocks = 1;
    e.u.cluster.bytes = bytes;
    e.u.cluster.repeats = repeats;
    return e;
}

mt_experiment mt_exp_cluster_copy(mt_cluster_op op, uint32_t blocks, uint32_t threads,
                                  uint64_t bytes, uint32_t repeats)
{
    mt_experiment e = mt_exp_chase(MT_PATH_GLOBAL_CG, (uint64_t)blocks * bytes, 16, 0, repeats,
                                   MT_MODE_AGGREGATE);
    e.kind = MT_KIND_CLUSTER;
    e.scope = MT_SCOPE_GPU;
    e.u.cluster.op = op;
    e.u.cluster.cluster_size = 1;
    e.u.cluster.threads = threads;
    e.u.cluster.blocks = blocks;
    e.u.cluster.bytes = bytes;
    e.u.cluster.repeats = repeats;
    return e;
}

static mt_err check_size(const mt_cluster *k, const mt_device_info *dev, mt_errinfo *ei)
{
    if (k->cluster_size < 2 || k->cluster_size > (uint32_t)dev->max_cluster_size)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "cluster of %u blocks (2..%d on this device)",
                       k->cluster_size, dev->max_cluster_size);
    if (k->target_rank >= k->cluster_size)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "target block %u of a cluster of %u",
                       k->target_rank, k->cluster_size);
    return MT_OK;
}

/* Threads per block: whole warps up to the block limit. */
static mt_err check_threads(const mt_cluster *k, const mt_device_info *dev, mt_errinfo *ei)
{
    if (k->threads < 32 || k->threads % 32 ||
        (dev->max_threads_per_block && k->threads > (uint32_t)dev->max_threads_per_block))
        return mt_fail(ei, MT_ERR_INVALID_ARG,
                       "cluster %s of %u threads per block (a multiple of 32 up to the block "
                       "limit)", mt_cluster_op_name(k->op), k->threads);
    return MT_OK;
}

/* A stream's or copy's bytes: whole 16-byte vectors within the shared
 * memory one block may use, and the fixed stream shape. */
static mt_err check_bytes(const mt_experiment *e, const mt_device_info *dev, mt_errinfo *ei)
{
    const mt_cluster *k = &e->u.cluster;
    uint64_t lim = dev->smem_per_block;
    if (k->bytes < 16 || k->bytes % 16 || (lim && k->bytes > lim))
        return mt_fail(ei, MT_ERR_INVALID_ARG,
                       "cluster %s of %llu bytes per block (a multiple of 16 up to %llu)",
                       mt_cluster_op_name(k->op), (unsigned long long)k->bytes,
                       (unsigned long long)lim);
    if (e->mode != MT_MODE_AGGREGATE || e->warmup_laps != 0 || k->repeats == 0 ||
        e->loads != k->repeats || e->chain[0].stride != 16)
        return mt_fail(ei, MT_ERR_INVALID_ARG,
                       "cluster %s must be aggregate, without warm-up, stride 16, loads = "
                       "repeats >= 1", mt_cluster_op_name(k->op));
    return MT_OK;
}

mt_err mt_check_cluster(const mt_experiment *e, const mt_device_info *dev, mt_errinfo *ei)
{
    const mt_cluster *k = &e->u.cluster;
    const mt_chain *c = &e->chain[0];
    mt_err err;
    /* Every GPU with a bulk copy engine has clusters (both came with
     * compute capability 9.0): without them, no op runs. */
    if (dev->max_cluster_size < 2)
        return mt_fail(ei, MT_ERR_UNSUPPORTED, "the device launches no thread-block clusters");
    if (e->n_chains != 1)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "cluster experiment has %d chains; it needs 1",
                       e->n_chains);
    if (e->set_carveout)
        return mt_fail(ei, MT_ERR_UNSUPPORTED, "cluster experiments run at the default carveout");
    if (e->sm >= dev->sm_count)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "SM %d does not exist (%d SMs)", e->sm, dev->sm_count);
    switch (k->op) {
    case MT_CLUSTER_CHASE:
        if ((err = check_size(k, dev, ei)))
            return err;
        if (c->path != MT_PATH_SHARED || c->thread != 0 || c->offset != 0 ||
            e->mode != MT_MODE_AGGREGATE || e->order != MT_ORDER_SEQUENTIAL)
            return mt_fail(ei, MT_ERR_INVALID_ARG,
                           "cluster chase: one sequential shared chain at offset 0, thread 0, "
                           "aggregate mode");
        if (dev->smem_per_block && c->offset + c->footprint > dev->smem_per_block)
            return mt_fail(ei, MT_ERR_INVALID_ARG,
                           "cluster chase of %llu bytes exceeds the %u B one block may use",
                           (unsigned long long)(c->offset + c->footprint), dev->smem_per_block);
        return MT_OK; /* the generic chain checks follow */
    case MT_CLUSTER_STREAM:
        if ((err = check_size(k, dev, ei)) || (err = check_threads(k, dev, ei)) ||
            (err = check_bytes(e, dev, ei)))
            return err;
        if (k->target_rank == 0 || k->blocks != 1 || c->path != MT_PATH_SHARED ||
            c->footprint != k->bytes || c->offset != 0)
            return mt_fail(ei, MT_ERR_INVALID_ARG,
                           "cluster stream reads another block (target 1..size-1) of one "
                           "cluster, one shared chain spanning its bytes");
        return MT_OK;
    case MT_CLUSTER_BULK_COPY:
    case MT_CLUSTER_PLAIN_COPY:
        if ((err = check_threads(k, dev, ei)) || (err = check_bytes(e, dev, ei)))
            return err;
        if (k->cluster_size != 1 || k->blocks < 1 || k->blocks > MT_STREAM_MAX_BLOCKS ||
            c->path != MT_PATH_GLOBAL_CG || c->footprint != (uint64_t)k->blocks * k->bytes ||
            c->offset % 16)
            return mt_fail(ei, MT_ERR_INVALID_ARG,
                           "cluster %s: cluster size 1, 1..%u blocks, one cg chain of blocks x "
                           "bytes, 16-aligned", mt_cluster_op_name(k->op), MT_STREAM_MAX_BLOCKS);
        if (dev->path_limit_bytes[c->path] &&
            c->offset + c->footprint > dev->path_limit_bytes[c->path])
            return mt_fail(ei, MT_ERR_INVALID_ARG, "cluster %s needs %llu bytes of the cg path "
                           "(limit %llu)", mt_cluster_op_name(k->op),
                           (unsigned long long)(c->offset + c->footprint),
                           (unsigned long long)dev->path_limit_bytes[c->path]);
        if (dev->cc_major < 9)
            return mt_fail(ei, MT_ERR_UNSUPPORTED,
                           "bulk copies (TMA) need compute capability 9.0 or later (this is %d.%d)",
                           dev->cc_major, dev->cc_minor);
        return MT_OK;
    default:
        return mt_fail(ei, MT_ERR_INVALID_ARG, "cluster experiment has an unknown op %d",
                       (int)k->op);
    }
}

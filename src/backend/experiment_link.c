/* Link experiments (MT_KIND_LINK, backend.h): builders, op names, the
 * shape check and the hash. */
#include <string.h>

#include "experiment_link.h"

static const char *const op_names[MT_LINK_OP_COUNT] = {"query",    "chase",   "sm_read",
                                                        "sm_write", "copy_in", "copy_out"};

const char *mt_link_op_name(mt_link_op op)
{
    return ((int)op >= 0 && op < MT_LINK_OP_COUNT) ? op_names[op] : "?";
}

int mt_link_op_from_name(const char *s, mt_link_op *out)
{
    for (int i = 0; s && i < MT_LINK_OP_COUNT; i++)
        if (strcmp(s, op_names[i]) == 0) {
            *out = (mt_link_op)i;
            return 0;
        }
    return -1;
}

mt_experiment mt_exp_link_query(int32_t peer)
{
    mt_experiment e = mt_exp_chase(MT_PATH_NONE, 4, 4, 0, MT_LINK_QUERY_FIELDS, MT_MODE_FINE);
    e.kind = MT_KIND_LINK;
    e.scope = MT_SCOPE_GPU;
    e.u.link.op = MT_LINK_QUERY;
    e.u.link.peer = peer;
    return e;
}

mt_experiment mt_exp_link_chase(int32_t peer, uint64_t footprint, uint32_t stride,
                                uint32_t warmup_laps, uint32_t loads)
{
    mt_experiment e = mt_exp_chase(MT_PATH_GLOBAL_CG, footprint, stride, warmup_laps, loads,
                                   MT_MODE_FINE);
    e.kind = MT_KIND_LINK;
    e.scope = MT_SCOPE_GPU;
    e.u.link.op = MT_LINK_CHASE;
    e.u.link.peer = peer;
    return e;
}

mt_experiment mt_exp_link_bandwidth(mt_link_op op, int32_t peer, uint64_t bytes, uint32_t repeats)
{
    mt_experiment e = mt_exp_chase(MT_PATH_NONE, 4, 4, 0, repeats, MT_MODE_AGGREGATE);
    e.kind = MT_KIND_LINK;
    e.scope = MT_SCOPE_GPU;
    e.u.link.op = op;
    e.u.link.peer = peer;
    e.u.link.bytes = bytes;
    e.u.link.repeats = repeats;
    return e;
}

mt_err mt_check_link(const mt_experiment *e, mt_errinfo *ei)
{
    const mt_link *l = &e->u.link;
    const mt_chain *c = &e->chain[0];
    if ((int)l->op < 0 || l->op >= MT_LINK_OP_COUNT)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "link experiment of unknown op %d", (int)l->op);
    if (l->peer < MT_LINK_HOST || l->peer > MT_LINK_MAX_PEER)
        return mt_fail(ei, MT_ERR_INVALID_ARG,
                       "link experiment to peer %d (a GPU 0..%d, or %d for the host)",
                       (int)l->peer, MT_LINK_MAX_PEER, MT_LINK_HOST);
    if (e->n_chains != 1 || e->sm != -1 || e->set_carveout || e->order != MT_ORDER_SEQUENTIAL)
        return mt_fail(ei, MT_ERR_INVALID_ARG,
                       "link experiment must have one chain in sequential order, any SM, the "
                       "default carveout");
    if (l->op == MT_LINK_QUERY) {
        if (c->path != MT_PATH_NONE || e->mode != MT_MODE_FINE ||
            e->loads != MT_LINK_QUERY_FIELDS || e->warmup_laps != 0 || l->bytes || l->repeats)
            return mt_fail(ei, MT_ERR_INVALID_ARG,
                           "link query must have one `none` chain, fine mode, %u loads (its "
                           "fields), no warm-up, no bytes or repeats",
                           (unsigned)MT_LINK_QUERY_FIELDS);
        return MT_OK;
    }
    if (l->op == MT_LINK_CHASE) {
        if (c->path != MT_PATH_GLOBAL_CG || e->mode != MT_MODE_FINE || l->bytes || l->repeats)
            return mt_fail(ei, MT_ERR_INVALID_ARG,
                           "link chase must have one cg chain in fine mode, no bytes or repeats");
        return MT_OK;
    }
    if (c->path != MT_PATH_NONE || e->mode != MT_MODE_AGGREGATE || e->warmup_laps != 0 ||
        l->repeats < 1 || l->repeats > MT_LINK_MAX_REPEATS || e->loads != l->repeats)
        return mt_fail(ei, MT_ERR_INVALID_ARG,
                       "link %s must have one `none` chain, aggregate mode, no warm-up, "
                       "1..%u repeats (= loads)",
                       mt_link_op_name(l->op), MT_LINK_MAX_REPEATS);
    if (l->bytes < 4096 || l->bytes % 4096 || l->bytes > MT_LINK_MAX_BYTES ||
        l->bytes * l->repeats > MT_LINK_MAX_TOTAL)
        return mt_fail(ei, MT_ERR_INVALID_ARG,
                       "link %s of %llu B x %u: a multiple of 4096 B up to %llu B, at most %llu "
                       "B in all",
                       mt_link_op_name(l->op), (unsigned long long)l->bytes, l->repeats,
                       (unsigned long long)MT_LINK_MAX_BYTES, (unsigned long long)MT_LINK_MAX_TOTAL);
    return MT_OK;
}

uint64_t mt_hash_link(uint64_t h, const mt_experiment *e)
{
    h = mt_hash_mix(h, (uint64_t)e->u.link.op);
    h = mt_hash_mix(h, (uint64_t)(int64_t)e->u.link.peer);
    h = mt_hash_mix(h, e->u.link.bytes);
    return mt_hash_mix(h, e->u.link.repeats);
}

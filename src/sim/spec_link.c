/* The [link N] and [host_link] sections of a sim spec: this GPU's links
 * to the other GPUs of the node and to the host (docs/spec-format.md,
 * "Links").  The driver-side description (type, NVLink count and version
 * or PCIe generation and width, peer access, atomics, performance rank)
 * and the performance (latency of one load, bandwidth per direction). */
#include <string.h>

#include "spec_internal.h"

const char *const mt_sp_link_keys[] = {"type",           "links",         "version",
                                       "gen",            "width",         "peer_access",
                                       "atomics",        "perf_rank",     "latency",
                                       "noise",          "read_bandwidth", "write_bandwidth",
                                       "copy_in_bandwidth", "copy_out_bandwidth", NULL};

static const char *const type_words[] = {"pcie", "nvlink", NULL};
static const char *const yes_no[] = {"no", "yes", NULL};

/* A key that belongs to the other link type is an error, not ignored: a
 * spec saying `gen = 5` on an NVLink meant something it does not get. */
static mt_err refuse(pctx *c, const section *s, const char *key, const char *type)
{
    const kv *k = mt_sp_find(s, key);
    if (!k)
        return MT_OK;
    char t[48];
    return mt_sp_err(c, k->line, "%s: %s is not a key of a %s link", mt_sp_title(s, t, sizeof t),
                     key, type);
}

static mt_err read_bandwidth(pctx *c, const section *s, const char *key, double *out)
{
    return mt_sp_double(c, s, key, 1, MT_SIM_MIN_LINK_BANDWIDTH, MT_SIM_MAX_LINK_BANDWIDTH, out,
                        NULL);
}

mt_err mt_sp_read_link(pctx *c, const section *s, mt_sim_spec *o)
{
    mt_sim_link_spec *l = s->kind == SEC_HOST_LINK ? &o->host_link : &o->link[0];
    if (s->kind == SEC_LINK) {
        uint64_t peer = 0;
        mt_sp_parse_u64(s->name, &peer); /* checked by the header's parser */
        l = &o->link[peer];
    }
    memset(l, 0, sizeof *l);
    l->present = 1;
    l->line_no = s->line;
    l->peer_access = 1;
    mt_err err;
    int type = -1;
    if (!mt_sp_find(s, "type"))
        return mt_sp_missing(c, s, "type");
    if ((err = mt_sp_word(c, s, "type", type_words, &type)))
        return err;
    l->type = type == 0 ? MT_LINK_TYPE_PCIE : MT_LINK_TYPE_NVLINK;
    /* Native atomics: NVLink has them, PCIe peers do not (CUDA's
     * cudaDevP2PAttrNativeAtomicSupported on the GPUs of both). */
    l->atomics = l->type == MT_LINK_TYPE_NVLINK;
    if (l->type == MT_LINK_TYPE_NVLINK) {
        if ((err = refuse(c, s, "gen", "nvlink")) || (err = refuse(c, s, "width", "nvlink")) ||
            (err = mt_sp_u32(c, s, "links", 1, 1, MT_SIM_MAX_NVLINKS, &l->nvlinks, NULL)) ||
            (err = mt_sp_u32(c, s, "version", 1, 1, MT_SIM_MAX_NVLINK_VERSION, &l->nvlink_version,
                             NULL)))
            return err;
    } else {
        if ((err = refuse(c, s, "links", "pcie")) || (err = refuse(c, s, "version", "pcie")) ||
            (err = mt_sp_u32(c, s, "gen", 1, 1, MT_SIM_MAX_PCIE_GEN, &l->pcie_gen, NULL)) ||
            (err = mt_sp_u32(c, s, "width", 1, 1, MT_SIM_MAX_PCIE_WIDTH, &l->pcie_width, NULL)))
            return err;
        if (!mt_sp_is_pow2(l->pcie_width))
            return mt_sp_err(c, mt_sp_find(s, "width")->line,
                             "width = %u: PCIe links have 1, 2, 4, 8, 16 or 32 lanes",
                             l->pcie_width);
    }
    if (s->kind == SEC_HOST_LINK) {
        if ((err = refuse(c, s, "peer_access", "host")))
            return err;
    } else if ((err = mt_sp_word(c, s, "peer_access", yes_no, &l->peer_access))) {
        return err;
    }
    if ((err = mt_sp_word(c, s, "atomics", yes_no, &l->atomics)) ||
        (err = mt_sp_u32(c, s, "perf_rank", 0, 0, MT_SIM_MAX_PERF_RANK, &l->perf_rank, NULL)) ||
        (err = mt_sp_double(c, s, "latency", 1, MT_SIM_MIN_LINK_LATENCY, MT_SIM_MAX_LATENCY,
                            &l->latency, NULL)) ||
        (err = mt_sp_double(c, s, "noise", 0, 0, MT_SIM_MAX_LATENCY, &l->noise, NULL)) ||
        (err = read_bandwidth(c, s, "read_bandwidth", &l->read_gbps)) ||
        (err = read_bandwidth(c, s, "write_bandwidth", &l->write_gbps)) ||
        (err = read_bandwidth(c, s, "copy_in_bandwidth", &l->copy_in_gbps)) ||
        (err = read_bandwidth(c, s, "copy_out_bandwidth", &l->copy_out_gbps)))
        return err;
    /* The same bound as every level's noise: the chase's median then
     * stays well within the contract's 2 cycles. */
    if (l->noise > MT_SIM_NOISE_PER_LATENCY * l->latency)
        return mt_sp_err(c, mt_sp_find(s, "noise")->line,
                         "noise = %g is above latency / %g = %g cycles", l->noise,
                         1 / MT_SIM_NOISE_PER_LATENCY, MT_SIM_NOISE_PER_LATENCY * l->latency);
    return MT_OK;
}

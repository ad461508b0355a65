/* Truth of the links (probe_links.c), included by e2e_truth.c after its
 * helpers (F, complain, flagged).
 *
 * Object link_host is the spec's [host_link], link_gpuN its [link N]:
 * the type, NVLink count and version, PCIe generation and width, peer
 * access, performance rank and atomics exactly as the spec says; the
 * nominal bandwidth as the spec format documents it (computed here from
 * the vendors' per-link and per-lane figures, not from the probe's
 * table); the latency within LINK_TRUTH_CYCLES; each bandwidth within
 * LINK_TRUTH_SHARE of the spec's, and never trusted above the nominal
 * rate (impossible).  A link the spec does not describe is
 * "none"; one without peer access has no SM-driven measurement. */
#include "sim/link_model.h"

#define LINK_TRUTH_CYCLES 2.0
#define LINK_TRUTH_SHARE 0.03

static double link_truth_nominal(const mt_sim_link_spec *l)
{
    /* GB/s per direction: per NVLink of version 1..5, per PCIe lane of
     * generation 1..6 (after line coding). */
    static const double per_link[] = {0, 20, 25, 25, 25, 50};
    static const double per_lane[] = {0, 0.25, 0.5, 0.985, 1.969, 3.938, 7.563};
    if (l->type == MT_LINK_TYPE_NVLINK)
        return l->nvlinks * per_link[l->nvlink_version];
    return l->pcie_width * per_lane[l->pcie_gen];
}

static int link_text_ok(const mt_topology *t, const char *key, const char *name,
                        const char *want, char *msg, size_t cap)
{
    const mt_finding *f = F(t, key, name);
    if (f->kind == MT_FIND_TEXT && strcmp(f->text, want) == 0)
        return 0;
    if (g_mode == MT_TRUTH_CONTRACT && (f->kind == MT_FIND_NONE || f->confidence < MT_TRUTH_TRUSTED))
        return 0;
    return complain(msg, cap, "%s.%s: want \"%s\", got kind %d \"%s\"\n", key, name, want, f->kind,
                    f->text);
}

static int link_value_ok(const mt_topology *t, const char *key, const char *name, double want,
                         double tol, char *msg, size_t cap)
{
    const mt_finding *f = F(t, key, name);
    if (f->kind == MT_FIND_VALUE && fabs(f->value - want) <= tol)
        return 0;
    if (flagged(f, want))
        return 0;
    return complain(msg, cap, "%s.%s: want %.3f +- %.3f, got kind %d %.3f [%.3f, %.3f] (conf %.2f)\n",
                    key, name, want, tol, f->kind, f->value, f->lo, f->hi, f->confidence);
}

/* A bandwidth: its value as link_value_ok, and the rule that a rate above
 * the link's nominal one is impossible, so one measured there (the spec
 * draws rates up to 2000 GB/s whatever the type) is never trusted. */
static int link_rate_ok(const mt_topology *t, const char *key, const char *name, double want,
                        double nominal, char *msg, size_t cap)
{
    int bad = link_value_ok(t, key, name, want, LINK_TRUTH_SHARE * want, msg, cap);
    const mt_finding *f = F(t, key, name);
    if (f->kind == MT_FIND_VALUE && f->value > nominal && f->confidence >= MT_TRUTH_TRUSTED)
        bad += complain(msg, cap, "%s.%s: %.3f GB/s above the nominal %.3f at confidence %.2f\n",
                        key, name, f->value, nominal, f->confidence);
    return bad;
}

/* A measurement that must not be there (a link the SMs cannot reach). */
static int link_none_ok(const mt_topology *t, const char *key, const char *name, char *msg,
                        size_t cap)
{
    const mt_finding *f = F(t, key, name);
    if (f->kind == MT_FIND_NONE || (g_mode == MT_TRUTH_CONTRACT && f->confidence < MT_TRUTH_TRUSTED))
        return 0;
    return complain(msg, cap, "%s.%s: the link cannot be measured so, got kind %d %.3f\n", key,
                    name, f->kind, f->value);
}

static int link_one(const mt_sim_spec *s, const mt_topology *t, int32_t peer, char *msg,
                    size_t cap)
{
    char key[24];
    if (peer == MT_LINK_HOST)
        snprintf(key, sizeof key, "link_host");
    else
        snprintf(key, sizeof key, "link_gpu%d", (int)peer);
    const mt_object *o = mt_topology_object(t, key);
    if (!o || !o->probed)
        return 0;
    const mt_sim_link_spec *l = mt_sim_link_of(s, peer);
    if (!l)
        return link_text_ok(t, key, "type", "none", msg, cap) +
               link_none_ok(t, key, "latency", msg, cap) +
               link_none_ok(t, key, "copy_in_bandwidth", msg, cap);
    int bad = 0;
    char type[64];
    if (l->type == MT_LINK_TYPE_NVLINK) {
        snprintf(type, sizeof type, "NVLink %u x%u", l->nvlink_version, l->nvlinks);
        bad += link_value_ok(t, key, "nvlinks", l->nvlinks, 0, msg, cap);
        bad += link_value_ok(t, key, "nvlink_version", l->nvlink_version, 0, msg, cap);
    } else {
        snprintf(type, sizeof type, "PCIe Gen%u x%u", l->pcie_gen, l->pcie_width);
        bad += link_value_ok(t, key, "pcie_gen", l->pcie_gen, 0, msg, cap);
        bad += link_value_ok(t, key, "pcie_width", l->pcie_width, 0, msg, cap);
    }
    bad += link_text_ok(t, key, "type", type, msg, cap);
    bad += link_value_ok(t, key, "nominal_bandwidth", link_truth_nominal(l), 1e-9, msg, cap);
    if (peer != MT_LINK_HOST) {
        bad += link_text_ok(t, key, "peer_access", l->peer_access ? "yes" : "no", msg, cap);
        bad += link_text_ok(t, key, "native_atomics", l->atomics ? "yes" : "no", msg, cap);
        bad += link_value_ok(t, key, "perf_rank", l->perf_rank, 0, msg, cap);
    }
    double nominal = link_truth_nominal(l);
    if (l->peer_access) {
        bad += link_value_ok(t, key, "latency", l->latency, LINK_TRUTH_CYCLES, msg, cap);
        bad += link_rate_ok(t, key, "read_bandwidth", l->read_gbps, nominal, msg, cap);
        bad += link_rate_ok(t, key, "write_bandwidth", l->write_gbps, nominal, msg, cap);
    } else {
        bad += link_none_ok(t, key, "latency", msg, cap);
        bad += link_none_ok(t, key, "read_bandwidth", msg, cap);
        bad += link_none_ok(t, key, "write_bandwidth", msg, cap);
    }
    bad += link_rate_ok(t, key, "copy_in_bandwidth", l->copy_in_gbps, nominal, msg, cap);
    bad += link_rate_ok(t, key, "copy_out_bandwidth", l->copy_out_gbps, nominal, msg, cap);
    return bad;
}

static int link_check(const mt_sim_spec *s, const mt_topology *t, char *msg, size_t cap)
{
    int bad = link_one(s, t, MT_LINK_HOST, msg, cap);
    for (int32_t p = 0; p <= MT_LINK_MAX_PEER; p++)
        bad += link_one(s, t, p, msg, cap);
    return bad;
}

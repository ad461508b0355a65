/* Truth of the cluster findings (probe_dsm.c, probe_tma.c), included by
 * e2e_truth.c after its helpers (F, complain, flagged, exact, latency_ok).
 *
 * Judged only when the run measured them (the probes are opt-in:
 * --cluster).  With a [cluster] section: the largest cluster exactly, the
 * remote latency and the local one ([shared] latency) within 2 cycles, the
 * bandwidths within 3% (the "Done when"), and a copy's latency =
 * the spec's fixed cost plus the probe's smallest copy (1 KiB) at its
 * rate, within 2 cycles.  Without one, a claim of clusters or bulk copies
 * is wrong: the findings must say "not supported". */
#define CLUSTER_TRUTH_COPY 1024.0 /* probe_tma.c's smallest copy */

static int rate_ok(const mt_finding *f, double want, const char *what, char *msg, size_t cap)
{
    if (f->kind == MT_FIND_NONE || (f->kind == MT_FIND_VALUE && fabs(f->value - want) <= 0.03 * want) ||
        flagged(f, want))
        return 0;
    return complain(msg, cap, "%s: want %.2f B/clk within 3%%, got kind %d %.2f (conf %.2f)\n", what,
                    want, f->kind, f->value, f->confidence);
}

/* A finding that must say "not supported" (or be absent: no claim). */
static int unsupported_ok(const mt_finding *f, const char *what, char *msg, size_t cap)
{
    if (f->kind == MT_FIND_NONE || (f->kind == MT_FIND_TEXT && strcmp(f->text, "not supported") == 0))
        return 0;
    return complain(msg, cap, "%s: the device has no clusters, got kind %d '%s' %.2f\n", what,
                    f->kind, f->kind == MT_FIND_TEXT ? f->text : "", f->value);
}

static int measured_latency_ok(const mt_finding *f, double want, const char *what, char *msg,
                               size_t cap)
{
    return f->kind == MT_FIND_NONE ? 0 : latency_ok(f, want, what, msg, cap);
}

static int cluster_check(const mt_sim_spec *s, const mt_topology *t, char *msg, size_t cap)
{
    const mt_sim_cluster_spec *k = &s->cluster;
    int bad = 0;
    const mt_finding *mx = F(t, "dsm", "max_cluster_size");
    if (!k->present) {
        bad += unsupported_ok(mx, "dsm largest cluster", msg, cap);
        bad += unsupported_ok(F(t, "tma", "bulk_copy"), "tma bulk copies", msg, cap);
        return bad;
    }
    if (mx->kind != MT_FIND_NONE)
        bad += exact(mx, k->max_size, "dsm largest cluster", msg, cap);
    bad += measured_latency_ok(F(t, "dsm", "latency"), k->remote_latency, "dsm remote", msg, cap);
    bad += measured_latency_ok(F(t, "dsm", "latency_local"), s->shared.latency[0], "dsm local",
                               msg, cap);
    bad += rate_ok(F(t, "dsm", "bandwidth"), k->link_bw, "dsm bandwidth", msg, cap);
    bad += measured_latency_ok(F(t, "tma", "latency"),
                               k->tma_latency + CLUSTER_TRUTH_COPY / k->tma_bw, "tma 1 KiB copy",
                               msg, cap);
    bad += rate_ok(F(t, "tma", "bandwidth"), k->tma_bw, "tma bandwidth", msg, cap);
    bad += measured_latency_ok(F(t, "tma", "plain_latency"),
                               k->copy_latency + CLUSTER_TRUTH_COPY / k->copy_bw,
                               "plain 1 KiB copy", msg, cap);
    bad += rate_ok(F(t, "tma", "plain_bandwidth"), k->copy_bw, "plain copy bandwidth", msg, cap);
    return bad;
}

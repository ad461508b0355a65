/* Truth of the bandwidth probe (probe_bandwidth.c, --bandwidth): the sim's
 * throughput model (src/sim/stream_model.h) gives each level's best rate
 * and each level's loads in flight per SM.  Included by e2e_truth.c.
 * Tolerances (issue 10): bandwidth within 3% of the modelled ceiling (per
 * SM and in GB/s; the whole-L2 read and the read within a partition too),
 * MLP within one load (per GPU:
 * one load per SM). */
#include "sim/stream_model.h"

#define BW_TRUTH_TOL 0.03
#define MLP_TRUTH_TOL 1.0

static int bw_value_ok(const mt_finding *f, double want, double tol, const char *what, char *msg,
                       size_t cap)
{
    if (f->kind == MT_FIND_NONE || flagged(f, want))
        return 0;
    if (f->kind == MT_FIND_VALUE && fabs(f->value - want) <= tol)
        return 0;
    return complain(msg, cap, "%s: want %.2f +- %.2f, got kind %d %.2f [%.2f] (conf %.2f)\n", what,
                    want, tol, f->kind, f->value, f->lo, f->confidence);
}

/* Index of the cache nearest the SM serving lp (as the sim's stream
 * model picks it for data that fits), or -3 when none does. */
static int bw_cache_index(const mt_sim_spec *s, mt_sim_lpath lp)
{
    const mt_sim_cache_spec *cs = serving(s, lp, 0);
    return cs ? (int)(cs - s->cache) : -3;
}

static int bandwidth_check(const mt_sim_spec *s, const mt_topology *t, char *msg, size_t cap)
{
    if (!s->tp.present)
        return 0;
    static const struct {
        const char *key;
        int lp;       /* mt_sim_lpath, or -1 shared / -2 the L2 / -3 dram */
        mt_path path;
        int ops;      /* read only (1) or read, write, copy (3) */
    } lv[] = {
        {"l1d", MT_SIM_LP_L1D, MT_PATH_GLOBAL_CA, 3}, {"texture", MT_SIM_LP_TEX, MT_PATH_TEXTURE, 1},
        {"readonly", MT_SIM_LP_RO, MT_PATH_GLOBAL_NC, 1}, {"shared", -1, MT_PATH_SHARED, 3},
        {"l2", -2, MT_PATH_GLOBAL_CG, 3}, {"dram", -3, MT_PATH_GLOBAL_CG, 3},
    };
    static const char *const ops[] = {"read", "write", "copy"};
    int mhz = s->actual_clock_mhz ? s->actual_clock_mhz : s->clock_mhz;
    int bad = 0;
    for (size_t i = 0; i < sizeof lv / sizeof lv[0]; i++) {
        int level = lv[i].lp >= 0    ? bw_cache_index(s, (mt_sim_lpath)lv[i].lp)
                    : lv[i].lp == -1 ? MT_SIM_LEVEL_SHARED
                    : lv[i].lp == -2 ? s->l2
                                     : MT_SIM_LEVEL_DRAM;
        for (int op = 0; op < (lv[i].ops == 3 ? 3 : 1); op++) {
            char name[32], what[64];
            snprintf(name, sizeof name, "bw_%s", ops[op]);
            const mt_finding *f = F(t, lv[i].key, name);
            snprintf(what, sizeof what, "%s %s bandwidth", lv[i].key, ops[op]);
            if (level == -3) { /* no such cache: no claim may be made */
                if (f->kind != MT_FIND_NONE && !flagged(f, 0))
                    bad += complain(msg, cap, "%s: the spec has no such cache, got kind %d\n", what,
                                    f->kind);
                continue;
            }
            double want = mt_sim_stream_ceiling(s, level, lv[i].path, (mt_stream_op)op);
            bad += bw_value_ok(f, want, BW_TRUTH_TOL * want, what, msg, cap);
            snprintf(name, sizeof name, "gbps_%s", ops[op]);
            double gbps = want * s->sm_count * mhz / 1000.0;
            snprintf(what, sizeof what, "%s %s GB/s", lv[i].key, ops[op]);
            bad += bw_value_ok(F(t, lv[i].key, name), gbps, BW_TRUTH_TOL * gbps, what, msg, cap);
        }
    }
    /* MLP at the largest sweep point (chases double up to the block limit). */
    double kmax = 1;
    while (kmax * 2 <= s->max_threads_per_block)
        kmax *= 2;
    bad += bw_value_ok(F(t, "l2", "mlp"), mt_sim_mlp(s, s->l2, kmax), MLP_TRUTH_TOL, "l2 mlp", msg,
                       cap);
    bad += bw_value_ok(F(t, "dram", "mlp"), mt_sim_mlp(s, MT_SIM_LEVEL_DRAM, kmax), MLP_TRUTH_TOL,
                       "dram mlp", msg, cap);
    /* Per GPU (every SM chasing): within one load per SM; a lower bound
     * (the sweep's chases all in flight) must hold the truth. */
    double gpu_tol = MLP_TRUTH_TOL * s->sm_count;
    bad += bw_value_ok(F(t, "l2", "mlp_gpu"), mt_sim_mlp_gpu(s, s->l2, kmax), gpu_tol, "l2 mlp_gpu",
                       msg, cap);
    bad += bw_value_ok(F(t, "dram", "mlp_gpu"), mt_sim_mlp_gpu(s, MT_SIM_LEVEL_DRAM, kmax), gpu_tol,
                       "dram mlp_gpu", msg, cap);
    /* The whole-L2 read: the L2's read ceiling (every SM streams, each
     * partition serving the lines homed in it). */
    double whole = mt_sim_stream_ceiling(s, s->l2, MT_PATH_GLOBAL_CG, MT_STREAM_READ);
    bad += bw_value_ok(F(t, "l2", "bw_read_whole"), whole, BW_TRUTH_TOL * whole,
                       "l2 whole read bandwidth", msg, cap);
    double whole_gbps = whole * s->sm_count * mhz / 1000.0;
    bad += bw_value_ok(F(t, "l2", "gbps_read_whole"), whole_gbps, BW_TRUTH_TOL * whole_gbps,
                       "l2 whole read GB/s", msg, cap);
    /* The read within a partition: data that fits every partition, read
     * by a few SMs each line; the model merges no requests, so its truth
     * is the same read ceiling. */
    bad += bw_value_ok(F(t, "l2", "bw_read_partition"), whole, BW_TRUTH_TOL * whole,
                       "l2 read within a partition", msg, cap);
    bad += bw_value_ok(F(t, "l2", "gbps_read_partition"), whole_gbps, BW_TRUTH_TOL * whole_gbps,
                       "l2 read within a partition GB/s", msg, cap);
    return bad;
}

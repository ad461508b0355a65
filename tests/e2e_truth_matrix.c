/* Truth of the latency matrix (probe_matrix.c, opt-in --matrix), included
 * by e2e_truth.c after its helpers (F, complain, flagged, latency_ok).
 *
 * Cell (row, j) is a load whose data the row's level serves (the L1 on
 * ld.global.ca; the L2's near partition, i.e. SM 0's, its far partition
 * and DRAM on ld.global.cg) and whose translation misses the spec's first
 * j [tlb] levels and hits the next (or misses them all, j = n_tlbs): the
 * simulator adds the miss penalty of every level that missed
 * (docs/spec-format.md, "TLB levels").  Latencies within 2 cycles, as
 * every latency.  A cell the spec cannot produce (a level it does not
 * have, an L1 that does not cache global loads, a far partition of an
 * unpartitioned L2) must not carry a trusted number; "not measurable"
 * (text) is no claim. */

static int matrix_cell_false(const mt_finding *f, const char *what, char *msg, size_t cap)
{
    bool number = f->kind == MT_FIND_VALUE || f->kind == MT_FIND_RANGE ||
                  f->kind == MT_FIND_LOWER_BOUND;
    if (!number || (g_mode == MT_TRUTH_CONTRACT && f->confidence < MT_TRUTH_TRUSTED))
        return 0;
    return complain(msg, cap, "matrix %s: the spec has no such cell, got kind %d %.1f (conf %.2f)\n",
                    what, f->kind, f->value, f->confidence);
}

static int matrix_check(const mt_sim_spec *s, const mt_topology *t, const mt_truth_cache *truth,
                        char *msg, size_t cap)
{
    static const char *const rows[] = {"l1", "l2near", "l2far", "dram"};
    /* The matrix probe is opt-in: a run without it claims nothing. */
    if (!mt_topology_get(t, "gpu", "lat_l1_tlbmiss0"))
        return 0;
    const mt_sim_cache_spec *l2 = truth[MT_CACHE_L2].present ? truth[MT_CACHE_L2].cs : NULL;
    int bad = 0;
    for (int r = 0; r < 4; r++) {
        /* The row's latency, or NAN when the spec has no such level. */
        double lat = NAN;
        if (r == 0 && truth[MT_CACHE_L1D].present)
            lat = truth[MT_CACHE_L1D].latency;
        else if (r == 1 && l2)
            lat = l2->latency[MT_SIM_LP_CG];
        else if (r == 2 && l2 && l2->partitions > 1)
            lat = l2->far_latency[MT_SIM_LP_CG];
        else if (r == 3)
            lat = s->dram.latency[MT_SIM_LP_CG];
        double add = 0;
        for (int j = 0; j < 4; j++) {
            char name[MT_NAME_LEN], what[64];
            snprintf(name, sizeof name, "lat_%s_tlbmiss%d", rows[r], j);
            snprintf(what, sizeof what, "%s, %d TLB levels missed", rows[r], j);
            const mt_finding *f = F(t, "gpu", name);
            if (j > 0 && j <= s->n_tlbs)
                add += s->tlb[j - 1].miss_penalty;
            if (isnan(lat) || j > s->n_tlbs)
                bad += matrix_cell_false(f, what, msg, cap);
            else if (f->kind != MT_FIND_TEXT && f->kind != MT_FIND_NONE)
                bad += latency_ok(f, lat + add, what, msg, cap);
        }
    }
    return bad;
}

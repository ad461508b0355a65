/* Truth of the TLB levels (probe_tlb.c), included by e2e_truth.c after its
 * helpers (F, complain, flagged, exact, penalty_ok).
 *
 * Level d of the probe (tlb1..tlb3) is the spec's d-th [tlb] section:
 * entries and the first level's page exact, the reach (entries x page)
 * within one page, the miss penalty as every miss penalty (max(4 cycles,
 * 5%)).  The first two levels' ways (tlb2's since session 11).  A level the spec does not have has no entries at all: only a
 * lower bound (any) is true of it.  The first level's ways are the spec's
 * `ways` (its entries when fully associative, the default): a value
 * exactly, or a range or bound holding them (the probe stops at the
 * memory, the page or the stride's bits).  A level's sms_per_group is the
 * size of SM 0's group: the spec's sms_per_group, or every SM for `all`
 * (or a group of more than the GPU's SMs), exactly; not measured is no
 * claim (the test needs two chains within the limits). */

/* The SMs of SM 0's group of level tr on a GPU of sm_count SMs. */
static double tlb_group_truth(const mt_sim_tlb_spec *tr, int sm_count)
{
    return tr->sms_per_group && tr->sms_per_group < (uint32_t)sm_count ? (double)tr->sms_per_group
                                                                       : (double)sm_count;
}

static int tlb_ways_ok(const mt_finding *f, double want, const char *k, char *msg, size_t cap)
{
    if (f->kind == MT_FIND_NONE || (f->kind == MT_FIND_VALUE && f->value == want) ||
        (f->kind == MT_FIND_RANGE && f->lo <= want && want <= f->hi) ||
        (f->kind == MT_FIND_LOWER_BOUND && f->lo < want) || flagged(f, want))
        return 0;
    return complain(msg, cap, "%s ways: want %.0f, got kind %d %.0f "
                    "[%.0f, %.0f] (conf %.2f)\n", k, want, f->kind, f->value, f->lo, f->hi,
                    f->confidence);
}

static int tlb_check(const mt_sim_spec *s, const mt_topology *t, char *msg, size_t cap)
{
    static const char *const keys[] = {"tlb1", "tlb2", "tlb3"};
    int bad = 0;
    /* The tlb probe is opt-in (--tlb): a run without it claims nothing
     * about the TLBs, so there is nothing to judge. */
    const mt_object *first = mt_topology_object(t, keys[0]);
    if (!first || !first->probed)
        return 0;
    for (int d = 0; d < (int)(sizeof keys / sizeof *keys); d++) {
        const char *k = keys[d];
        const mt_finding *en = F(t, k, "entries"), *reach = F(t, k, "reach");
        const mt_finding *pen = F(t, k, "miss_penalty");
        const mt_finding *page = d == 0 ? F(t, k, "page") : NULL;
        const mt_finding *ways = d <= 1 ? F(t, k, "ways") : NULL;
        const mt_finding *group = F(t, k, "sms_per_group");
        char what[64];
        if (d >= s->n_tlbs) {
            /* No such level: a value or a range of anything is a false claim. */
            const mt_finding *claims[] = {en, reach, pen, page, ways, group};
            for (size_t i = 0; i < sizeof claims / sizeof *claims; i++) {
                const mt_finding *f = claims[i];
                if (!f || f->kind == MT_FIND_NONE || f->kind == MT_FIND_LOWER_BOUND)
                    continue;
                if (g_mode == MT_TRUTH_CONTRACT && f->confidence < MT_TRUTH_TRUSTED)
                    continue;
                bad += complain(msg, cap, "%s: the spec has %d TLB levels, got kind %d %.0f "
                                "(conf %.2f)\n", k, s->n_tlbs, f->kind, f->value, f->confidence);
            }
            continue;
        }
        const mt_sim_tlb_spec *tr = &s->tlb[d];
        if (en->kind == MT_FIND_NONE && g_mode == MT_TRUTH_EXACT)
            bad += complain(msg, cap, "%s: not measured\n", k);
        snprintf(what, sizeof what, "%s entries", k);
        if (en->kind != MT_FIND_NONE)
            bad += exact(en, tr->entries, what, msg, cap);
        if (page && page->kind != MT_FIND_NONE)
            bad += exact(page, (double)tr->page, "tlb1 page", msg, cap);
        double want = (double)tr->entries * (double)tr->page;
        if (reach->kind != MT_FIND_NONE && !flagged(reach, want) &&
            !(reach->kind == MT_FIND_VALUE && fabs(reach->value - want) <= (double)tr->page))
            bad += complain(msg, cap, "%s reach: want %.0f +- %llu, got kind %d %.0f\n", k, want,
                            (unsigned long long)tr->page, reach->kind, reach->value);
        if (pen->kind != MT_FIND_NONE)
            bad += penalty_ok(pen, tr->miss_penalty, k, msg, cap);
        if (ways)
            bad += tlb_ways_ok(ways, (double)(tr->ways ? tr->ways : tr->entries), k, msg, cap);
        snprintf(what, sizeof what, "%s sms_per_group", k);
        if (group->kind != MT_FIND_NONE)
            bad += exact(group, tlb_group_truth(tr, s->sm_count), what, msg, cap);
    }
    return bad;
}

/* A set-associative first level the one-set pattern reads (tlb_sets.c):
 * its entries, page, ways and group values at confidence >= MT_TRUTH_TRUSTED
 * and exact (the group measured on one set where 3/4 of the entries per SM
 * do not fit the L2's share, since session 11; test_e2e_tlb.c and e2e_check
 * --tlb-exact, for specs whose sets' span a chain's stride reaches). */
int mt_truth_tlb_first_exact(const mt_sim_spec *s, const mt_topology *t, char *msg, size_t cap)
{
    if (!s->n_tlbs)
        return complain(msg, cap, "tlb1: the spec has no TLB level to read exactly\n");
    const mt_sim_tlb_spec *tr = &s->tlb[0];
    const char *const names[] = {"entries", "page", "ways"};
    const double want[] = {(double)tr->entries, (double)tr->page, (double)tr->ways};
    int bad = 0;
    for (int i = 0; i < 3; i++) {
        const mt_finding *f = F(t, "tlb1", names[i]);
        if (!f || f->kind != MT_FIND_VALUE || f->value != want[i] ||
            f->confidence < MT_TRUTH_TRUSTED)
            bad += complain(msg, cap, "tlb1 %s: want %.0f exactly, got kind %d %.0f (conf %.2f)\n",
                            names[i], want[i], f ? (int)f->kind : -1, f ? f->value : 0.0,
                            f ? f->confidence : 0.0);
    }
    const mt_finding *g = F(t, "tlb1", "sms_per_group");
    double grp = tlb_group_truth(tr, s->sm_count);
    if (!g || g->kind != MT_FIND_VALUE || g->value != grp || g->confidence < MT_TRUTH_TRUSTED)
        bad += complain(msg, cap, "tlb1 sms_per_group: want %.0f, got kind %d %.0f\n", grp,
                        g ? (int)g->kind : -1, g ? g->value : 0.0);
    return bad;
}

/* Truth of the L2 near/far map (probe_l2_map.c), included by e2e_truth.c
 * after its helpers (F, complain, flagged, latency_ok).
 *
 * In the simulator SM s is attached to partition partition_of_sm(s) and a
 * line is near when its home (a hash of its address) is that partition:
 * SMs of one partition see the same near lines, SMs of two see disjoint
 * ones, and 1/P of the lines are near for every SM.  So the map's groups
 * are the partitions of the measured SMs up to relabelling, and the near
 * share is 1/P within the binomial error of the chain's lines. */

/* Near share: 1/P within this.  The chain has 432 lines, a binomial error
 * of at most 0.024 (P = 2): four of them. */
#define MAP_TRUTH_SHARE_TOL 0.1
/* Far minus near: two latencies of 2 cycles each (latency_ok). */
#define MAP_TRUTH_PENALTY_TOL 4.0

/* The map text (probe_l2_map.c: one label per SM, or "label*count" runs)
 * as labels; returns how many SMs it names (a cut map: the SMs before the
 * cut), -1 when it cannot be read. */
static int l2map_labels(const char *text, char *out, int cap)
{
    int n = 0;
    if (!strchr(text, '*')) {
        for (; *text && n < cap; text++)
            out[n++] = *text;
        return n;
    }
    for (const char *p = text; *p;) {
        while (*p == ' ')
            p++;
        if (!*p || *p == '.')
            break;
        char label = *p++;
        if (*p++ != '*')
            return -1;
        char *end;
        long run = strtol(p, &end, 10);
        if (end == p || run < 1)
            return -1;
        for (long i = 0; i < run && n < cap; i++)
            out[n++] = label;
        p = end;
    }
    return n;
}

static int l2map_check(const mt_sim_spec *s, const mt_topology *t, char *msg, size_t cap)
{
    const mt_finding *map = F(t, "l2", "sm_map");
    if (s->l2 < 0 || (map->kind == MT_FIND_NONE && g_mode == MT_TRUTH_CONTRACT))
        return 0;
    if (map->kind != MT_FIND_TEXT)
        return complain(msg, cap, "l2 sm_map: want a map, got kind %d\n", map->kind);
    const mt_sim_cache_spec *l2 = &s->cache[s->l2];
    unsigned parts = l2->partitions > 1 ? l2->partitions : 1;
    int bad = 0;
    static char label[65536];
    int n = l2map_labels(map->text, label, (int)sizeof label);
    if (n < 1)
        return complain(msg, cap, "l2 sm_map: cannot read '%s'\n", map->text);
    /* Relabelling: one label per partition and one partition per label. */
    char label_of[MT_SIM_MAX_PARTITIONS] = {0};
    int part_of[256];
    for (int i = 0; i < 256; i++)
        part_of[i] = -1;
    int groups = 0;
    bool same = true;
    for (int sm = 0; sm < n; sm++) {
        uint32_t p = parts > 1 ? mt_sim_partition_of_sm(l2, sm) : 0;
        unsigned char c = (unsigned char)label[sm];
        if (!label_of[p]) {
            label_of[p] = (char)c;
            groups++;
        }
        if (part_of[c] < 0)
            part_of[c] = (int)p;
        same = same && label_of[p] == (char)c && part_of[c] == (int)p;
    }
    if (!same && !(g_mode == MT_TRUTH_CONTRACT && map->confidence < MT_TRUTH_TRUSTED))
        bad += complain(msg, cap, "l2 sm_map: '%.80s' is not the SMs' partitions relabelled\n",
                        map->text);
    bad += exact(F(t, "l2", "map_groups"), groups, "l2 map groups", msg, cap);
    const mt_finding *share = F(t, "l2", "near_share");
    double want = 1.0 / parts;
    if (!(share->kind == MT_FIND_VALUE && fabs(share->value - want) <= MAP_TRUTH_SHARE_TOL) &&
        !flagged(share, want))
        bad += complain(msg, cap, "l2 near share: want %.3f +- %.2f, got kind %d %.3f (conf %.2f)\n",
                        want, MAP_TRUTH_SHARE_TOL, share->kind, share->value, share->confidence);
    const mt_finding *pen = F(t, "l2", "far_penalty");
    if (parts > 1) {
        double gap = l2->far_latency[MT_SIM_LP_CG] - l2->latency[MT_SIM_LP_CG];
        if (!(pen->kind == MT_FIND_VALUE && fabs(pen->value - gap) <= MAP_TRUTH_PENALTY_TOL) &&
            !flagged(pen, gap))
            bad += complain(msg, cap, "l2 far penalty: want %.1f +- %.0f, got kind %d %.1f (conf %.2f)\n",
                            gap, MAP_TRUTH_PENALTY_TOL, pen->kind, pen->value, pen->confidence);
    } else if (pen->kind == MT_FIND_VALUE &&
               (pen->confidence >= MT_TRUTH_TRUSTED || g_mode == MT_TRUTH_EXACT)) {
        bad += complain(msg, cap, "l2 far penalty %.1f (conf %.2f) but the L2 has no partitions\n",
                        pen->value, pen->confidence);
    }
    /* Every group's near and far latency (the families, one per label). */
    for (int g = 0; g < groups; g++) {
        char name[MT_NAME_LEN], what[48];
        char c = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ+/"[g % 64];
        snprintf(name, sizeof name, "near_latency_g%c", c);
        const mt_finding *nl = mt_topology_get(t, "l2", name);
        snprintf(what, sizeof what, "l2 map group %c near", c);
        if (nl)
            bad += latency_ok(nl, l2->latency[MT_SIM_LP_CG], what, msg, cap);
        snprintf(name, sizeof name, "far_latency_g%c", c);
        const mt_finding *fl = mt_topology_get(t, "l2", name);
        snprintf(what, sizeof what, "l2 map group %c far", c);
        if (fl && parts > 1)
            bad += latency_ok(fl, l2->far_latency[MT_SIM_LP_CG], what, msg, cap);
        else if (fl && fl->kind == MT_FIND_VALUE && fl->confidence >= MT_TRUTH_TRUSTED)
            bad += complain(msg, cap, "%s: a far latency but the L2 has no partitions\n", what);
    }
    return bad;
}

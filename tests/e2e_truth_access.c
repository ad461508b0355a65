/* Truth of the global access granularity (probe_access.c), included by
 * e2e_truth.c after its helpers (F, complain, flagged).
 *
 * Per path (ca on object l1d, cg on l2) the spec's model (access_model.h)
 * is reduced to what latencies can show: with a costing sector and a
 * costing pass that are different units, a sector of the path's first
 * cache and a pass (its line, or a bank wavefront of [shared]'s banks);
 * with one costing unit only, that unit as the pass and no sector term
 * (cost 0); with none, no pass (every model fits: only the zero costs are
 * judged); with tag groups, the line as the sector, counted in the spec's
 * groups.  A trusted unit (and group) must be that unit, a trusted cost
 * (the partial warp's too) within
 * ACCESS_TRUTH_CYCLES of it, the intercept within 2 cycles of the cache's
 * latency for the path. */
#define ACCESS_TRUTH_CYCLES 1.0

typedef struct {
    uint32_t sector;     /* 0: no sector term */
    uint32_t group;      /* sectors counted in groups of this many */
    uint32_t line, row;  /* the pass: a line, or (line 0) a bank row; both 0: none */
    double sector_cost, pass_cost, partial_cost;
} access_truth;

static access_truth access_truth_of(const mt_sim_spec *s, int cg, const mt_sim_cache_spec *cs)
{
    const mt_sim_access_spec *a = &s->access;
    double sc = a->sector_cycles[cg], pc = a->line_cycles[cg];
    int banks = a->bank_passes[cg];
    access_truth t = {0, 1, 0, 0, 0, 0, a->partial_cycles[cg]};
    /* Tag groups (spec rule: bank passes that cost, no sector cost): the
     * fit's sector term is the line, counted in groups. */
    if (a->tag_cycles[cg] > 0) {
        t.sector = cs->line;
        t.group = a->tag_group[cg];
        t.sector_cost = a->tag_cycles[cg];
        t.row = s->banks.count * 4;
        t.pass_cost = pc;
        return t;
    }
    /* Sector and line of one size count the same blocks: one unit. */
    if (!banks && cs->sector == cs->line) {
        pc += sc;
        sc = 0;
    }
    if (sc > 0 && pc > 0) {
        t.sector = cs->sector;
        t.sector_cost = sc;
    }
    if (pc > 0) {
        t.line = banks ? 0 : cs->line;
        t.row = banks ? s->banks.count * 4 : 0;
        t.pass_cost = pc;
    } else if (sc > 0) {
        t.line = cs->sector; /* the sector is the only costing unit */
        t.pass_cost = sc;
    }
    return t;
}

static bool trusted_claim(const mt_finding *f)
{
    return g_mode != MT_TRUTH_CONTRACT ||
           (f->kind != MT_FIND_NONE && f->confidence >= MT_TRUTH_TRUSTED);
}

static int access_path_check(const mt_sim_spec *s, const mt_topology *t, int cg, char *msg,
                             size_t cap)
{
    const char *key = cg ? "l2" : "l1d";
    mt_path path = cg ? MT_PATH_GLOBAL_CG : MT_PATH_GLOBAL_CA;
    const mt_finding *rule = F(t, key, "coalescing");
    if (rule->kind == MT_FIND_NONE)
        return 0; /* opt-in (--access): not run */
    int ci = mt_sim_access_cache(s, path);
    if (ci < 0)
        return 0;
    const mt_sim_cache_spec *cs = &s->cache[ci];
    access_truth w = access_truth_of(s, cg, cs);
    int bad = 0;
    char pass[64] = "";
    if (w.line)
        snprintf(pass, sizeof pass, "%u B line", w.line);
    else if (w.row)
        snprintf(pass, sizeof pass, "bank wavefront (%u banks of 4 B)", w.row / 4);
    /* A unit the spec's costs do not show must be reported absent. */
    const mt_finding *f = F(t, key, "access_sector");
    if (trusted_claim(f) && !(f->kind == MT_FIND_VALUE && w.sector && f->value == w.sector) &&
        !(f->kind == MT_FIND_ABSENT && !w.sector))
        bad += complain(msg, cap, "%s access_sector: want %u (0: none), got kind %d %.0f "
                        "(conf %.2f)\n", key, w.sector, f->kind, f->value, f->confidence);
    f = F(t, key, "access_pass");
    if (trusted_claim(f) && !(f->kind == MT_FIND_TEXT && pass[0] && !strcmp(f->text, pass)))
        bad += complain(msg, cap, "%s access_pass: want \"%s\", got \"%s\" (conf %.2f)\n", key,
                        pass, f->text, f->confidence);
    if (trusted_claim(rule) && !(pass[0] && strstr(rule->text, pass)))
        bad += complain(msg, cap, "%s coalescing: want a pass of a %s, got \"%s\" (conf %.2f)\n",
                        key, pass, rule->text, rule->confidence);
    f = F(t, key, "access_line");
    if (trusted_claim(f) && !(f->kind == MT_FIND_VALUE && w.line && f->value == w.line) &&
        !(f->kind == MT_FIND_ABSENT && w.row))
        bad += complain(msg, cap, "%s access_line: want %u (0: not a line), got kind %d %.0f "
                        "(conf %.2f)\n", key, w.line, f->kind, f->value, f->confidence);
    f = F(t, key, "access_sector_group");
    /* Reported with a sector term only: none without one is right. */
    if (trusted_claim(f) && !(f->kind == MT_FIND_VALUE && w.sector && f->value == w.group) &&
        !(f->kind == MT_FIND_NONE && !w.sector))
        bad += complain(msg, cap, "%s access_sector_group: want %u (sector %u), got kind %d %.0f "
                        "(conf %.2f)\n", key, w.group, w.sector, f->kind, f->value,
                        f->confidence);
    static const char *const costs[3] = {"access_sector_cycles", "access_pass_cycles",
                                         "access_partial_cycles"};
    double want[3] = {w.sector_cost, w.pass_cost, w.partial_cost};
    for (int i = 0; i < 3; i++) {
        f = F(t, key, costs[i]);
        if (trusted_claim(f) &&
            !(f->kind == MT_FIND_VALUE && fabs(f->value - want[i]) <= ACCESS_TRUTH_CYCLES))
            bad += complain(msg, cap, "%s %s: want %.2f +- %.1f, got kind %d %.2f (conf %.2f)\n",
                            key, costs[i], want[i], ACCESS_TRUTH_CYCLES, f->kind, f->value,
                            f->confidence);
    }
    char what[32];
    snprintf(what, sizeof what, "%s access", key);
    bad += latency_ok(F(t, key, "access_latency"), cs->latency[mt_sim_lpath_of(path)], what, msg,
                      cap);
    return bad;
}

static int access_check(const mt_sim_spec *s, const mt_topology *t, char *msg, size_t cap)
{
    return access_path_check(s, t, 0, msg, cap) + access_path_check(s, t, 1, msg, cap);
}

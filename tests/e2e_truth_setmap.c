/* Truth of the per-set capacity map (probe_setmap.c, --geometry), included
 * by e2e_truth.c after its helpers (F, complain, flagged).
 *
 * At the default carveout and at each carveout the run mapped
 * (l1d.set_ways_at_carveout_<smem>): the histogram of usable ways is the
 * spec's exactly (mt_sim_set_ways over every set: it does not depend on how
 * the sets are labelled); the short sets are as many as the spec's, and
 * under a modulo index (where the probe's labels are the spec's) exactly
 * the labels its text names; the capacity is the sum of the sets' ways x
 * line, exact when every set was mapped, else within 3%. */

/* The spec's set count at carveout smem: a unified L1 whose carveout takes
 * ways keeps all the array's sets. */
static uint64_t setmap_spec_sets(const mt_sim_cache_spec *cs, uint32_t smem)
{
    return cs->unified && cs->carveout_ways ? cs->unified / cs->line / cs->ways
                                            : mt_sim_cache_size(cs, smem) / cs->line / cs->ways;
}

/* The spec's histogram in the probe's words ("128 sets x 4 ways, 128 sets
 * x 3 ways"), the number of short sets and the capacity in bytes. */
static void setmap_truth(const mt_sim_cache_spec *cs, uint32_t smem, char *hist, size_t cap,
                         uint64_t *n_short, double *bytes)
{
    uint64_t sets = setmap_spec_sets(cs, smem);
    uint64_t count[MT_SIM_MAX_WAYS + 1] = {0};
    uint32_t top = 0;
    *bytes = 0;
    for (uint64_t t = 0; t < sets; t++) {
        uint32_t u = mt_sim_set_ways(cs, smem, t);
        count[u]++;
        top = u > top ? u : top;
        *bytes += (double)u * cs->line;
    }
    *n_short = sets - count[top];
    size_t at = 0;
    hist[0] = '\0';
    for (uint32_t u = top + 1; u-- > 0 && at < cap;)
        if (count[u])
            at += (size_t)snprintf(hist + at, cap - at, "%s%llu sets x %u ways", at ? ", " : "",
                                   (unsigned long long)count[u], u);
}

/* A sampled map ("sample of N of S sets: A sets x W ways, ..."): the sample
 * has the spec's set count, its counts add up to N, and every way count it
 * names is one some set of the spec has (the truth's histogram names it). */
static bool setmap_sample_ok(const char *got, const char *truth_hist, uint64_t sets)
{
    unsigned n;
    unsigned long long s;
    int used = 0;
    if (sscanf(got, "sample of %u of %llu sets: %n", &n, &s, &used) != 2 || !used || s != sets)
        return false;
    const char *p = got + used;
    unsigned long long total = 0;
    while (*p) {
        unsigned long long a;
        unsigned w;
        int len = 0;
        if (sscanf(p, "%llu sets x %u ways%n", &a, &w, &len) != 2 || !len)
            return false;
        char named[48];
        snprintf(named, sizeof named, " sets x %u ways", w);
        const char *q = truth_hist;
        bool found = false;
        while ((q = strstr(q, named)) != NULL && !found) {
            found = q[strlen(named)] == '\0' || q[strlen(named)] == ',';
            q++;
        }
        if (!found)
            return false;
        total += a;
        p += len;
        if (*p == ',')
            p += 2;
    }
    return total == n;
}

/* Whether label t is among those "labels with b7=1 b0^b3=0" names. */
static bool setmap_in_coset(const char *eqs, uint64_t t)
{
    const char *p = eqs;
    while (*p) {
        uint64_t mask = 0;
        while (*p == 'b' || *p == '^') {
            if (*p == '^')
                p++;
            char *end;
            unsigned long b = strtoul(p + 1, &end, 10);
            mask |= 1ull << (b & 63);
            p = end;
        }
        if (*p != '=')
            return false;
        unsigned rhs = (unsigned)(p[1] - '0');
        if ((unsigned)__builtin_parityll(t & mask) != rhs)
            return false;
        p += 2;
        while (*p == ' ')
            p++;
    }
    return true;
}

static int setmap_one(const mt_sim_cache_spec *cs, uint32_t smem, const mt_topology *t,
                      const char *suffix, char *msg, size_t cap)
{
    char name[64];
    snprintf(name, sizeof name, "set_ways%s", suffix);
    const mt_finding *w = F(t, "l1d", name);
    snprintf(name, sizeof name, "short_sets%s", suffix);
    const mt_finding *sh = F(t, "l1d", name);
    snprintf(name, sizeof name, "set_capacity%s", suffix);
    const mt_finding *capf = F(t, "l1d", name);
    char hist[256];
    uint64_t n_short;
    double bytes;
    setmap_truth(cs, smem, hist, sizeof hist, &n_short, &bytes);
    bool trusted = w->confidence >= MT_TRUTH_TRUSTED || g_mode == MT_TRUTH_EXACT;
    int bad = 0;
    uint64_t spec_sets = setmap_spec_sets(cs, smem);
    bool sampled = strncmp(w->text, "sample of ", 10) == 0;
    if (w->kind == MT_FIND_TEXT && trusted && sampled && !setmap_sample_ok(w->text, hist, spec_sets))
        bad += complain(msg, cap, "l1d set_ways%s: a sample of \"%s\" wanted, got \"%s\" (conf "
                        "%.2f)\n", suffix, hist, w->text, w->confidence);
    if (w->kind == MT_FIND_TEXT && trusted && !sampled && strcmp(w->text, hist) != 0)
        bad += complain(msg, cap, "l1d set_ways%s: want \"%s\", got \"%s\" (conf %.2f)\n", suffix,
                        hist, w->text, w->confidence);
    if (sh->kind == MT_FIND_TEXT && (sh->confidence >= MT_TRUTH_TRUSTED || g_mode == MT_TRUTH_EXACT)) {
        unsigned long long got = strcmp(sh->text, "none") == 0 ? 0 : strtoull(sh->text, NULL, 10);
        const char *eqs = strstr(sh->text, "labels with ");
        unsigned long long lo, hi;
        /* A sample names the short sets it saw: at most the spec's. */
        bool of_sample = strstr(sh->text, "of those sampled") != NULL;
        if (of_sample ? got > n_short : got != n_short)
            bad += complain(msg, cap, "l1d short_sets%s: want %llu sets, got \"%s\"\n", suffix,
                            (unsigned long long)n_short, sh->text);
        else if (cs->index == MT_SIM_INDEX_MODULO && n_short) {
            uint64_t sets = cs->unified / cs->line / cs->ways;
            bool range = sscanf(sh->text, "%*u sets: labels %llu-%llu", &lo, &hi) == 2;
            for (uint64_t x = 0; x < sets && (eqs || range); x++) {
                bool claimed = eqs ? setmap_in_coset(eqs + 12, x) : lo <= x && x <= hi;
                bool short_set = mt_sim_set_ways(cs, smem, x) < mt_sim_set_ways(cs, smem, 0);
                if (claimed != short_set) {
                    bad += complain(msg, cap, "l1d short_sets%s: \"%s\" is wrong about set %llu\n",
                                    suffix, sh->text, (unsigned long long)x);
                    break;
                }
            }
        }
    }
    if (capf->kind == MT_FIND_VALUE && (capf->confidence >= MT_TRUTH_TRUSTED || g_mode == MT_TRUTH_EXACT) &&
        fabs(capf->value - bytes) > (strstr(capf->note, "sample") ? 0.03 * bytes : 0.5))
        bad += complain(msg, cap, "l1d set_capacity%s: want %.0f B, got %.0f B\n", suffix, bytes,
                        capf->value);
    return bad;
}

static int setmap_check(const mt_sim_spec *s, const mt_truth_cache *l1, const mt_topology *t,
                        char *msg, size_t cap)
{
    if (!l1->present || !l1->cs || !F(t, "l1d", "set_ways")->kind)
        return 0;
    int bad = setmap_one(l1->cs, s->carveout_smem, t, "", msg, cap);
    for (int i = 0; i < s->n_carveouts; i++) {
        char suffix[40];
        snprintf(suffix, sizeof suffix, "_at_carveout_%uKiB", s->carveouts[i] / 1024);
        bad += setmap_one(l1->cs, s->carveouts[i], t, suffix, msg, cap);
    }
    return bad;
}

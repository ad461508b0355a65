/* Truth of the instruction-cache levels (probe_icache.c), included by
 * e2e_truth.c after its helpers (F, complain, flagged).
 *
 * Level d of the probe (icache1..icache4) is the spec's d-th [icache]
 * section: its size range holds the spec's size, or (the last level the
 * sweep saw) its lower bound is below it; its cycles per instruction
 * within max(ICACHE_TRUTH_CPI, 3%) of the spec's latency, which the
 * median of nine laps of at least 64 instructions gives with the spec
 * format's largest noise (latency / 8 per instruction).  A level the spec
 * does not have is a false claim. */
#define ICACHE_TRUTH_CPI 0.1
/* The probe's largest block (probe_icache.c's ICACHE_TOP_BYTES): levels
 * after one that holds it are never seen, so only the exact mode's "not
 * measured" spares them. */
#define ICACHE_TRUTH_TOP (512u << 10)

static int icache_check(const mt_sim_spec *s, const mt_topology *t, char *msg, size_t cap)
{
    static const char *const keys[] = {"icache1", "icache2", "icache3", "icache4"};
    /* Opt-in (--icache): a run without it claims nothing to judge. */
    const mt_object *first = mt_topology_object(t, keys[0]);
    if (!first || !first->probed)
        return 0;
    int bad = 0;
    for (int d = 0; d < (int)(sizeof keys / sizeof *keys); d++) {
        const mt_finding *size = F(t, keys[d], "size"), *lat = F(t, keys[d], "latency");
        if (d >= s->n_icaches) {
            const mt_finding *claims[] = {size, lat};
            for (size_t i = 0; i < 2; i++)
                if (claims[i]->kind != MT_FIND_NONE &&
                    !(g_mode == MT_TRUTH_CONTRACT && claims[i]->confidence < MT_TRUTH_TRUSTED))
                    bad += complain(msg, cap, "%s: the spec has %d icache levels, got kind %d "
                                    "%.0f (conf %.2f)\n", keys[d], s->n_icaches, claims[i]->kind,
                                    claims[i]->value, claims[i]->confidence);
            continue;
        }
        const mt_sim_icache_spec *q = &s->icache[d];
        bool seen = d == 0 || s->icache[d - 1].size < ICACHE_TRUTH_TOP;
        if (g_mode == MT_TRUTH_EXACT && seen &&
            (size->kind == MT_FIND_NONE || lat->kind == MT_FIND_NONE)) {
            bad += complain(msg, cap, "%s: not measured\n", keys[d]);
            continue;
        }
        double want = (double)q->size;
        bool size_right = (size->kind == MT_FIND_RANGE && size->lo <= want && want <= size->hi) ||
                          (size->kind == MT_FIND_LOWER_BOUND && size->lo < want);
        if (size->kind != MT_FIND_NONE && !size_right && !flagged(size, want))
            bad += complain(msg, cap, "%s size: want %.0f, got kind %d %.0f [%.0f, %.0f]\n",
                            keys[d], want, size->kind, size->value, size->lo, size->hi);
        double tol = fmax(ICACHE_TRUTH_CPI, 0.03 * q->latency);
        if (lat->kind != MT_FIND_NONE &&
            !(lat->kind == MT_FIND_VALUE && fabs(lat->value - q->latency) <= tol) &&
            !flagged(lat, q->latency))
            bad += complain(msg, cap, "%s cycles per instruction: want %.2f +- %.2f, got kind %d "
                            "%.3f (conf %.2f)\n", keys[d], q->latency, tol, lat->kind, lat->value,
                            lat->confidence);
    }
    return bad;
}

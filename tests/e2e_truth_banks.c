/* Truth of the shared-memory bank findings (probe_banks.c), included by
 * e2e_truth.c after its helpers (F, complain, flagged, exact, latency_ok).
 *
 * The spec's [shared] bank keys give the answers directly: the count and
 * width exactly, broadcast as "yes"/"no", and the cost of a conflict
 * within 2 cycles at every degree 1..32 (the "Done when"): the
 * probe's cost per way times the 31 extra ways of a 32-way conflict, and
 * the 32-way latency itself.  The passes of contiguous 64- and 128-bit
 * warp loads come from the simulator's own bank model (src/sim/banks.h). */

/* Passes of 32 threads reading consecutive words of word_bytes. */
static uint32_t banks_truth_passes(const mt_sim_bank_spec *b, uint32_t word_bytes)
{
    mt_banks x = {.word_bytes = word_bytes, .n_threads = 32};
    for (uint32_t t = 0; t < 32; t++)
        x.word_index[t] = t;
    return mt_sim_bank_wavefronts(b, &x);
}

static int banks_check(const mt_sim_spec *s, const mt_topology *t, char *msg, size_t cap)
{
    const mt_sim_bank_spec *b = &s->banks;
    int bad = 0;
    bad += exact(F(t, "shared", "banks"), b->count, "shared banks", msg, cap);
    bad += exact(F(t, "shared", "bank_width"), b->width, "shared bank width", msg, cap);
    const mt_finding *cc = F(t, "shared", "conflict_cycles");
    double want = b->conflict_cycles;
    if (!((cc->kind == MT_FIND_VALUE && fabs(cc->value - want) * 31 <= 2.0) || flagged(cc, want)))
        bad += complain(msg, cap, "shared conflict cost: want %.3f per way (31 ways within 2 "
                        "cycles), got kind %d %.3f (conf %.2f)\n",
                        want, cc->kind, cc->value, cc->confidence);
    bad += latency_ok(F(t, "shared", "latency_32way"), s->shared.latency[0] + 31 * want,
                      "shared 32-way conflict", msg, cap);
    const mt_finding *bc = F(t, "shared", "broadcast");
    const char *bwant = b->broadcast ? "yes" : "no";
    bool bdoubt = g_mode == MT_TRUTH_CONTRACT &&
                  (bc->kind == MT_FIND_NONE || bc->confidence < MT_TRUTH_TRUSTED);
    if (!bdoubt && !(bc->kind == MT_FIND_TEXT && strcmp(bc->text, bwant) == 0))
        bad += complain(msg, cap, "shared broadcast: want %s, got kind %d '%s'\n", bwant, bc->kind,
                        bc->kind == MT_FIND_TEXT ? bc->text : "");
    bad += exact(F(t, "shared", "passes_64bit"), banks_truth_passes(b, 8), "shared 64-bit passes",
                 msg, cap);
    bad += exact(F(t, "shared", "passes_128bit"), banks_truth_passes(b, 16),
                 "shared 128-bit passes", msg, cap);
    return bad;
}

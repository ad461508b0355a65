/* Ground truth of a sim spec and the comparison with what the probes found
 * (included by the e2e tests; see e2e_truth.h). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2e_truth.h"
#include "analysis/gf2.h"
#include "probes/geometry_hash.h"
#include "analysis/miss_profile.h"
#include "probes/l1_profile.h"
#include "sim/engine.h"
#include "sim/sim.h"

static const mt_sim_cache_spec *serving(const mt_sim_spec *s, mt_sim_lpath lp, int nth)
{
    /* nth = 0: closest to the SM, 1: the next level (constant L1.5). */
    const mt_sim_cache_spec *found[MT_SIM_MAX_CACHES];
    int n = 0;
    for (int i = 0; i < s->n_caches; i++)
        if (!s->cache[i].is_l2 && (s->cache[i].serves & (1u << lp)))
            found[n++] = &s->cache[i];
    for (int i = 0; i < n; i++) /* sort by level */
        for (int j = i + 1; j < n; j++)
            if (found[j]->level < found[i]->level) {
                const mt_sim_cache_spec *t = found[i];
                found[i] = found[j];
                found[j] = t;
            }
    return nth < n ? found[nth] : NULL;
}

static void fill(mt_truth_cache *t, const mt_sim_cache_spec *cs, mt_sim_lpath lp)
{
    memset(t, 0, sizeof *t);
    if (!cs)
        return;
    t->present = true;
    t->cs = cs;
    t->size = cs->size; /* a unified L1: its size at the default carveout (the parser sets it) */
    t->line = cs->line;
    t->sector = cs->fill > cs->sector ? cs->fill : cs->sector;
    t->latency = cs->latency[lp];
    t->lru_modulo = cs->repl == MT_SIM_REPL_LRU && (cs->index == MT_SIM_INDEX_MODULO || cs->fully_assoc);
    t->slices = cs->slices ? cs->slices : 1;
}

void mt_truth_from_spec(const mt_sim_spec *s, mt_truth_cache *truth, uint32_t *shared)
{
    fill(&truth[MT_CACHE_L1D], serving(s, MT_SIM_LP_L1D, 0), MT_SIM_LP_L1D);
    fill(&truth[MT_CACHE_TEX], serving(s, MT_SIM_LP_TEX, 0), MT_SIM_LP_TEX);
    fill(&truth[MT_CACHE_RO], serving(s, MT_SIM_LP_RO, 0), MT_SIM_LP_RO);
    fill(&truth[MT_CACHE_CONST_L1], serving(s, MT_SIM_LP_CONST, 0), MT_SIM_LP_CONST);
    fill(&truth[MT_CACHE_CONST_L15], serving(s, MT_SIM_LP_CONST, 1), MT_SIM_LP_CONST);
    fill(&truth[MT_CACHE_L2], s->l2 >= 0 ? &s->cache[s->l2] : NULL, MT_SIM_LP_CG);
    memset(&truth[MT_CACHE_SHARED], 0, sizeof truth[0]);
    truth[MT_CACHE_SHARED].present = true;
    truth[MT_CACHE_SHARED].latency = s->shared.latency[0];
    memset(&truth[MT_CACHE_DRAM], 0, sizeof truth[0]);
    truth[MT_CACHE_DRAM].present = true;
    truth[MT_CACHE_DRAM].latency = s->dram.latency[MT_SIM_LP_CG];
    for (int i = 0; i < MT_CACHE_COUNT; i++) {
        shared[i] = 0;
        for (int j = 0; j < MT_CACHE_COUNT; j++)
            if (i != j && i <= MT_CACHE_RO && j <= MT_CACHE_RO && truth[i].cs && truth[i].cs == truth[j].cs)
                shared[i] |= 1u << j;
    }
}

static int complain(char *msg, size_t cap, const char *fmt, ...)
{
    size_t len = strlen(msg);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg + len, len < cap ? cap - len : 0, fmt, ap);
    va_end(ap);
    return 1;
}

/* The contract's escape clauses (e2e_truth.h): under MT_TRUTH_CONTRACT a
 * finding that is not right still passes when it makes no trusted false
 * claim: not reported, confidence below MT_TRUTH_TRUSTED, or a range or
 * lower bound that holds the truth.  An "absent" finding is a claim. */
static mt_truth_mode g_mode;

static bool flagged(const mt_finding *f, double want)
{
    if (g_mode != MT_TRUTH_CONTRACT)
        return false;
    if (f->kind == MT_FIND_NONE || f->confidence < MT_TRUTH_TRUSTED)
        return true;
    if (f->kind == MT_FIND_RANGE)
        return f->lo <= want && want <= f->hi;
    return f->kind == MT_FIND_LOWER_BOUND && f->lo <= want;
}

/* Exact value expected. */
static int exact(const mt_finding *f, double want, const char *what, char *msg, size_t cap)
{
    if ((f->kind == MT_FIND_VALUE && f->value == want) || flagged(f, want))
        return 0;
    return complain(msg, cap, "%s: want %.0f, got kind %d value %.1f [%.0f, %.0f]\n", what, want,
                    f->kind, f->value, f->lo, f->hi);
}

static int size_ok(const mt_finding *f, const mt_truth_cache *t, uint64_t limit, const char *what,
                   char *msg, size_t cap)
{
    double want = (double)t->size;
    if (flagged(f, want))
        return 0;
    if (limit && want > (double)limit) /* beyond the path: a bound is the right answer */
        return f->kind == MT_FIND_LOWER_BOUND && f->lo <= want
                   ? 0
                   : complain(msg, cap, "%s: want a bound below %.0f, got kind %d\n", what, want,
                              f->kind);
    if (f->kind == MT_FIND_RANGE && f->lo <= want && want <= f->hi && (!t->lru_modulo))
        return 0;
    if (f->kind != MT_FIND_VALUE)
        return complain(msg, cap, "%s: want %.0f, got kind %d [%.0f, %.0f]\n", what, want, f->kind,
                        f->lo, f->hi);
    double tol = t->lru_modulo ? t->line : 0.03 * want;
    if (fabs(f->value - want) <= tol)
        return 0;
    return complain(msg, cap, "%s: want %.0f +- %.0f, got %.0f\n", what, want, tol, f->value);
}

static int latency_ok(const mt_finding *f, double want, const char *what, char *msg, size_t cap)
{
    if ((f->kind == MT_FIND_VALUE && fabs(f->value - want) <= 2.0) || flagged(f, want))
        return 0;
    return complain(msg, cap, "%s latency: want %.1f +- 2, got kind %d %.2f [%.2f, %.2f] (conf %.2f)\n",
                    what, want, f->kind, f->value, f->lo, f->hi, f->confidence);
}

/* A miss penalty is a difference of two latencies, and the served latency
 * of an L2 with partitions is a mix of near and far hits: max(4 cycles, 5%). */
static int penalty_ok(const mt_finding *f, double want, const char *what, char *msg, size_t cap)
{
    double tol = fmax(4.0, 0.05 * want);
    if ((f->kind == MT_FIND_VALUE && fabs(f->value - want) <= tol) || flagged(f, want) ||
        (g_mode == MT_TRUTH_EXACT && f->kind == MT_FIND_NONE))
        return 0;
    return complain(msg, cap, "%s miss penalty: want %.1f +- %.1f, got kind %d %.2f (conf %.2f)\n",
                    what, want, tol, f->kind, f->value, f->confidence);
}

/* Latency of an L2 hit on path lp from SM 0, averaged over the partitions
 * (lines are homed evenly: 1/P near, the rest far).  Which partition SM 0
 * is attached to (partition_of_sm) does not matter: the homes are a hash
 * of the address, so 1/P of its lines are near whichever it is, and the
 * size it can use is always size / P; the probes measure from SM 0 only. */
static double l2_mean_latency(const mt_sim_cache_spec *l2, mt_sim_lpath lp)
{
    if (!l2 || l2->partitions <= 1)
        return l2 ? l2->latency[lp] : 0;
    double p = l2->partitions;
    return (l2->latency[lp] + (p - 1) * l2->far_latency[lp]) / p;
}

/* Finding `name` of object `key`; a missing one reads as kind none. */
static const mt_finding *F(const mt_topology *t, const char *key, const char *name)
{
    static const mt_finding none;
    const mt_finding *f = mt_topology_get(t, key, name);
    return f ? f : &none;
}

/* The "shared_with" set of a cache as a bitmask of mt_cache_id. */
static uint32_t shared_mask(const mt_topology *t, const char *key)
{
    const mt_finding *f = F(t, key, "shared_with");
    uint32_t m = 0;
    for (int id = 0; id < MT_CACHE_COUNT; id++)
        if (mt_finding_set_has(f, mt_cache_key((mt_cache_id)id)))
            m |= 1u << id;
    return m;
}

/* The set index of a cache as GF(2) rows over line bits 0 .. bits-1 (a
 * line's set = the parities of line AND each row): false when it is not
 * linear (modulo or the sim's xor over a set count that is not a power of
 * two).  One set (or full associativity): no rows.  rows NULL: only
 * whether it is linear. */
static bool linear_index(const mt_sim_cache_spec *cs, uint64_t sets, unsigned bits, uint64_t *rows,
                         size_t *n)
{
    uint64_t keep = bits >= 64 ? ~0ull : (1ull << bits) - 1;
    if (n)
        *n = 0;
    if (cs->fully_assoc || sets <= 1)
        return true;
    if (sets & (sets - 1))
        return false;
    if (!rows)
        return true; /* only asked whether it is linear */
    unsigned nb = 0;
    while ((1ull << nb) < sets)
        nb++;
    for (unsigned i = 0; i < nb; i++) {
        uint64_t r = 0;
        if (cs->index == MT_SIM_INDEX_HASH)
            r = cs->index_mask[i];
        else /* modulo: bit i; xor: bit i folded with every n-th bit above */
            for (unsigned b = i; b < 64; b += cs->index == MT_SIM_INDEX_XOR ? nb : 64)
                r |= 1ull << b;
        rows[(*n)++] = r & keep;
    }
    return true;
}

/* A count (ways, sets) right, or a range or lower bound holding it (a
 * bound is an honest claim), or flagged. */
static int count_ok(const mt_finding *f, double want, const char *what, char *msg, size_t cap)
{
    if (f->kind == MT_FIND_NONE || (f->kind == MT_FIND_VALUE && f->value == want) ||
        (f->kind == MT_FIND_RANGE && f->lo <= want && want <= f->hi) ||
        (f->kind == MT_FIND_LOWER_BOUND && f->lo <= want) || flagged(f, want))
        return 0;
    return complain(msg, cap, "%s: want %.0f, got kind %d value %.0f [%.0f, %.0f] (conf %.2f)\n",
                    what, want, f->kind, f->value, f->lo, f->hi, f->confidence);
}

/* Geometry (probe_geometry.c, probe_cache_geometry.c, geometry_hash.c) of
 * the physical cache serving the path (a fully associative one: one set of
 * every line): ways and sets each a value, a range or lower bound holding
 * it, or flagged; a trusted "modulo" index only where the index partitions
 * the lines it claims as modulo does (or there is one set, where any index
 * does); "xor" and the masks only for a linear index whose row space, over
 * the line bits the hash recovery tests behind this path, equals the
 * masks'. */
static int geometry_ok(const mt_topology *t, const char *nm, const mt_truth_cache *tr,
                       uint64_t path_limit, char *msg, size_t cap)
{
    const mt_finding *w = F(t, nm, "ways"), *n = F(t, nm, "sets"), *ix = F(t, nm, "index");
    const mt_finding *mk = F(t, nm, "index_masks");
    if (!tr->present || !tr->line)
        return 0;
    const mt_sim_cache_spec *cs = tr->cs;
    double lines = (double)(tr->size / tr->line);
    double ways = cs->fully_assoc ? lines : cs->ways;
    double sets = lines / ways;
    double fewest = ways; /* the fewest ways a set kept */
    if (cs->unified && cs->carveout_ways) {
        /* The carveout took ways, not sets: the whole array's sets, and the
         * most ways a set kept (set 0 is never among the short ones); where
         * sets kept different numbers, each of them is a set's ways. */
        sets = (double)(cs->unified / cs->line / cs->ways);
        uint32_t smem = (uint32_t)(cs->unified - tr->size);
        ways = mt_sim_set_ways(cs, smem, 0);
        fewest = mt_sim_set_ways(cs, smem, (uint64_t)sets - 1);
    }
    /* "modulo" claims every line-address bit the path reaches, "modulo
     * (line-address bits 0-B)" the bits 0..B: right where every line below
     * 2^(B+1) has set line mod S (a hash of higher bits is unseen). */
    int top = 63;
    if (ix->kind == MT_FIND_TEXT && sscanf(ix->text, "modulo (line-address bits 0-%d)", &top) != 1)
        top = 63;
    uint64_t below = top >= 62 ? UINT64_MAX : ((uint64_t)2 << top) - 1; /* bits 0..top */
    if (path_limit && path_limit / tr->line - 1 < below)
        below = path_limit / tr->line - 1; /* no line beyond the path's reach */
    uint64_t reach = 1; /* the bits of lines 0..below */
    while (reach < below)
        reach = reach << 1 | 1;
    bool modulo = cs->fully_assoc || cs->index == MT_SIM_INDEX_MODULO || sets == 1;
    if (cs->index == MT_SIM_INDEX_XOR && !modulo)
        modulo = below < (uint64_t)sets; /* the fold starts at line S */
    if (cs->index == MT_SIM_INDEX_HASH && !modulo) {
        modulo = true;
        for (uint32_t i = 0; i < cs->n_index_masks; i++)
            modulo = modulo && (cs->index_mask[i] & reach) == (((uint64_t)1 << i) & reach);
    }
    /* A linear index whose rows over those bits span the unit rows puts
     * lines in the sets modulo does, up to the sets' labels. */
    unsigned claimed = 0;
    while (claimed < 64 && (reach >> claimed) & 1)
        claimed++;
    uint64_t rows[64], unit[64];
    size_t nrows;
    if (!modulo && linear_index(cs, (uint64_t)sets, claimed, rows, &nrows)) {
        for (size_t i = 0; i < nrows; i++)
            unit[i] = ((uint64_t)1 << i) & reach;
        modulo = mt_gf2_same_span(rows, nrows, unit, nrows);
    }
    char what[64];
    snprintf(what, sizeof what, "%s ways", nm);
    bool uneven_ok = w->kind == MT_FIND_VALUE && fewest <= w->value && w->value <= ways;
    int bad = uneven_ok ? 0 : count_ok(w, ways, what, msg, cap);
    snprintf(what, sizeof what, "%s sets", nm);
    bad += count_ok(n, sets, what, msg, cap);
    bool says_modulo = ix->kind == MT_FIND_TEXT && strncmp(ix->text, "modulo", 6) == 0 &&
                       (ix->confidence >= MT_TRUTH_TRUSTED || g_mode == MT_TRUTH_EXACT);
    if (says_modulo && !modulo)
        bad += complain(msg, cap, "%s index: \"modulo\" (conf %.2f) but the index is hashed\n",
                        nm, ix->confidence);
    /* The line bits the recovery tests (geometry_hash.h), or those the
     * masks' note says were tested (the L2's masks over the whole
     * partition: l2_evict.c). */
    unsigned bits = mt_geometry_hash_bits(tr->line, path_limit), top_bit = 0;
    const char *tested = strstr(mk->note, "line bits 0-");
    if (tested && sscanf(tested, "line bits 0-%u tested", &top_bit) == 1 && top_bit < 64)
        bits = top_bit + 1;
    bool linear = linear_index(cs, (uint64_t)sets, bits, rows, &nrows);
    if (ix->kind == MT_FIND_TEXT && ix->confidence >= MT_TRUTH_TRUSTED &&
        strcmp(ix->text, "xor") == 0 && !linear)
        bad += complain(msg, cap, "%s index: got xor, but the index is not linear\n", nm);
    if (mk->kind == MT_FIND_TEXT && mk->confidence >= MT_TRUTH_TRUSTED) {
        uint64_t got[64];
        size_t ng = 0;
        char *end;
        for (const char *p = mk->text; ng < 64; p = end) {
            uint64_t v = strtoull(p, &end, 16);
            if (end == p)
                break;
            got[ng++] = v;
        }
        if (!linear || !mt_gf2_same_span(rows, nrows, got, ng))
            bad += complain(msg, cap, "%s index_masks: got %s, not the index's row space over "
                            "line bits 0-%u\n", nm, mk->text, bits - 1);
    }
    return bad;
}

/* ---- The L1 miss profile (probe_l1_profile.c) ----
 * The truth of a miss share at a footprint is what a noise-free simulation
 * of the same chains gives: the spec without noise, timer spikes, tenant or
 * test hooks, the probe's own plan (from the size and line it reported) and
 * tally, and a load missed when it took more than the L1's hit latency.  A
 * stated share is right within PROFILE_TRUTH_TOL: a plateau's shares span
 * up to 0.03, spikes add up to 0.01 (the spec limit), and a random policy
 * draws anew (3 sd of a share of 3 x 1024 loads: 0.027). */
#define PROFILE_TRUTH_TOL 0.07

typedef struct {
    mt_l1_profile_plan plan;
    double *share;
    mt_miss_map *maps;
    uint8_t *bits;
} profile_truth;

static void profile_truth_free(profile_truth *pt)
{
    free(pt->share);
    free(pt->maps);
    free(pt->bits);
}

/* Runs the plan on the noise-free spec; 0 when it cannot (*why says why). */
static int profile_truth_run(const mt_sim_spec *s, double hit_latency, uint64_t size,
                             uint32_t line, profile_truth *pt, char *why, size_t whylen)
{
    mt_sim_spec q = *s;
    for (int i = 0; i < q.n_caches; i++)
        q.cache[i].noise = 0;
    q.dram.noise = q.shared.noise = 0;
    q.outlier_rate = 0;
    q.tenant.present = 0;
    q.fail_after_batches = q.signal_after_batches = 0;
    memset(pt, 0, sizeof *pt);
    mt_errinfo ei = {{0}};
    mt_backend *be = NULL;
    mt_probe_ctx c;
    memset(&c, 0, sizeof c);
    c.overhead_fine = q.timer_overhead;
    if (mt_backend_sim_from_spec(&q, &be, &ei) != MT_OK || mt_backend_info(be, &c.dev, &ei) != MT_OK) {
        snprintf(why, whylen, "noise-free sim: %.150s", ei.msg);
        mt_backend_destroy(be);
        return 0;
    }
    if (!mt_l1_profile_plan_make(&c, size, line, &pt->plan, why, whylen)) {
        mt_backend_destroy(be);
        return 0;
    }
    size_t n = pt->plan.n, ne = n * pt->plan.runs;
    uint64_t most = mt_l1_profile_footprint(&pt->plan, n - 1) / line;
    mt_experiment *e = calloc(ne, sizeof *e);
    mt_result *r = calloc(ne, sizeof *r);
    pt->share = calloc(n, sizeof *pt->share);
    pt->maps = calloc(n, sizeof *pt->maps);
    pt->bits = calloc(n, (size_t)most);
    int ok = e && r && pt->share && pt->maps && pt->bits;
    if (ok) {
        mt_l1_profile_experiments(&c, &pt->plan, e);
        ok = mt_backend_run(be, e, ne, r, &ei) == MT_OK;
        snprintf(why, whylen, "noise-free sim: %.150s", ok ? "" : ei.msg);
    }
    for (size_t i = 0; ok && i < n; i++) {
        uint32_t lines = (uint32_t)(mt_l1_profile_footprint(&pt->plan, i) / line);
        uint8_t *m = pt->bits + i * most;
        mt_l1_profile_tally(&c, &r[i * pt->plan.runs], pt->plan.runs, lines, hit_latency + 0.5,
                            &pt->share[i], m);
        pt->maps[i] = (mt_miss_map){m, lines};
    }
    if (ok)
        for (size_t i = 0; i < ne; i++)
            mt_result_free(&r[i]);
    free(e);
    free(r);
    mt_backend_destroy(be);
    if (!ok)
        profile_truth_free(pt);
    return ok;
}

/* Index of the probed footprint `kib` KiB (as the text prints it: within a
 * byte), or -1. */
static long profile_index(const profile_truth *pt, double bytes)
{
    const mt_l1_profile_plan *p = &pt->plan;
    double i = round((bytes - (double)p->first) / (double)p->step);
    if (i < 0 || i >= (double)p->n || fabs((double)mt_l1_profile_footprint(p, (size_t)i) - bytes) > 1)
        return -1;
    return (long)i;
}

/* One stated share (percent) at a footprint (KiB) of the profile text. */
static int profile_share_ok(const profile_truth *pt, double kib, double pct, const char *seg,
                            char *msg, size_t cap)
{
    long i = profile_index(pt, kib * 1024);
    if (i < 0)
        return complain(msg, cap, "l1d miss_profile: %.3f KiB is no probed footprint (%s)\n", kib,
                        seg);
    double want = pt->share[i];
    if (fabs(pct / 100 - want) <= PROFILE_TRUTH_TOL + 0.005) /* + the text's rounding */
        return 0;
    return complain(msg, cap, "l1d miss_profile: %s: noise-free share %.3f at %.3f KiB\n", seg, want,
                    kib);
}

/* Whether the footprint's share is (want_thrash) or is not the full thrash,
 * within the tolerance. */
static int profile_thrash_ok(const profile_truth *pt, double bytes, int want_thrash,
                             const char *what, char *msg, size_t cap)
{
    long i = profile_index(pt, bytes);
    if (i < 0)
        return complain(msg, cap, "%s: %.0f B is no probed footprint\n", what, bytes);
    double sh = pt->share[i];
    if (want_thrash ? sh >= PROFILE_THRASH_SHARE - PROFILE_TRUTH_TOL
                    : sh < PROFILE_THRASH_SHARE + PROFILE_TRUTH_TOL)
        return 0;
    return complain(msg, cap, "%s: noise-free share %.3f at %.0f B is %sthe full thrash\n", what, sh,
                    bytes, want_thrash ? "not " : "");
}

/* Every segment of the miss_profile text (probe_l1_profile.c, profile_text). */
static int profile_text_ok(const profile_truth *pt, const char *text, char *msg, size_t cap)
{
    char buf[sizeof ((mt_finding *)0)->text], *save = NULL;
    snprintf(buf, sizeof buf, "%s", text);
    int bad = 0;
    for (char *seg = strtok_r(buf, ";", &save); seg; seg = strtok_r(NULL, ";", &save)) {
        while (*seg == ' ')
            seg++;
        double p, a, b;
        int end = -1;
        size_t len = strlen(seg);
#define WHOLE(fmt, n, ...) (end = -1, sscanf(seg, fmt "%n", __VA_ARGS__, &end) == (n) && (size_t)end == len)
        if (strcmp(seg, "...") == 0)
            continue;
        if (WHOLE("%lf%% up to %lf KiB", 2, &p, &a) || WHOLE("%lf%% from %lf KiB", 2, &p, &a) ||
            WHOLE("rising to %lf%% at %lf KiB", 2, &p, &a) ||
            WHOLE("falling to %lf%% at %lf KiB", 2, &p, &a)) {
            bad += profile_share_ok(pt, a, p, seg, msg, cap);
        } else if (WHOLE("%lf%% plateau %lf-%lf KiB", 3, &p, &a, &b)) {
            bad += profile_share_ok(pt, a, p, seg, msg, cap);
            bad += profile_share_ok(pt, b, p, seg, msg, cap);
        } else if (WHOLE("rising to %lf%% over %lf-%lf KiB", 3, &p, &a, &b) ||
                   WHOLE("falling to %lf%% over %lf-%lf KiB", 3, &p, &a, &b)) {
            bad += profile_share_ok(pt, b, p, seg, msg, cap);
        } else if (WHOLE("full thrash (>= %lf%%) from %lf KiB", 2, &p, &a)) {
            bad += profile_thrash_ok(pt, a * 1024, 1, "l1d miss_profile full thrash", msg, cap);
        } else if (WHOLE("no full thrash up to %lf KiB", 1, &a)) {
            bad += profile_thrash_ok(pt, a * 1024, 0, "l1d miss_profile no full thrash", msg, cap);
        } else {
            bad += complain(msg, cap, "l1d miss_profile: cannot read \"%s\"\n", seg);
        }
#undef WHOLE
    }
    return bad;
}

static int profile_ok(const mt_sim_spec *s, const mt_topology *t, const mt_truth_cache *l1,
                      char *msg, size_t cap)
{
    const mt_finding *th = F(t, "l1d", "thrash_footprint"), *pr = F(t, "l1d", "miss_profile");
    const mt_finding *gr = F(t, "l1d", "miss_granule");
    const mt_finding *size = F(t, "l1d", "size"), *line = F(t, "l1d", "line");
    bool th_claim = th->kind != MT_FIND_NONE && !flagged(th, NAN);
    bool pr_claim = pr->kind == MT_FIND_TEXT && !flagged(pr, NAN);
    bool gr_claim = gr->kind == MT_FIND_VALUE && !flagged(gr, NAN);
    if (!th_claim && !pr_claim && !gr_claim)
        return 0;
    if (!l1->present || mt_l1_profile_base(size) == 0 || line->kind != MT_FIND_VALUE)
        return complain(msg, cap, "l1d profile: findings without a measured L1 size and line\n");
    profile_truth pt;
    char why[200];
    if (!profile_truth_run(s, l1->latency, mt_l1_profile_base(size), (uint32_t)line->value, &pt, why,
                           sizeof why))
        return complain(msg, cap, "l1d profile: findings, but the plan says %s\n", why);
    int bad = 0;
    if (th_claim && th->kind == MT_FIND_RANGE) {
        bad += profile_thrash_ok(&pt, th->lo, 0, "l1d thrash_footprint (below)", msg, cap);
        bad += profile_thrash_ok(&pt, th->hi, 1, "l1d thrash_footprint", msg, cap);
    } else if (th_claim && th->kind == MT_FIND_LOWER_BOUND) {
        bad += profile_thrash_ok(&pt, th->lo, 0, "l1d thrash_footprint (bound)", msg, cap);
    } else if (th_claim) {
        bad += complain(msg, cap, "l1d thrash_footprint: kind %d is no claim the probe makes\n",
                        th->kind);
    }
    if (pr_claim)
        bad += profile_text_ok(&pt, pr->text, msg, cap);
    if (gr_claim) {
        mt_granule g;
        mt_miss_granule(pt.maps, pt.plan.n, PROFILE_GRANULE_MAX_LINES, PROFILE_GRANULE_MIN_SHARE,
                        &g);
        double want = (double)g.group * line->value;
        /* No partial footprint in the noise-free run: groups larger than a
         * line have no support; single lines stay possible (a random policy
         * draws other lines that miss in every lap). */
        if (g.partial == 0) {
            if (gr->value != line->value)
                bad += complain(msg, cap, "l1d miss_granule: %.0f B, but no footprint of the "
                                "noise-free sim misses in part\n", gr->value);
        } else if (gr->value != want)
            bad += complain(msg, cap, "l1d miss_granule: want %.0f B, got %.0f B\n", want, gr->value);
    }
    profile_truth_free(&pt);
    return bad;
}
#include "e2e_truth_l2map.c"
#include "e2e_truth_bandwidth.c"
#include "e2e_truth_banks.c"
#include "e2e_truth_tlb.c"
#include "e2e_truth_setmap.c"
#include "e2e_truth_matrix.c"
#include "e2e_truth_cluster.c"
#include "e2e_truth_icache.c"
#include "e2e_truth_access.c"
#include "e2e_truth_link.c"

int mt_truth_check(const mt_sim_spec *s, const mt_topology *t, char *msg, size_t cap)
{
    return mt_truth_check_mode(s, t, MT_TRUTH_EXACT, msg, cap);
}

int mt_truth_check_mode(const mt_sim_spec *s, const mt_topology *t, mt_truth_mode mode, char *msg,
                        size_t cap)
{
    g_mode = mode;
    mt_truth_cache truth[MT_CACHE_COUNT];
    uint32_t shared[MT_CACHE_COUNT];
    mt_truth_from_spec(s, truth, shared);
    mt_device_info dev;
    mt_sim_spec_device_info(s, &dev);
    int bad = 0;
    msg[0] = '\0';
    static const mt_cache_id l1[] = {MT_CACHE_L1D, MT_CACHE_TEX, MT_CACHE_RO, MT_CACHE_CONST_L1,
                                     MT_CACHE_CONST_L15};
    static const mt_path path_of[] = {MT_PATH_GLOBAL_CA, MT_PATH_TEXTURE, MT_PATH_GLOBAL_NC,
                                      MT_PATH_CONSTANT, MT_PATH_CONSTANT};
    for (size_t i = 0; i < sizeof l1 / sizeof *l1; i++) {
        mt_cache_id id = l1[i];
        const mt_truth_cache *tr = &truth[id];
        const char *nm = mt_cache_key(id);
        const mt_finding *size = F(t, nm, "size"), *sector = F(t, nm, "sector");
        const mt_finding *line = F(t, nm, "line"), *latency = F(t, nm, "latency");
        const mt_finding *per_sm = F(t, nm, "per_sm");
        char what[64];
        if (!tr->present) {
            if ((id == MT_CACHE_L1D || id == MT_CACHE_CONST_L15) && size->kind != MT_FIND_ABSENT &&
                !(g_mode == MT_TRUTH_CONTRACT && size->confidence < MT_TRUTH_TRUSTED))
                bad += complain(msg, cap, "%s: want absent, got kind %d\n", nm, size->kind);
            continue;
        }
        uint64_t limit = dev.path_limit_bytes[path_of[i]];
        snprintf(what, sizeof what, "%s size", nm);
        bad += size_ok(size, tr, limit, what, msg, cap);
        snprintf(what, sizeof what, "%s sector", nm);
        bad += exact(sector, tr->sector, what, msg, cap);
        bool beyond = limit && tr->size > limit;
        /* A constant L1.5 with no more lines than the L1 cannot show its line
         * through capacity: every chain it holds also fits the L1.  Only a
         * range holding the truth can be asked for. */
        if (id == MT_CACHE_CONST_L15 && truth[MT_CACHE_CONST_L1].present &&
            tr->size / tr->line <= truth[MT_CACHE_CONST_L1].size / truth[MT_CACHE_CONST_L1].line)
            beyond = true;
        snprintf(what, sizeof what, "%s line", nm);
        if (!beyond)
            bad += exact(line, tr->line, what, msg, cap);
        else if (!(line->kind == MT_FIND_RANGE && line->lo <= tr->line && tr->line <= line->hi) &&
                 !(g_mode == MT_TRUTH_CONTRACT && flagged(line, tr->line)))
            bad += complain(msg, cap, "%s: want a range holding %u\n", what, tr->line);
        bad += latency_ok(latency, tr->latency, nm, msg, cap);
        static const mt_sim_lpath lp_of[] = {MT_SIM_LP_L1D, MT_SIM_LP_TEX, MT_SIM_LP_RO};
        if (id <= MT_CACHE_RO && truth[MT_CACHE_L2].cs)
            bad += penalty_ok(F(t, nm, "miss_penalty"),
                              l2_mean_latency(truth[MT_CACHE_L2].cs, lp_of[id]) - tr->latency, nm,
                              msg, cap);
        if (id == MT_CACHE_CONST_L1 && truth[MT_CACHE_CONST_L15].present)
            bad += penalty_ok(F(t, nm, "miss_penalty"), truth[MT_CACHE_CONST_L15].latency - tr->latency,
                              nm, msg, cap);
        if (id <= MT_CACHE_RO || id == MT_CACHE_CONST_L1) {
            snprintf(what, sizeof what, "%s slices", nm);
            bad += exact(per_sm, tr->slices, what, msg, cap);
        }
        bad += geometry_ok(t, nm, tr, limit, msg, cap);
        if (id <= MT_CACHE_RO) {
            /* A set is a claim like any other: flagged (confidence below
             * MT_TRUTH_TRUSTED) it passes the contract. */
            uint32_t got = shared_mask(t, nm) & ~(1u << id);
            bool doubted = g_mode == MT_TRUTH_CONTRACT &&
                           F(t, nm, "shared_with")->confidence < MT_TRUTH_TRUSTED;
            if (got != shared[id] && !doubted)
                bad += complain(msg, cap, "%s shared_with: want 0x%x got 0x%x\n", nm, shared[id], got);
        }
    }
    /* Replacement class (probe_replacement.c): never a wrong class; "not
     * classified" and "not tested" are honest answers.  A direct-mapped
     * cache behaves as insertion order whatever its policy; tree pseudo-LRU
     * keeps the recency class (the probe's "recency (LRU or tree
     * pseudo-LRU)"). */
    static const char PLRU_CLASS[] = "unordered or tree pseudo-LRU";
    const mt_finding *rp = F(t, "l1d", "replacement");
    /* Tree pseudo-LRU is recency in the recency test; with 16 ways or more
     * it evicts young lines in the ordering test, the class that names it. */
    bool plru_unordered = truth[MT_CACHE_L1D].present && rp->kind == MT_FIND_TEXT &&
                          truth[MT_CACHE_L1D].cs->repl == MT_SIM_REPL_PLRU &&
                          truth[MT_CACHE_L1D].cs->ways > 1 &&
                          strncmp(rp->text, PLRU_CLASS, strlen(PLRU_CLASS)) == 0;
    if (truth[MT_CACHE_L1D].present && rp->kind == MT_FIND_TEXT && !plru_unordered &&
        strcmp(rp->text, "not classified") != 0) {
        const mt_sim_cache_spec *l1s = truth[MT_CACHE_L1D].cs;
        const char *want = l1s->ways == 1                    ? "insertion order"
                           : l1s->repl == MT_SIM_REPL_LRU ||
                                     l1s->repl == MT_SIM_REPL_PLRU
                               ? "recency"
                           : l1s->repl == MT_SIM_REPL_FIFO   ? "insertion order"
                                                              : "unordered";
        if (strncmp(rp->text, want, strlen(want)) != 0 &&
            !(g_mode == MT_TRUTH_CONTRACT && rp->confidence < MT_TRUTH_TRUSTED))
            bad += complain(msg, cap, "l1d replacement: want %s..., got %s\n", want, rp->text);
    }
    /* Policy by name (probe_policy.c, --geometry): the spec's policy, or
     * an answer that names it among others ("random or Fermi-like"); a
     * 2-way tree pseudo-LRU is LRU, and one way has no policy. */
    const mt_finding *pn = F(t, "l1d", "policy");
    if (truth[MT_CACHE_L1D].present && pn->kind == MT_FIND_TEXT &&
        (pn->confidence >= MT_TRUTH_TRUSTED || g_mode == MT_TRUTH_EXACT)) {
        const mt_sim_cache_spec *l1s = truth[MT_CACHE_L1D].cs;
        static const char EITHER[] = "not LRU/FIFO/PLRU: random or Fermi";
        uint64_t l1_ways = l1s->fully_assoc ? mt_sim_cache_size(l1s, s->carveout_smem) / l1s->line
                                            : mt_sim_set_ways(l1s, s->carveout_smem, 0);
        const char *want = NULL;
        bool either = false;
        switch (l1s->repl) {
        case MT_SIM_REPL_LRU: want = "LRU"; break;
        case MT_SIM_REPL_FIFO: want = "FIFO"; break;
        case MT_SIM_REPL_PLRU: want = l1_ways == 2 ? "LRU" : "tree pseudo-LRU"; break;
        case MT_SIM_REPL_RANDOM: want = "not LRU/FIFO/PLRU, consistent with random"; either = true; break;
        case MT_SIM_REPL_FERMI: want = "Fermi-like"; either = true; break;
        }
        if (l1_ways == 1) {
            want = "direct-mapped";
            either = false;
        }
        bool ok = (want && strncmp(pn->text, want, strlen(want)) == 0) ||
                  (either && strncmp(pn->text, EITHER, strlen(EITHER)) == 0);
        if (!ok)
            bad += complain(msg, cap, "l1d policy: want %s..., got %s (conf %.2f)\n",
                            want ? want : "?", pn->text, pn->confidence);
    }
    bad += profile_ok(s, t, &truth[MT_CACHE_L1D], msg, cap);
    bad += setmap_check(s, &truth[MT_CACHE_L1D], t, msg, cap);
    bad += exact(F(t, "l1d", "caches_global_loads"), truth[MT_CACHE_L1D].present ? 1 : 0, "l1 caches global", msg, cap);
    const mt_truth_cache *l2 = &truth[MT_CACHE_L2];
    bad += exact(F(t, "l2", "sector"), l2->sector, "l2 sector", msg, cap);
    bad += exact(F(t, "l2", "line"), l2->line, "l2 line", msg, cap);
    bad += latency_ok(F(t, "l2", "latency"), l2->latency, "l2 (near)", msg, cap);
    /* The L2's miss penalty subtracts the near latency (derive_l2_miss_penalty.c):
     * a DRAM load costs the DRAM latency whichever partition homes it. */
    if (l2->cs)
        bad += penalty_ok(F(t, "l2", "miss_penalty"), truth[MT_CACHE_DRAM].latency - l2->latency,
                          "l2", msg, cap);
    if (l2->cs && l2->cs->partitions > 1) {
        bad += latency_ok(F(t, "l2", "far_latency"), l2->cs->far_latency[MT_SIM_LP_CG], "l2 far", msg, cap);
        /* The partition is the modelled cache's share: one SM's first
         * eviction comes there, whatever size the driver reports (the
         * format allows l2_size within a factor of 2 of the cache's). */
        double want = (double)l2->size / l2->cs->partitions;
        const mt_finding *p = F(t, "l2", "partition_size");
        /* A range (the first evictions moved with where the chain lies,
         * probe_l2.c) must reach the partition within the same 5%. */
        bool near = p->kind == MT_FIND_VALUE
                        ? fabs(p->value - want) <= 0.05 * want
                        : p->kind == MT_FIND_RANGE && p->lo <= 1.05 * want && p->hi >= 0.95 * want;
        if (!near && !flagged(p, want))
            bad += complain(msg, cap,
                            "l2 partition: want %.0f +- 5%%, got kind %d %.0f (range %.0f-%.0f, "
                            "conf %.2f)\n",
                            want, p->kind, p->value, p->lo, p->hi, p->confidence);
    } else {
        const mt_finding *p = F(t, "l2", "partition_size"), *far = F(t, "l2", "far_latency");
        bool trusted_p = p->confidence >= MT_TRUTH_TRUSTED || g_mode == MT_TRUTH_EXACT;
        if (p->kind != MT_FIND_ABSENT && p->kind != MT_FIND_NONE && trusted_p)
            bad += complain(msg, cap, "l2 partition: want absent, got kind %d %.0f (conf %.2f)\n",
                            p->kind, p->value, p->confidence);
        /* No partitions: a far-partition latency is a false claim. */
        if (far->kind == MT_FIND_VALUE && (far->confidence >= MT_TRUTH_TRUSTED || g_mode == MT_TRUTH_EXACT))
            bad += complain(msg, cap, "l2 far latency %.1f (conf %.2f) but the L2 has no partitions\n",
                            far->value, far->confidence);
    }
    if (l2->present) {
        /* The L2 geometry (probe_l2_geometry.c) is one partition's: an SM
         * looks up and allocates only in its own, of size / P, whose sets
         * the index (and its masks) address. */
        mt_truth_cache part = *l2;
        part.size = l2->size / (l2->cs->partitions > 1 ? l2->cs->partitions : 1);
        bad += geometry_ok(t, "l2", &part, dev.path_limit_bytes[MT_PATH_GLOBAL_CG], msg, cap);
    }
    bad += l2map_check(s, t, msg, cap);
    bad += bandwidth_check(s, t, msg, cap);
    bad += tlb_check(s, t, msg, cap);
    bad += matrix_check(s, t, truth, msg, cap);
    bad += cluster_check(s, t, msg, cap);
    bad += icache_check(s, t, msg, cap);
    bad += access_check(s, t, msg, cap);
    bad += link_check(s, t, msg, cap);
    bad += latency_ok(F(t, "shared", "latency"), truth[MT_CACHE_SHARED].latency, "shared", msg, cap);
    bad += banks_check(s, t, msg, cap);
    bad += latency_ok(F(t, "dram", "latency"), truth[MT_CACHE_DRAM].latency, "dram", msg, cap);
    return bad;
}

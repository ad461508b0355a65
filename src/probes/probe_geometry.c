/* L1 data cache geometry: ways, sets and whether the set index is the line
 * address modulo the sets (issue 8, part 1), and for an index that is not,
 * the XOR hash (geometry_hash.c); in the default run.  The search itself
 * (mt_geometry_measure, geometry.h) serves any cache: the probe cache_geom
 * (probe_cache_geometry.c) runs it for the others.
 *
 * Stride conflict test.  N = size / line lines.  A chain of m elements k
 * lines apart FITS when every set receives at most W of them; its CAPACITY
 * at stride k, cap(k), is the most elements that fit.  Whatever the index
 * function, the first m elements of a chain are a subset of the first m+1,
 * so "fits" is monotone in m and a doubling + bisection finds cap(k).
 * Whatever the policy, a lap of a cyclic chain without a miss means every
 * element was resident at once (nothing was filled during the lap), so a
 * chain that does not fit misses at least once per lap; one that fits
 * stops missing once it is loaded.  So the search needs no miss rate: only
 * "at least one miss in every lap" (GEOMETRY_ALPHA, geometry_fit.h), which holds for
 * LRU, FIFO, tree pseudo-LRU and random alike.
 *
 * With modulo indexing over S sets, a stride of k lines reaches S/gcd(S,k)
 * sets: cap(k) = W S / gcd(S, k).  Over the strides 1, 2, 4, ... (up to
 * 2N) the capacity halves with each doubling until the stride reaches the
 * power of two in S (2^a), then stays at P = W times S's odd part; a
 * stride of P 2^a lines is then a multiple of S, where the capacity is W,
 * and S = P 2^a / W.  The probe accepts "modulo, W ways, S sets" only when
 * every stride measured holds what that formula predicts, and reports
 * where S x W x line differs from the l1d size (the capacity search's
 * first misses: a cache that loses lines before it is full).  Strides of
 * 2^j + 1 lines are measured too: under modulo they reach (nearly) every
 * set, but an index that XORs line bit i with bit i + j (the common
 * hashes) sends all of their first 2^j elements to one set, so a hash
 * whose spreading makes the power-of-two strides look fully associative
 * still breaks the pattern there.  A hashed index fails the formula; then
 * the ways are only bounded: any W elements fit in any index, so W is at
 * most every capacity. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "confidence.h"
#include "geometry.h"
#include "geometry_fit.h"
#include "geometry_hash.h"
#include "line_confirm.h"

/* The fits decision (laps, GEOMETRY_ALPHA) is geometry_fit.h's: where even
 * GEOMETRY_MAX_LAPS cannot make a decision sure enough (a noisy timer, a
 * long chain), the stride's search stops there and its capacity is left
 * unbracketed (no confident wrong value). */
/* Runs of the outlier reference (each max_fine_loads loads of a chain of
 * half the cache's lines, one line apart: it fits in any sane index):
 * 4 x 8192 loads resolve outlier rates down to about 1e-4. */
#define GEOMETRY_REF_RUNS 4u
/* Strides searched: 1, 2^j and 2^j + 1 for every j up to 31, and the
 * plateau's. */
#define GEOMETRY_MAX_STRIDES 64
/* Confidence of ways and sets that are only bounded (an index that is not
 * modulo): the bounds hold whatever the index, but they say little, and
 * the contract's trusted level (0.5) is the most a range may claim. */
#define GEOMETRY_RANGE_CONF 0.5
/* Modulo is rejected when its ways x sets x line exceed this many times
 * the size's top: a modulo cache of that many lines holds a chain of them
 * one line apart without a miss, so its first misses (the size) could not
 * come earlier.  Twice, not once: the L2's search is bounded by the
 * driver's size, which the simulator's spec format lets be half the
 * modelled L2 (docs/spec-format.md).  A hash whose tested strides mimic a
 * huge modulo cache behind capped strides (a random draw: 64 x 262144
 * for 8 x 8192) fails it. */
#define GEOMETRY_MAX_SIZE_RATIO 2.0

/* One stride's search: lo fits, hi does not (0: not yet found). */
typedef struct {
    uint64_t k;      /* stride in lines */
    uint64_t lo, hi;
    uint64_t probe;  /* the element count tested this round, 0 when done */
    uint32_t runs;   /* experiments for this round's probe */
    uint32_t laps_per_run;
    /* Never seen not to fit, and the next doubling is a chain longer than
     * the fine samples or laps can decide (a large cache: the L2): lo is a
     * lower bound on the capacity and nothing more can be learnt. */
    bool capped;
} stride_search;

/* The next element count to test (doubling until a chain does not fit,
 * then bisection) and the runs it takes; 0 when bracketed or nothing more
 * can be decided (laps, footprint limit, the target's longest chain). */
static uint64_t next_probe(const mt_probe_ctx *c, const mt_geometry_target *t, stride_search *s,
                           uint64_t max_m, uint64_t limit, double p0)
{
    uint32_t line = t->line;
    uint64_t m;
    /* The most elements the path holds at this stride: doubling past it
     * tests the largest chain that fits the path instead (a constant bank
     * of 64 KiB would otherwise stop a search short of a small cache's
     * capacity). */
    uint64_t room = limit / ((uint64_t)s->k * line);
    if (s->hi == 0) {
        m = s->lo * 2 > max_m ? max_m : s->lo * 2;
        m = m > room ? room : m;
    } else {
        m = s->lo + (s->hi - s->lo) / 2;
    }
    if (m <= s->lo || (s->hi && m >= s->hi) || m * s->k * line > limit ||
        s->k * line > UINT32_MAX) /* a chain's stride is 32 bits */
        return 0;
    uint32_t laps = mt_geometry_laps_needed(p0, m);
    uint64_t per_run = c->dev.max_fine_loads / m;
    if (!laps || !per_run || (t->max_chain && m > t->max_chain)) {
        /* Only a target with a chain limit of its own (the L2) treats such
         * strides as capped: the first-level caches keep the search they
         * had (their recorded H100 runs and goldens). */
        s->capped = s->hi == 0 && t->max_chain;
        return 0;
    }
    s->laps_per_run = (uint32_t)(per_run < laps ? per_run : laps);
    s->runs = (laps + s->laps_per_run - 1) / s->laps_per_run;
    return m;
}

/* Loads the search has issued, against the target's budget. */
typedef struct {
    uint64_t spent, budget; /* budget 0: none */
    bool out;               /* a round was not run: it would have passed the budget */
} load_budget;

/* Runs one round: the runs of every stride still searching, one batch
 * (none when it would pass the budget). */
static mt_err run_round(mt_probe_ctx *c, const mt_geometry_target *t, stride_search *s, size_t n,
                        load_budget *b, bool *more)
{
    size_t total = 0;
    uint64_t loads = 0;
    for (size_t i = 0; i < n; i++)
        if (s[i].probe) {
            total += s[i].runs;
            loads += (uint64_t)s[i].runs * s[i].probe * (GEOMETRY_WARMUP_LAPS + s[i].laps_per_run);
        }
    if (total && b->budget && b->spent + loads > b->budget) {
        b->out = true;
        total = 0;
    }
    *more = total > 0;
    if (!total)
        return MT_OK;
    b->spent += loads;
    mt_experiment *e = calloc(total, sizeof *e);
    mt_result *r = calloc(total, sizeof *r);
    mt_err err = MT_OK;
    if (!e || !r) {
        err = mt_fail(c->ei, MT_ERR_NOMEM, "out of memory");
        goto out;
    }
    size_t used = 0;
    for (size_t i = 0; i < n; i++)
        for (uint32_t k = 0; s[i].probe && k < s[i].runs; k++)
            e[used++] = mt_exp_chase(t->path, s[i].probe * s[i].k * t->line,
                                     (uint32_t)(s[i].k * t->line), GEOMETRY_WARMUP_LAPS,
                                     (uint32_t)(s[i].laps_per_run * s[i].probe), MT_MODE_FINE);
    if ((err = mt_run(c, e, total, r)) != MT_OK)
        goto out;
    double thr = t->hit_threshold;
    used = 0;
    for (size_t i = 0; i < n && err == MT_OK; i++) {
        if (!s[i].probe)
            continue;
        size_t missed = 0, laps = 0;
        for (uint32_t k = 0; k < s[i].runs && err == MT_OK; k++)
            err = mt_geometry_count_laps(c, &r[used++], s[i].probe, thr, &missed, &laps);
        if (laps && missed == laps)
            s[i].hi = s[i].probe;
        else
            s[i].lo = s[i].probe;
    }
    mt_results_free(r, total);
out:
    free(e);
    free(r);
    return err;
}

/* Outlier rate per load (Laplace's rule) of a chain of half the lines,
 * one line apart: it fits, so its misses are timer outliers. */
static mt_err outlier_rate(mt_probe_ctx *c, const mt_geometry_target *t, uint64_t n_lines,
                           double *p0)
{
    uint64_t m = n_lines / 2 ? n_lines / 2 : 1;
    /* A large cache (the L2): the longest chain one fine run times is as
     * good a reference, and a chain of half its lines would cost laps of
     * milliseconds (docs/method.md). */
    if (c->dev.max_fine_loads && m > c->dev.max_fine_loads)
        m = c->dev.max_fine_loads;
    mt_experiment e[GEOMETRY_REF_RUNS];
    mt_result r[GEOMETRY_REF_RUNS];
    for (uint32_t k = 0; k < GEOMETRY_REF_RUNS; k++)
        e[k] = mt_exp_chase(t->path, m * t->line, t->line, GEOMETRY_WARMUP_LAPS,
                            c->dev.max_fine_loads, MT_MODE_FINE);
    mt_err err = mt_run(c, e, GEOMETRY_REF_RUNS, r);
    if (err != MT_OK)
        return err;
    mt_miss_count count = {0};
    for (uint32_t k = 0; k < GEOMETRY_REF_RUNS; k++)
        mt_count_misses(c, &r[k], t->hit_threshold, &count);
    mt_results_free(r, GEOMETRY_REF_RUNS);
    *p0 = ((double)count.missed + 1) / ((double)count.timed + 2);
    return MT_OK;
}

static uint64_t gcd_u64(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* "2:1024 4:512 ..." : the capacities measured, for the notes. */
static void caps_text(const stride_search *s, size_t n, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && at < len; i++)
        at += (size_t)snprintf(buf + at, len - at, "%s%llu:%llu%s", i ? " " : "",
                               (unsigned long long)s[i].k, (unsigned long long)s[i].lo,
                               s[i].hi == s[i].lo + 1 ? "" : "+");
}

/* Searches every stride's capacity, one batch per round, until each is
 * bracketed or cannot be taken further. */
static mt_err search(mt_probe_ctx *c, const mt_geometry_target *t, stride_search *s, size_t n,
                     uint64_t max_m, uint64_t limit, double p0, load_budget *b)
{
    for (;;) {
        for (size_t i = 0; i < n; i++)
            s[i].probe = next_probe(c, t, &s[i], max_m, limit, p0);
        bool more;
        mt_err err = run_round(c, t, s, n, b, &more);
        if (err != MT_OK || !more)
            return err;
    }
}

static bool bracketed(const stride_search *s)
{
    return s->hi == s->lo + 1;
}

static bool power_of_two(uint64_t v)
{
    return v && !(v & (v - 1));
}

/* Where the first power-of-two strides are capped (a cache larger than
 * the longest chain a fine run decides: the L2), each held at least lo
 * elements; when the first stride after them is bracketed below every
 * such lo, it holds fewer than they do, so under modulo (capacities never
 * grow with the stride) the plateau cannot start before it.  The index of
 * that stride, where the plateau search starts; 0 otherwise. */
static size_t capped_prefix(const stride_search *s, size_t n)
{
    uint64_t least = UINT64_MAX;
    for (size_t i = 0; i < n; i++) {
        if (!power_of_two(s[i].k))
            continue;
        if (s[i].capped) {
            least = s[i].lo < least ? s[i].lo : least;
            continue;
        }
        return least != UINT64_MAX && bracketed(&s[i]) && s[i].lo < least ? i : 0;
    }
    return 0;
}

/* Under modulo indexing the capacities at strides 2^j halve until 2^j
 * reaches the power of two in S (2^a), then stay at P = W q (q: S's odd
 * part).  Sets *p = P and returns 2^a, or 0 when no plateau was seen.
 * With every power-of-two stride bracketed the plateau is where the
 * capacities last changed; otherwise (the path's limit left the longest
 * chains unbracketed) it is the first bracketed stride, every one before
 * it bracketed, whose double holds as much (bracketed, or seen to hold at
 * least that many).  (A hashed index
 * gives some stride too: the model check that follows rejects it.) */
static uint64_t plateau_start(const stride_search *s, size_t n, uint64_t *p)
{
    uint64_t last = 0, start = 0, first_start = 0, first_p = 0;
    const stride_search *prev = NULL;
    bool all = true, prefix = true;
    for (size_t i = capped_prefix(s, n); i < n; i++) {
        if (!power_of_two(s[i].k))
            continue;
        /* Under modulo the capacity at twice the stride is the same or
         * half: one seen to hold at least as much is the same. */
        if (prefix && !first_start && prev && s[i].lo >= prev->lo &&
            (bracketed(&s[i]) ? s[i].lo == prev->lo : !s[i].hi)) {
            first_start = prev->k;
            first_p = prev->lo;
        }
        if (!bracketed(&s[i])) {
            all = prefix = false;
            continue;
        }
        if (s[i].lo != last) {
            last = s[i].lo;
            start = s[i].k;
        }
        prev = &s[i];
    }
    *p = all ? last : first_p;
    return all ? start : first_start;
}

/* Whether stride s's search is consistent with capacity `want`: it fit at
 * lo elements and, where one was seen, did not at hi. */
static bool consistent(const stride_search *s, uint64_t want)
{
    return s->lo <= want && (!s->hi || want < s->hi);
}

/* An index that is not modulo: the XOR hash recovery (geometry_hash.c),
 * started from the bracketed stride with the fewest elements (the cheapest
 * group tests).  hash->why says why not, when it was not recovered. */
static mt_err hash_index(mt_probe_ctx *c, const mt_geometry_target *t, const stride_search *s,
                         size_t n, uint64_t limit, double p0, mt_hash_result *hash)
{
    const stride_search *start = NULL;
    uint64_t reach = 1ull << mt_geometry_hash_bits(t->line, limit); /* lines tested */
    for (size_t i = 0; i < n; i++)
        if (bracketed(&s[i]) && s[i].lo * s[i].k < reach && (!start || s[i].lo < start->lo))
            start = &s[i];
    if (!start) {
        snprintf(hash->why, sizeof hash->why, "no stride's capacity was bracketed within the "
                 "%llu lines tested", (unsigned long long)reach);
        return MT_OK;
    }
    if (t->hash_max_start && start->lo > t->hash_max_start) {
        snprintf(hash->why, sizeof hash->why, "the fewest lines that overflow a set at any "
                 "stride (%llu + 1) exceed the %llu the recovery may group-test",
                 (unsigned long long)start->lo, (unsigned long long)t->hash_max_start);
        return MT_OK;
    }
    mt_hash_request q = {
        .target = {.path = t->path, .line = t->line, .thr = t->hit_threshold, .p0 = p0},
        .limit_bytes = limit, .stride = start->k, .cap = start->lo, .size_low = t->size_lo};
    if (!mt_backend_supports(c->be, MT_KIND_SEQUENCE)) {
        snprintf(hash->why, sizeof hash->why, "the backend runs no access sequences");
        return MT_OK;
    }
    mt_progress(c, "%s geometry: set-index hash from %llu lines %llu apart", t->name,
                (unsigned long long)start->lo + 1, (unsigned long long)start->k);
    return mt_geometry_hash(c, &q, hash);
}

/* Appends the cross-check of sets x ways x line against the capacity
 * search's size (its first misses) where they differ. */
static void note_size(mt_finding *fs, const mt_geometry_target *t, double geo)
{
    if (geo < t->size_lo || geo > t->size_hi)
        mt_finding_append_note(fs, "sets x ways x line = %.0f B, but the %s size (first "
                               "misses of a sector-stride chain) is %.0f-%.0f B", geo, t->key,
                               t->size_lo, t->size_hi);
}

/* Exact ways and sets and the masks of a recovered XOR index. */
static void hash_findings(mt_probe_ctx *c, const mt_geometry_target *t, const mt_hash_result *h,
                          mt_finding *fw, mt_finding *fs, mt_finding *fi, mt_finding *fm)
{
    const char *m = "eviction set and XOR hash recovery";
    double conf = t->confidence;
    uint64_t sets = 1ull << h->rank;
    mt_note_threshold(c, "GEOMETRY_HASH_SPAN_BYTES", GEOMETRY_HASH_SPAN_BYTES,
                      "geometry: line bits tested for the XOR hash lie below this many bytes");
    mt_note_threshold(c, "GEOMETRY_HASH_VERIFY_LISTS", GEOMETRY_HASH_VERIFY_LISTS,
                      "geometry: random lists of each kind (must conflict, must fit) that "
                      "verify recovered XOR masks by prediction");
    *fw = mt_find_value((double)h->ways, "count", MT_SRC_MEASURED, m, conf,
                        "%u lines of one set overflow it and any %u of them fit (found by group "
                        "testing); %zu experiments in all", h->ways + 1, h->ways, h->experiments);
    *fs = mt_find_value((double)sets, "count", MT_SRC_MEASURED, m, conf,
                        "the set index has %u independent bits over line-address bits 0-%u",
                        h->rank, h->bits_tested - 1);
    *fi = mt_find_value(0, "", MT_SRC_MEASURED, m, conf,
                        "XOR of line-address bits (%s.index_masks); %u random predictions held",
                        t->key, h->predictions);
    fi->kind = MT_FIND_TEXT;
    snprintf(fi->text, sizeof fi->text, h->rank ? "xor" : "modulo");
    *fm = mt_find_value(0, "", MT_SRC_MEASURED, m, conf,
                        "set bit k = parity(line AND mask k), line = address / %u B; line bits "
                        "0-%u tested (higher: not tested); reduced row echelon form (set "
                        "labels are arbitrary: the row space is what is measured)", t->line,
                        h->bits_tested - 1);
    fm->kind = MT_FIND_TEXT;
    char text[sizeof fm->text + 64];
    mt_hash_masks_text(h, text, sizeof text);
    if (strlen(text) >= sizeof fm->text) {
        fm->kind = MT_FIND_NONE;
        mt_finding_append_note(fm, "%u masks do not fit the report's text", h->rank);
    } else {
        snprintf(fm->text, sizeof fm->text, "%s", text);
    }
    note_size(fs, t, (double)(sets * h->ways * t->line));
}

mt_err mt_geometry_measure(mt_probe_ctx *c, const mt_geometry_target *t)
{
    uint32_t line = t->line;
    /* N only bounds the searches and sizes the reference chain: a size
     * range (timer outliers blurred the first misses) gives its top. */
    uint64_t n_lines = line ? (uint64_t)t->size_hi / line : 0;
    if (n_lines < 1)
        return MT_OK;
    mt_note_threshold(c, "GEOMETRY_ALPHA", GEOMETRY_ALPHA,
                      "geometry: chance that timer outliers in every lap make a fitting chain "
                      "look as if it did not fit");
    mt_note_threshold(c, "GEOMETRY_MAX_LAPS", GEOMETRY_MAX_LAPS,
                      "geometry: most laps one fits/does-not-fit decision is timed over");
    mt_note_threshold(c, "GEOMETRY_MAX_SIZE_RATIO", GEOMETRY_MAX_SIZE_RATIO,
                      "geometry: modulo is rejected when ways x sets x line exceed this times "
                      "the size");
    uint64_t limit = c->dev.path_limit_bytes[t->path];
    if (!limit)
        limit = UINT64_MAX;

    /* Strides 1, 2^j up to 2N (past any set count) and 2^j + 1 below N. */
    stride_search s[GEOMETRY_MAX_STRIDES];
    size_t n = 0;
    for (uint64_t k = 1; n + 3 <= GEOMETRY_MAX_STRIDES; k *= 2) {
        s[n++] = (stride_search){.k = k, .lo = 1};
        if (k >= 2 * n_lines)
            break;
        if (k > 1 && k + 1 < n_lines)
            s[n++] = (stride_search){.k = k + 1, .lo = 1};
    }
    mt_progress(c, "%s geometry: capacity at %zu strides (1 to %llu lines)", t->name, n,
                (unsigned long long)s[n - 1].k);
    double p0;
    load_budget budget = {.budget = t->budget_loads};
    /* The reference must fit: half the lines of the size's low end (a
     * partitioned L2's top is the whole L2, of which one SM holds a part). */
    uint64_t sure_lines = t->max_chain ? (uint64_t)t->size_lo / line : 0;
    mt_err err = outlier_rate(c, t, sure_lines ? sure_lines : n_lines, &p0);
    if (err == MT_OK)
        err = search(c, t, s, n, 2 * n_lines + 1, limit, p0, &budget);
    if (err != MT_OK)
        return err;
    /* The stride that modulo indexing maps to one set (a multiple of S):
     * the plateau's capacity P = W q times the stride where it starts, 2^a. */
    uint64_t plateau_p = 0;
    uint64_t whole = plateau_start(s, n, &plateau_p) * plateau_p;
    size_t at = n;
    for (size_t i = 0; i < n; i++)
        if (whole && s[i].k == whole)
            at = i;
    if (whole && at == n && n < GEOMETRY_MAX_STRIDES) {
        at = n;
        s[n++] = (stride_search){.k = whole, .lo = 1};
        if ((err = search(c, t, s, n, 2 * n_lines + 1, limit, p0, &budget)) != MT_OK)
            return err;
    }

    char caps[400];
    caps_text(s, n, caps, sizeof caps);
    const char *m = "stride-conflict capacity";
    /* The ways' upper bound: every capacity is at least W, and hi - 1 is
     * at least the capacity wherever a chain was seen not to fit. */
    uint64_t max_ways = n_lines;
    for (size_t i = 0; i < n; i++)
        if (s[i].hi && s[i].hi - 1 < max_ways)
            max_ways = s[i].hi - 1;
    /* W: the capacity at the whole stride, or P itself when P is a power of
     * two (then S's odd part q, which divides P = W q, is 1). */
    uint64_t ways = 0;
    if (at < n && bracketed(&s[at]))
        ways = s[at].lo;
    else if (power_of_two(plateau_p))
        ways = plateau_p;
    /* Decided: every power-of-two stride up to the plateau bracketed
     * (plateau_start), and every stride 2^j + 1 (the ones that catch the
     * XOR hashes) bracketed, or seen to hold its first 2^j elements at once
     * (what an index XORing bit i with bit i + j puts in one set), or
     * taken as far as the path holds such a chain (a constant bank of 64
     * KiB); the others must not contradict the model. */
    bool decided = ways && whole % ways == 0;
    for (size_t i = 0; i < n && decided; i++)
        decided = power_of_two(s[i].k) || s[i].k == whole || bracketed(&s[i]) ||
                  s[i].lo >= s[i].k - 1 || s[i].lo >= limit / (s[i].k * line) ||
                  s[i].capped;
    bool all_found = true;
    for (size_t i = 0; i < n; i++)
        all_found = all_found && bracketed(&s[i]);
    bool modulo = decided;
    uint64_t sets = modulo ? whole / ways : 0;
    /* Only where capped strides (t->max_chain) can hide the pattern: the
     * first-level caches' predictions refute such a fit themselves. */
    bool oversized = modulo && t->max_chain && (double)sets * (double)ways * line >
                                   GEOMETRY_MAX_SIZE_RATIO * t->size_hi;
    modulo = modulo && !oversized;
    for (size_t i = 0; i < n && modulo; i++)
        modulo = consistent(&s[i], ways * sets / gcd_u64(sets, s[i].k));
    /* The line-address bits the power-of-two strides decided, 0 .. top: a
     * hash of higher bits (constant within every chain) is not seen.  A
     * capped stride held every line the laps could time without a miss,
     * as modulo predicts: it counts as deciding its bit. */
    int top = -1;
    for (size_t i = 0; i < n; i++)
        if (s[i].k == (uint64_t)1 << (top + 1) && (bracketed(&s[i]) || s[i].capped))
            top++;
    /* The strides agree with modulo; random lines must agree too (a hash
     * of bits the strides barely touch passes the strides alone). */
    mt_fit_target fit = {.path = t->path, .line = line, .thr = t->hit_threshold, .p0 = p0};
    uint32_t refuted = 0, predicted = 0;
    modulo = modulo && !budget.out; /* the predictions would pass the budget too */
    if (modulo && (err = mt_geometry_verify_modulo(c, &fit, limit, sets, (uint32_t)ways,
                                                   &refuted, &predicted)) != MT_OK)
        return err;
    modulo = modulo && !refuted;
    mt_finding fw, fs, fi, fm;
    bool masks = false;
    mt_hash_result hash = {0};
    if (budget.out)
        snprintf(hash.why, sizeof hash.why, "the search's budget of %llu loads was spent "
                 "(%llu issued)", (unsigned long long)budget.budget,
                 (unsigned long long)budget.spent);
    else if (!modulo && (err = hash_index(c, t, s, n, limit, p0, &hash)) != MT_OK)
        return err;
    /* An index measured in lines that separates consecutive lines
     * confirms a line capped only by its capacity range (line_confirm.c):
     * the findings below, measured in those lines, take the confidence it
     * has then. */
    char separates[96] = "";
    if (!mt_index_separates_lines(modulo, sets, hash.recovered ? hash.masks : NULL,
                                  !modulo && hash.recovered ? hash.rank : 0, separates,
                                  sizeof separates))
        separates[0] = '\0';
    mt_geometry_target confirmed = *t;
    confirmed.confidence = mt_line_confidence_for_geometry(c, t->key, separates[0] != '\0');
    bool lifted = confirmed.confidence > t->confidence;
    if (lifted)
        t = &confirmed;
    if (modulo) {
        /* The size only bounds the search: the line's confidence is the
         * one the strides inherit. */
        double conf = t->confidence;
        mt_note_threshold(c, "GEOMETRY_SPREAD_CLASSES", GEOMETRY_SPREAD_CLASSES,
                          "geometry: residue classes whose furthest-apart lines must conflict "
                          "for a modulo claim");
        fw = mt_find_value((double)ways, "count", MT_SRC_MEASURED, m, conf,
                           "a chain %llu lines apart holds %llu elements; capacity (stride:"
                           "elements) %s", (unsigned long long)whole,
                           (unsigned long long)ways, caps);
        fs = mt_find_value((double)sets, "count", MT_SRC_MEASURED, m, conf,
                           "%llu lines apart map to one set, which holds %llu; every stride's "
                           "capacity is ways x sets / gcd(sets, stride)",
                           (unsigned long long)whole, (unsigned long long)ways);
        fi = mt_find_value(0, "", MT_SRC_MEASURED, m, conf,
                           "%s%zu strides held ways x sets / gcd(sets, stride) elements; %u "
                           "predictions held (random lines and spread classes)",
                           all_found ? "all " : "the ", n, predicted);
        if (!all_found)
            mt_finding_append_note(&fi, "(those marked + at least that many: the chains "
                                        "that would decide them exceed the %s path or the "
                                        "laps)", mt_path_name(t->path));
        fi.kind = MT_FIND_TEXT;
        /* "modulo" alone only where those bits are every bit of a line
         * address the path reaches. */
        if (top >= 0 && top < 62 && ((uint64_t)2 << top) * line < limit)
            snprintf(fi.text, sizeof fi.text, "modulo (line-address bits 0-%d)", top);
        else
            snprintf(fi.text, sizeof fi.text, "modulo");
        note_size(&fs, t, (double)(sets * ways * line));
    } else if (hash.recovered) {
        hash_findings(c, t, &hash, &fw, &fs, &fi, &fm);
        masks = hash.rank > 0; /* one set: fully associative, modulo 1, no masks */
    } else {
        /* Any W elements fit in any index, so W <= every capacity.  A
         * chain that fits had every element resident at once, so the cache
         * has at least its elements' lines: the sets are at least the most
         * of them over the ways' bound.  Only a lower bound: a hashed cache
         * can lose lines before it is full, so its first misses (the size)
         * may undercount its lines.  "Fits" rests on the hit threshold that
         * also found the size (a next level close in latency passes for
         * hits), so the bound is no surer than the size. */
        uint64_t n_low = 1;
        for (size_t i = 0; i < n; i++)
            if (s[i].lo > n_low)
                n_low = s[i].lo;
        if (!max_ways)
            max_ways = 1;
        mt_note_threshold(c, "GEOMETRY_RANGE_CONF", GEOMETRY_RANGE_CONF,
                          "geometry: confidence of ways and sets bounded, not measured (an "
                          "index that is not modulo)");
        /* The range counts lines of the measured line size, and where no
         * stride was seen to overflow its top is the size's lines: it is no
         * surer than the line, nor than the size it then rests on (a 512 B
         * line at 0.4 for 32 B lines made a 184-way L1.5 "1-14 ways" at
         * 0.5, unseen seed 2134). */
        bool top_from_size = max_ways == n_lines;
        double ways_conf = GEOMETRY_RANGE_CONF;
        if (t->confidence < ways_conf)
            ways_conf = t->confidence;
        if (top_from_size && t->size_confidence < ways_conf)
            ways_conf = t->size_confidence;
        fw = mt_find_range(1, (double)max_ways, "count", m, ways_conf,
                           "capacities (stride:elements, + = lower bound) %s do not follow "
                           "ways x sets / gcd(sets, stride): the index is not modulo", caps);
        if (ways_conf < GEOMETRY_RANGE_CONF)
            mt_finding_append_note(&fw, "in lines of %u B (line confidence %.2f)%s", line,
                                   t->confidence,
                                   top_from_size ? "; the top is the size's lines, no stride "
                                                   "overflowed" : "");
        if (hash.confirmed || hash.ways_why[0])
            mt_note_threshold(c, "GEOMETRY_CONFIRM_LAPS", GEOMETRY_CONFIRM_LAPS,
                              "geometry: fewest laps an eviction set's members are confirmed "
                              "over, decided by the count of laps that missed");
        if (hash.ways && hash.ways > max_ways) {
            /* Any W lines fit in any index, so W is at most every stride's
             * capacity: an eviction set larger than one of them has
             * passed an overfull set as fitting (a randomised policy
             * whose few misses a lap its decisions missed: 22 ways where a
             * stride held only 16, unseen seed 1899).  The range stands. */
            mt_finding_append_note(&fw, "an eviction set of %u lines seemed to fit, more than "
                                   "the %llu a stride held: not taken", hash.ways,
                                   (unsigned long long)max_ways);
        } else if (hash.ways) {
            /* The eviction set needs no linear index: W is exact even
             * where the masks could not be recovered or verified.  (The
             * sets keep the capacities' bound: the size they divide is
             * itself only within its tolerance.) */
            /* Lines the confirmation dropped come before the capacities,
             * which can fill the note. */
            char dropped[128] = "";
            if (hash.dropped)
                snprintf(dropped, sizeof dropped, "; %u line(s) the group tests took in are not "
                         "members (a miss hidden below the hit threshold)", hash.dropped);
            fw = mt_find_value((double)hash.ways, "count", MT_SRC_MEASURED,
                               "eviction set (group testing)", t->confidence,
                               "%u lines of one set overflow it and any %u of them fit (each "
                               "decided over %u laps by the laps that missed%s); capacities %s",
                               hash.ways + 1, hash.ways, GEOMETRY_CONFIRM_LAPS, dropped, caps);
        } else if (hash.ways_why[0]) {
            /* The group tests' eviction set was not confirmed: its W rests
             * on single decisions a hidden miss can fake (10 ways for 8,
             * unseen seed 2252).  The range stands, the reason first (the
             * capacities can fill the note). */
            mt_finding_note_first(&fw, "eviction set not confirmed: %s", hash.ways_why);
        }
        double sets_conf = t->size_confidence < GEOMETRY_RANGE_CONF ? t->size_confidence
                                                                    : GEOMETRY_RANGE_CONF;
        fs = mt_find_bound((double)((n_low + max_ways - 1) / max_ways), "count", m,
                           sets_conf, "at least %llu lines (the most elements a "
                           "chain held) over at most %llu ways", (unsigned long long)n_low,
                           (unsigned long long)max_ways);
        /* More lines held at once than the size has room for: either the
         * size or the fits decisions are wrong (misses close enough to the
         * hits to pass the hit threshold: a texture of 12 lines "held" 25,
         * unseen seed 1400; a single extra line under a randomised policy:
         * 33 of 32 lines over 16 ways read as 3 sets for 2, unseen seed
         * 1899), and the bound rests on both. */
        if (t->size_hi > 0 && (double)n_low * t->line > t->size_hi)
            mt_finding_doubt(&fs, MT_CONF_INCONSISTENT,
                             "%llu lines held at once are more than the size (%.0f B) has room "
                             "for: the size or the fits are wrong", (unsigned long long)n_low,
                             t->size_hi);
        fi = mt_find_value(0, "", MT_SRC_MEASURED, m, GEOMETRY_RANGE_CONF,
                           "capacities %s", caps);
        fi.kind = MT_FIND_TEXT;
        snprintf(fi.text, sizeof fi.text, "not modulo (hashed or unbracketed)");
        if (refuted)
            mt_finding_append_note(&fi, "the strides fit modulo, but %u predicted lists did not",
                                   refuted);
        if (oversized)
            mt_finding_append_note(&fi, "the strides fit modulo over %llu sets x %llu ways, "
                                   "more than %g x the size", (unsigned long long)(whole / ways),
                                   (unsigned long long)ways, GEOMETRY_MAX_SIZE_RATIO);
        if (hash.why[0])
            mt_finding_append_note(&fi, "XOR hash not recovered: %s", hash.why);
    }
    if (lifted)
        mt_finding_append_note(&fi, "confirms %s.line (%u B, capped by a capacity range): %s",
                               t->key, line, separates);
    mt_set(c, t->key, "ways", &fw);
    mt_set(c, t->key, "sets", &fs);
    mt_set(c, t->key, "index", &fi);
    if (masks)
        mt_set(c, t->key, "index_masks", &fm);
    return MT_OK;
}

bool mt_geometry_target_of(const mt_probe_ctx *c, mt_cache_id id, mt_geometry_target *t)
{
    const char *key = mt_cache_key(id);
    const mt_finding *size = mt_get(c, key, "size"), *line = mt_get(c, key, "line");
    const mt_cache_state *cs = &c->cs[id];
    bool sized = size->kind == MT_FIND_VALUE || size->kind == MT_FIND_RANGE;
    if (!sized || line->kind != MT_FIND_VALUE || line->value < 1 || !cs->hit_known ||
        !cs->present)
        return false; /* no line to count strides in, or no bound on the lines */
    *t = (mt_geometry_target){
        .key = key, .name = mt_cache_name(id), .path = mt_cache_path(id),
        .line = (uint32_t)line->value,
        .size_lo = size->kind == MT_FIND_RANGE ? size->lo : size->value,
        .size_hi = size->kind == MT_FIND_RANGE ? size->hi : size->value,
        .size_confidence = size->confidence,
        .hit_threshold = cs->hit_threshold, .confidence = line->confidence,
    };
    return true;
}

static mt_err run_geometry(mt_probe_ctx *c)
{
    mt_mark_probed(c, "l1d");
    mt_geometry_target t;
    if (!mt_geometry_target_of(c, MT_CACHE_L1D, &t))
        return MT_OK; /* no finding */
    return mt_geometry_measure(c, &t);
}

/* Part of the default run (its cost on the H100 is a small share of the
 * report's: docs/method.md); with --only, only when --geometry asks.  The
 * same for cache_geom and policy, which stand on this probe's findings. */
bool mt_geometry_requested(const mt_probe_options *o)
{
    return o->geometry || !o->only_set;
}

static const mt_finding_decl geometry_provides[] = {
    {"l1d.ways", "ways"},
    {"l1d.sets", "sets"},
    {"l1d.index", "set index"},
    {"l1d.index_masks", "set-index XOR masks"},
    {NULL},
};
static const char *const geometry_requires[] = {"l1d.size", "l1d.line", NULL};
const mt_probe_desc mt_probe_geometry = {
    .name = "geometry",
    .summary = "L1 data ways, sets and set index (modulo, or the XOR masks of a hash) from "
               "chains at strides of 2^j and 2^j + 1 lines and eviction sets",
    .rank = 95, .provides = geometry_provides, .requires = geometry_requires,
    .run = run_geometry, .requested = mt_geometry_requested,
};

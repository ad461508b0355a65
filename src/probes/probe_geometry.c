/* L1 data cache geometry: ways, sets and whether the set index is the line
 * address modulo the sets (issue 8, part 1), and for an index that is not,
 * the XOR hash (geometry_hash.c).  Runs by default; with --only, when
 * --geometry asks for it.
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
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "geometry_fit.h"
#include "geometry_hash.h"
#include "probe_internal.h"

/* The fits decision (laps, GEOMETRY_ALPHA) is geometry_fit.h's. */
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

/* One stride's search: lo fits, hi does not (0: not yet found). */
typedef struct {
    uint64_t k;      /* stride in lines */
    uint64_t lo, hi;
    uint64_t probe;  /* the element count tested this round, 0 when done */
    uint32_t runs;   /* experiments for this round's probe */
    uint32_t laps_per_run;
} stride_search;

/* The next element count to test (doubling until a chain does not fit,
 * then bisection) and the runs it takes; 0 when bracketed or nothing more
 * can be decided (laps, footprint limit). */
static uint64_t next_probe(const mt_probe_ctx *c, stride_search *s, uint64_t max_m,
                           uint32_t line, uint64_t limit, double p0)
{
    uint64_t m;
    if (s->hi == 0)
        m = s->lo * 2 > max_m ? max_m : s->lo * 2;
    else
        m = s->lo + (s->hi - s->lo) / 2;
    if (m <= s->lo || (s->hi && m >= s->hi) || m * s->k * line > limit ||
        s->k * line > UINT32_MAX) /* a chain's stride is 32 bits */
        return 0;
    uint32_t laps = mt_geometry_laps_needed(p0, m);
    uint64_t per_run = c->dev.max_fine_loads / m;
    if (!laps || !per_run)
        return 0;
    s->laps_per_run = (uint32_t)(per_run < laps ? per_run : laps);
    s->runs = (laps + s->laps_per_run - 1) / s->laps_per_run;
    return m;
}

/* Runs one round: the runs of every stride still searching, one batch. */
static mt_err run_round(mt_probe_ctx *c, stride_search *s, size_t n, uint32_t line, bool *more)
{
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += s[i].probe ? s[i].runs : 0;
    *more = total > 0;
    if (!total)
        return MT_OK;
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
            e[used++] = mt_exp_chase(MT_PATH_GLOBAL_CA, s[i].probe * s[i].k * line,
                                     (uint32_t)(s[i].k * line), GEOMETRY_WARMUP_LAPS,
                                     (uint32_t)(s[i].laps_per_run * s[i].probe), MT_MODE_FINE);
    if ((err = mt_run(c, e, total, r)) != MT_OK)
        goto out;
    double thr = c->cs[MT_CACHE_L1D].hit_threshold;
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
static mt_err outlier_rate(mt_probe_ctx *c, uint64_t n_lines, uint32_t line, double *p0)
{
    uint64_t m = n_lines / 2 ? n_lines / 2 : 1;
    mt_experiment e[GEOMETRY_REF_RUNS];
    mt_result r[GEOMETRY_REF_RUNS];
    for (uint32_t k = 0; k < GEOMETRY_REF_RUNS; k++)
        e[k] = mt_exp_chase(MT_PATH_GLOBAL_CA, m * line, line, GEOMETRY_WARMUP_LAPS,
                            c->dev.max_fine_loads, MT_MODE_FINE);
    mt_err err = mt_run(c, e, GEOMETRY_REF_RUNS, r);
    if (err != MT_OK)
        return err;
    mt_miss_count count = {0};
    for (uint32_t k = 0; k < GEOMETRY_REF_RUNS; k++)
        mt_count_misses(c, &r[k], c->cs[MT_CACHE_L1D].hit_threshold, &count);
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
static mt_err search(mt_probe_ctx *c, stride_search *s, size_t n, uint64_t max_m, uint32_t line,
                     uint64_t limit, double p0)
{
    for (;;) {
        for (size_t i = 0; i < n; i++)
            s[i].probe = next_probe(c, &s[i], max_m, line, limit, p0);
        bool more;
        mt_err err = run_round(c, s, n, line, &more);
        if (err != MT_OK || !more)
            return err;
    }
}

/* Under modulo indexing the capacities at strides 2^j halve until 2^j
 * reaches the power of two in S (2^a), then stay at P = W q (q: S's odd
 * part).  Returns P 2^a, a multiple of S, or 0 when a power-of-two stride
 * was not bracketed.  (A hashed index gives some stride too: the model
 * check that follows rejects it.) */
static uint64_t plateau_stride(const stride_search *s, size_t n)
{
    uint64_t last = 0, start = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i].k & (s[i].k - 1))
            continue; /* not a power of two */
        if (s[i].hi != s[i].lo + 1)
            return 0;
        if (s[i].lo != last) {
            last = s[i].lo;
            start = s[i].k;
        }
    }
    return last * start;
}

/* An index that is not modulo: the XOR hash recovery (geometry_hash.c),
 * started from the bracketed stride with the fewest elements (the cheapest
 * group tests).  hash->why says why not, when it was not recovered. */
static mt_err hash_index(mt_probe_ctx *c, const stride_search *s, size_t n, uint32_t line,
                         uint64_t limit, double p0, const mt_finding *size, mt_hash_result *hash)
{
    const stride_search *start = NULL;
    uint64_t reach = 1ull << mt_geometry_hash_bits(line, limit); /* lines tested */
    for (size_t i = 0; i < n; i++)
        if (s[i].hi == s[i].lo + 1 && s[i].lo * s[i].k < reach && (!start || s[i].lo < start->lo))
            start = &s[i];
    if (!start) {
        snprintf(hash->why, sizeof hash->why, "no stride's capacity was bracketed within the "
                 "%llu lines tested", (unsigned long long)reach);
        return MT_OK;
    }
    mt_hash_request q = {
        .target = {.path = MT_PATH_GLOBAL_CA, .line = line,
                   .thr = c->cs[MT_CACHE_L1D].hit_threshold, .p0 = p0},
        .limit_bytes = limit, .stride = start->k, .cap = start->lo,
        .size_low = size->kind == MT_FIND_RANGE ? size->lo : size->value};
    if (!mt_backend_supports(c->be, MT_KIND_SEQUENCE)) {
        snprintf(hash->why, sizeof hash->why, "the backend runs no access sequences");
        return MT_OK;
    }
    mt_progress(c, "L1 geometry: set-index hash from %llu lines %llu apart",
                (unsigned long long)start->lo + 1, (unsigned long long)start->k);
    return mt_geometry_hash(c, &q, hash);
}

/* Exact ways and sets and the masks of a recovered XOR index. */
static void hash_findings(mt_probe_ctx *c, const mt_hash_result *h, uint32_t line, double conf,
                          const mt_finding *size, mt_finding *fw, mt_finding *fs, mt_finding *fi,
                          mt_finding *fm)
{
    const char *m = "eviction set and XOR hash recovery";
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
                        "XOR of line-address bits (l1d.index_masks); %u random predictions held",
                        h->predictions);
    fi->kind = MT_FIND_TEXT;
    snprintf(fi->text, sizeof fi->text, h->rank ? "xor" : "modulo");
    *fm = mt_find_value(0, "", MT_SRC_MEASURED, m, conf,
                        "set bit k = parity(line AND mask k), line = address / %u B; line bits "
                        "0-%u tested (higher: not tested); reduced row echelon form (set "
                        "labels are arbitrary: the row space is what is measured)", line,
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
    double geo = (double)(sets * h->ways * line);
    if (size->kind == MT_FIND_VALUE ? geo != size->value : geo < size->lo || geo > size->hi)
        mt_finding_append_note(fs, "sets x ways x line = %.0f B, but the l1d size (first misses "
                               "of a sector-stride chain) is %.0f-%.0f B", geo,
                               size->kind == MT_FIND_VALUE ? size->value : size->lo,
                               size->kind == MT_FIND_VALUE ? size->value : size->hi);
}

static mt_err run_geometry(mt_probe_ctx *c)
{
    const mt_finding *size = mt_get(c, "l1d", "size"), *line_f = mt_get(c, "l1d", "line");
    const mt_cache_state *cs = &c->cs[MT_CACHE_L1D];
    mt_mark_probed(c, "l1d");
    bool sized = size->kind == MT_FIND_VALUE || size->kind == MT_FIND_RANGE;
    if (!sized || line_f->kind != MT_FIND_VALUE || !cs->hit_known || !cs->present)
        return MT_OK; /* no line to count strides in, or no bound on the lines: no finding */
    uint32_t line = (uint32_t)line_f->value;
    /* N only bounds the searches and sizes the reference chain: a size
     * range (timer outliers blurred the first misses) gives its top. */
    double size_top = size->kind == MT_FIND_RANGE ? size->hi : size->value;
    uint64_t n_lines = (uint64_t)size_top / line;
    if (line == 0 || n_lines < 1)
        return MT_OK;
    mt_note_threshold(c, "GEOMETRY_ALPHA", GEOMETRY_ALPHA,
                      "geometry: chance that timer outliers in every lap make a fitting chain "
                      "look as if it did not fit");
    mt_note_threshold(c, "GEOMETRY_MAX_LAPS", GEOMETRY_MAX_LAPS,
                      "geometry: most laps one fits/does-not-fit decision is timed over");
    uint64_t limit = c->dev.path_limit_bytes[MT_PATH_GLOBAL_CA];
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
    mt_progress(c, "L1 geometry: capacity at %zu strides (1 to %llu lines)", n,
                (unsigned long long)s[n - 1].k);
    double p0;
    mt_err err = outlier_rate(c, n_lines, line, &p0);
    if (err == MT_OK)
        err = search(c, s, n, 2 * n_lines + 1, line, limit, p0);
    if (err != MT_OK)
        return err;
    /* The stride that modulo indexing maps to one set (a multiple of S):
     * the plateau's capacity P = W q times the stride where it starts, 2^a. */
    uint64_t whole = plateau_stride(s, n);
    size_t at = n;
    for (size_t i = 0; i < n; i++)
        if (whole && s[i].k == whole)
            at = i;
    if (whole && at == n && n < GEOMETRY_MAX_STRIDES) {
        s[n++] = (stride_search){.k = whole, .lo = 1};
        if ((err = search(c, s, n, 2 * n_lines + 1, line, limit, p0)) != MT_OK)
            return err;
    }

    char caps[400];
    caps_text(s, n, caps, sizeof caps);
    const char *m = "stride-conflict capacity";
    /* The ways' upper bound: every capacity is at least W, and hi - 1 is
     * at least the capacity wherever a chain was seen not to fit. */
    uint64_t max_ways = n_lines;
    bool all_found = true;
    for (size_t i = 0; i < n; i++) {
        all_found = all_found && s[i].hi == s[i].lo + 1;
        if (s[i].hi && s[i].hi - 1 < max_ways)
            max_ways = s[i].hi - 1;
    }
    uint64_t ways = at < n ? s[at].lo : 0;
    bool modulo = all_found && ways && whole % ways == 0;
    uint64_t sets = modulo ? whole / ways : 0;
    for (size_t i = 0; i < n && modulo; i++)
        modulo = s[i].lo == ways * sets / gcd_u64(sets, s[i].k);
    /* The strides agree with modulo; random lines must agree too (a hash
     * of bits the strides barely touch passes the strides alone). */
    mt_fit_target target = {.path = MT_PATH_GLOBAL_CA, .line = line,
                            .thr = c->cs[MT_CACHE_L1D].hit_threshold, .p0 = p0};
    uint32_t refuted = 0, predicted = 0;
    if (modulo && (err = mt_geometry_verify_modulo(c, &target, limit, sets, (uint32_t)ways,
                                                   &refuted, &predicted)) != MT_OK)
        return err;
    modulo = modulo && !refuted;
    mt_finding fw, fs, fi, fm;
    bool masks = false;
    mt_hash_result hash = {0};
    if (!modulo && (err = hash_index(c, s, n, line, limit, p0, size, &hash)) != MT_OK)
        return err;
    if (modulo) {
        /* The size only bounds the search: the line's confidence is the
         * one the strides inherit. */
        double conf = line_f->confidence;
        fw = mt_find_value((double)ways, "count", MT_SRC_MEASURED, m, conf,
                           "a chain %llu lines apart holds %llu elements; capacity (stride:"
                           "elements) %s", (unsigned long long)whole,
                           (unsigned long long)ways, caps);
        fs = mt_find_value((double)sets, "count", MT_SRC_MEASURED, m, conf,
                           "%llu lines apart map to one set, which holds %llu; every stride's "
                           "capacity is ways x sets / gcd(sets, stride)",
                           (unsigned long long)whole, (unsigned long long)ways);
        fi = mt_find_value(0, "", MT_SRC_MEASURED, m, conf,
                           "all %zu strides held ways x sets / gcd(sets, stride) elements; %u "
                           "random predictions held", n, predicted);
        fi.kind = MT_FIND_TEXT;
        snprintf(fi.text, sizeof fi.text, "modulo");
        /* The cross-check: sets x ways x line against the capacity search's
         * size (its first misses). */
        double geo = (double)(sets * ways * line);
        if (size->kind == MT_FIND_VALUE ? geo != size->value : geo < size->lo || geo > size->hi)
            mt_finding_append_note(&fs, "sets x ways x line = %.0f B, but the l1d size (first "
                                   "misses of a sector-stride chain) is %.0f-%.0f B", geo,
                                   size->kind == MT_FIND_VALUE ? size->value : size->lo,
                                   size->kind == MT_FIND_VALUE ? size->value : size->hi);
    } else if (hash.recovered) {
        hash_findings(c, &hash, line, line_f->confidence, size, &fw, &fs, &fi, &fm);
        masks = hash.rank > 0; /* one set: fully associative, modulo 1, no masks */
    } else {
        /* Any W elements fit in any index, so W <= every capacity; the
         * sets are the lines over the ways, with the size's low end. */
        double low = size->kind == MT_FIND_RANGE ? size->lo : size->value;
        uint64_t n_low = (uint64_t)low / line;
        if (!max_ways)
            max_ways = 1;
        mt_note_threshold(c, "GEOMETRY_RANGE_CONF", GEOMETRY_RANGE_CONF,
                          "geometry: confidence of ways and sets bounded, not measured (an "
                          "index that is not modulo)");
        fw = mt_find_range(1, (double)max_ways, "count", m, GEOMETRY_RANGE_CONF,
                           "capacities (stride:elements, + = lower bound) %s do not follow "
                           "ways x sets / gcd(sets, stride): the index is not modulo", caps);
        if (hash.ways) {
            /* The eviction set needs no linear index: W is exact even
             * where the masks could not be recovered or verified.  (The
             * sets keep the capacities' bound: the size they divide is
             * itself only within its tolerance.) */
            fw = mt_find_value((double)hash.ways, "count", MT_SRC_MEASURED,
                               "eviction set (group testing)", line_f->confidence,
                               "%u lines of one set overflow it and any %u of them fit; "
                               "capacities %s", hash.ways + 1, hash.ways, caps);
        }
        /* A lower bound only: a hashed cache can lose lines before it is
         * full, so its first misses (the size) may undercount its lines. */
        fs = mt_find_bound((double)((n_low + max_ways - 1) / max_ways), "count", m,
                           GEOMETRY_RANGE_CONF, "at least %llu lines (the size's low end) over at "
                           "most %llu ways", (unsigned long long)n_low,
                           (unsigned long long)max_ways);
        fi = mt_find_value(0, "", MT_SRC_MEASURED, m, GEOMETRY_RANGE_CONF,
                           "capacities %s", caps);
        fi.kind = MT_FIND_TEXT;
        snprintf(fi.text, sizeof fi.text, "not modulo (hashed or unbracketed)");
        if (refuted)
            mt_finding_append_note(&fi, "the strides fit modulo, but %u random lists did not",
                                   refuted);
        if (hash.why[0])
            mt_finding_append_note(&fi, "XOR hash not recovered: %s", hash.why);
    }
    mt_set(c, "l1d", "ways", &fw);
    mt_set(c, "l1d", "sets", &fs);
    mt_set(c, "l1d", "index", &fi);
    if (masks)
        mt_set(c, "l1d", "index_masks", &fm);
    return MT_OK;
}

/* Part of the default run (its cost on the H100 is a small share of the
 * report's: docs/method.md); with --only, only when --geometry asks. */
static bool geometry_requested(const mt_probe_options *o)
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
    .run = run_geometry, .requested = geometry_requested,
};

/* L1 data cache geometry: ways, sets and whether the set index is the line
 * address modulo the sets (issue 8, part 1).  Opt-in (--geometry).
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
 * "at least one miss per lap" (GEOMETRY_MISSES_PER_LAP), which holds for
 * LRU, FIFO, tree pseudo-LRU and random alike.
 *
 * With modulo indexing over S sets, a stride of k lines reaches S/gcd(S,k)
 * sets: cap(k) = W S / gcd(S, k).  A stride of N lines is a multiple of S,
 * so cap(N) = W, and S = N / W.  The probe measures cap at N and at every
 * power of two below it, and accepts "modulo, W ways, S sets" only when
 * every one of them is what that formula predicts: the capacity halves with
 * each doubling of the stride until the stride reaches the power of two in
 * S, then stays at W times S's odd part.  Strides of 2^j + 1 lines are
 * measured too: under modulo they reach (nearly) every set, but an index
 * that XORs line bit i with bit i + j (the common hashes) sends all of
 * their first 2^j elements to one set, so a hash whose spreading makes
 * the power-of-two strides look fully associative still breaks the
 * pattern there.  A hashed index fails the formula; then the ways are only
 * bounded: any W elements fit in any index, so 1 <= W <= min cap(k). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe_internal.h"

/* Laps timed per chain: the "fits" decision allows timer outliers in up
 * to half of them (below). */
#define GEOMETRY_LAPS 8u
/* Fewest whole laps worth timing: with two, a single timer outlier would
 * read as a conflict miss. */
#define GEOMETRY_MIN_LAPS 3u
/* A chain that does not fit misses at least once per lap (pigeonhole,
 * above); one that fits misses only through timer outliers.  A chain with
 * at least this many misses per timed lap does not fit: half the certain
 * minimum, so outliers in up to half the laps are tolerated. */
#define GEOMETRY_MISSES_PER_LAP 0.5
/* Warm-up laps before timing: one lap loads a fitting chain whole. */
#define GEOMETRY_WARMUP_LAPS 2u
/* Strides searched: 2^j and 2^j + 1 for every j up to 31, and N. */
#define GEOMETRY_MAX_STRIDES 64
/* Confidence of ways that are only a range (a hashed index). */
#define GEOMETRY_RANGE_CONF 0.5

/* One stride's search: [lo, hi) brackets cap (lo fits, hi does not). */
typedef struct {
    uint64_t k;      /* stride in lines */
    uint64_t lo, hi; /* lo fits; hi does not (0: not yet found) */
    uint64_t probe;  /* the element count tested this round, 0 when done */
} stride_search;

static uint32_t laps_for(const mt_probe_ctx *c, uint64_t m)
{
    uint64_t laps = c->dev.max_fine_loads / m;
    return (uint32_t)(laps > GEOMETRY_LAPS ? GEOMETRY_LAPS : laps);
}

/* The next element count to test: doubling until a chain does not fit,
 * then bisection; 0 when lo + 1 == hi or nothing more can be tested
 * (lap count or footprint limit). */
static uint64_t next_probe(const mt_probe_ctx *c, const stride_search *s, uint64_t n_lines,
                           uint32_t line, uint64_t limit)
{
    uint64_t m;
    if (s->hi == 0)
        m = s->lo * 2 > n_lines + 1 ? n_lines + 1 : s->lo * 2;
    else
        m = s->lo + (s->hi - s->lo) / 2;
    if (m <= s->lo || (s->hi && m >= s->hi))
        return 0;
    if (laps_for(c, m) < GEOMETRY_MIN_LAPS || m * s->k * line > limit)
        return 0;
    return m;
}

/* Runs one round: one experiment per stride still searching. */
static mt_err run_round(mt_probe_ctx *c, stride_search *s, size_t n, uint32_t line, bool *more)
{
    mt_experiment e[GEOMETRY_MAX_STRIDES];
    mt_result r[GEOMETRY_MAX_STRIDES];
    size_t idx[GEOMETRY_MAX_STRIDES], used = 0;
    *more = false;
    for (size_t i = 0; i < n; i++) {
        if (!s[i].probe)
            continue;
        uint64_t m = s[i].probe;
        uint32_t laps = laps_for(c, m);
        e[used] = mt_exp_chase(MT_PATH_GLOBAL_CA, m * s[i].k * line, (uint32_t)(s[i].k * line),
                               GEOMETRY_WARMUP_LAPS, (uint32_t)(laps * m), MT_MODE_FINE);
        idx[used++] = i;
    }
    if (!used)
        return MT_OK;
    mt_err err = mt_run(c, e, used, r);
    if (err != MT_OK)
        return err;
    double thr = c->cs[MT_CACHE_L1D].hit_threshold;
    for (size_t j = 0; j < used && err == MT_OK; j++) {
        stride_search *t = &s[idx[j]];
        size_t ns;
        double *x = mt_fine_samples(c, &r[j], 0, &ns);
        if (!x) {
            err = mt_fail(c->ei, MT_ERR_NOMEM, "out of memory reading samples");
            break;
        }
        size_t misses = 0;
        for (size_t q = 0; q < ns; q++)
            misses += x[q] > thr;
        free(x);
        double laps = (double)ns / (double)t->probe;
        if ((double)misses >= GEOMETRY_MISSES_PER_LAP * laps)
            t->hi = t->probe;
        else
            t->lo = t->probe;
    }
    mt_results_free(r, used);
    *more = true;
    return err;
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
                               s[i].hi ? "" : "+");
}

static mt_err run_geometry(mt_probe_ctx *c)
{
    const mt_finding *size = mt_get(c, "l1d", "size"), *line_f = mt_get(c, "l1d", "line");
    const mt_cache_state *cs = &c->cs[MT_CACHE_L1D];
    mt_mark_probed(c, "l1d");
    if (size->kind != MT_FIND_VALUE || line_f->kind != MT_FIND_VALUE || !cs->hit_known ||
        !cs->present)
        return MT_OK; /* no exact line count to divide: no finding */
    uint32_t line = (uint32_t)line_f->value;
    uint64_t n_lines = (uint64_t)size->value / line;
    if (line == 0 || n_lines < 1)
        return MT_OK;
    mt_note_threshold(c, "GEOMETRY_MISSES_PER_LAP", GEOMETRY_MISSES_PER_LAP,
                      "geometry: misses per timed lap from which a chain does not fit a set");
    mt_note_threshold(c, "GEOMETRY_MIN_LAPS", GEOMETRY_MIN_LAPS,
                      "geometry: fewest whole laps a fits/does-not-fit decision is timed over");
    uint64_t limit = c->dev.path_limit_bytes[MT_PATH_GLOBAL_CA];
    if (!limit)
        limit = UINT64_MAX;

    /* Strides 2^j and 2^j + 1 below N lines, and N itself (the last). */
    stride_search s[GEOMETRY_MAX_STRIDES];
    size_t n = 0;
    for (uint64_t k = 2; k < n_lines && n + 3 <= GEOMETRY_MAX_STRIDES; k *= 2) {
        s[n++] = (stride_search){.k = k, .lo = 1};
        if (k + 1 < n_lines)
            s[n++] = (stride_search){.k = k + 1, .lo = 1};
    }
    s[n++] = (stride_search){.k = n_lines, .lo = 1};
    mt_progress(c, "L1 geometry: capacity at %zu strides (2 to %llu lines)", n,
                (unsigned long long)n_lines);
    for (;;) {
        for (size_t i = 0; i < n; i++)
            s[i].probe = next_probe(c, &s[i], n_lines, line, limit);
        bool more;
        mt_err err = run_round(c, s, n, line, &more);
        if (err != MT_OK)
            return err;
        if (!more)
            break;
    }

    char caps[400];
    caps_text(s, n, caps, sizeof caps);
    const char *m = "stride-conflict capacity";
    uint64_t ways = s[n - 1].lo, min_cap = ways;
    bool all_found = true;
    for (size_t i = 0; i < n; i++) {
        all_found = all_found && s[i].hi == s[i].lo + 1;
        if (s[i].lo < min_cap)
            min_cap = s[i].lo;
    }
    bool modulo = all_found && ways && n_lines % ways == 0;
    uint64_t sets = modulo ? n_lines / ways : 0;
    for (size_t i = 0; i < n && modulo; i++)
        modulo = s[i].lo == ways * sets / gcd_u64(sets, s[i].k);
    mt_finding fw, fs, fi;
    if (modulo) {
        double conf = size->confidence < line_f->confidence ? size->confidence
                                                            : line_f->confidence;
        fw = mt_find_value((double)ways, "count", MT_SRC_MEASURED, m, conf,
                           "a chain %llu lines apart holds %llu elements; capacity (stride:"
                           "elements) %s", (unsigned long long)n_lines,
                           (unsigned long long)ways, caps);
        fs = mt_find_value((double)sets, "count", MT_SRC_MEASURED, m, conf,
                           "%llu lines / %llu ways; every stride's capacity is ways x sets / "
                           "gcd(sets, stride)", (unsigned long long)n_lines,
                           (unsigned long long)ways);
        fi = mt_find_value(0, "", MT_SRC_MEASURED, m, conf,
                           "all %zu strides held ways x sets / gcd(sets, stride) elements", n);
        fi.kind = MT_FIND_TEXT;
        snprintf(fi.text, sizeof fi.text, "modulo");
    } else {
        /* Any min_cap elements fit, so no set holds fewer ways. */
        fw = mt_find_range(1, (double)min_cap, "count", m, GEOMETRY_RANGE_CONF,
                           "capacities (stride:elements, + = not bracketed) %s do not follow "
                           "ways x sets / gcd(sets, stride): the index is not modulo", caps);
        fs = mt_find_range((double)((n_lines + min_cap - 1) / min_cap), (double)n_lines, "count", m,
                           GEOMETRY_RANGE_CONF, "%llu lines over at most %llu ways",
                           (unsigned long long)n_lines, (unsigned long long)min_cap);
        fi = mt_find_value(0, "", MT_SRC_MEASURED, m, GEOMETRY_RANGE_CONF,
                           "capacities %s", caps);
        fi.kind = MT_FIND_TEXT;
        snprintf(fi.text, sizeof fi.text, "not modulo (hashed or unbracketed)");
    }
    mt_set(c, "l1d", "ways", &fw);
    mt_set(c, "l1d", "sets", &fs);
    mt_set(c, "l1d", "index", &fi);
    return MT_OK;
}

static bool geometry_requested(const mt_probe_options *o)
{
    return o->geometry;
}

static const mt_finding_decl geometry_provides[] = {
    {"l1d.ways", "ways"},
    {"l1d.sets", "sets"},
    {"l1d.index", "set index"},
    {NULL},
};
static const char *const geometry_requires[] = {"l1d.size", "l1d.line", NULL};
const mt_probe_desc mt_probe_geometry = {
    .name = "geometry",
    .summary = "L1 data ways, sets and set index (modulo or not) from chains at power-of-two "
               "strides",
    .rank = 95, .provides = geometry_provides, .requires = geometry_requires,
    .run = run_geometry, .requested = geometry_requested,
};

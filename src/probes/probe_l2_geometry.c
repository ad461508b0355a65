/* L2 ways, sets and set index (issue 8, part 1, for the L2): the
 * stride-conflict search of the first-level caches (probe_geometry.c,
 * geometry.h) run through ld.global.cg (GPU scope: the L1 is bypassed),
 * at the L2's line and hit threshold (a near or far hit is a hit).
 *
 * What one SM sees.  On a partitioned L2 an SM looks up and allocates
 * lines in its own partition only (the L2 probe's partition_size), so the
 * chains of one SM measure one partition: its ways, its sets and its
 * index.  The findings say so; the whole L2 is that many sets per
 * partition.  The search is bounded by the partition size measured (or the
 * driver's size where no partition was seen).
 *
 * Cost.  A chain is timed load by load, so no chain is longer than the
 * backend's fine-sample limit (3456 loads on a GPU): only strides whose
 * capacity is below it are bracketed, which is where a modulo index's
 * plateau (W elements a multiple of the sets apart) lies.  On a real GPU
 * each L2 load costs ~300-700 cycles, so the probe is opt-in
 * (--geometry) and stops at L2_GEOMETRY_BUDGET_LOADS loads, leaving what
 * it could not decide as a range (ways) and a bound (sets) with the
 * reason: never a guess. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#include "confidence.h"
#include "geometry.h"
#include "geometry_hash.h"
#include "l2_evict.h"

/* Most loads (warm-up and timed) the L2 geometry may issue: 4e7 loads at
 * the H100's ~300 cycles and 1.98 GHz are about 6 s, the price of an
 * opt-in measurement; the sim's worst case stays below it too
 * (docs/method.md). */
#define L2_GEOMETRY_BUDGET_LOADS 40000000ull

/* Most lines the XOR hash recovery starts from: its group tests over
 * lists of that many lines cost ~n^2 loads per round (256: ~2e6 in the
 * sim, well inside the budget); an L2 whose fewest overflowing lines are
 * more keeps its ways as a range. */
#define L2_GEOMETRY_HASH_MAX_START 256u

/* Longest chain the stride search times: a modulo plateau holds W q
 * lines (q: the sets' odd part), 2048 covers 32 ways x 64 and 16 x 128;
 * longer chains only bracket capacities a hashed index scatters, at a
 * cost that grows with them (a random draw: 1.4e7 loads at 8192). */
#define L2_GEOMETRY_MAX_CHAIN 2048u

/* Most of the L2's misses (DRAM loads) that may fall at or below its hit
 * threshold before the geometry is doubted.  "Does not fit" needs a miss
 * seen in every timed lap, and a set one line over its ways under random
 * replacement (the L2's policy is not measured) can miss only once a lap:
 * a hidden share h lets it pass for fitting with chance about 1-(1-h)^L
 * over L laps (up to GEOMETRY_MAX_LAPS = 32); 0.001 keeps that below 3%.
 * A random-replacement L2 of 12 ways with DRAM noise of 62 cycles read as
 * 48 ways at confidence 1 (unseen seed 601). */
#define L2_GEOMETRY_MISS_HIDDEN_MAX 0.001

static const char *const geometry_names[] = {"ways", "sets", "index", "index_masks"};

/* Share of DRAM loads at or below the L2's hit threshold, from the spread
 * of the L2 probe's cold misses (Gaussian at their median and robust sd;
 * those are the misses above the threshold, so the estimate errs low, never
 * high); 1 when no miss was seen (nothing says the misses are visible). */
static double dram_hidden_share(const mt_probe_ctx *c, double hit_threshold)
{
    const mt_cache_state *d = &c->cs[MT_CACHE_DRAM];
    if (d->load_sd_n == 0)
        return 1;
    if (!(d->load_sd > 0))
        return d->load_median > hit_threshold ? 0 : 1;
    return 0.5 * erfc((d->load_median - hit_threshold) / (d->load_sd * sqrt(2.0)));
}

/* Misses that can hide below the hit threshold make an overfull list pass
 * for fitting: every geometry finding resting on those decisions is
 * doubted, and says why first (the capacities that follow fill the note;
 * their tail is what is cut). */
static void doubt_hidden_misses(mt_probe_ctx *c, double hidden, double hit_threshold)
{
    mt_note_threshold(c, "L2_GEOMETRY_MISS_HIDDEN_MAX", L2_GEOMETRY_MISS_HIDDEN_MAX,
                      "L2 geometry: most DRAM loads that may look like L2 hits before the "
                      "ways, sets and index are doubted");
    for (size_t i = 0; i < sizeof geometry_names / sizeof *geometry_names; i++) {
        const mt_finding *got = mt_get(c, "l2", geometry_names[i]);
        if (got->kind == MT_FIND_NONE)
            continue;
        mt_finding f = *got;
        if (f.confidence > MT_CONF_INCONSISTENT)
            f.confidence = MT_CONF_INCONSISTENT;
        mt_finding_note_first(&f, "about %.2g of DRAM loads fall below the hit threshold (%.0f "
                              "cycles; more than L2_GEOMETRY_MISS_HIDDEN_MAX): a set one line "
                              "over its ways that misses once a lap (random replacement; the "
                              "L2's policy is not measured) can pass for fitting",
                              hidden, hit_threshold);
        mt_set(c, "l2", geometry_names[i], &f);
    }
}

/* Why a partition over GEOMETRY_HASH_SPAN_BYTES keeps its ways and sets
 * open when the stride search and the hash recovery leave them so: the
 * recovery only tests line bits within that span, and finding an eviction
 * set over the whole partition instead needs eviction tests that each load
 * about the partition's lines, far beyond the backend's sequences, and
 * about 230 x those lines in loads at 16 ways (tools/l2evict_cost,
 * docs/method.md "L2 eviction sets beyond 2 MiB": where the backend runs no
 * eviction tests).  Said first, before the
 * capacities that fill the note; short, so the sets' own bound survives
 * the partition's note and this one within the note's 255 characters. */
static void note_beyond_hash_span(mt_probe_ctx *c, const mt_geometry_target *t)
{
    if (t->size_lo <= GEOMETRY_HASH_SPAN_BYTES || !(t->line > 0))
        return;
    static const char *const open_findings[] = {"ways", "sets"};
    for (size_t i = 0; i < sizeof open_findings / sizeof *open_findings; i++) {
        const mt_finding *got = mt_get(c, "l2", open_findings[i]);
        if (got->kind == MT_FIND_NONE || got->kind == MT_FIND_VALUE)
            continue;
        mt_finding f = *got;
        mt_finding_note_first(&f, "eviction sets need tests of its %.0f lines; sequences "
                              "hold %u (docs/method.md)", t->size_lo / t->line,
                              (unsigned)c->dev.max_sequence);
        mt_set(c, "l2", open_findings[i], &f);
    }
}

/* Puts a note first on every geometry finding set (the capacities that
 * follow may fill the note; their tail is what is cut): one SM's share of
 * a partitioned L2, or a doubted partition that bounded nothing. */
static void note_first_on_each(mt_probe_ctx *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void note_first_on_each(mt_probe_ctx *c, const char *fmt, ...)
{
    char note[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(note, sizeof note, fmt, ap);
    va_end(ap);
    for (size_t i = 0; i < sizeof geometry_names / sizeof *geometry_names; i++) {
        const mt_finding *got = mt_get(c, "l2", geometry_names[i]);
        if (got->kind == MT_FIND_NONE)
            continue;
        mt_finding f = *got;
        mt_finding_note_first(&f, "%s", note);
        mt_set(c, "l2", geometry_names[i], &f);
    }
}

/* No line to count strides in (the L2 line test left a range or a bound)
 * or no hit threshold: nothing is measured, and the findings say so and
 * why instead of staying silent.  The ways and the sets each lie between 1
 * and the lines the L2 holds at most (its size in fill units, the
 * smallest a line can be): true of any cache, so the confidence is the
 * size's; the index is not measured at all. */
static void unmeasured(mt_probe_ctx *c)
{
    const mt_finding *line = mt_get(c, "l2", "line");
    const mt_cache_state *cs = &c->cs[MT_CACHE_L2];
    char why[160];
    if (line->kind == MT_FIND_RANGE)
        snprintf(why, sizeof why, "not measured: the L2 line is not established (%.0f-%.0f B, "
                 "confidence %.2f) and the search counts in lines", line->lo, line->hi,
                 line->confidence);
    else if (line->kind != MT_FIND_VALUE)
        snprintf(why, sizeof why, "not measured: no L2 line was measured (l2.line %s)",
                 mt_finding_kind_name(line->kind));
    else
        snprintf(why, sizeof why, "not measured: no L2 hit threshold (the L2 probe's hit "
                 "chain did not run)");
    const mt_finding *size = mt_get(c, "l2", "size");
    uint32_t unit = cs->sector ? cs->sector : 32;
    double lines = size->kind == MT_FIND_VALUE && size->value > 0 ? size->value / unit : 0;
    static const char *const counted[] = {"ways", "sets"};
    for (size_t i = 0; i < 2 && lines >= 1; i++) {
        mt_finding f = mt_find_range(1, lines, "count", "not measured", size->confidence,
                                     "%s; at most the L2's %.0f B in %u B fill units", why,
                                     size->value, unit);
        mt_set(c, "l2", counted[i], &f);
    }
    mt_finding f = mt_find_value(0, "", MT_SRC_MEASURED, "not measured", 0, "%s", why);
    f.kind = MT_FIND_TEXT;
    snprintf(f.text, sizeof f.text, "not measured");
    mt_set(c, "l2", "index", &f);
}

static mt_err run_l2_geometry(mt_probe_ctx *c)
{
    mt_mark_probed(c, "l2");
    mt_geometry_target t;
    if (!mt_geometry_target_of(c, MT_CACHE_L2, &t)) {
        unmeasured(c);
        return MT_OK;
    }
    /* The driver's size is the whole L2; one SM sees its partition. */
    /* A copy: setting findings may move the topology's storage. */
    const mt_finding partition = *mt_get(c, "l2", "partition_size");
    uint64_t partition_bytes = mt_partition_bytes(&partition);
    bool partitioned = partition_bytes && partition.confidence >= MT_CONF_TRUSTED;
    if (partitioned) {
        t.size_lo = (double)partition_bytes;
        t.size_confidence = partition.confidence;
    }
    t.budget_loads = L2_GEOMETRY_BUDGET_LOADS;
    t.hash_max_start = L2_GEOMETRY_HASH_MAX_START;
    t.max_chain = L2_GEOMETRY_MAX_CHAIN;
    mt_note_threshold(c, "L2_GEOMETRY_MAX_CHAIN", L2_GEOMETRY_MAX_CHAIN,
                      "L2 geometry: longest chain the stride search times (a stride holding "
                      "more is a lower bound)");
    mt_note_threshold(c, "L2_GEOMETRY_HASH_MAX_START", L2_GEOMETRY_HASH_MAX_START,
                      "L2 geometry: most lines the XOR hash recovery may start its group tests "
                      "from");
    mt_note_threshold(c, "L2_GEOMETRY_BUDGET_LOADS", (double)L2_GEOMETRY_BUDGET_LOADS,
                      "L2 geometry: most loads the search may issue before it reports what it "
                      "could not decide as a range");
    mt_err err = mt_geometry_measure(c, &t);
    double hidden = dram_hidden_share(c, t.hit_threshold);
    /* Beyond the hash recovery's span: an eviction set over the whole
     * partition where the backend runs eviction tests (l2_evict.h), else
     * the note on why the ways and sets stay open. */
    if (err == MT_OK && mt_backend_supports(c->be, MT_KIND_EVICT))
        err = mt_l2_evict_measure(c, &t, partitioned ? (double)partition_bytes : 0);
    else if (err == MT_OK)
        note_beyond_hash_span(c, &t);
    if (err == MT_OK && hidden > L2_GEOMETRY_MISS_HIDDEN_MAX)
        doubt_hidden_misses(c, hidden, t.hit_threshold);
    if (err == MT_OK && partitioned)
        note_first_on_each(c, "one partition's (an SM allocates only in its own: "
                           "l2.partition_size %.0f B)", (double)partition_bytes);
    else if (err == MT_OK && partition_bytes)
        /* A doubted partition bounds nothing: the search ran against
         * the driver's whole L2. */
        note_first_on_each(c, "bounded by the driver's L2, not l2.partition_size (doubted: "
                           "%.2f)", partition.confidence);
    return err;
}

/* Only with --geometry, on every backend: its chains go to the L2 at GPU
 * scope, one at a time, and cost seconds on a GPU (docs/method.md). */
static bool l2_geometry_requested(const mt_probe_options *o)
{
    return o->geometry;
}

static const mt_finding_decl l2_geometry_provides[] = {
    {"l2.ways", "ways"},
    {"l2.sets", "sets"},
    {"l2.index", "set index"},
    {"l2.index_masks", "set-index XOR masks"},
    {NULL},
};
/* The line and hit threshold (probe l2), and the partition one SM sees. */
static const char *const l2_geometry_requires[] = {"l2.line", "l2.partition_size", NULL};
const mt_probe_desc mt_probe_l2_geometry = {
    .name = "l2_geom",
    .summary = "L2 ways, sets and set index (XOR masks of a hash) of the partition one SM "
               "uses, as for the L1 data cache; opt-in (--geometry), bounded by a load budget",
    .rank = 97, .provides = l2_geometry_provides, .requires = l2_geometry_requires,
    .run = run_l2_geometry, .requested = l2_geometry_requested,
};

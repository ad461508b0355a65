/* L1 data cache: what happens between the first misses and the full thrash
 * (issue 8).  The size is where the first misses appear; a cache with a
 * hashed index, a non-LRU policy or lines evicted in groups does not go from
 * no misses to all misses in one step.  This probe measures the miss share
 * of sequential chains (one load per line) at footprints from the measured
 * size C up to PROFILE_SPAN x C in steps of about C / PROFILE_STEPS, all in
 * one batch, and reports:
 *   thrash_footprint  where (nearly) every load misses: a range between two
 *                     footprints, or a bound above the largest probed;
 *   miss_profile      the curve's steps as text: plateaus and the changes
 *                     between them ("0% up to ..; rising to 26% over ..;
 *                     26% plateau ..; 51% from ..");
 *   miss_granule      the largest aligned group of lines that misses come in
 *                     (one line, or e.g. 4 lines = 512 B on the H100).
 * The step is an odd number of lines: with a modulo index and LRU or FIFO
 * the lines that miss are whole runs of sets whose length grows by the step
 * from one footprint to the next, and an even step would keep such runs
 * aligned to pairs, which would read as a granule of two lines. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../analysis/miss_profile.h"
#include "confidence.h"
#include "l1_profile.h"

/* Largest footprint probed, as a multiple of the size: LRU or FIFO with a
 * modulo index thrash fully at S x (W + 1) lines = C (1 + 1/W), within it
 * for W >= 4 ways; the H100's profile changes over the first 10 % above C. */
#define PROFILE_SPAN 1.25
/* Footprints per size: the step is C / 128 (rounded to an odd number of
 * lines), so a plateau of C / 32 (the H100's 9 KiB at 233 KiB is C / 26)
 * holds at least PROFILE_FLAT_POINTS points. */
#define PROFILE_STEPS 128u
/* Experiments per footprint: a line counts as missing only when it missed
 * in every timed lap of all of them, so a timer spike (at most 1 % of the
 * samples in every spec; a lap of one run) cannot split a group of lines. */
#define PROFILE_RUNS 3u
/* Warm-up laps: a sequential cyclic chain leaves LRU, FIFO and tree
 * pseudo-LRU in their steady state after one lap; two leave a margin. */
#define PROFILE_WARM_LAPS 2u
/* Timed loads per experiment at least (whole laps, within the backend's
 * limit): with 3 runs, a share's binomial sd is at most 0.01. */
#define PROFILE_MIN_TIMED 1024u
/* A plateau: footprints over at least PROFILE_FLAT_WIDTH x the size (and
 * PROFILE_FLAT_POINTS of them) whose missing lines per lap, as a share of
 * the size's lines (the H100's plateaus are 512 and 1024 missing lines at
 * every footprint, so their miss SHARE falls as the footprint grows), span
 * at most PROFILE_FLAT_SPREAD and change by at most PROFILE_FLAT_SLOPE per
 * C / 128 of footprint.  The width is 1/48 of the size (the H100's plateau
 * is 9 KiB of 233, 1/26): a plateau of a few lines is noise.  The spread is
 * about 3 sd of a share of 3 x 1024 loads at 1/2 (0.009 each); a random
 * policy's steady rise near the size (the h100 preset: 0.015 of the size
 * per C / 128) spans little more than that over 4 points, which the slope
 * (4x its noise sd at 4 points) tells from a plateau. */
#define PROFILE_FLAT_WIDTH (1.0 / 48)
#define PROFILE_FLAT_SPREAD 0.03
#define PROFILE_FLAT_SLOPE 0.005
#define PROFILE_FLAT_POINTS 4u
/* A granule larger than a line needs at least this many footprints whose
 * misses are whole groups: with a modulo index and an odd step, runs of
 * overflowing sets end mid-pair at every other footprint, so four
 * footprints always show it.  Single lines need as many footprints with
 * misses (else the finding is flagged). */
#define PROFILE_GRANULE_MIN_FOOTPRINTS 4u
/* A granule larger than a line needs the chance that independent per-line
 * misses show it below this (log10: -3); above it, it is flagged. */
#define PROFILE_GRANULE_ALPHA 1e-3
/* The findings' confidence: shares of >= 3072 loads against thresholds
 * with a margin, no other test to confirm them (as MT_CONF_DIFFERENCE). */
#define PROFILE_CONF 0.9

static uint32_t odd_at_least_one(uint64_t lines)
{
    if (lines < 1)
        return 1;
    return (uint32_t)(lines % 2 ? lines : lines + 1);
}

uint64_t mt_l1_profile_base(const mt_finding *size)
{
    double v = size->kind == MT_FIND_VALUE ? size->value : size->kind == MT_FIND_RANGE ? size->lo : 0;
    return v >= 1 ? (uint64_t)v : 0;
}

bool mt_l1_profile_plan_make(const mt_probe_ctx *c, uint64_t size, uint32_t line,
                             mt_l1_profile_plan *p, char *why, size_t whylen)
{
    memset(p, 0, sizeof *p);
    uint64_t lines = line ? size / line : 0;
    uint64_t last = (uint64_t)floor((double)lines * PROFILE_SPAN);
    uint64_t limit = c->dev.path_limit_bytes[MT_PATH_GLOBAL_CA];
    if (limit && last * line > limit)
        last = limit / line;
    if (last > c->dev.max_fine_loads) /* one whole lap must be timed */
        last = c->dev.max_fine_loads;
    p->line = line;
    p->first = lines * line;
    p->step = (uint64_t)odd_at_least_one(lines / PROFILE_STEPS) * line;
    p->runs = PROFILE_RUNS;
    p->n = lines && last >= lines ? (size_t)((last - lines) * line / p->step) + 1 : 0;
    if (p->n < 2) {
        snprintf(why, whylen, "not tested: %llu lines leave fewer than two footprints up to %llu "
                 "lines (path and fine-grained limits)", (unsigned long long)lines,
                 (unsigned long long)last);
        return false;
    }
    return true;
}

uint64_t mt_l1_profile_footprint(const mt_l1_profile_plan *p, size_t i)
{
    return p->first + (uint64_t)i * p->step;
}

void mt_l1_profile_experiments(const mt_probe_ctx *c, const mt_l1_profile_plan *p,
                               mt_experiment *e)
{
    for (size_t i = 0; i < p->n; i++) {
        uint64_t fp = mt_l1_profile_footprint(p, i);
        uint32_t lines = (uint32_t)(fp / p->line);
        double laps = ceil((double)PROFILE_MIN_TIMED / lines);
        uint32_t loads = mt_fine_loads(c, fp, p->line, laps);
        loads -= loads % lines; /* whole laps: the plan keeps one lap within the limit */
        for (uint32_t k = 0; k < p->runs; k++) {
            mt_experiment x = mt_exp_chase(MT_PATH_GLOBAL_CA, fp, p->line, PROFILE_WARM_LAPS,
                                           loads, MT_MODE_FINE);
            /* The seed changes nothing in a sequential chain but makes the
             * runs distinct experiments (a random policy draws anew). */
            x.order_seed = k;
            e[i * p->runs + k] = x;
        }
    }
}

void mt_l1_profile_tally(const mt_probe_ctx *c, const mt_result *r, uint32_t runs, uint32_t lines,
                         double thr, double *share, uint8_t *miss)
{
    mt_miss_count m = {0};
    memset(miss, 1, lines);
    for (uint32_t k = 0; k < runs; k++) {
        mt_count_misses(c, &r[k], thr, &m);
        for (size_t j = 0; j < r[k].n[0]; j++)
            miss[j % lines] &= (double)r[k].cycles[0][j] - c->overhead_fine > thr;
    }
    *share = m.timed ? (double)m.missed / (double)m.timed : 0;
}

/* Bytes as KiB with up to three decimals ("233", "234.875"): exact for
 * footprints of whole 128 B lines, within a byte for any line. */
static void kib(char *b, size_t n, uint64_t bytes)
{
    snprintf(b, n, "%.3f", (double)bytes / 1024.0);
    char *dot = strchr(b, '.');
    if (!dot)
        return;
    char *end = b + strlen(b) - 1;
    while (end > dot && *end == '0')
        *end-- = '\0';
    if (end == dot)
        *end = '\0';
}

/* The steps as text, e.g. "0% up to 233 KiB; rising to 26% over
 * 234.875-241 KiB; 26% plateau 242.875-250 KiB; 51% from 251.875 KiB",
 * then the thrash ("full thrash (>= 90%) from X KiB" or "no full thrash up
 * to X KiB").  Steps that do not fit the finding's text become "...". */
static void profile_text(const mt_l1_profile_plan *p, const double *share,
                         const mt_profile_step *st, size_t ns, size_t thrash, char *out, size_t cap)
{
    char tail[80], a[24], b[24];
    if (thrash < p->n) {
        kib(a, sizeof a, mt_l1_profile_footprint(p, thrash));
        snprintf(tail, sizeof tail, "full thrash (>= %.0f%%) from %s KiB",
                 100 * PROFILE_THRASH_SHARE, a);
    } else {
        kib(a, sizeof a, mt_l1_profile_footprint(p, p->n - 1));
        snprintf(tail, sizeof tail, "no full thrash up to %s KiB", a);
    }
    size_t room = cap > strlen(tail) + 8 ? cap - strlen(tail) - 8 : 0, len = 0;
    out[0] = '\0';
    for (size_t i = 0; i < ns; i++) {
        const mt_profile_step *s = &st[i];
        char seg[96];
        kib(a, sizeof a, mt_l1_profile_footprint(p, s->first));
        kib(b, sizeof b, mt_l1_profile_footprint(p, s->last));
        /* A plateau's share is its mean, a change's where it ends. */
        double pct = 100 * share[s->last];
        if (s->kind == MT_STEP_FLAT) {
            pct = 0;
            for (size_t k = s->first; k <= s->last; k++)
                pct += 100 * share[k] / (double)(s->last - s->first + 1);
        }
        if (s->kind == MT_STEP_FLAT && s->first == 0)
            snprintf(seg, sizeof seg, "%.0f%% up to %s KiB", pct, b);
        else if (s->kind == MT_STEP_FLAT && s->last == p->n - 1)
            snprintf(seg, sizeof seg, "%.0f%% from %s KiB", pct, a);
        else if (s->kind == MT_STEP_FLAT)
            snprintf(seg, sizeof seg, "%.0f%% plateau %s-%s KiB", pct, a, b);
        else if (s->first == s->last)
            snprintf(seg, sizeof seg, "%s to %.0f%% at %s KiB",
                     s->kind == MT_STEP_RISE ? "rising" : "falling", pct, b);
        else
            snprintf(seg, sizeof seg, "%s to %.0f%% over %s-%s KiB",
                     s->kind == MT_STEP_RISE ? "rising" : "falling", pct, a, b);
        if (len + strlen(seg) + 2 > room) {
            len += (size_t)snprintf(out + len, cap - len, "%s...", len ? "; " : "");
            break;
        }
        len += (size_t)snprintf(out + len, cap - len, "%s%s", len ? "; " : "", seg);
    }
    snprintf(out + len, cap - len, "%s%s", len ? "; " : "", tail);
}

static void note_thresholds(mt_probe_ctx *c)
{
    mt_note_threshold(c, "PROFILE_SPAN", PROFILE_SPAN,
                      "l1d profile: largest footprint probed, times the measured size");
    mt_note_threshold(c, "PROFILE_STEPS", PROFILE_STEPS,
                      "l1d profile: steps per size (step = size / this, an odd number of lines)");
    mt_note_threshold(c, "PROFILE_RUNS", PROFILE_RUNS,
                      "l1d profile: runs per footprint (a line misses if it missed in all)");
    mt_note_threshold(c, "PROFILE_WARM_LAPS", PROFILE_WARM_LAPS,
                      "l1d profile: warm-up laps before the timed ones");
    mt_note_threshold(c, "PROFILE_MIN_TIMED", PROFILE_MIN_TIMED,
                      "l1d profile: fewest timed loads per run (whole laps)");
    mt_note_threshold(c, "PROFILE_THRASH_SHARE", PROFILE_THRASH_SHARE,
                      "l1d profile: at least this miss share is the full thrash");
    mt_note_threshold(c, "PROFILE_FLAT_SPREAD", PROFILE_FLAT_SPREAD,
                      "l1d profile: a plateau's missing lines span at most this share of the size");
    mt_note_threshold(c, "PROFILE_FLAT_SLOPE", PROFILE_FLAT_SLOPE,
                      "l1d profile: ... and change by at most this share of the size per size/128");
    mt_note_threshold(c, "PROFILE_FLAT_POINTS", PROFILE_FLAT_POINTS,
                      "l1d profile: a plateau has at least this many footprints");
    mt_note_threshold(c, "PROFILE_FLAT_WIDTH", PROFILE_FLAT_WIDTH,
                      "l1d profile: ... over at least this share of the size");
    mt_note_threshold(c, "PROFILE_GRANULE_MAX_LINES", PROFILE_GRANULE_MAX_LINES,
                      "l1d profile: largest group of lines the granule test tries");
    mt_note_threshold(c, "PROFILE_GRANULE_MIN_SHARE", PROFILE_GRANULE_MIN_SHARE,
                      "l1d profile: share of footprints with misses whose misses are whole groups");
    mt_note_threshold(c, "PROFILE_GRANULE_MIN_FOOTPRINTS", PROFILE_GRANULE_MIN_FOOTPRINTS,
                      "l1d profile: fewest such footprints for a confident group > 1 line");
    mt_note_threshold(c, "PROFILE_GRANULE_ALPHA", PROFILE_GRANULE_ALPHA,
                      "l1d profile: a granule > 1 line needs its chance under per-line misses below");
}

static void set_none(mt_probe_ctx *c, const char *why)
{
    static const char *const names[] = {"thrash_footprint", "miss_profile", "miss_granule"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        mt_finding f = mt_find_value(0, "", MT_SRC_MEASURED, "pchase-fine profile", 0, "%s", why);
        f.kind = MT_FIND_NONE;
        mt_set(c, "l1d", names[i], &f);
    }
}

static void set_granule(mt_probe_ctx *c, const mt_l1_profile_plan *p, const mt_miss_map *maps)
{
    mt_granule g;
    mt_miss_granule(maps, p->n, PROFILE_GRANULE_MAX_LINES, PROFILE_GRANULE_MIN_SHARE, &g);
    mt_finding f;
    if (g.partial == 0) {
        f = mt_find_value(0, "B", MT_SRC_MEASURED, "pchase-fine profile", 0,
                          "no footprint had some but not all lines missing in every lap");
        f.kind = MT_FIND_NONE;
    } else if (g.group == 1) {
        f = mt_find_value(p->line, "B", MT_SRC_MEASURED, "pchase-fine profile", PROFILE_CONF,
                          "single lines: %zu of %zu footprints with some lines missing split "
                          "aligned pairs of lines (groups need %.0f%% whole)", g.split_next,
                          g.partial, 100 * PROFILE_GRANULE_MIN_SHARE);
        /* A line or two missing in every lap of a random policy's runs at
         * one footprint says little about how the cache evicts. */
        if (g.partial < PROFILE_GRANULE_MIN_FOOTPRINTS)
            mt_finding_doubt(&f, MT_CONF_INCONSISTENT, "too few footprints with misses");
    } else {
        double chance = pow(10, g.log10_chance);
        f = mt_find_value((double)g.group * p->line, "B", MT_SRC_MEASURED, "pchase-fine profile",
                          PROFILE_CONF, "misses in whole aligned groups of %u lines at %zu of %zu "
                          "footprints with some lines missing (%zu groups; independent line "
                          "misses: p=%.2g, alpha %g)%s", g.group, g.whole, g.partial,
                          g.miss_groups, chance, PROFILE_GRANULE_ALPHA,
                          g.split_next ? "" : "; the largest group tried");
        if (!(chance < PROFILE_GRANULE_ALPHA) || g.whole < PROFILE_GRANULE_MIN_FOOTPRINTS)
            mt_finding_doubt(&f, MT_CONF_INCONSISTENT, "too few missed groups or footprints to "
                             "rule out chance");
    }
    mt_set(c, "l1d", "miss_granule", &f);
}

static mt_err report(mt_probe_ctx *c, const mt_l1_profile_plan *p, const double *share,
                     const mt_miss_map *maps)
{
    size_t thrash = p->n;
    for (size_t i = 0; i < p->n && thrash == p->n; i++)
        if (share[i] >= PROFILE_THRASH_SHARE)
            thrash = i;
    char a[24];
    mt_finding f;
    if (thrash == p->n) {
        f = mt_find_bound((double)mt_l1_profile_footprint(p, p->n - 1), "B", "pchase-fine profile",
                          PROFILE_CONF, "miss share %.0f%% at the largest footprint probed "
                          "(%.2f x the size); full thrash: >= %.0f%%", 100 * share[p->n - 1],
                          PROFILE_SPAN, 100 * PROFILE_THRASH_SHARE);
    } else if (thrash == 0) {
        kib(a, sizeof a, p->first);
        f = mt_find_range((double)p->line, (double)p->first, "B", "pchase-fine profile",
                          MT_CONF_INCONSISTENT, "miss share %.0f%% already at the size (%s KiB)",
                          100 * share[0], a);
    } else {
        f = mt_find_range((double)mt_l1_profile_footprint(p, thrash - 1),
                          (double)mt_l1_profile_footprint(p, thrash), "B", "pchase-fine profile",
                          PROFILE_CONF, "miss share %.0f%% then %.0f%% (full thrash: >= %.0f%%)",
                          100 * share[thrash - 1], 100 * share[thrash],
                          100 * PROFILE_THRASH_SHARE);
    }
    mt_set(c, "l1d", "thrash_footprint", &f);

    mt_profile_step *st = malloc(p->n * sizeof *st);
    if (!st)
        return mt_fail(c->ei, MT_ERR_NOMEM, "out of memory");
    double *y = malloc(p->n * sizeof *y);
    if (!y) {
        free(st);
        return mt_fail(c->ei, MT_ERR_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < p->n; i++)
        y[i] = share[i] * (double)mt_l1_profile_footprint(p, i) / (double)p->first;
    /* Width and slope from shares of the size to points of this plan. */
    double steps_per_size = (double)p->first / (double)p->step;
    size_t points = (size_t)ceil(PROFILE_FLAT_WIDTH * steps_per_size - 1e-9) + 1;
    if (points < PROFILE_FLAT_POINTS)
        points = PROFILE_FLAT_POINTS;
    double slope = PROFILE_FLAT_SLOPE * PROFILE_STEPS / steps_per_size;
    size_t ns = mt_profile_steps(y, p->n, PROFILE_FLAT_SPREAD, slope, points, st);
    free(y);
    kib(a, sizeof a, p->step);
    f = mt_find_value(0, "", MT_SRC_MEASURED, "pchase-fine profile", PROFILE_CONF,
                      "miss share of sequential chains (one load per %u B line) at %zu footprints "
                      "%s KiB apart, %u runs each; plateau: >= %zu footprints whose missing lines "
                      "stay within %.0f%% of the size", p->line, p->n, a, p->runs, points,
                      100 * PROFILE_FLAT_SPREAD);
    f.kind = MT_FIND_TEXT;
    profile_text(p, share, st, ns, thrash, f.text, sizeof f.text);
    free(st);
    mt_set(c, "l1d", "miss_profile", &f);
    set_granule(c, p, maps);
    return MT_OK;
}

static mt_err l1_profile(mt_probe_ctx *c)
{
    const mt_finding *size = mt_get(c, "l1d", "size"), *line = mt_get(c, "l1d", "line");
    const mt_cache_state *s = &c->cs[MT_CACHE_L1D];
    uint64_t base = mt_l1_profile_base(size);
    if (base == 0 || line->kind != MT_FIND_VALUE || !s->hit_known || line->value < 1) {
        set_none(c, "not tested: no measured size and line of the L1 data cache");
        return MT_OK;
    }
    note_thresholds(c);
    mt_l1_profile_plan p;
    char why[160];
    if (!mt_l1_profile_plan_make(c, base, (uint32_t)line->value, &p, why,
                                 sizeof why)) {
        set_none(c, why);
        return MT_OK;
    }
    size_t ne = p.n * p.runs;
    mt_experiment *e = calloc(ne, sizeof *e);
    mt_result *r = calloc(ne, sizeof *r);
    double *share = calloc(p.n, sizeof *share);
    mt_miss_map *maps = calloc(p.n, sizeof *maps);
    uint64_t last_lines = mt_l1_profile_footprint(&p, p.n - 1) / p.line;
    uint8_t *bits = calloc(p.n, (size_t)last_lines);
    mt_err err = MT_OK;
    if (!e || !r || !share || !maps || !bits) {
        err = mt_fail(c->ei, MT_ERR_NOMEM, "out of memory");
        goto out;
    }
    mt_l1_profile_experiments(c, &p, e);
    mt_progress(c, "L1 profile: %zu footprints above the size, %u runs each", p.n, p.runs);
    if ((err = mt_run(c, e, ne, r)) != MT_OK)
        goto out;
    for (size_t i = 0; i < p.n; i++) {
        uint32_t lines = (uint32_t)(mt_l1_profile_footprint(&p, i) / p.line);
        uint8_t *m = bits + i * last_lines;
        mt_l1_profile_tally(c, &r[i * p.runs], p.runs, lines, s->hit_threshold, &share[i], m);
        maps[i] = (mt_miss_map){m, lines};
    }
    mt_results_free(r, ne);
    err = report(c, &p, share, maps);
out:
    free(e);
    free(r);
    free(share);
    free(maps);
    free(bits);
    return err;
}

static const mt_finding_decl provides[] = {
    {"l1d.thrash_footprint", "full-thrash footprint"},
    {"l1d.miss_profile", "misses above the size"},
    {"l1d.miss_granule", "misses come in groups of"},
    {NULL},
};
static const char *const requires[] = {"l1d.size", "l1d.line", NULL};
static const mt_object_decl objects[] = {{NULL}};
const mt_probe_desc mt_probe_l1d_profile = {
    .name = "l1d_profile", .summary = "L1 data misses from the size to the full thrash: "
                                      "plateaus, thrash footprint, aligned miss groups",
    .rank = 95, .objects = objects, .provides = provides, .requires = requires, .run = l1_profile,
};

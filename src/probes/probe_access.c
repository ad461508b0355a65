/* Global access granularity through the L1 and the L2 (issue 9 part 4;
 * docs/method.md "Global access granularity"): what one warp's global
 * load costs as a function of the stride between its threads and of its
 * alignment, warm in the L1 (ld.global.ca) and in the L2 (ld.global.cg).
 *
 * Opt-in (--access): a performance model's coalescing rule, not part of
 * the memory hierarchy's map.
 *
 * One batch of MT_KIND_ACCESS experiments, ACCESS_PATTERNS per path: every
 * thread reading one word (broadcast), strides of 1 to 512 words, a
 * contiguous warp moved 4 to 96 bytes off a line, partial warps, two
 * half-warps far apart, strides one word past 64, 128 and 256 B.  Each pattern's level (analysis/banks.h: the
 * interquartile mean of its fine samples) goes into the candidate fit of
 * analysis/access_fit.h, which finds the sector and line sizes in whose
 * units the cost grows, and the cost per extra sector and line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../analysis/access_fit.h"
#include "confidence.h"
#include "latency_precision.h"
#include "probe_internal.h"

/* Samples per pattern, as the banks probe takes and for the same reason
 * (a level's standard error a fortieth of the noise); at most the
 * backend's fine limit.  On a GPU the slowest pattern (32 L2 lines, ~350
 * cycles) takes 2048 x 350 cycles, 0.4 ms. */
#define ACCESS_SAMPLES 2048u
#define ACCESS_WARP 32u
/* Widest stride (words): 2 KiB between threads, so 32 threads span 64 KiB
 * (MT_ACCESS_MAX_SPAN) and lines up to 4 KiB (MT_ACCESS_MAX_UNIT) are told
 * apart from 2 KiB ones. */
#define ACCESS_MAX_STRIDE_WORDS 512u
#define ACCESS_MAX_PATTERNS 32
/* Confidence of a unit or cost the candidate fit pins down: read off
 * levels of 2048 samples each that one candidate alone predicts within 2
 * cycles (or 4 standard errors); a pattern disturbed in most of its
 * samples could still move one level, as for the banks (MT_CONF_BANKS). */
#define ACCESS_CONF 0.9
/* Standard errors of the intercept on each side of it: within
 * MT_LATENCY_MAX_HALF_WIDTH the request's latency is a value, else the
 * range they span (3: a 99.7% interval, as a latency is stated to the
 * cycle; unseen seed 3381's L2, noise 39 cycles, put the intercept 2.0
 * cycles off at a standard error of 1.06). */
#define ACCESS_LATENCY_SE_FACTOR 3.0

/* The patterns, in the order of the table a finding's note prints. */
static size_t build_patterns(mt_access_pattern *p)
{
    size_t n = 0;
    p[n++] = (mt_access_pattern){.n = ACCESS_WARP}; /* every thread word 0 */
    for (uint32_t s = 1; s <= ACCESS_MAX_STRIDE_WORDS; s *= 2, n++) {
        p[n].n = ACCESS_WARP;
        for (uint32_t t = 0; t < ACCESS_WARP; t++)
            p[n].word[t] = t * s;
    }
    static const uint32_t offset_bytes[] = {4, 16, 32, 64, 96};
    for (size_t k = 0; k < sizeof offset_bytes / sizeof *offset_bytes; k++, n++) {
        p[n].n = ACCESS_WARP;
        for (uint32_t t = 0; t < ACCESS_WARP; t++)
            p[n].word[t] = offset_bytes[k] / 4 + t;
    }
    static const uint32_t partial[] = {1, 8, 16};
    for (size_t k = 0; k < sizeof partial / sizeof *partial; k++, n++) {
        p[n].n = partial[k];
        for (uint32_t t = 0; t < partial[k]; t++)
            p[n].word[t] = t;
    }
    /* Two contiguous half-warps 4 KiB apart: few sectors, two lines. */
    p[n].n = ACCESS_WARP;
    for (uint32_t t = 0; t < ACCESS_WARP; t++)
        p[n].word[t] = (t / 16) * 1024 + t % 16;
    n++;
    /* Strides one word past 64, 128 and 256 B: a line each (of that size)
     * but every thread in its own bank of a row of that size, which tells
     * a pass per line from a pass per bank wavefront. */
    static const uint32_t skew[] = {17, 33, 65};
    for (size_t k = 0; k < sizeof skew / sizeof *skew; k++, n++) {
        p[n].n = ACCESS_WARP;
        for (uint32_t t = 0; t < ACCESS_WARP; t++)
            p[n].word[t] = t * skew[k];
    }
    return n;
}

/* The group patterns, run in a batch of their own (a recording made
 * before them has the first batch only): strides of 5 and 9 words (20
 * and 36 B), one bank wavefront each (5 and 9 are odd: every thread in
 * its own bank) over 5 and 9 lines of 128 B, which tell sectors counted in
 * groups of 2, 4 and 8 apart (groups of 4: 1 and 2 extra; of 8: 0 and 1). */
static size_t build_group_patterns(mt_access_pattern *p)
{
    static const uint32_t odd[] = {5, 9};
    size_t n = 0;
    for (size_t k = 0; k < sizeof odd / sizeof *odd; k++, n++) {
        p[n].n = ACCESS_WARP;
        for (uint32_t t = 0; t < ACCESS_WARP; t++)
            p[n].word[t] = t * odd[k];
    }
    return n;
}

/* "s4" (stride in words), "o32" (offset bytes), "n8" (threads), "b"
 * (broadcast), "h" (half-warps): the table's column names. */
static void pattern_name(size_t i, char *buf, size_t cap)
{
    static const char *const names[] = {"b",    "s1",   "s2",   "s4",  "s8",  "s16", "s32",
                                        "s64",  "s128", "s256", "s512", "o4", "o16", "o32",
                                        "o64",  "o96",  "n1",   "n8",   "n16", "h",
                                        "k17",  "k33",  "k65",  "k5",  "k9"};
    snprintf(buf, cap, "%s", i < sizeof names / sizeof *names ? names[i] : "?");
}

static void note_thresholds(mt_probe_ctx *c)
{
    mt_note_threshold(c, "MT_ACCESS_FIT_PASS_SHARE", MT_ACCESS_FIT_PASS_SHARE,
                      "a sector/pass model must predict every pattern's latency within this "
                      "share of its cheapest unit's cost ...");
    mt_note_threshold(c, "MT_ACCESS_FIT_TOLERANCE_CYCLES", MT_ACCESS_FIT_TOLERANCE_CYCLES,
                      "... capped at this many cycles");
    mt_note_threshold(c, "MT_ACCESS_MIN_COST_CYCLES", MT_ACCESS_MIN_COST_CYCLES,
                      "a model with a sector term needs its sector and its pass to cost this "
                      "much");
    mt_note_threshold(c, "MT_ACCESS_FIT_SE_FACTOR", MT_ACCESS_FIT_SE_FACTOR,
                      "... or within this many standard errors of the pattern's level");
    mt_note_threshold(c, "MT_ACCESS_COST_SPREAD_CYCLES", MT_ACCESS_COST_SPREAD_CYCLES,
                      "every accepted candidate's cost per sector (line) must agree within this");
    mt_note_threshold(c, "ACCESS_LATENCY_SE_FACTOR", ACCESS_LATENCY_SE_FACTOR,
                      "the request's latency (the fit's intercept) is a range of this many "
                      "standard errors each side when that is wider than MT_LATENCY_MAX_HALF_WIDTH");
    mt_note_threshold(c, "MT_ACCESS_COST_SE_FACTOR", MT_ACCESS_COST_SE_FACTOR,
                      "... and this many of the cost's standard errors must fit within it too");
    mt_note_threshold(c, "MT_BANK_SPIKE_SDS", MT_BANK_SPIKE_SDS,
                      "samples this many robust sigmas above the median are timer spikes");
}

/* "a 128 B line" or "a bank wavefront (32 banks of 4 B)": one pass. */
static void pass_name(const mt_access_fit *fit, char *buf, size_t cap)
{
    if (fit->line)
        snprintf(buf, cap, "%u B line", fit->line);
    else
        snprintf(buf, cap, "bank wavefront (%u banks of 4 B)", fit->bank_row / 4);
}

/* The findings of one path on object `key`. */
static void set_path(mt_probe_ctx *c, const char *key, const char *instr,
                     const mt_bank_level *lv, size_t n, const mt_access_fit *fit)
{
    char table[600], pass[64];
    size_t len = 0;
    for (size_t i = 0; i < n && len < sizeof table; i++) {
        char name[8];
        pattern_name(i, name, sizeof name);
        int w = snprintf(table + len, sizeof table - len, "%s%s:%.0f", i ? " " : "", name,
                         lv[i].level);
        len += w > 0 ? (size_t)w : 0;
    }
    pass_name(fit, pass, sizeof pass);
    mt_finding f;
    if (!fit->accepted) {
        f = mt_find_absent("access-unit-fit", MT_CONF_INCONSISTENT,
                           "%s: no model within %.0f cycles (best: %u B sector, %s, residual "
                           "%.1f); %s",
                           instr, MT_ACCESS_FIT_TOLERANCE_CYCLES, fit->sector, pass,
                           fit->max_residual, table);
        mt_set(c, key, "coalescing", &f);
        return;
    }
    if (!fit->sector)
        f = mt_find_absent("access-unit-fit", MT_CONF_INCONSISTENT,
                           "%s: the sectors a request touches cost nothing extra (the best "
                           "model has no sector term), so their size is not seen",
                           instr);
    else
        f = mt_find_value(fit->sector, "B", MT_SRC_MEASURED, "access-unit-fit",
                          fit->sector_identified ? ACCESS_CONF : MT_CONF_INCONSISTENT,
                          "%s: the unit whose count adds a sector's cost, %d of %d models "
                          "fit%s",
                          instr, fit->accepted, fit->candidates,
                          fit->sector_identified ? "" : "; other sector sizes fit as well");
    mt_set(c, key, "access_sector", &f);
    const char *doubt = fit->pass_identified ? ""
                                             : "; other pass models fit as well (a pass too "
                                               "cheap to tell them apart)";
    f = mt_find_value(0, "", MT_SRC_MEASURED, "access-unit-fit",
                      fit->pass_identified ? ACCESS_CONF : MT_CONF_INCONSISTENT,
                      "%s: the unit whose count adds a pass's cost%s", instr, doubt);
    f.kind = MT_FIND_TEXT;
    snprintf(f.text, sizeof f.text, "%s", pass);
    mt_set(c, key, "access_pass", &f);
    if (fit->line)
        f = mt_find_value(fit->line, "B", MT_SRC_MEASURED, "access-unit-fit",
                          fit->pass_identified ? ACCESS_CONF : MT_CONF_INCONSISTENT,
                          "%s: a pass per line touched%s", instr, doubt);
    else
        f = mt_find_absent("access-unit-fit", MT_CONF_INCONSISTENT,
                           "%s: passes follow bank conflicts in the L1's array, not the lines "
                           "touched",
                           instr);
    mt_set(c, key, "access_line", &f);
    if (fit->sector) {
        f = mt_find_value(fit->sector_group, "count", MT_SRC_MEASURED, "access-unit-fit",
                          fit->group_identified ? ACCESS_CONF : MT_CONF_INCONSISTENT,
                          "%s: sectors cost per group of this many (looked up together)%s",
                          instr, fit->group_identified ? "" : "; other groups fit as well");
        mt_set(c, key, "access_sector_group", &f);
    }
    int partial_pinned =
        mt_access_cost_pinned(fit->partial_lo, fit->partial_hi, fit->partial_se);
    f = mt_find_value(fit->per_partial, "cycles", MT_SRC_MEASURED, "access-unit-fit",
                      partial_pinned ? ACCESS_CONF : MT_CONF_INCONSISTENT,
                      "%s: a request by fewer than 32 threads, the others predicated off "
                      "(accepted models: %.2f..%.2f; standard error %.2f)",
                      instr, fit->partial_lo, fit->partial_hi, fit->partial_se);
    mt_set(c, key, "access_partial_cycles", &f);
    int sec_pinned = mt_access_cost_pinned(fit->sector_lo, fit->sector_hi, fit->sector_se);
    int pass_pinned = mt_access_cost_pinned(fit->pass_lo, fit->pass_hi, fit->pass_se);
    f = mt_find_value(fit->per_sector, "cycles", MT_SRC_MEASURED, "access-unit-fit",
                      sec_pinned ? ACCESS_CONF : MT_CONF_INCONSISTENT,
                      "%s: per extra sector touched (accepted models: %.2f..%.2f; standard "
                      "error %.2f)",
                      instr, fit->sector_lo, fit->sector_hi, fit->sector_se);
    mt_set(c, key, "access_sector_cycles", &f);
    f = mt_find_value(fit->per_pass, "cycles", MT_SRC_MEASURED, "access-unit-fit",
                      pass_pinned ? ACCESS_CONF : MT_CONF_INCONSISTENT,
                      "%s: per extra pass (accepted models: %.2f..%.2f; standard error %.2f)",
                      instr, fit->pass_lo, fit->pass_hi, fit->pass_se);
    mt_set(c, key, "access_pass_cycles", &f);
    double half = ACCESS_LATENCY_SE_FACTOR * fit->base_se;
    if (half <= MT_LATENCY_MAX_HALF_WIDTH)
        f = mt_find_value(fit->base, "cycles", MT_SRC_MEASURED, "access-unit-fit", ACCESS_CONF,
                          "%s: a warp request of one sector and one pass (the fit's intercept, "
                          "standard error %.2f; every thread reading one word: %.1f)",
                          instr, fit->base_se, lv[0].level);
    else
        f = mt_find_range(fit->base - half, fit->base + half, "cycles", "access-unit-fit",
                          ACCESS_CONF,
                          "%s: a warp request of one sector and one pass: the fit's intercept "
                          "%.1f, a range of %.0f standard errors (%.2f each) since that is wider "
                          "than +-%.0f cycles (every thread reading one word: %.1f)",
                          instr, fit->base, ACCESS_LATENCY_SE_FACTOR, fit->base_se,
                          MT_LATENCY_MAX_HALF_WIDTH, lv[0].level);
    mt_set(c, key, "access_latency", &f);
    int clear = (!fit->sector || (fit->sector_identified && fit->group_identified)) &&
                fit->pass_identified && sec_pinned && pass_pinned && partial_pinned;
    f = mt_find_value(0, "", MT_SRC_MEASURED, "access-unit-fit",
                      clear ? ACCESS_CONF : MT_CONF_INCONSISTENT,
                      "%s: %zu patterns, worst residual %.1f; %s", instr, n,
                      fit->max_residual, table);
    f.kind = MT_FIND_TEXT;
    char group[48] = "", partial[48] = "";
    if (fit->sector_group > 1)
        snprintf(group, sizeof group, " group of %u", fit->sector_group);
    if (fit->per_partial > 0)
        snprintf(partial, sizeof partial, ", +%.1f for a partial warp", fit->per_partial);
    if (fit->sector)
        snprintf(f.text, sizeof f.text,
                 "a warp request costs %.1f cycles, +%.1f per extra %s, +%.1f per extra%s %u B "
                 "sector%s touched%s",
                 fit->base, fit->per_pass, pass, fit->per_sector, group, fit->sector,
                 fit->sector_group > 1 ? "s" : "", partial);
    else
        snprintf(f.text, sizeof f.text,
                 "a warp request costs %.1f cycles, +%.1f per extra %s (sectors: no extra "
                 "cost)%s",
                 fit->base, fit->per_pass, pass, partial);
    mt_set(c, key, "coalescing", &f);
}

/* One batch: patterns p[0..np-1] on both paths; their levels go to
 * lv[k][at + i]. */
static mt_err run_levels(mt_probe_ctx *c, const mt_access_pattern *p, size_t np, uint32_t loads,
                         mt_bank_level lv[2][ACCESS_MAX_PATTERNS], size_t at)
{
    static const mt_path paths[2] = {MT_PATH_GLOBAL_CA, MT_PATH_GLOBAL_CG};
    mt_experiment e[2 * ACCESS_MAX_PATTERNS];
    mt_result r[2 * ACCESS_MAX_PATTERNS];
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < np; i++)
            e[k * np + i] = mt_exp_access(paths[k], p[i].word, p[i].n, loads);
    mt_err err = mt_run(c, e, 2 * np, r);
    if (err)
        return err;
    for (int k = 0; k < 2 && !err; k++)
        for (size_t i = 0; i < np && !err; i++) {
            size_t ns;
            double *x = mt_fine_samples(c, &r[k * np + i], 0, &ns);
            if (!x)
                err = mt_fail(c->ei, MT_ERR_NOMEM, "out of memory for access samples");
            else
                err = mt_bank_level_of(x, ns, &lv[k][at + i], c->ei);
            free(x);
        }
    mt_results_free(r, 2 * np);
    return err;
}

static mt_err access(mt_probe_ctx *c)
{
    if (!mt_backend_supports(c->be, MT_KIND_ACCESS))
        return MT_OK; /* a backend or recording without access experiments */
    note_thresholds(c);
    mt_progress(c, "global access granularity: %s", "ld.global.ca and ld.global.cg patterns");
    mt_access_pattern p[ACCESS_MAX_PATTERNS];
    size_t np = build_patterns(p);
    size_t ng = build_group_patterns(p + np);
    mt_bank_level lv[2][ACCESS_MAX_PATTERNS];
    uint32_t loads = c->dev.max_fine_loads && c->dev.max_fine_loads < ACCESS_SAMPLES
                         ? c->dev.max_fine_loads
                         : ACCESS_SAMPLES;
    mt_err err = run_levels(c, p, np, loads, lv, 0);
    if (err)
        return err;
    err = run_levels(c, p + np, ng, loads, lv, np);
    if (err == MT_ERR_REPLAY) {
        /* A recording made before the group patterns: the fit goes on
         * without them, as it did when it was recorded. */
        c->ei->msg[0] = '\0';
        ng = 0;
    } else if (err) {
        return err;
    }
    np += ng;
    static const char *const keys[2] = {"l1d", "l2"};
    static const char *const instr[2] = {"ca (warm L1)", "cg (warm L2)"};
    for (int k = 0; k < 2; k++) {
        mt_access_fit fit;
        if ((err = mt_access_fit_levels(p, lv[k], np, loads, &fit, c->ei)))
            return err;
        mt_mark_probed(c, keys[k]);
        set_path(c, keys[k], instr[k], lv[k], np, &fit);
    }
    return MT_OK;
}

static bool access_requested(const mt_probe_options *o)
{
    return o->access;
}

static const mt_finding_decl provides[] = {
    {"l1d.coalescing", "warp load cost rule (ld.global.ca)"},
    {"l1d.access_sector", "request sector (ld.global.ca)"},
    {"l1d.access_pass", "what one pass of a request is (ld.global.ca)"},
    {"l1d.access_line", "request line (ld.global.ca)"},
    {"l1d.access_sector_cycles", "cost per extra sector (ld.global.ca)"},
    {"l1d.access_pass_cycles", "cost per extra pass (ld.global.ca)"},
    {"l1d.access_latency", "one-sector warp request (ld.global.ca)"},
    {"l1d.access_sector_group", "sectors looked up together (ld.global.ca)"},
    {"l1d.access_partial_cycles", "extra cost of a partial warp (ld.global.ca)"},
    {"l2.coalescing", "warp load cost rule (ld.global.cg)"},
    {"l2.access_sector", "request sector (ld.global.cg)"},
    {"l2.access_pass", "what one pass of a request is (ld.global.cg)"},
    {"l2.access_line", "request line (ld.global.cg)"},
    {"l2.access_sector_cycles", "cost per extra sector (ld.global.cg)"},
    {"l2.access_pass_cycles", "cost per extra pass (ld.global.cg)"},
    {"l2.access_latency", "one-sector warp request (ld.global.cg)"},
    {"l2.access_sector_group", "sectors looked up together (ld.global.cg)"},
    {"l2.access_partial_cycles", "extra cost of a partial warp (ld.global.cg)"},
    {NULL}};
const mt_probe_desc mt_probe_access = {
    .name = "access",
    .summary = "global access granularity (opt-in --access): warp load cost against stride and "
               "alignment, sectors and lines per request, the coalescing rule",
    .rank = 97, .objects = NULL, .provides = provides, .run = access,
    .requested = access_requested,
};

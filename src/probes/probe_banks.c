/* Shared-memory banks (issue 9, docs/method.md "Shared-memory banks"): one
 * warp reads shared memory in patterns that put a known number of
 * distinct words into one bank, and the latency of the warp's load tells
 * how many passes the banks needed.  Three batches, each depending on the
 * last:
 *   1. stride sweep: thread t reads 4-byte word t x 2^i.  The level rises
 *      until 2^i x 4 B is a whole row of banks (count x width: every
 *      thread in one bank), then stays: the row.  Also: every thread
 *      reads word 0 (broadcast).
 *   2. width: thread t reads word t x row/4 + (t odd) x m, m = 1, 2: odd
 *      threads move m words along the row, which leaves bank 0 (a 16-way
 *      conflict, as at half a row) exactly when m x 4 B is a bank's width
 *      or more; else all 32 stay in bank 0 (32-way).  banks = row / width.
 *   3. degree d = 1..32: d threads in each of the first banks, in
 *      distinct rows; a straight line through the levels gives the cost
 *      of each extra way.  Also: contiguous 8- and 16-byte loads, whose
 *      extra latency over the conflict-free one counts their passes.
 * All patterns use fine samples of the warp's load (thread 0's timer). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../analysis/banks.h"
#include "../analysis/linear_fit.h"
#include "confidence.h"
#include "probe_internal.h"

/* Samples per pattern (at most the backend's fine limit): the level's
 * standard error is about 1.1 sd / sqrt(2048), a fortieth of the shared
 * memory's noise.  On a GPU the slowest pattern (32 ways) takes about
 * 2048 x 200 cycles, 0.2 ms, and all patterns of a batch run at once. */
#define BANK_SAMPLES 2048u
/* Widest bank row looked for: 64 banks x 8 B (docs/spec-format.md); the
 * sweep goes one stride beyond it to see the plateau. */
#define BANK_MAX_ROW 512u
#define BANK_WARP 32u
#define BANK_MAX_DEGREE 32u
/* Bank widths tried (bytes): every NVIDIA GPU has 4 or 8 (Kepler). */
#define BANK_MAX_WIDTH 8u

typedef struct {
    uint32_t idx[BANK_WARP];
    uint32_t n, word_bytes;
} pattern;

/* Bytes of shared memory a pattern may span: a block's shared memory
 * without opt-in, less the backend's sink words (one per thread). */
static uint64_t span_budget(const mt_probe_ctx *c)
{
    uint64_t b = c->dev.smem_per_block;
    uint64_t lim = c->dev.path_limit_bytes[MT_PATH_SHARED];
    if (lim && lim < b)
        b = lim;
    return b > 4 * BANK_WARP ? b - 4 * BANK_WARP : 0;
}

static uint64_t span_of(const pattern *p)
{
    uint32_t top = 0;
    for (uint32_t t = 0; t < p->n; t++)
        top = p->idx[t] > top ? p->idx[t] : top;
    return ((uint64_t)top + 1) * p->word_bytes;
}

/* Runs patterns p[0..n-1] in one batch; lv[i] = level of pattern i. */
static mt_err run_patterns(mt_probe_ctx *c, const pattern *p, size_t n, mt_bank_level *lv)
{
    mt_experiment *e = calloc(n, sizeof *e);
    mt_result *r = calloc(n, sizeof *r);
    mt_err err = MT_OK;
    if (!e || !r) {
        err = mt_fail(c->ei, MT_ERR_NOMEM, "out of memory for %zu bank patterns", n);
        goto out;
    }
    uint32_t loads = c->dev.max_fine_loads && c->dev.max_fine_loads < BANK_SAMPLES
                         ? c->dev.max_fine_loads
                         : BANK_SAMPLES;
    for (size_t i = 0; i < n; i++)
        e[i] = mt_exp_banks(p[i].word_bytes, p[i].idx, p[i].n, loads);
    if ((err = mt_run(c, e, n, r)))
        goto out;
    for (size_t i = 0; i < n && !err; i++) {
        size_t ns;
        double *x = mt_fine_samples(c, &r[i], 0, &ns);
        if (!x)
            err = mt_fail(c->ei, MT_ERR_NOMEM, "out of memory for bank samples");
        else
            err = mt_bank_level_of(x, ns, &lv[i], c->ei);
        free(x);
    }
    mt_results_free(r, n);
out:
    free(e);
    free(r);
    return err;
}

static pattern strided(uint32_t stride_words)
{
    pattern p = {.n = BANK_WARP, .word_bytes = 4};
    for (uint32_t t = 0; t < BANK_WARP; t++)
        p.idx[t] = t * stride_words;
    return p;
}

/* Every thread in its own row of the row; odd threads m words along it. */
static pattern odd_shifted(uint32_t row, uint32_t m)
{
    pattern p = {.n = BANK_WARP, .word_bytes = 4};
    for (uint32_t t = 0; t < BANK_WARP; t++)
        p.idx[t] = t * (row / 4) + (t % 2) * m;
    return p;
}

/* d threads in each bank, each in its own row: a d-way conflict. */
static pattern degree(uint32_t row, uint32_t width, uint32_t banks, uint32_t d)
{
    pattern p = {.n = d * banks < BANK_WARP ? d * banks : BANK_WARP, .word_bytes = 4};
    for (uint32_t t = 0; t < p.n; t++)
        p.idx[t] = (t % d) * (row / 4) + (t / d) * (width / 4);
    return p;
}

static pattern contiguous(uint32_t word_bytes)
{
    pattern p = {.n = BANK_WARP, .word_bytes = word_bytes};
    for (uint32_t t = 0; t < BANK_WARP; t++)
        p.idx[t] = t;
    return p;
}

static void note_thresholds(mt_probe_ctx *c)
{
    mt_note_threshold(c, "MT_BANK_MIN_GAP_CYCLES", MT_BANK_MIN_GAP_CYCLES,
                      "bank levels closer than this are one level (a quarter of the smallest "
                      "16-way step)");
    mt_note_threshold(c, "MT_BANK_SE_FACTOR", MT_BANK_SE_FACTOR,
                      "bank levels must also differ by this many combined standard errors");
    mt_note_threshold(c, "MT_BANK_SPIKE_SDS", MT_BANK_SPIKE_SDS,
                      "bank samples this many robust sigmas above the median are timer spikes");
    mt_note_threshold(c, "MT_BANK_SPIKE_BIAS", MT_BANK_SPIKE_BIAS,
                      "share of the spread that remaining spikes may add to a bank level");
    mt_note_threshold(c, "MT_BANK_PASS_TOLERANCE", MT_BANK_PASS_TOLERANCE,
                      "a wide load's pass count further than this from a whole number is "
                      "flagged");
    mt_note_threshold(c, "MT_BANK_FIT_TOLERANCE_CYCLES", MT_BANK_FIT_TOLERANCE_CYCLES,
                      "the conflict-cost fit must predict a 32-way conflict within this (95%)");
}

/* Batch 1: the row (bytes) and the broadcast level.  *row = 0: not found;
 * *lv16, *lv32 the half-row and whole-row levels. */
static mt_err find_row(mt_probe_ctx *c, uint32_t *row, int *confirmed, mt_bank_level *lv1,
                       mt_bank_level *lv16, mt_bank_level *lv32, mt_bank_level *bcast)
{
    pattern p[16];
    mt_bank_level lv[16];
    size_t n = 0;
    uint64_t budget = span_budget(c);
    for (uint32_t k = 1; k * 4 <= 2 * BANK_MAX_ROW && n < 15; k *= 2) {
        p[n] = strided(k);
        if (span_of(&p[n]) > budget)
            break;
        n++;
    }
    pattern b = {.n = BANK_WARP, .word_bytes = 4}; /* every thread reads word 0 */
    p[n] = b;
    mt_err err = run_patterns(c, p, n + 1, lv);
    if (err)
        return err;
    *bcast = lv[n];
    size_t at;
    mt_bank_row(lv, n, MT_BANK_MIN_GAP_CYCLES, &at, confirmed);
    *row = at == 0 ? 0 : 4u << at;
    *lv1 = lv[0];
    *lv16 = lv[at > 0 ? at - 1 : 0];
    *lv32 = lv[at];
    return MT_OK;
}

static void set_absent_row(mt_probe_ctx *c)
{
    mt_finding f = mt_find_absent("bank-stride-sweep", MT_CONF_INCONSISTENT,
                                  "no stride made the warp's load slower: no bank conflict seen "
                                  "(or one too cheap to measure)");
    mt_set(c, "shared", "banks", &f);
}

static mt_err banks(mt_probe_ctx *c)
{
    if (!mt_backend_supports(c->be, MT_KIND_BANKS))
        return MT_OK; /* a backend or recording without banks experiments */
    mt_mark_probed(c, "shared");
    note_thresholds(c);
    mt_progress(c, "shared-memory banks: stride sweep");
    uint32_t row;
    int confirmed;
    mt_bank_level lv1, lv16, lv32, bcast;
    mt_err err = find_row(c, &row, &confirmed, &lv1, &lv16, &lv32, &bcast);
    if (err)
        return err;
    if (!row) {
        set_absent_row(c);
        return MT_OK;
    }
    const char *doubt = confirmed ? "" : "; the plateau was not seen beyond it (shared memory "
                                         "per block too small): the row may be wider";
    double conf = confirmed ? MT_CONF_BANKS : MT_CONF_INCONSISTENT;

    mt_finding f;
    int nb = mt_bank_nearer(&bcast, &lv1, &lv32, MT_BANK_MIN_GAP_CYCLES);
    if (nb >= 0) {
        f = mt_find_value(0, "", MT_SRC_MEASURED, "bank-broadcast", MT_CONF_BANKS,
                          "32 threads reading one word: %.1f cycles; conflict-free %.1f, 32-way "
                          "%.1f",
                          bcast.level, lv1.level, lv32.level);
        f.kind = MT_FIND_TEXT;
        snprintf(f.text, sizeof f.text, "%s", nb == 0 ? "yes" : "no");
        mt_set(c, "shared", "broadcast", &f);
    }

    mt_progress(c, "shared-memory banks: bank width");
    pattern p[2 + BANK_MAX_DEGREE];
    mt_bank_level lv[2 + BANK_MAX_DEGREE];
    size_t n = 0;
    for (uint32_t m = 1; m * 4 <= BANK_MAX_WIDTH && m * 4 < row; m *= 2) {
        p[n] = odd_shifted(row, m);
        if (span_of(&p[n]) > span_budget(c))
            break; /* 4m bytes beyond the last stride the sweep could use */
        n++;
    }
    if (n && (err = run_patterns(c, p, n, lv)))
        return err;
    uint32_t width = 0;
    for (size_t i = 0; i < n && !width; i++) {
        int w = mt_bank_nearer(&lv[i], &lv16, &lv32, MT_BANK_MIN_GAP_CYCLES);
        if (w < 0)
            break; /* unclear: no width */
        if (w == 0)
            width = 4u << i;
    }
    if (!width) {
        f = mt_find_value(row / 4, "count", MT_SRC_MEASURED, "bank-stride-sweep",
                          MT_CONF_INCONSISTENT,
                          "row of %u B; bank width not found (no shift up to %u B left bank 0), "
                          "so this count assumes 4 B banks%s",
                          row, BANK_MAX_WIDTH, doubt);
        mt_set(c, "shared", "banks", &f);
        return MT_OK;
    }
    uint32_t nbanks = row / width;
    f = mt_find_value(nbanks, "count", MT_SRC_MEASURED, "bank-stride-sweep", conf,
                      "a %u B row of banks (stride sweep: 16-way %.1f, 32-way %.1f cycles) of "
                      "%u B banks%s",
                      row, lv16.level, lv32.level, width, doubt);
    mt_set(c, "shared", "banks", &f);
    f = mt_find_value(width, "B", MT_SRC_MEASURED, "bank-width-shift", conf,
                      "odd threads shifted %u B left the bank (16-way), less stayed (32-way)%s",
                      width, doubt);
    mt_set(c, "shared", "bank_width", &f);

    mt_progress(c, "shared-memory banks: conflict degree 1..32");
    n = 0;
    for (uint32_t d = 1; d <= BANK_MAX_DEGREE; d++)
        p[n++] = degree(row, width, nbanks, d);
    p[n++] = contiguous(8);
    p[n++] = contiguous(16);
    if ((err = run_patterns(c, p, n, lv)))
        return err;
    double x[BANK_MAX_DEGREE], y[BANK_MAX_DEGREE];
    for (uint32_t d = 1; d <= BANK_MAX_DEGREE; d++) {
        x[d - 1] = d;
        y[d - 1] = lv[d - 1].level;
    }
    mt_line_fit fit;
    if ((err = mt_fit_line(x, y, BANK_MAX_DEGREE, &fit, c->ei)))
        return err;
    double span95 = 2 * fit.slope_se * (BANK_MAX_DEGREE - 1);
    int linear = fit.max_residual <= MT_BANK_FIT_TOLERANCE_CYCLES &&
                 span95 <= MT_BANK_FIT_TOLERANCE_CYCLES;
    f = mt_find_value(fit.slope, "cycles", MT_SRC_MEASURED, "bank-degree-fit",
                      linear ? MT_CONF_BANKS : MT_CONF_INCONSISTENT,
                      "per extra way, least squares over degrees 1..32 (+-%.3f; residuals max "
                      "%.1f%s); levels 1:%.1f 2:%.1f 4:%.1f 8:%.1f 16:%.1f 32:%.1f",
                      fit.slope_se, fit.max_residual, linear ? "" : ", not a line within 2 cycles",
                      y[0], y[1], y[3], y[7], y[15], y[31]);
    mt_set(c, "shared", "conflict_cycles", &f);
    int precise = 2 * lv[31].se <= MT_BANK_FIT_TOLERANCE_CYCLES;
    f = mt_find_value(y[31], "cycles", MT_SRC_MEASURED, "bank-degree-fit",
                      precise ? MT_CONF_BANKS : MT_CONF_INCONSISTENT,
                      "32 threads in one bank, distinct rows (+-%.2f standard error%s)", lv[31].se,
                      precise ? "" : ": noise too large for 2 cycles");
    mt_set(c, "shared", "latency_32way", &f);
    static const char *const names[2] = {"passes_64bit", "passes_128bit"};
    for (int w = 0; w < 2; w++) {
        const mt_bank_level *l = &lv[BANK_MAX_DEGREE + w];
        if (!(fit.slope > 0))
            break;
        double passes = 1 + (l->level - lv[0].level) / fit.slope;
        double whole = round(passes);
        int clear = linear && whole >= 1 && fabs(passes - whole) <= MT_BANK_PASS_TOLERANCE;
        f = mt_find_value(whole >= 1 ? whole : 1, "count", MT_SRC_MEASURED, "bank-wide-load",
                          clear ? MT_CONF_BANKS : MT_CONF_INCONSISTENT,
                          "32 contiguous %d-byte words: %.1f cycles, %.2f passes of %.2f cycles "
                          "over the conflict-free load",
                          8 << w, l->level, passes, fit.slope);
        mt_set(c, "shared", names[w], &f);
    }
    return MT_OK;
}

static const mt_finding_decl provides[] = {
    {"shared.banks", "banks"},
    {"shared.bank_width", "bank width"},
    {"shared.broadcast", "one word broadcast to a warp"},
    {"shared.conflict_cycles", "bank conflict: cost per way"},
    {"shared.latency_32way", "32-way bank conflict latency"},
    {"shared.passes_64bit", "passes of a 64-bit warp load"},
    {"shared.passes_128bit", "passes of a 128-bit warp load"},
    {NULL}};
const mt_probe_desc mt_probe_banks = {
    .name = "banks", .summary = "shared memory: banks, bank width, conflict cost, broadcast, wide loads",
    .rank = 11, .objects = NULL, .provides = provides, .run = banks,
};

/* The L1 data cache's size as a function of the shared-memory carveout
 * (issue 8, part 4).  Since Volta the L1 and shared memory are one array
 * per SM, and the carveout decides how much of it is shared memory.
 *
 * Opt-in (--carveout): for each carveout asked for, the capacity search of
 * measure_capacity.c (the l1d probe's, at its sector stride) with every
 * experiment requesting that carveout; one finding per carveout
 * (l1d.size_at_carveout_<smem>).  For a sweep over every carveout the
 * device lists, a least-squares line through the sizes found: the slope
 * (bytes of L1 per byte of shared memory, -1 for one shared array) and the
 * offset (the L1 with no shared memory: the array's size).  The probe's
 * own time is its row of the report's timings. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../analysis/linear_fit.h"
#include "probe_internal.h"

/* No L1-level cache is near 4 MiB (as the l1d probe's search limit). */
#define CARVEOUT_SEARCH_LIMIT (4ull << 20)
/* Where the search starts when nothing hints at the size (the l1d
 * probe's start). */
#define CARVEOUT_SEARCH_START 2048u
/* The smallest reference chain the search may shrink to: 4 elements hit in
 * any cache of >= 4 sectors (as the l1d probe's). */
#define REF_MIN_ELEMENTS 4u

/* A point further from the fitted line than this share of the fitted
 * offset (the array) contradicts "one array split between L1 and shared
 * memory": 1% of Hopper's 256 KiB is 2.5 KiB, 20 lines, far beyond the
 * one-sector resolution of a confirmed size, yet well below the 8 KiB
 * step between the smallest carveouts, so a point whose carveout did not
 * take effect stands out. */
#define MT_CARVEOUT_FIT_MAX_RESIDUAL_SHARE 0.01
/* Confidence cap of a fit that its residuals contradict (a point off the
 * line), or that rests on two points only (any two points fit a line:
 * nothing checked it): below the 0.5 users trust. */
#define MT_CARVEOUT_FIT_UNCHECKED_CONF 0.4

static bool carveout_requested(const mt_probe_options *o)
{
    return o->n_carveouts > 0;
}

/* "100KiB" (or "1536B" for a carveout that is not whole KiB): how the
 * findings and their labels name a carveout. */
static void carveout_name(uint32_t smem, char *buf, size_t n)
{
    if (smem % 1024 == 0)
        snprintf(buf, n, "%uKiB", smem / 1024);
    else
        snprintf(buf, n, "%uB", smem);
}

/* Sizes the L1 under the carveout that gives `smem` bytes of shared
 * memory, starting from half the hint (the size at the previous, smaller
 * carveout of the sweep, which a larger carveout can only shrink): the
 * doubling then brackets the edge in one or two batches, which keeps a
 * sweep of ten carveouts at a few seconds on a GPU. */
static mt_err size_at(mt_probe_ctx *c, uint32_t smem, int percent, uint64_t hint,
                      mt_cap_result *cap)
{
    const mt_cache_state *s = &c->cs[MT_CACHE_L1D];
    mt_path p = mt_cache_path(MT_CACHE_L1D);
    uint32_t stride = s->sector ? s->sector : 32; /* the l1d probe's stride */
    uint64_t limit = c->dev.path_limit_bytes[p];
    if (!limit || limit > CARVEOUT_SEARCH_LIMIT)
        limit = CARVEOUT_SEARCH_LIMIT;
    uint64_t start = mt_round_down(hint / 2, stride);
    if (start < CARVEOUT_SEARCH_START)
        start = CARVEOUT_SEARCH_START;
    mt_cap_request q = {
        .path = p, .thread = 0, .stride = stride, .start = start, .limit = limit,
        .granule = stride, .ref_footprint = 1024, .hit_threshold = NAN,
        .fit_threshold = s->hit_threshold, .ref_min_bytes = REF_MIN_ELEMENTS * stride,
        .set_carveout = 1, .carveout_percent = percent,
    };
    char nm[24];
    carveout_name(smem, nm, sizeof nm);
    mt_progress(c, "L1 size at a carveout of %s shared memory (preference %d%%)", nm, percent);
    return mt_capacity_search(c, &q, cap);
}

/* The line through the sizes that are values (ranges and bounds say too
 * little to weigh), as the findings l1d.carveout_slope and
 * l1d.carveout_unified. */
static void fit_sweep(mt_probe_ctx *c, const uint32_t *smem, const mt_finding *size, int n)
{
    double x[MT_PROBE_MAX_CARVEOUTS], y[MT_PROBE_MAX_CARVEOUTS];
    size_t used = 0;
    double conf = 1;
    char left_out[160] = "";
    size_t len = 0;
    for (int i = 0; i < n; i++) {
        if (size[i].kind == MT_FIND_VALUE) {
            x[used] = smem[i];
            y[used++] = size[i].value;
            if (size[i].confidence < conf)
                conf = size[i].confidence;
        } else if (len < sizeof left_out) {
            char nm[24];
            carveout_name(smem[i], nm, sizeof nm);
            len += (size_t)snprintf(left_out + len, sizeof left_out - len, "%s%s", len ? ", " : "",
                                    nm);
        }
    }
    mt_note_threshold(c, "MT_CARVEOUT_FIT_MAX_RESIDUAL_SHARE", MT_CARVEOUT_FIT_MAX_RESIDUAL_SHARE,
                      "carveout fit: a size further than this share of the offset from the line "
                      "contradicts it");
    mt_note_threshold(c, "MT_CARVEOUT_FIT_UNCHECKED_CONF", MT_CARVEOUT_FIT_UNCHECKED_CONF,
                      "carveout fit: confidence cap of a line on two points or off its points");
    mt_line_fit fit;
    mt_errinfo fei;
    const char *m = "carveout-sweep+capacity+least-squares";
    if (mt_fit_line(x, y, used, &fit, &fei) != MT_OK) {
        mt_finding none = {.kind = MT_FIND_NONE, .source = MT_SRC_MEASURED};
        snprintf(none.method, sizeof none.method, "%s", m);
        snprintf(none.note, sizeof none.note,
                 "no line: %zu of %d carveouts gave a size value (%.100s); %.60s", used, n,
                 len ? left_out : "no ranges", fei.msg);
        mt_set(c, "l1d", "carveout_slope", &none);
        mt_set(c, "l1d", "carveout_unified", &none);
        return;
    }
    char doubt[200] = "";
    double tol = MT_CARVEOUT_FIT_MAX_RESIDUAL_SHARE * fabs(fit.offset);
    if (used == 2) {
        snprintf(doubt, sizeof doubt, "; two points only: nothing checks the line");
    } else if (fit.max_residual > tol) {
        char nm[24];
        carveout_name((uint32_t)x[fit.worst], nm, sizeof nm);
        snprintf(doubt, sizeof doubt,
                 "; the size at %s is %.0f B off the line (> %.0f B = %g of the offset): the "
                 "sizes do not follow one line", nm, fit.max_residual, tol,
                 MT_CARVEOUT_FIT_MAX_RESIDUAL_SHARE);
    }
    if (doubt[0] && conf > MT_CARVEOUT_FIT_UNCHECKED_CONF)
        conf = MT_CARVEOUT_FIT_UNCHECKED_CONF;
    char used_text[200];
    snprintf(used_text, sizeof used_text,
             "least squares over %zu of %d carveouts%s%s%s; residuals rms %.1f B, max %.1f B",
             used, n, len ? " (not values, left out: " : "", len ? left_out : "", len ? ")" : "",
             fit.rms_residual, fit.max_residual);
    mt_finding f = mt_find_value(fit.slope, "B/B", MT_SRC_MEASURED, m, conf,
                                 "L1 bytes per byte of shared memory, +-%.2g (standard error); "
                                 "%s%s", fit.slope_se, used_text, doubt);
    mt_set(c, "l1d", "carveout_slope", &f);
    f = mt_find_value(fit.offset, "B", MT_SRC_MEASURED, m, conf,
                      "L1 at no shared memory: the array L1 and shared memory split, +-%.0f B "
                      "(standard error); %s%s", fit.offset_se, used_text, doubt);
    mt_set(c, "l1d", "carveout_unified", &f);
}

static mt_err run_carveout(mt_probe_ctx *c)
{
    const mt_probe_options *o = c->opt;
    const mt_cache_state *s = &c->cs[MT_CACHE_L1D];
    mt_finding size[MT_PROBE_MAX_CARVEOUTS];
    int n = o->n_carveouts < MT_PROBE_MAX_CARVEOUTS ? o->n_carveouts : MT_PROBE_MAX_CARVEOUTS;
    uint64_t hint = s->size_is_bound ? 0 : s->size;
    mt_mark_probed(c, "l1d");
    for (int i = 0; i < n; i++) {
        uint32_t smem = o->carveout_smem[i];
        char nm[24], name[MT_NAME_LEN];
        carveout_name(smem, nm, sizeof nm);
        snprintf(name, sizeof name, "size_at_carveout_%.12s", nm); /* <= 11 chars: "4294967295B" */
        int percent = mt_carveout_percent(&c->dev, smem);
        mt_finding *f = &size[i];
        if (!s->present) {
            *f = mt_find_absent("pchase-fine ca-vs-cg ks+otsu", 1.0 - MT_KS_ALPHA,
                                "ld.global.ca is not cached above the L2 (l1d.size): no L1 to "
                                "size at any carveout");
        } else if (percent < 0) {
            /* The option list and the percent rounding disagree (a device
             * listing a carveout no preference reaches): not measurable. */
            *f = (mt_finding){.kind = MT_FIND_NONE, .source = MT_SRC_MEASURED};
            snprintf(f->note, sizeof f->note,
                     "no carveout preference (0..100%%) gives %s of shared memory", nm);
        } else {
            mt_cap_result cap;
            mt_err err = size_at(c, smem, percent, hint, &cap);
            if (err != MT_OK)
                return err;
            *f = mt_capacity_finding(&cap, mt_path_name(mt_cache_path(MT_CACHE_L1D)));
            mt_finding_append_note(f, "carveout: %s of shared memory per SM (preference %d%%)",
                                   nm, percent);
            if (cap.kind == MT_FIND_VALUE || cap.kind == MT_FIND_RANGE)
                hint = cap.lo; /* the next, larger carveout leaves at most this */
        }
        mt_set(c, "l1d", name, f);
    }
    if (o->carveout_sweep && s->present)
        fit_sweep(c, o->carveout_smem, size, n);
    return MT_OK;
}

static const mt_finding_decl carveout_provides[] = {
    {"l1d.size_at_carveout_*", "size at carveout"},
    {"l1d.carveout_slope", "size per carveout byte (fit)"},
    {"l1d.carveout_unified", "size at no carveout (fit)"},
    {NULL},
};
/* The l1d probe's presence test, sector and size (the search's start). */
static const char *const carveout_requires[] = {"l1d.size", NULL};
const mt_probe_desc mt_probe_carveout = {
    .name = "carveout",
    .summary = "L1 data size at each --carveout asked for; with 'all', the fitted line",
    .rank = 25, .provides = carveout_provides, .requires = carveout_requires,
    .run = run_carveout, .requested = carveout_requested,
};

/* The latency matrix (issue 9 part 3; Mei et al. 2014's table): the
 * latency of one load for each combination of the level that serves the
 * data (L1, the L2's near partition, its far partition, DRAM) and the
 * translation (the first TLB level hits; the first j levels miss and the
 * next one, or the page walk beyond the last, serves it).
 *
 * Opt-in (--matrix): the chains whose translation misses span gigabytes.
 * It reads the TLB levels the tlb probe found (so --matrix runs it) and the
 * L1 and L2 the default probes measured, and builds one chain per cell:
 *
 *  - translation column 0: a chain within half the first level's reach
 *    (every page stays in it);
 *  - column j >= 1: one element per page, MATRIX_PAGES_OVER x the entries
 *    of level j (a cyclic chase over more pages than an LRU level holds
 *    misses it at every load) but no more than level j + 1 holds;
 *  - data row L1: ld.global.ca, warmed, at most the L1's lines /
 *    MATRIX_RESIDENT_SHARE elements (resident under any set index);
 *  - rows L2 near and far: ld.global.cg, warmed, at most the usable L2's
 *    lines / MATRIX_RESIDENT_SHARE elements; each element's median over the
 *    laps says whether its line is near or far (as the l2 probe splits);
 *  - row DRAM: ld.global.cg, cold, each element loaded once.
 *
 * A cell no chain can land in on this GPU (more pages than its L1 holds
 * lines, no TLB level found, an L2 without a far partition) is reported as
 * text "not measurable: WHY", never as a number. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "confidence.h"
#include "l2_near_map.h"
#include "latency_precision.h"
#include "page_stride.h"
#include "probe_internal.h"

/* A cached row's chain holds at most the cache's lines / this many
 * elements: with modulo, xor or hashed set indices an eighth of the
 * capacity stays resident (the TLB probe's TLB_L2_SHARE, same reason). */
#define MATRIX_RESIDENT_SHARE 8u
/* Column j >= 1: this many times level j's entries of pages.  An LRU
 * level then misses every load of the cyclic chase (one more page would
 * already do; twice keeps a level counted a few entries short missing
 * too). */
#define MATRIX_PAGES_OVER 2u
/* Column 0: the chain stays within the first level's entries / this many
 * pages, so a level counted somewhat long still holds all of them. */
#define MATRIX_HIT_PAGE_SHARE 2u
/* Timed laps of a warm chain: its per-element medians over this many laps
 * separate near from far lines (3 ignore one timer outlier; 16 shrink the
 * noise of a median by about 4x, which an H100's 27-cycle gap between
 * near and far needed: at 8 laps the classes overlapped). */
#define MATRIX_LAPS 16u
/* The L2 rows' laps come from this many runs of the chain (one batch,
 * each after one more warm-up lap, so that each is its own experiment:
 * fresh noise on the simulator, which repeats an experiment's noise, and
 * on a GPU alike): four times the elements for the same laps, whose
 * classes and their spreads are then better known than those of one run. */
#define MATRIX_L2_RUNS 4u
/* Cold loads gathered for a DRAM cell, and the most cold chains (each one
 * line further on) run to gather them. */
#define MATRIX_DRAM_SAMPLES 4096u
#define MATRIX_DRAM_CHAINS 32u
/* Stride of the DRAM row's TLB-hit chain: whole L2 lines and DRAM bursts
 * apart, so every load misses (the dram probe's stride: L2 lines and fill
 * blocks of up to 2 KiB). */
#define MATRIX_DRAM_STRIDE 2048u
/* The smallest page a GPU uses (4 KiB): bounds column 0's chain when a
 * first level was found but nothing is known of its page (a bound or a
 * range on the page gives its low end instead). */
#define MATRIX_MIN_PAGE 4096u
/* The cells are stated together: their intervals hold all of them at this
 * level (Bonferroni over the 16 cells, as the L2 probe's near and far
 * classes: a cell stated as a value is wrong about once in a thousand
 * runs). */
#define MATRIX_FAMILY_LEVEL 0.999
/* An L2 of unknown partitioning is taken to be split this many ways (the
 * simulator's most partitions, as the TLB probe assumes). */
#define MATRIX_UNKNOWN_PARTITIONS 64u
/* A near/far split of per-element medians: each class at least this share
 * of the elements (fewer is a handful of outliers, not a partition), and
 * the expected share of foreign members of a class at most
 * MATRIX_MAX_FOREIGN (the L2 probe's NEAR_FAR_MAX_FOREIGN: 2% foreign
 * members move a median by ~0.025 robust sds). */
#define MATRIX_MIN_CLASS_SHARE 0.01
#define MATRIX_MAX_FOREIGN 0.02
/* One latency class of a partitioned L2 is the near cell only within this
 * many cycles of the l2 probe's near latency: twice the cell's own
 * precision (MT_LATENCY_MAX_HALF_WIDTH), since both are medians of their
 * own loads; a far class lies a partition hop (tens of cycles) away. */
#define MATRIX_NEAR_AGREE_CYCLES 4.0

enum { ROW_L1, ROW_L2_NEAR, ROW_L2_FAR, ROW_DRAM, MATRIX_ROWS };
#define MATRIX_COLS 4 /* TLB levels missed: 0..3 */

static const char *const row_name[MATRIX_ROWS] = {"l1", "l2near", "l2far", "dram"};
static const char *const level_key[MATRIX_COLS - 1] = {"tlb1", "tlb2", "tlb3"};

/* What the other probes told: the TLB levels found and the caches. */
typedef struct {
    int levels;                     /* TLB levels found (entries a value) */
    uint64_t entries[MATRIX_COLS - 1];
    double conf[MATRIX_COLS - 1];   /* confidence of each level's entries */
    uint64_t bound;                 /* first level not found: more entries than this (0: none) */
    uint64_t page;                  /* page size, 0 = not measured */
    uint64_t page_lo;               /* the least the page can be */
    uint64_t page_hi;               /* the most the page can be, 0 = not known */
    uint32_t l1_line, l2_line;
    uint64_t l1_size, l2_usable;
    double l1_size_conf;            /* confidence of l1d.size, which sizes the L1 row's chain */
    bool l1_caches;                 /* ld.global.ca hits in an L1 of known size */
    bool l2_unpartitioned;          /* the l2 probe found no partitions */
    double l2_near;                 /* the l2 probe's trusted near latency, NAN if none */
} matrix_run;

/* A cell's outcome: a latency finding, or why it cannot be measured. */
static void set_cell(mt_probe_ctx *c, int row, int col, const mt_finding *f)
{
    char name[MT_NAME_LEN];
    snprintf(name, sizeof name, "lat_%s_tlbmiss%d", row_name[row], col);
    mt_set(c, "gpu", name, f);
}

static void not_measurable(mt_probe_ctx *c, int row, int col, const char *why)
{
    mt_finding f = {.kind = MT_FIND_TEXT, .source = MT_SRC_MEASURED, .confidence = 1.0};
    snprintf(f.text, sizeof f.text, "not measurable: %s", why);
    snprintf(f.method, sizeof f.method, "latency matrix");
    set_cell(c, row, col, &f);
}

/* One element per page: the page plus a few L2 lines, the stride's line
 * count made prime so that consecutive elements walk every set of a
 * modulo-indexed cache instead of piling into one. */
static uint32_t page_stride(const matrix_run *m)
{
    return (uint32_t)mt_page_stride(m->page_hi, m->l2_line);
}

/* The cell's value from its samples: the median, a range when its
 * interval is wider than a latency is stated to. */
static mt_err cell_finding(mt_probe_ctx *c, matrix_run *m, const double *x, size_t n, double conf,
                           const char *note, mt_finding *f)
{
    mt_median_interval ci;
    mt_err err = mt_median_ci(x, n, mt_bonferroni_level(MATRIX_FAMILY_LEVEL, MATRIX_ROWS * MATRIX_COLS),
                              &ci);
    if (err != MT_OK)
        return mt_fail(c->ei, err, "latency matrix: median of %zu samples: %s", n,
                       mt_strerror(err));
    *f = mt_find_value(ci.median, "cycles", MT_SRC_MEASURED, "pchase-fine matrix", conf, "%s",
                       note);
    mt_finding_set_precision(f, &ci);
    return MT_OK;
}

/* The chain of cell (row, col): stride and element count, or false with
 * the reason in why. */
static bool plan_chain(const mt_probe_ctx *c, const matrix_run *m, int row, int col,
                       uint32_t *stride, uint64_t *elements, char *why, size_t nwhy)
{
    bool cached = row != ROW_DRAM;
    uint32_t line = row == ROW_L1 ? m->l1_line : m->l2_line;
    uint64_t lines = row == ROW_L1 ? m->l1_size / line : m->l2_usable / line;
    uint64_t most = cached ? lines / MATRIX_RESIDENT_SHARE : c->dev.max_fine_loads;
    if (col == 0) {
        *stride = cached ? line : MATRIX_DRAM_STRIDE;
        uint64_t n = row == ROW_L1 ? c->dev.max_fine_loads / MATRIX_LAPS
                     : cached      ? (uint64_t)c->dev.max_fine_loads * MATRIX_L2_RUNS / MATRIX_LAPS
                                   : c->dev.max_fine_loads;
        if (n > most)
            n = most;
        /* Within half the first level's reach (the smallest page when the
         * page was not measured). */
        if (m->levels > 0) {
            uint64_t reach = m->entries[0] / MATRIX_HIT_PAGE_SHARE * m->page_lo;
            if (n > reach / *stride)
                n = reach / *stride;
        }
        *elements = n;
        if (n < 1) {
            snprintf(why, nwhy, "no chain fits");
            return false;
        }
        return true;
    }
    if (col > m->levels) {
        if (m->levels == 0)
            snprintf(why, nwhy, "no TLB level found within the tlb probe's reach (%llu pages)",
                     (unsigned long long)m->bound);
        else
            snprintf(why, nwhy, "%d TLB level%s found", m->levels, m->levels > 1 ? "s" : "");
        return false;
    }
    uint64_t n = MATRIX_PAGES_OVER * m->entries[col - 1];
    if (col < m->levels && n > m->entries[col])
        n = m->entries[col];
    if (col == m->levels && m->bound && n > m->bound) {
        snprintf(why, nwhy, "%llu pages are beyond what the tlb probe tried (%llu)",
                 (unsigned long long)n, (unsigned long long)m->bound);
        return false;
    }
    if (n <= m->entries[col - 1]) {
        snprintf(why, nwhy, "level %d holds no more pages than level %d", col + 1, col);
        return false;
    }
    if (cached && n > most) {
        snprintf(why, nwhy, "%llu pages, one line each, exceed the %llu lines a chain keeps "
                 "resident in the %s (1/%u of its lines)",
                 (unsigned long long)n, (unsigned long long)most,
                 row == ROW_L1 ? "L1" : "usable L2", MATRIX_RESIDENT_SHARE);
        return false;
    }
    /* One element per page needs a stride of at least the page: without
     * an upper end on the page (not measured, or only a lower bound) no
     * stride is sure of it, and a chain of elements sharing pages would
     * time TLB hits in a column that claims misses. */
    if (!m->page_hi) {
        snprintf(why, nwhy, "the page size is not known from above (tlb1.page), so no stride is "
                 "sure to put every element on a page of its own");
        return false;
    }
    *stride = page_stride(m);
    mt_chain ch = {.path = row == ROW_L1 ? MT_PATH_GLOBAL_CA : MT_PATH_GLOBAL_CG, .stride = *stride};
    uint64_t limit = mt_chain_limit(&c->dev, &ch);
    if (limit && n * *stride > limit) {
        snprintf(why, nwhy, "%llu pages at %u B exceed the %llu B a chain may span",
                 (unsigned long long)n, *stride, (unsigned long long)limit);
        return false;
    }
    *elements = n;
    return true;
}

/* The confidence the TLB levels a column rests on allow: the least of
 * the entries of the levels it misses and of the one that serves it. */
static double column_conf(const matrix_run *m, int col)
{
    double conf = 1.0;
    for (int i = 0; i < m->levels && i <= col; i++)
        conf = fmin(conf, m->conf[i]);
    return conf;
}

/* Row L1: a warm ld.global.ca chain. */
static mt_err measure_l1(mt_probe_ctx *c, matrix_run *m, int col, uint32_t stride, uint64_t n)
{
    uint32_t loads = mt_fine_loads(c, n * stride, stride, MATRIX_LAPS);
    mt_experiment e = mt_exp_chase(MT_PATH_GLOBAL_CA, n * stride, stride, 1, loads, MT_MODE_FINE);
    e.sm = 0;
    double *x;
    size_t nx;
    mt_err err = mt_run_fine(c, &e, &x, &nx);
    if (err != MT_OK)
        return err;
    char note[192];
    snprintf(note, sizeof note, "median of %zu loads of a warm ca chain of %llu elements at %u B",
             nx, (unsigned long long)n, stride);
    mt_finding f;
    err = cell_finding(c, m, x, nx, MT_CONF_NEAR_CLASS * column_conf(m, col), note, &f);
    free(x);
    /* The chain stays resident only in an L1 of the size measured: an
     * L1 size in doubt leaves the chain's loads in doubt too (hits or a
     * mix with misses), so the cell is no surer than the size. */
    if (err == MT_OK && m->l1_size_conf < f.confidence)
        mt_finding_doubt(&f, m->l1_size_conf, "the chain is sized by l1d.size, confidence %.2f",
                         m->l1_size_conf);
    if (err == MT_OK)
        set_cell(c, ROW_L1, col, &f);
    return err;
}

/* Per-element medians: sample i is element el[i]; *nv = how many elements
 * were timed (the first ones: a run times its chain from element 0). */
static double *element_medians(const double *x, const uint32_t *el, size_t n, size_t *nv)
{
    size_t ne = 0;
    for (size_t i = 0; i < n; i++)
        if (el[i] >= ne)
            ne = (size_t)el[i] + 1;
    double *v = malloc((ne ? ne : 1) * sizeof *v);
    size_t *count = calloc(ne ? ne : 1, sizeof *count), *at = calloc(ne + 1, sizeof *at);
    double *by = malloc((n ? n : 1) * sizeof *by);
    if (!v || !count || !at || !by) {
        free(v);
        v = NULL;
        goto out;
    }
    for (size_t i = 0; i < n; i++)
        count[el[i]]++;
    for (size_t k = 0; k < ne; k++)
        at[k + 1] = at[k] + count[k];
    memset(count, 0, ne * sizeof *count);
    for (size_t i = 0; i < n; i++)
        by[at[el[i]] + count[el[i]]++] = x[i];
    for (size_t k = 0; k < ne; k++)
        v[k] = mt_median(by + at[k], count[k]);
    *nv = ne;
out:
    free(count);
    free(at);
    free(by);
    return v;
}

/* The fine samples of `runs` runs of one chain of `elements` in one batch,
 * each after one more warm-up lap: *x the samples, *el each one's element
 * (measuring continues from element 0 after whole laps, backend.h). */
static mt_err run_laps(mt_probe_ctx *c, mt_path p, uint32_t stride, uint64_t elements,
                       uint32_t runs, double laps, double **x, uint32_t **el, size_t *n)
{
    mt_experiment e[MATRIX_L2_RUNS];
    mt_result r[MATRIX_L2_RUNS];
    uint32_t loads = mt_fine_loads(c, elements * stride, stride, laps);
    for (uint32_t i = 0; i < runs; i++) {
        e[i] = mt_exp_chase(p, elements * stride, stride, 1 + i, loads, MT_MODE_FINE);
        e[i].sm = 0;
    }
    mt_err err = mt_run(c, e, runs, r);
    if (err != MT_OK)
        return err;
    *x = malloc((size_t)runs * loads * sizeof **x);
    *el = malloc((size_t)runs * loads * sizeof **el);
    *n = 0;
    for (uint32_t i = 0; i < runs && *x && *el; i++) {
        size_t k;
        double *y = mt_fine_samples(c, &r[i], 0, &k);
        if (!y) {
            free(*x);
            *x = NULL;
            break;
        }
        for (size_t j = 0; j < k; j++) {
            (*x)[*n] = y[j];
            (*el)[(*n)++] = (uint32_t)(j % elements);
        }
        free(y);
    }
    mt_results_free(r, runs);
    if (!*x || !*el) {
        free(*x);
        free(*el);
        *x = NULL;
        *el = NULL;
        return mt_fail(c->ei, MT_ERR_NOMEM, "out of memory reading samples");
    }
    return MT_OK;
}

/* Rows L2 near and far from one warm ld.global.cg chain. */
static mt_err measure_l2(mt_probe_ctx *c, matrix_run *m, int col, uint32_t stride, uint64_t n)
{
    double *x = NULL, *v = NULL, *t = NULL, *lo = NULL, *hi = NULL;
    uint32_t *el = NULL;
    size_t nx, nv = 0;
    mt_err err = run_laps(c, MT_PATH_GLOBAL_CG, stride, n, MATRIX_L2_RUNS,
                          (double)MATRIX_LAPS / MATRIX_L2_RUNS, &x, &el, &nx);
    if (err != MT_OK)
        return err;
    v = element_medians(x, el, nx, &nv);
    t = malloc((nv ? nv : 1) * sizeof *t);
    lo = malloc(nx * sizeof *lo);
    hi = malloc(nx * sizeof *hi);
    if (!v || !t || !lo || !hi) {
        err = mt_fail(c->ei, MT_ERR_NOMEM, "out of memory");
        goto out;
    }
    /* The split, as the l2 probe's: Otsu on the element medians, two
     * populations by BIC, each class a real share of the lines. */
    memcpy(t, v, nv * sizeof *t);
    size_t keep = mt_drop_slowest_percent(t, nv);
    mt_split sp = {0};
    bool two = keep >= 2 && mt_split_two_classes(t, keep, &sp) == MT_OK && sp.separated &&
               sp.high_fraction >= MATRIX_MIN_CLASS_SHARE &&
               sp.high_fraction <= 1 - MATRIX_MIN_CLASS_SHARE;
    mt_bimodality bm = {0};
    if (two)
        two = mt_bimodality_test(t, keep, sp.threshold, &bm) == MT_OK && bm.two_classes;
    double conf = column_conf(m, col);
    char note[192];
    mt_finding f;
    if (!two) {
        double hidden = mt_one_class_hidden_gap(v, nv);
        /* One narrow class of a partitioned L2 may be all far lines (a
         * short chain over many partitions): near only where it is the l2
         * probe's near latency. */
        double class_median = mt_median(v, nv);
        bool is_near = isfinite(m->l2_near) &&
                       fabs(class_median - m->l2_near) <= MATRIX_NEAR_AGREE_CYCLES;
        bool sure = m->l2_unpartitioned || (hidden <= MT_LATENCY_MAX_HALF_WIDTH && is_near);
        snprintf(note, sizeof note,
                 "median of %zu loads (%u runs) of a warm cg chain of %llu elements at %u B: one "
                 "latency class%s",
                 nx, MATRIX_L2_RUNS, (unsigned long long)n, stride,
                 sure ? ""
                 : hidden > MT_LATENCY_MAX_HALF_WIDTH
                     ? ", which may hide a far class: near and far cannot be told apart"
                     : ", not the l2 probe's near latency: its lines may all be far");
        if ((err = cell_finding(c, m, x, nx, (sure ? MT_CONF_NEAR_CLASS : MT_CONF_INCONSISTENT) * conf,
                                note, &f)) != MT_OK)
            goto out;
        set_cell(c, ROW_L2_NEAR, col, &f);
        not_measurable(c, ROW_L2_FAR, col,
                       m->l2_unpartitioned ? "the L2 has no far partition (probe l2)"
                                           : "the chain's lines showed one latency class");
        goto out;
    }
    size_t nl = 0, nh = 0;
    for (size_t i = 0; i < nx; i++) {
        if (v[el[i]] > sp.threshold)
            hi[nh++] = x[i];
        else
            lo[nl++] = x[i];
    }
    double foreign = mt_near_far_foreign_share(v, nv, sp.threshold);
    bool apart = foreign <= MATRIX_MAX_FOREIGN;
    snprintf(note, sizeof note,
             "median of the %s class of %zu lines' medians (a warm cg chain at %u B, Otsu cut "
             "%.0f)%s",
             "faster", nv, stride, sp.threshold, apart ? "" : "; the classes overlap");
    if ((err = cell_finding(c, m, lo, nl, (apart ? MT_CONF_NEAR_CLASS : MT_CONF_INCONSISTENT) * conf,
                            note, &f)) != MT_OK)
        goto out;
    set_cell(c, ROW_L2_NEAR, col, &f);
    snprintf(note, sizeof note,
             "median of the %s class of %zu lines' medians (a warm cg chain at %u B, Otsu cut "
             "%.0f)%s",
             "slower", nv, stride, sp.threshold, apart ? "" : "; the classes overlap");
    if ((err = cell_finding(c, m, hi, nh, (apart ? MT_CONF_FAR_CLASS : MT_CONF_INCONSISTENT) * conf,
                            note, &f)) != MT_OK)
        goto out;
    set_cell(c, ROW_L2_FAR, col, &f);
out:
    free(x);
    free(el);
    free(v);
    free(t);
    free(lo);
    free(hi);
    return err;
}

/* Row DRAM: cold cg chains, each element loaded once, each chain one line
 * further on (new lines for the simulator's noise, still cold on a GPU,
 * whose L2 the backend flushes before a cold GPU-scope chain). */
static mt_err measure_dram(mt_probe_ctx *c, matrix_run *m, int col, uint32_t stride, uint64_t n)
{
    uint32_t loads = n < c->dev.max_fine_loads ? (uint32_t)n : c->dev.max_fine_loads;
    size_t cap = (size_t)loads * MATRIX_DRAM_CHAINS, nall = 0;
    double *all = malloc(cap * sizeof *all);
    if (!all)
        return mt_fail(c->ei, MT_ERR_NOMEM, "out of memory");
    mt_err err = MT_OK;
    unsigned chains = 0;
    for (; chains < MATRIX_DRAM_CHAINS && nall < MATRIX_DRAM_SAMPLES; chains++) {
        mt_experiment e = mt_exp_chase(MT_PATH_GLOBAL_CG, n * stride, stride, 0, loads,
                                       MT_MODE_FINE);
        e.sm = 0;
        e.chain[0].offset = (uint64_t)chains * m->l2_line;
        uint64_t limit = mt_chain_limit(&c->dev, &e.chain[0]);
        if (limit && e.chain[0].offset + n * stride > limit)
            break;
        double *x;
        size_t nx;
        if ((err = mt_run_fine(c, &e, &x, &nx)) != MT_OK)
            break;
        memcpy(all + nall, x, nx * sizeof *x);
        nall += nx;
        free(x);
    }
    if (err == MT_OK && nall == 0)
        not_measurable(c, ROW_DRAM, col, "no cold chain fits the memory a chain may span");
    else if (err == MT_OK) {
        char note[192];
        snprintf(note, sizeof note,
                 "median of %zu cold loads (%u cg chains of %llu elements at %u B, each loaded once)",
                 nall, chains, (unsigned long long)n, stride);
        mt_finding f;
        if ((err = cell_finding(c, m, all, nall, MT_CONF_NEAR_CLASS * column_conf(m, col), note,
                                &f)) == MT_OK)
            set_cell(c, ROW_DRAM, col, &f);
    }
    free(all);
    return err;
}

/* The inputs: TLB levels (tlb probe), the L1 (l1d probe) and the L2's
 * usable size and partitioning (l2 probe). */
static void read_inputs(mt_probe_ctx *c, matrix_run *m)
{
    for (int d = 0; d < MATRIX_COLS - 1; d++) {
        const mt_finding *e = mt_get(c, level_key[d], "entries");
        if (e->kind == MT_FIND_VALUE && e->value >= 1 && m->levels == d) {
            m->entries[d] = (uint64_t)e->value;
            m->conf[d] = e->confidence;
            m->levels++;
        } else if (e->kind == MT_FIND_LOWER_BOUND && m->levels == d && !m->bound) {
            m->bound = (uint64_t)e->lo + 1;
        }
    }
    const mt_finding *page = mt_get(c, "tlb1", "page");
    m->page = page->kind == MT_FIND_VALUE ? (uint64_t)page->value : 0;
    m->page_lo = m->page                                                            ? m->page
                 : page->kind == MT_FIND_LOWER_BOUND || page->kind == MT_FIND_RANGE ? (uint64_t)page->lo
                                                                                   : 0;
    if (m->page_lo < MATRIX_MIN_PAGE)
        m->page_lo = MATRIX_MIN_PAGE;
    m->page_hi = m->page ? m->page : page->kind == MT_FIND_RANGE ? (uint64_t)page->hi : 0;
    const mt_cache_state *l1 = &c->cs[MT_CACHE_L1D], *l2 = &c->cs[MT_CACHE_L2];
    m->l1_line = l1->line ? l1->line : 128;
    m->l2_line = l2->line ? l2->line : 128;
    m->l1_size = l1->size;
    m->l1_size_conf = mt_get(c, "l1d", "size")->confidence;
    m->l1_caches = l1->present && l1->size >= m->l1_line;
    const mt_finding *ps = mt_get(c, "l2", "partition_size");
    /* No partitions only where the l2 probe trusts it: an absent
     * partition size in doubt (a far latency class seen, the partition
     * test blind to it; unseen seed 4689: near 258, far 286 at 30 cycles
     * of noise) leaves the partitioning unknown, as probe_l2_map does. */
    m->l2_unpartitioned = ps->kind == MT_FIND_ABSENT && ps->confidence >= MT_CONF_TRUSTED;
    const mt_finding *near = mt_get(c, "l2", "latency");
    m->l2_near = near->kind == MT_FIND_VALUE && near->confidence >= MT_CONF_TRUSTED ? near->value
                                                                                    : NAN;
    /* A partition size in doubt is not used: the chain would be sized by
     * a number that may be too large (the unknown case's share is small
     * enough for any partitioning the simulator allows). */
    m->l2_usable = mt_partition_bytes(ps) && ps->confidence >= MT_CONF_TRUSTED
                       ? mt_partition_bytes(ps)
                   : m->l2_unpartitioned ? c->dev.l2_bytes
                                         : c->dev.l2_bytes / MATRIX_UNKNOWN_PARTITIONS;
}

static void note_thresholds(mt_probe_ctx *c)
{
    mt_note_threshold(c, "MATRIX_RESIDENT_SHARE", MATRIX_RESIDENT_SHARE,
                      "matrix: a cached row's chain holds at most the cache's lines / this");
    mt_note_threshold(c, "MATRIX_PAGES_OVER", MATRIX_PAGES_OVER,
                      "matrix: pages of a column missing level j, in level j's entries");
    mt_note_threshold(c, "MATRIX_HIT_PAGE_SHARE", MATRIX_HIT_PAGE_SHARE,
                      "matrix: the TLB-hit column spans the first level's entries / this pages");
    mt_note_threshold(c, "MATRIX_LAPS", MATRIX_LAPS,
                      "matrix: timed laps of a warm chain (per-element medians)");
    mt_note_threshold(c, "MATRIX_L2_RUNS", MATRIX_L2_RUNS,
                      "matrix: runs of an L2 row's chain pooled per element");
    mt_note_threshold(c, "MATRIX_DRAM_STRIDE", MATRIX_DRAM_STRIDE,
                      "matrix: stride (B) of the DRAM row's TLB-hit chain");
    mt_note_threshold(c, "MATRIX_DRAM_SAMPLES", MATRIX_DRAM_SAMPLES,
                      "matrix: cold loads gathered for a DRAM cell");
    mt_note_threshold(c, "MATRIX_FAMILY_LEVEL", MATRIX_FAMILY_LEVEL,
                      "matrix: the cells' intervals hold all of them at this level");
    mt_note_threshold(c, "MATRIX_MIN_CLASS_SHARE", MATRIX_MIN_CLASS_SHARE,
                      "matrix: least share of the lines a near or far class holds");
    mt_note_threshold(c, "MATRIX_NEAR_AGREE_CYCLES", MATRIX_NEAR_AGREE_CYCLES,
                      "matrix: one L2 class is the near cell within this of the l2 probe's near");
    mt_note_threshold(c, "MATRIX_MAX_FOREIGN", MATRIX_MAX_FOREIGN,
                      "matrix: most expected foreign share of a near/far class");
    mt_note_latency_precision(c);
}

static mt_err matrix(mt_probe_ctx *c)
{
    mt_mark_probed(c, "gpu");
    note_thresholds(c);
    matrix_run m = {0};
    read_inputs(c, &m);
    mt_err err = MT_OK;
    for (int col = 0; col < MATRIX_COLS && err == MT_OK; col++) {
        for (int row = 0; row < MATRIX_ROWS && err == MT_OK; row++) {
            if (row == ROW_L2_FAR)
                continue; /* measured with the near row */
            char why[160];
            uint32_t stride = 0;
            uint64_t n = 0;
            if (row == ROW_L1 && !m.l1_caches) {
                not_measurable(c, row, col, "global loads (ld.global.ca) are not cached in an L1");
                continue;
            }
            if (!plan_chain(c, &m, row, col, &stride, &n, why, sizeof why)) {
                not_measurable(c, row, col, why);
                if (row == ROW_L2_NEAR)
                    not_measurable(c, ROW_L2_FAR, col, why);
                continue;
            }
            mt_progress(c, "latency matrix: %s, %d TLB level%s missed", row_name[row], col,
                        col == 1 ? "" : "s");
            err = row == ROW_L1      ? measure_l1(c, &m, col, stride, n)
                  : row == ROW_DRAM ? measure_dram(c, &m, col, stride, n)
                                    : measure_l2(c, &m, col, stride, n);
        }
    }
    return err;
}

static bool matrix_requested(const mt_probe_options *o)
{
    return o->matrix;
}

#define CELLS(row, what)                                                                          \
    {"gpu.lat_" row "_tlbmiss0", what ", TLB hit"},                                               \
    {"gpu.lat_" row "_tlbmiss1", what ", TLB1 miss"},                                             \
    {"gpu.lat_" row "_tlbmiss2", what ", TLB1-2 miss"},                                           \
    {"gpu.lat_" row "_tlbmiss3", what ", TLB1-3 miss"}
static const mt_finding_decl provides[] = {
    CELLS("l1", "load: L1 hit"), CELLS("l2near", "load: L2 near hit"),
    CELLS("l2far", "load: L2 far hit"), CELLS("dram", "load: DRAM"), {NULL}};
/* The TLB levels (the tlb probe, which --matrix thus runs), the L1's size
 * and line, and the L2's partition size (with the default probes). */
static const char *const requires[] = {"tlb1.entries", "l1d.size", "l1d.line",
                                       "l2.partition_size", NULL};
const mt_probe_desc mt_probe_matrix = {
    .name = "matrix",
    .summary = "latency matrix (opt-in --matrix): a load's latency for each level serving the "
               "data (L1, L2 near, L2 far, DRAM) and TLB levels missed (0-3)",
    .rank = 96, .provides = provides, .requires = requires, .run = matrix,
    .requested = matrix_requested,
};

/* TLB levels (issue 9, part 1; Mei et al. 2014's method): per level the
 * entries, the page size, the reach (entries x page) and the miss
 * penalty.
 *
 * Opt-in (--tlb): its chains span gigabytes (sparse chains, one element per
 * page, up to the device's sparse_limit_bytes), which the default run has
 * no use for.
 *
 * Every chain is a sequential ld.global.cg chase over N elements, one per
 * page: a stride of TLB_BIG_STRIDE (above every page size the GPUs use)
 * plus a few L2 lines, so consecutive elements also land in different L2
 * sets and the whole chain stays in the L2.  A chain of 2N elements and
 * one of N share their first N elements, so their latencies are compared
 * element by element (analysis/paired_shift.h): the difference is what the
 * longer chain changed for every element, not where each element lives.
 *
 *  1. Doubling: N = 1, 2, 4, ... each against the chain of half as many;
 *     a step (a shift of at least TLB_MIN_STEP_CYCLES and TLB_STEP_Z
 *     standard errors) is a TLB level overflowing, its size the penalty.
 *     When no level shows there, the stride climbs (8 MiB, 16 MiB ... while
 *     at least TLB_CLIMB_MIN_ELEMENTS fit): pages above the stride put
 *     several elements on one page, of which only the first misses, so
 *     the paired median cannot see their level below a stride of the
 *     page; at any stride >= the page a level of E entries steps near E
 *     elements again.  A level whose edge moves at twice its stride
 *     (elements sharing pages) does not stop the climb.  Still none: the
 *     doubling is repeated at half the big stride, and so on down to the
 *     smallest sparse stride (MT_SPARSE_MIN_STRIDE), until a level shows
 *     (small pages of many entries: too few elements fit the memory).
 *  2. Each level's edge by bisection against the largest chain that fit:
 *     the longest chain whose elements did not get the step's half is the
 *     level's entry count (LRU: one entry more thrashes every element).
 *     The edge is checked at twice the stride: an edge that counts pages
 *     (every element on a page of its own at both strides) stays, one of
 *     elements sharing pages (a page above the stride) or a cache artefact
 *     moves.
 *  3. The page size, from the first level: a chain of 1.5 E elements at a
 *     stride s touches 1.5 E pages while s >= the page (it overflows E
 *     entries), and at most E pages from s = page / 2 on; scanning s down
 *     from half the level's stride, the first stride at which it fits is
 *     half the page (or, fitting at once, the page is the level's stride:
 *     above half of it, and at most it when the edge held at twice it).
 *     Every level is assumed to translate this page size; with it known,
 *     the doubling goes on at one page per element, which fits more
 *     elements into the memory a chain may span.
 *  4. The first level's ways (tlb_ways.c), with its entries and page.
 *     A level past the first whose edge is soft (one page more does not
 *     thrash every element) or that steps in part (the pairs' upper tail,
 *     the median not) overflows set by set: its entries are a range
 *     (sharpen, partial_step), read exactly behind a small fully
 *     associative first level by element 0's edges (tlb_next.c).
 *  5. Which SMs share each trusted level (tlb_share.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "confidence.h"
#include "probe_internal.h"
#include "page_stride.h"
#include "tlb_probe.h"

/* The first stride: twice the largest page the GPUs are documented to use
 * for device memory (2 MiB since Pascal), so every element has a page of
 * its own unless the GPU maps with larger pages (the sim allows up to
 * 1 GiB); those are found by the climb above it. */
#define TLB_BIG_STRIDE (4u << 20)
/* The climb above TLB_BIG_STRIDE goes on while a chain of at least this
 * many elements fits the memory a chain may span: a few dozen leave the
 * doubling five comparisons and show levels of up to 31 entries, and
 * stop it at a stride of 2 GiB on an 80 GB GPU (37 elements), 128 MiB
 * on an 8 GiB one. */
#define TLB_CLIMB_MIN_ELEMENTS 32u
/* Smallest step taken for a level: half the simulator's smallest miss
 * penalty (8 cycles), far above the paired medians' noise of a few
 * thousand samples. */
#define TLB_MIN_STEP_CYCLES 4.0
/* ... and at least this many standard errors of the paired median: six
 * keep a chance step below 1e-8 per comparison over some fifty
 * comparisons of a run. */
#define TLB_STEP_Z 6.0
/* A chain holds at most the usable L2's lines / this many elements: with
 * modulo, xor or hashed set indices a chain of an eighth of the capacity
 * stays resident, so the L2 level of every element is the same in both
 * chains of a comparison. */
#define TLB_L2_SHARE 8u
/* Most elements of one chain: 2^18 pages of 2 MiB are 512 GiB, beyond any
 * GPU's memory. */
#define TLB_MAX_ELEMENTS (1u << 18)
/* The page scan's chain: this share more elements than the first level's
 * entries (1.5): enough to overflow it at strides >= the page, few enough
 * to fit it at half the page even with the L2 lines added to the stride. */
#define TLB_PAGE_CHAIN_SHARE 1.5
/* The page scan stops at this stride (no GPU pages below 4 KiB). */
#define TLB_MIN_SCAN_STRIDE 4096u
/* Confidence of an edge the second stride could not re-check (its chain
 * did not fit the limits): one stride's edge could still be an L2
 * artefact, rare with the prime line count, so trusted but below a
 * checked one. */
#define TLB_CONF_UNCHECKED 0.8
/* Confidence of a bound on a level not found when the page size is
 * unknown: the entries bound counts one entry per element, true only for
 * pages of at most TLB_BIG_STRIDE, the reach bound only for pages within
 * the strides tried (a GPU may map with pages above the climb's top
 * stride); below 0.5, so each is read as a hint. */
#define TLB_CONF_PAGE_ASSUMED 0.45
/* An L2 whose partitioning the l2 probe left open is taken to be split
 * this many ways (the simulator's most partitions). */
#define TLB_UNKNOWN_PARTITIONS 64u
/* The odd stride of an edge's check (confirm): 1.5 x the level's stride
 * plus this, the smallest page the simulator allows (64 KiB), so the
 * stride is an odd number of such pages whenever the level's stride is at
 * least 256 KiB (every stride the probe finds levels at). */
#define TLB_ODD_STRIDE_EXTRA (64u << 10)
/* A share of the pairs this much larger above +MT_PAIRED_SHIFT_TAIL_CYCLES
 * than below its negative (and TLB_STEP_Z binomial standard errors) is a
 * level past the first overflowing in part, though the median stays: a
 * set-associative level overflows set by set, so a chain a little longer
 * than its entries makes only the pages of its fullest sets miss.  A tenth:
 * on the H100 the tails balance within 0.06 over every comparison of a
 * stride that found the first level, while a direct-mapped level of 256
 * entries overflowed by 43 pages (random spec w1392) steps 17% of them,
 * and the H100's own chains of 4718 pages of 16 MiB 28%. */
#define TLB_PARTIAL_MIN_SHARE 0.1
/* Levels reported (objects tlb1..tlb3). */
#define TLB_LEVELS 3

static const char *const level_key[TLB_LEVELS] = {"tlb1", "tlb2", "tlb3"};

/* What the strides tried without a level covered: the bounds on a level
 * not found. */
typedef struct {
    uint32_t top;       /* largest stride climbed to (0: none fitted) */
    uint64_t top_n;     /* longest chain compared there */
    double reach_lo;    /* least (n - 1) x stride / 2 over the strides tried */
    uint32_t least;     /* the stride of reach_lo */
} tlb_cover;

/* big plus a few L2 lines: the line count of the stride made prime, so
 * that under a modulo set index the elements walk every set (a stride that
 * shares a factor with the set count would use only some of them). */
static uint32_t spread_stride(const tlb_run *r, uint32_t big)
{
    return (uint32_t)mt_page_stride(big, r->line);
}

/* Whether twice base, plus the lines spread_stride adds (fewer than
 * MT_PAGE_STRIDE_MAX_LINES), still fits a chain's 32-bit stride. */
static bool doubles(const tlb_run *r, uint32_t base)
{
    return base <= (UINT32_MAX - MT_PAGE_STRIDE_MAX_LINES * r->line) / 2;
}

/* Longest chain (elements) at this stride that fits the limits. */
uint64_t mt_tlb_max_elements(const tlb_run *r, uint32_t stride)
{
    mt_chain ch = {.path = MT_PATH_GLOBAL_CG, .stride = stride};
    uint64_t lim = mt_chain_limit(&r->c->dev, &ch);
    uint64_t n = lim ? lim / stride : TLB_MAX_ELEMENTS;
    if (n > r->max_lines)
        n = r->max_lines;
    return n > TLB_MAX_ELEMENTS ? TLB_MAX_ELEMENTS : n;
}

/* The step of chain `test` (elements) over chain `ref` at `stride`. */
mt_err mt_tlb_shift_of(tlb_run *r, uint64_t ref, uint64_t test, uint32_t stride,
                       mt_paired_shift *out)
{
    mt_probe_ctx *c = r->c;
    uint32_t loads = c->dev.max_fine_loads;
    mt_experiment e[2];
    const uint64_t n[2] = {ref, test};
    for (int i = 0; i < 2; i++)
        e[i] = mt_exp_chase(MT_PATH_GLOBAL_CG, n[i] * stride, stride, 1, loads, MT_MODE_FINE);
    mt_result res[2];
    mt_err err = mt_run(c, e, 2, res);
    if (err != MT_OK)
        return err;
    size_t nx[2] = {0, 0};
    double *x[2] = {mt_fine_samples(c, &res[0], 0, &nx[0]), mt_fine_samples(c, &res[1], 0, &nx[1])};
    mt_results_free(res, 2);
    if (!x[0] || !x[1])
        err = mt_fail(c->ei, MT_ERR_NOMEM, "out of memory reading samples");
    else if ((err = mt_paired_shift_cyclic(x[0], nx[0], ref, x[1], nx[1], test, out)) != MT_OK)
        err = mt_fail(c->ei, err, "TLB: %zu and %zu samples of %llu and %llu elements pair too few",
                      nx[0], nx[1], (unsigned long long)ref, (unsigned long long)test);
    free(x[0]);
    free(x[1]);
    return err;
}

bool mt_tlb_is_step(const mt_paired_shift *s)
{
    return s->shift >= TLB_MIN_STEP_CYCLES && s->shift >= TLB_STEP_Z * s->se;
}

/* The last element count at which level lv still fits, between lv->lo (fits)
 * and lv->hi (overflows): most elements of a longer chain get half the
 * step or more once it overflows. */
mt_err mt_tlb_bisect(tlb_run *r, tlb_level *lv, uint32_t stride)
{
    uint64_t ref = lv->lo;
    while (lv->hi - lv->lo > 1) {
        uint64_t mid = lv->lo + (lv->hi - lv->lo) / 2;
        mt_paired_shift s;
        mt_err err = mt_tlb_shift_of(r, ref, mid, stride, &s);
        if (err != MT_OK)
            return err;
        if (s.shift > lv->step / 2)
            lv->hi = mid;
        else
            lv->lo = mid;
    }
    return MT_OK;
}

/* Whether the edge holds at `stride`: the chain of lo elements against
 * one of lo / 2 shows no step, the chain of lo + 1 against lo shows it.
 * *fits = false (nothing run) when lo + 1 elements exceed the limits. */
mt_err mt_tlb_edge_holds(tlb_run *r, const tlb_level *lv, uint32_t stride, bool *fits, bool *holds)
{
    *fits = lv->lo + 1 <= mt_tlb_max_elements(r, stride);
    if (!*fits)
        return MT_OK;
    mt_paired_shift below, above;
    mt_err err = MT_OK;
    if (lv->lo >= 2 && (err = mt_tlb_shift_of(r, lv->lo / 2, lv->lo, stride, &below)) != MT_OK)
        return err;
    if ((err = mt_tlb_shift_of(r, lv->lo, lv->lo + 1, stride, &above)) != MT_OK)
        return err;
    *holds = above.shift > lv->step / 2 && (lv->lo < 2 || below.shift <= lv->step / 2);
    return MT_OK;
}

/* The edge again at twice the stride, then at an odd one: one and a half
 * times it plus the smallest sparse stride (TLB_ODD_STRIDE_EXTRA).  At
 * twice the stride an edge that counts pages stays, one of elements
 * sharing pages moves.  A set-associative level indexed by the page number
 * modulo a power of two of sets, met at a stride of a multiple of its sets
 * in pages, puts every element into one set: its edge is the ways, and it
 * stays at twice that stride too.  At the odd stride the page numbers step
 * by an odd count or a fraction, so the elements walk many sets and the
 * edge moves; a fully associative level's does not (every element still
 * has a page of its own).  The odd check is skipped when its chain does
 * not fit the limits, or in a recording made before it (MT_ERR_REPLAY). */
static mt_err confirm(tlb_run *r, tlb_level *lv)
{
    bool fits = false, holds = false;
    mt_err err = MT_OK;
    if (doubles(r, lv->base)) {
        err = mt_tlb_edge_holds(r, lv, spread_stride(r, 2 * lv->base), &fits, &holds);
        if (err != MT_OK)
            return err;
        if (fits) {
            lv->checked = true;
            lv->confirmed = holds;
            if (!holds)
                return MT_OK;
        }
    }
    uint64_t odd = (uint64_t)lv->base + lv->base / 2 + TLB_ODD_STRIDE_EXTRA;
    if (odd > UINT32_MAX - MT_PAGE_STRIDE_MAX_LINES * r->line)
        return MT_OK;
    err = mt_tlb_edge_holds(r, lv, spread_stride(r, (uint32_t)odd), &fits, &holds);
    if (err == MT_ERR_REPLAY) {
        r->c->ei->msg[0] = '\0';
        return MT_OK;
    }
    if (err == MT_OK && fits) {
        lv->odd_moved = !holds && lv->checked && lv->confirmed;
        lv->confirmed = holds && (lv->confirmed || !lv->checked);
        lv->checked = true;
    }
    return err;
}

/* A first level whose page the scan measured, checked once more at one
 * and a half pages: every element still has a page of its own, so a
 * level of that page holds its edge.  A set-associative level met at
 * strides of whole multiples of its sets in pages looks like a level of
 * its ways over pages of the sets' span (the scan finds that span); at
 * one and a half such spans its elements fall into two sets and the edge
 * moves: the level is then reported as inconsistent (0.3).  Skipped when
 * the chain does not fit, or in a recording made before. */
static mt_err check_page(tlb_run *r, tlb_level *lv, uint64_t page)
{
    uint64_t s = page + page / 2;
    if (s > UINT32_MAX - MT_PAGE_STRIDE_MAX_LINES * r->line)
        return MT_OK;
    bool fits = false, holds = false;
    mt_err err = mt_tlb_edge_holds(r, lv, spread_stride(r, (uint32_t)s), &fits, &holds);
    if (err == MT_ERR_REPLAY) {
        r->c->ei->msg[0] = '\0';
        return MT_OK;
    }
    if (err == MT_OK && fits && !holds) {
        lv->checked = true;
        lv->confirmed = false;
    }
    return err;
}

typedef enum { PAGE_UNKNOWN, PAGE_VALUE, PAGE_ABOVE, PAGE_BELOW } page_kind;

/* Step 3: the page size from the first level's entries. */
static mt_err page_scan(tlb_run *r, const tlb_level *l1, page_kind *kind, uint64_t *page)
{
    uint64_t a = l1->lo, b = (uint64_t)ceil(TLB_PAGE_CHAIN_SHARE * (double)l1->lo);
    if (b <= a)
        b = a + 1;
    *kind = PAGE_UNKNOWN;
    for (uint32_t s = l1->base / 2; s >= TLB_MIN_SCAN_STRIDE; s /= 2) {
        uint32_t stride = s + r->line;
        if (b > mt_tlb_max_elements(r, stride))
            return MT_OK; /* out of room: what was seen so far stays unknown */
        mt_paired_shift sh;
        mt_err err = mt_tlb_shift_of(r, a, b, stride, &sh);
        if (err != MT_OK)
            return err;
        if (sh.shift <= l1->step / 2) { /* fits: s is below the page */
            bool first = s == l1->base / 2;
            /* Fitting at once: the page is above s, and at most the
             * level's stride only when the edge held at twice it. */
            *kind = first && !l1->confirmed ? PAGE_ABOVE : PAGE_VALUE;
            *page = *kind == PAGE_ABOVE ? s : 2ull * s;
            return MT_OK;
        }
        *kind = PAGE_BELOW;
        *page = s;
    }
    return MT_OK;
}

static double level_conf(const tlb_level *lv)
{
    return !lv->checked ? TLB_CONF_UNCHECKED : lv->confirmed ? MT_CONF_AGG_MIXED : MT_CONF_INCONSISTENT;
}

static void set_level(mt_probe_ctx *c, int d, const tlb_level *lv, page_kind pk, uint64_t page,
                      double first_conf)
{
    const char *key = level_key[d];
    double conf = level_conf(lv);
    /* A soft level met at one page per element: its range rests on that
     * stride alone, and a set-associative level's edge moves at twice or
     * 1.5x it by its nature (fewer or other sets in play), so the checks
     * there neither confirm nor doubt it. */
    bool own_page = lv->soft && pk == PAGE_VALUE && lv->base == page;
    if (own_page)
        conf = lv->checked ? MT_CONF_AGG_MIXED : TLB_CONF_UNCHECKED;
    /* A level beyond an untrusted first one is no surer than it: a
     * set-associative first level overflowing set by set shows further
     * small steps past its median edge, which the doubling takes for
     * levels. */
    if (d > 0 && first_conf < MT_CONF_TRUSTED && conf > first_conf)
        conf = first_conf;
    /* Neither check ruled out elements sharing pages (a page above the
     * stride): then only some of them miss, and the step and its edge are
     * a share of a level's, not one.  Page above the stride: the same, for
     * sure a doubt.  Every finding of the level says so. */
    bool unruled = !lv->checked && pk == PAGE_UNKNOWN;
    if (unruled)
        conf = TLB_CONF_PAGE_ASSUMED;
    if (pk == PAGE_ABOVE)
        conf = MT_CONF_INCONSISTENT;
    mt_finding f;
    if (lv->sets)
        f = mt_find_value((double)lv->lo, "count", MT_SRC_MEASURED, "pchase-fine paired", conf,
                          "set-associative: %llu sets of %llu ways (%llu + 1 pages one set apart, "
                          "at the %u B stride, thrash; the sets from the strides that spread "
                          "them, tlb_sets.c); one more page added %.1f cycles to them",
                          (unsigned long long)lv->sets, (unsigned long long)lv->ways,
                          (unsigned long long)lv->ways, lv->base, lv->step);
    else if (lv->soft)
        /* Not sharp, or stepped in part: between the longest chain that
         * kept its latency whole and the edge. */
        f = mt_find_range((double)lv->fit, (double)lv->lo, "count", "pchase-fine paired", conf,
                          "%llu pages fitted whole; past them some elements stepped by %.1f "
                          "cycles, not all (set by set, or not LRU): the entries in this range",
                          (unsigned long long)lv->fit, lv->step);
    else
        f = mt_find_value((double)lv->lo, "count", MT_SRC_MEASURED, "pchase-fine paired", conf,
                          "longest chain of one element per page whose elements kept their "
                          "latency; one more element added %.1f cycles to them",
                          lv->step);
    if (lv->next_top)
        mt_finding_append_note(&f, "element 0 kept it at 2 to %llu pages apart: no sets of "
                               "the page number mod 2^k there",
                               (unsigned long long)lv->next_top);
    if (lv->ways_lo)
        mt_finding_append_note(&f, "or %llu sets of %llu ways: the same entries",
                               (unsigned long long)(2 * lv->sets),
                               (unsigned long long)lv->ways_lo);
    if (lv->sets_top)
        mt_finding_append_note(&f, "strides up to %u B (one L2 line added per element) found no "
                               "one-set pattern: a set-associative level whose sets span more "
                               "than a chain's 32-bit stride, or not set-associative",
                               lv->sets_top);
    if (lv->checked && !lv->confirmed && !own_page)
        mt_finding_append_note(&f, "the edge moved at twice or 1.5x the %u B stride, or at 1.5 "
                               "pages: elements share pages, a set-associative level, or not "
                               "a TLB edge alone",
                               lv->base);
    if (pk == PAGE_ABOVE)
        mt_finding_append_note(&f, "pages above %llu B: elements may share pages",
                               (unsigned long long)page);
    if (unruled)
        mt_finding_append_note(&f, "neither the check at twice the %u B stride nor the page scan "
                               "fitted the memory: elements may share pages",
                               lv->base);
    mt_set(c, key, "entries", &f);
    /* The step is a median of thousands of pairs: a value when its
     * interval is within a cycle or two, else the interval. */
    double half = TLB_STEP_Z * lv->se;
    if (half <= 2.0)
        f = mt_find_value(lv->step, "cycles", MT_SRC_MEASURED, "pchase-fine paired", conf,
                          "median added latency of the same elements once the level overflows");
    else
        f = mt_find_range(lv->step - half, lv->step + half, "cycles", "pchase-fine paired", conf,
                          "median added latency of the same elements once the level overflows "
                          "(+- %.0f standard errors)",
                          TLB_STEP_Z);
    mt_set(c, key, "miss_penalty", &f);
    if (pk == PAGE_VALUE && lv->soft) {
        f = mt_find_range((double)lv->fit * (double)page, (double)lv->lo * (double)page, "B",
                          "derived", conf, "entries x page (%llu B%s)", (unsigned long long)page,
                          d ? ", the first level's page" : "");
        mt_set(c, key, "reach", &f);
    } else if (pk == PAGE_VALUE) {
        f = mt_find_value((double)lv->lo * (double)page, "B", MT_SRC_MEASURED, "derived", conf,
                          "entries x page (%llu B%s)", (unsigned long long)page,
                          d ? ", the first level's page" : "");
        mt_set(c, key, "reach", &f);
    }
}

static void set_page(mt_probe_ctx *c, page_kind pk, uint64_t page, double conf, bool sets)
{
    mt_finding f;
    switch (pk) {
    case PAGE_VALUE:
        f = mt_find_value((double)page, "B", MT_SRC_MEASURED, "pchase-fine paired", conf,
                          sets ? "the ways + 1 pages of one set fit from a step of the ways' "
                                 "share of this on (tlb_sets.c)"
                               : "a chain of 1.5x the entries fits from a stride of half this on");
        break;
    case PAGE_ABOVE:
        f = mt_find_bound((double)page, "B", "pchase-fine paired", conf,
                          "a chain of 1.5x the entries fits the level already at this stride");
        break;
    case PAGE_BELOW:
        f = mt_find_range(TLB_MIN_SCAN_STRIDE, (double)page, "B", "pchase-fine paired", conf,
                          "the level overflowed at every stride tested, down to the smallest");
        break;
    default: return;
    }
    mt_set(c, "tlb1", "page", &f);
}

/* An edge that moved at twice its stride: elements shared pages (or an L2
 * artefact), not a level counting pages. */
static bool moved(const tlb_level *l)
{
    return l->checked && !l->confirmed;
}

/* Whether the pairs of s hold a share of elements that stepped while the
 * median did not (TLB_PARTIAL_MIN_SHARE). */
static bool partial_step(const mt_paired_shift *s)
{
    double excess = s->tail_up - s->tail_down;
    double se = sqrt((s->tail_up + s->tail_down) / (double)(s->pairs ? s->pairs : 1));
    return excess >= TLB_PARTIAL_MIN_SHARE && excess >= TLB_STEP_Z * se;
}

/* A level past the first, its edge bisected by the median: under LRU one
 * page more than a fully associative level holds thrashes every element
 * (the chain of lo + 1 steps against lo's), while a set-associative one
 * overflows set by set and its median edge lies up to half its sets past
 * its entries (a direct-mapped level of 4096 read as 5733: random spec
 * w1154).  Not sharp: the entries lie between the longest chain the
 * doubling saw fit (`fit`) and lo.  Skipped when the chain does not fit,
 * or in a recording made before the check (MT_ERR_REPLAY). */
static mt_err sharpen(tlb_run *r, tlb_level *l, uint32_t stride, uint64_t fit)
{
    if (l->lo + 1 > mt_tlb_max_elements(r, stride))
        return MT_OK;
    mt_paired_shift s;
    mt_err err = mt_tlb_shift_of(r, l->lo, l->lo + 1, stride, &s);
    if (err == MT_ERR_REPLAY) {
        r->c->ei->msg[0] = '\0';
        return MT_OK;
    }
    if (err == MT_OK && !(mt_tlb_is_step(&s) && s.shift > l->step / 2)) {
        l->soft = true;
        l->fit = fit;
    }
    return err;
}

/* Step 1 at one stride: chains of n, 2n, 4n ... elements (from *n, each
 * against the one of half as many) while they fit nmax, then the longest
 * chain that fits (nmax, less than twice the last) against the last, so
 * the sweep ends at the largest footprint the memory allows; a step is a
 * new level (edges found by bisection at the same stride).  *n ends as the
 * longest chain compared. */
static mt_err doubling(tlb_run *r, uint32_t base, uint64_t *n, tlb_level *lv, int *nlev)
{
    uint32_t stride = spread_stride(r, base);
    uint64_t nmax = mt_tlb_max_elements(r, stride);
    while (*n < nmax && *nlev < TLB_LEVELS) {
        uint64_t next = 2 * *n <= nmax ? 2 * *n : nmax;
        mt_progress(r->c, "TLB: %llu against %llu pages (%.1f GiB)", (unsigned long long)next,
                    (unsigned long long)*n, (double)next * stride / (double)(1ull << 30));
        mt_paired_shift s;
        mt_err err = mt_tlb_shift_of(r, *n, next, stride, &s);
        if (err != MT_OK)
            return err;
        if (mt_tlb_is_step(&s)) {
            tlb_level *l = &lv[(*nlev)++];
            *l = (tlb_level){.lo = *n, .hi = next, .step = s.shift, .se = s.se, .base = base};
            mt_progress(r->c, "TLB level %d: edge between %llu and %llu pages", *nlev,
                        (unsigned long long)l->lo, (unsigned long long)l->hi);
            if ((err = mt_tlb_bisect(r, l, stride)) != MT_OK || (err = confirm(r, l)) != MT_OK)
                return err;
            if (*nlev > 1 && !moved(&lv[0]) && (err = sharpen(r, l, stride, *n)) != MT_OK)
                return err;
        } else if (*nlev >= 1 && *nlev < TLB_LEVELS && !moved(&lv[0]) && partial_step(&s)) {
            /* Past a first level that held its checks: a share of the
             * elements stepped, the median not (a set-associative level
             * overflowing in part).  Its entries lie in [*n, next - 1]; its
             * penalty is the stepped pairs' median. */
            tlb_level *l = &lv[(*nlev)++];
            *l = (tlb_level){.lo = next - 1, .hi = next, .step = s.tail_shift, .base = base,
                             .soft = true, .fit = *n};
            mt_progress(r->c, "TLB level %d: %.0f%% of the elements stepped between %llu and "
                        "%llu pages", *nlev, 100 * (s.tail_up - s.tail_down),
                        (unsigned long long)*n, (unsigned long long)next);
        }
        *n = next;
    }
    return MT_OK;
}

/* Stride `base` gave every element a page of its own for any page in
 * (base / 2, base] and n of them fitted: such a level reaches more than
 * (n - 1) x base / 2 (see the reach bound in tlb()). */
static void cover(tlb_cover *cv, uint32_t base, uint64_t n)
{
    double reach = (double)(n - 1) * base / 2;
    if (n > 1 && (cv->least == 0 || reach < cv->reach_lo)) {
        cv->reach_lo = reach;
        cv->least = base;
    }
}

/* Step 1 above the big stride: 2, 4, 8 ... x TLB_BIG_STRIDE while
 * TLB_CLIMB_MIN_ELEMENTS fit, until a level whose edge holds at twice its
 * stride shows.  On entry lv/nlev/n are the big stride's result: kept (and
 * given back) when the climb finds nothing better. */
static mt_err climb(tlb_run *r, tlb_level *lv, int *nlev, uint64_t *n, tlb_cover *cv)
{
    tlb_level kept[TLB_LEVELS];
    memcpy(kept, lv, sizeof kept);
    int nkept = *nlev;
    uint64_t kept_n = *n;
    for (uint32_t base = 2 * TLB_BIG_STRIDE;; base *= 2) {
        if (mt_tlb_max_elements(r, spread_stride(r, base)) < TLB_CLIMB_MIN_ELEMENTS)
            break;
        uint64_t m = 1;
        *nlev = 0;
        mt_err err = doubling(r, base, &m, lv, nlev);
        if (err != MT_OK)
            return err;
        cv->top = base;
        cv->top_n = m;
        /* An edge that held at twice the stride but moved at the odd one
         * is no page above the stride (its edge would have moved at twice
         * it as well: pages and strides are powers of two) but a
         * set-associative level met at a whole multiple of its sets' span:
         * at twice and three times the span it holds its ways again and
         * would pass every check (random spec w3950: 32 sets of 32 ways
         * of 16 MiB pages, flagged at 512 MiB, then taken at 1 GiB as
         * 32 entries at 0.9).  The climb stops there; the set climb reads
         * the flagged level. */
        if (*nlev > 0 && (!moved(&lv[0]) || lv[0].odd_moved)) {
            *n = m;
            return MT_OK;
        }
        if (*nlev > 0 && nkept == 0) { /* the first moved edge, kept should nothing hold */
            memcpy(kept, lv, sizeof kept);
            nkept = *nlev;
            kept_n = m;
        }
        if (*nlev == 0)
            cover(cv, base, m);
        if (!doubles(r, base))
            break;
    }
    memcpy(lv, kept, sizeof kept);
    *nlev = nkept;
    *n = kept_n;
    return MT_OK;
}

/* A level the one-set pattern resolved, against Mei's ways test (the
 * tlb1.ways finding mt_tlb_ways left): the same ways, or a range or bound
 * holding them, keep the level; Mei's value at the lower of two readings
 * (two sets of half the ways) settles them; anything else leaves the whole
 * level at 0.3 with both values in the note. */
static void set_ways_checked(mt_probe_ctx *c, tlb_level *lv)
{
    const mt_finding *m = mt_get(c, "tlb1", "ways");
    double w = (double)lv->ways;
    if (m->kind == MT_FIND_VALUE && lv->ways_lo && m->value == (double)lv->ways_lo) {
        lv->sets *= 2;
        lv->ways = lv->ways_lo;
        lv->ways_lo = 0;
        return;
    }
    if (m->kind == MT_FIND_VALUE && m->value == w && !lv->ways_lo)
        return;
    bool holds = m->kind == MT_FIND_NONE ||
                 (m->kind == MT_FIND_VALUE && lv->ways_lo && m->value == w) ||
                 (m->kind == MT_FIND_RANGE && m->lo <= w && (double)lv->ways_lo <= m->hi) ||
                 (m->kind == MT_FIND_LOWER_BOUND && m->lo < w);
    char mei[96] = "nothing";
    if (m->kind == MT_FIND_VALUE)
        snprintf(mei, sizeof mei, "%.0f", m->value);
    else if (m->kind == MT_FIND_RANGE)
        snprintf(mei, sizeof mei, "%.0f to %.0f", m->lo, m->hi);
    else if (m->kind == MT_FIND_LOWER_BOUND)
        snprintf(mei, sizeof mei, "more than %.0f", m->lo);
    mt_finding f;
    if (!holds) {
        lv->confirmed = false;
        f = mt_find_value(w, "count", MT_SRC_MEASURED, "pchase-fine paired", MT_CONF_INCONSISTENT,
                          "the edge at strides of whole multiples of the sets; the test at "
                          "entries / w pages found %s", mei);
    } else if (!lv->ways_lo && lv->split > 1) {
        f = mt_find_value(w, "count", MT_SRC_MEASURED, "pchase-fine paired", MT_CONF_AGG_MIXED,
                          "%u sets in play at the %u B stride (element 0's edge %.0f; one "
                          "element more stepped that share of the pairs, read against a full "
                          "step's): %.0f ways each; the test at entries / w pages found %s",
                          lv->split, lv->base, w * lv->split, w, mei);
    } else if (!lv->ways_lo) {
        f = mt_find_value(w, "count", MT_SRC_MEASURED, "pchase-fine paired", MT_CONF_AGG_MIXED,
                          "%.0f pages one set apart (the %u B stride) fit and every one of "
                          "%.0f stepped; the test at entries / w pages found %s",
                          w, lv->base, w + 1, mei);
    } else {
        f = mt_find_range((double)lv->ways_lo, w, "count", "pchase-fine paired",
                          MT_CONF_AGG_MIXED,
                          "%.0f pages %u B apart fit and %.0f thrash, but not every one of "
                          "them stepped: one set of %.0f ways, or two of %llu (the sets' span "
                          "twice the stride, beyond a chain's 32-bit stride); the test at "
                          "entries / w pages found %s",
                          w, lv->base, w + 1, w, (unsigned long long)lv->ways_lo, mei);
    }
    mt_set(c, "tlb1", "ways", &f);
}

/* Whether a level past a set-associative first one (entries lv->lo) has
 * fewer than twice its entries: the chain of 2E elements at one page per
 * element against the one of E misses the first level on every element
 * (each set holds 2W pages in turn), so its step is the first level's
 * penalty alone unless a further level overflowed too; a step above it
 * by a step's margin (TLB_MIN_STEP_CYCLES, TLB_STEP_Z standard errors) is
 * that level, whose entries lie in [E, 2E - 1]: reported as that range at
 * MT_CONF_INCONSISTENT (its penalty is not separated from the first
 * level's), and *hidden tells the caller not to count past it. */
static mt_err next_within_overflow(tlb_run *r, const tlb_level *lv, uint64_t page, bool *hidden)
{
    *hidden = false;
    uint32_t stride = spread_stride(r, (uint32_t)page);
    if (2 * lv->lo > mt_tlb_max_elements(r, stride))
        return MT_OK;
    mt_progress(r->c, "TLB: %llu against %llu pages, a level within the first's overflow",
                (unsigned long long)(2 * lv->lo), (unsigned long long)lv->lo);
    mt_paired_shift s;
    mt_err err = mt_tlb_shift_of(r, lv->lo, 2 * lv->lo, stride, &s);
    if (err != MT_OK)
        return err;
    mt_paired_shift excess = s;
    excess.shift = s.shift - lv->step;
    if (!mt_tlb_is_step(&excess))
        return MT_OK;
    *hidden = true;
    mt_finding f = mt_find_range((double)lv->lo, (double)(2 * lv->lo - 1), "count",
                                 "pchase-fine paired", MT_CONF_INCONSISTENT,
                                 "%llu pages against %llu added %.1f cycles, %.1f more than the "
                                 "first level's penalty: a level overflowing within the first "
                                 "level's overflow, its penalty not separated",
                                 (unsigned long long)(2 * lv->lo), (unsigned long long)lv->lo,
                                 s.shift, excess.shift);
    mt_set(r->c, level_key[1], "entries", &f);
    return MT_OK;
}

/* A soft second level (entries a range, met at one page per element)
 * behind a trusted, fully associative first level: its entries and ways
 * from element 0's edges at strides of whole pages (tlb_next.c).  The
 * count replaces the range when it lies within it; lv[1] then holds it. */
static mt_err next_sets(tlb_run *r, tlb_level *lv, int nlev, page_kind pk, uint64_t page,
                        mt_tlb_next *out)
{
    const mt_finding *w1 = mt_get(r->c, level_key[0], "ways");
    if (nlev < 2 || !lv[1].soft || pk != PAGE_VALUE || lv[1].base != page || lv[0].sets ||
        level_conf(&lv[0]) < MT_CONF_TRUSTED || w1->kind != MT_FIND_VALUE ||
        w1->value != (double)lv[0].lo)
        return MT_OK;
    mt_progress(r->c, "TLB: sets and ways of level 2");
    uint64_t top = 0;
    mt_err err = mt_tlb_next_sets(r, &lv[0], &lv[1], page, out, &top);
    if (err == MT_OK && out->status != MT_TLB_SETS_OK && top && !out->edges)
        lv[1].next_top = top;
    if (err != MT_OK || out->status != MT_TLB_SETS_OK)
        return err;
    if (out->entries < lv[1].fit || out->entries > lv[1].lo) {
        out->status = MT_TLB_SETS_INCONSISTENT; /* not the level the doubling met */
        return MT_OK;
    }
    /* The geometry explains the soft edge and its moves at twice and 1.5x
     * the stride (fewer or other sets in play there). */
    lv[1].lo = out->entries;
    lv[1].soft = false;
    lv[1].checked = lv[1].confirmed = true;
    lv[1].sets = out->sets;
    lv[1].ways = out->sets ? out->ways_hi : 0;
    return MT_OK;
}

/* tlb2.ways from next_sets: exact where the edges stopped halving, else
 * at most the last edge (its sets at least that stride in pages). */
static void set_next_ways(mt_probe_ctx *c, const tlb_level *l2, const mt_tlb_next *g)
{
    mt_finding f;
    if (g->ways_lo == g->ways_hi)
        f = mt_find_value((double)g->ways_hi, "count", MT_SRC_MEASURED, "pchase-fine paired",
                          MT_CONF_AGG_MIXED, "%llu sets: element 0's edge halved with the stride "
                          "up to %llu pages apart and held there (tlb_next.c)",
                          (unsigned long long)g->sets, (unsigned long long)g->sets);
    else
        f = mt_find_range((double)g->ways_lo, (double)g->ways_hi, "count", "pchase-fine paired",
                          MT_CONF_AGG_MIXED, "element 0's edge halved with the stride at every "
                          "stride tried (%llu entries): the sets at least the last stride in "
                          "pages, the ways at most its edge (tlb_next.c)",
                          (unsigned long long)l2->lo);
    mt_set(c, level_key[1], "ways", &f);
}

static mt_err tlb(mt_probe_ctx *c)
{
    for (int d = 0; d < TLB_LEVELS; d++)
        mt_mark_probed(c, level_key[d]);
    mt_note_threshold(c, "TLB_MIN_STEP_CYCLES", TLB_MIN_STEP_CYCLES,
                      "TLB: smallest step of the paired median taken for a level");
    mt_note_threshold(c, "TLB_STEP_Z", TLB_STEP_Z,
                      "TLB: standard errors of the paired median a step must exceed");
    mt_note_threshold(c, "TLB_L2_SHARE", TLB_L2_SHARE,
                      "TLB: a chain holds at most the usable L2's lines / this");
    mt_note_threshold(c, "TLB_BIG_STRIDE", TLB_BIG_STRIDE,
                      "TLB: first stride (B), a page of its own per element for pages up to it");
    mt_note_threshold(c, "TLB_CLIMB_MIN_ELEMENTS", TLB_CLIMB_MIN_ELEMENTS,
                      "TLB: the stride climbs above the first while this many elements fit");
    mt_note_threshold(c, "TLB_PAGE_CHAIN_SHARE", TLB_PAGE_CHAIN_SHARE,
                      "TLB: the page scan's chain, in first-level entries");
    mt_note_threshold(c, "TLB_CONF_PAGE_ASSUMED", TLB_CONF_PAGE_ASSUMED,
                      "TLB: confidence of an entries bound resting on pages <= the big stride");
    mt_note_threshold(c, "TLB_UNKNOWN_PARTITIONS", TLB_UNKNOWN_PARTITIONS,
                      "TLB: partitions assumed of an L2 whose partitioning was not measured");
    mt_note_threshold(c, "TLB_ODD_STRIDE_EXTRA", TLB_ODD_STRIDE_EXTRA,
                      "TLB: an edge is checked at 1.5x its stride plus this (B) too");
    mt_note_threshold(c, "TLB_PARTIAL_MIN_SHARE", TLB_PARTIAL_MIN_SHARE,
                      "TLB: excess share of pairs stepping that makes a level stepping in part");
    mt_note_threshold(c, "MT_PAIRED_SHIFT_TAIL_CYCLES", MT_PAIRED_SHIFT_TAIL_CYCLES,
                      "TLB: a pair this many cycles above (below) its reference is in a tail");
    mt_note_threshold(c, "TLB_SHARE_NONE_SHARE", TLB_SHARE_NONE_SHARE,
                      "TLB sharing: a shift of at most this share of the penalty is none");
    tlb_run r = {.c = c};
    r.line = c->cs[MT_CACHE_L2].line ? c->cs[MT_CACHE_L2].line : 128;
    /* The L2 one SM can use: the partition measured, the whole L2 when it
     * has none, else (not measured) as little as the most partitions a
     * GPU may have (as probe_l2_map.c assumes). */
    const mt_finding *ps = mt_get(c, "l2", "partition_size");
    uint64_t usable = mt_partition_bytes(ps) ? mt_partition_bytes(ps)
                      : ps->kind == MT_FIND_ABSENT ? c->dev.l2_bytes
                                                   : c->dev.l2_bytes / TLB_UNKNOWN_PARTITIONS;
    r.max_lines = usable / r.line / TLB_L2_SHARE;
    uint32_t big = spread_stride(&r, TLB_BIG_STRIDE);

    /* 1 and 2: levels and their edges at the big stride, else at the
     * smallest sparse one.  Only the big stride's chains give every
     * element a page of its own for sure: the bound on a level not found
     * comes from them. */
    tlb_level lv[TLB_LEVELS];
    int nlev = 0;
    uint64_t n = 1, bound_n = 0;
    tlb_cover cv = {0};
    mt_err err = doubling(&r, TLB_BIG_STRIDE, &n, lv, &nlev);
    if (err != MT_OK)
        return err;
    /* Longest chain compared whose elements had pages of their own (pages
     * up to the big stride): the level not found holds it. */
    bound_n = n;
    if (nlev == 0)
        cover(&cv, TLB_BIG_STRIDE, n);
    if ((nlev == 0 || (moved(&lv[0]) && !lv[0].odd_moved)) &&
        (err = climb(&r, lv, &nlev, &n, &cv)) != MT_OK)
        return err;
    for (uint32_t base = TLB_BIG_STRIDE / 2; nlev == 0 && base >= MT_SPARSE_MIN_STRIDE; base /= 2) {
        n = 1;
        if ((err = doubling(&r, base, &n, lv, &nlev)) != MT_OK)
            return err;
        if (nlev == 0)
            cover(&cv, base, n);
    }
    /* The stride the chains up to n ran at: the first level's, before
     * the set climb may replace it by the one-set stride. */
    const uint32_t n_base = nlev > 0 ? lv[0].base : TLB_BIG_STRIDE;
    /* 3. Page. */
    page_kind pk = PAGE_UNKNOWN;
    uint64_t page = 0;
    bool dropped = false; /* steps past a set-associative first level set aside */
    if (nlev > 0) {
        mt_progress(c, "TLB: page size");
        if ((err = page_scan(&r, &lv[0], &pk, &page)) != MT_OK)
            return err;
        if (pk == PAGE_VALUE && level_conf(&lv[0]) >= MT_CONF_TRUSTED &&
            (err = check_page(&r, &lv[0], page)) != MT_OK)
            return err;
        /* An edge that moved at twice, at the odd stride or at 1.5 pages:
         * maybe a set-associative level met at strides of whole multiples
         * of its sets, whose one-set pattern gives the page and the sets
         * (tlb_sets.c; a pattern that makes no such geometry leaves the
         * level as it was). */
        if (level_conf(&lv[0]) < MT_CONF_TRUSTED) {
            /* The one-set stride first (tlb_sets.c): the strides the
             * level was met at spread its elements over sets by the L2
             * lines they add, so its pattern is read where one line per
             * element keeps every one on its place's page. */
            tlb_level one = lv[0];
            bool found = false;
            uint64_t set_page_found = 0;
            mt_progress(c, "TLB: sets of level 1");
            if ((err = mt_tlb_sets_climb(&r, &one, &found)) != MT_OK)
                return err;
            if (found && (err = mt_tlb_sets_probe(&r, &one, &set_page_found)) != MT_OK)
                return err;
            if (set_page_found) {
                /* The levels past the first that the big stride showed
                 * were its sets overflowing one by one: the doubling at
                 * one page per element looks for the next level again. */
                dropped = nlev > 1;
                lv[0] = one;
                nlev = 1;
                pk = PAGE_VALUE;
                page = set_page_found;
            } else if (found) {
                lv[0].sets_top = one.base;
            }
        }
        /* The ways need the entries and the page, and trusted ones.  For
         * a level the one-set pattern resolved, Mei's test at strides of
         * entries / w pages is an independent check of its ways
         * (set_ways_checked). */
        if (pk == PAGE_VALUE && level_conf(&lv[0]) >= MT_CONF_TRUSTED) {
            mt_progress(c, "TLB: ways");
            uint64_t ways = 0;
            if ((err = mt_tlb_ways(&r, &lv[0], page, &ways)) != MT_OK)
                return err;
            if (lv[0].sets)
                set_ways_checked(c, &lv[0]);
        }
        /* The page rests on the first level's edge: no surer than it.  A
         * page above the level's stride is no surer than the level's other
         * findings then are (set_level: MT_CONF_INCONSISTENT): the scan
         * fitting at once may as well be a set-associative level's
         * elements spreading over more sets at the smaller stride. */
        set_page(c, pk, page, pk == PAGE_ABOVE ? MT_CONF_INCONSISTENT : level_conf(&lv[0]),
                 lv[0].sets != 0);
    }
    /* With the page known, a stride of one page (and a few lines) still
     * gives every element a page of its own, and fits more of them in the
     * memory a chain may span: the doubling goes on there. */
    /* Own pages at the level's stride once the page is known to fit it. */
    /* Own pages at the stride n's chains ran at (w4675: a level met at
     * 16 MiB, four elements on each 64 MiB page, then resolved by the
     * set climb at 2 GiB: the 3839 elements of 16 MiB were 960 pages,
     * not a bound on a second level of 3050). */
    if (nlev > 0 && (n_base != TLB_BIG_STRIDE || pk == PAGE_VALUE))
        bound_n = pk == PAGE_VALUE && page <= n_base ? n : 0;
    if (pk == PAGE_VALUE && nlev > 0 && page < lv[0].base && nlev < TLB_LEVELS) {
        /* A set-associative first level: the chains the earlier strides
         * compared (up to n) had their elements spread over its sets, so a
         * next level's step hid in the first level's set-by-set overflow
         * (tlb-2way-2m: 8192 entries unseen up to 19198 elements, then a
         * bound above the truth).  The levels they showed were dropped;
         * the doubling looks for the next level afresh at one page per
         * element, from twice the entries (both chains overflow the first
         * level fully), never from n.  A level between the entries and
         * twice them would hide in that overflow: checked first. */
        bool hidden = false;
        if (lv[0].sets && (err = next_within_overflow(&r, &lv[0], page, &hidden)) != MT_OK)
            return err;
        uint64_t start = lv[0].sets ? 2 * lv[0].lo : n;
        uint64_t m = start;
        if (!hidden && (err = doubling(&r, (uint32_t)page, &m, lv, &nlev)))
            return err;
        /* The bound on a level not found: the chains of one page per
         * element that overflowed the first level, or, none having run,
         * the earlier chains only if they showed no step past the first
         * level (steps set aside may have been the next level's). */
        if (!lv[0].sets || m > start)
            bound_n = n = m;
        else if (dropped)
            bound_n = 0;
    }
    mt_tlb_next next = {.status = MT_TLB_SETS_INCONSISTENT};
    if ((err = next_sets(&r, lv, nlev, pk, page, &next)) != MT_OK)
        return err;
    for (int d = 0; d < nlev; d++)
        set_level(c, d, &lv[d], pk, page, level_conf(&lv[0]));
    if (next.status == MT_TLB_SETS_OK)
        set_next_ways(c, &lv[1], &next);
    /* 5. Which SMs share each trusted level (tlb_share.c), at the stride it
     * was found at: a page of its own per element (the page at most it). */
    for (int d = 0; d < nlev && pk == PAGE_VALUE; d++)
        if (level_conf(&lv[d]) >= MT_CONF_TRUSTED && page <= lv[d].base && !lv[d].soft) {
            mt_progress(c, "TLB: which SMs share level %d", d + 1);
            /* A set-associative level at one page per element: its sets'
             * span would put every element into one set. */
            uint32_t base = lv[d].sets ? (uint32_t)page : lv[d].base;
            uint32_t stride = spread_stride(&r, base);
            tlb_level probe = lv[d];
            /* Its pages fill every set alike, 3/4 of the entries per SM;
             * where two such chains exceed the L2's share or the memory
             * (tlb-8way-256k: 2 x 12288 pages), one set alone: 3/4 of its
             * ways per SM at a stride of the sets' span, which two SMs
             * sharing an instance overflow just the same.  One L2 line
             * added per element (as the set climb's): the two chains'
             * 2n + 1 lines must stay within a page, every element on its
             * place's page (a prime count of lines would carry 97 elements
             * of tlb-64way-64k over four 64 KiB pages). */
            uint64_t span = lv[d].sets * page, one_set = (3 * lv[d].ways + 3) / 4;
            if (lv[d].sets && 2 * ((3 * lv[d].lo + 3) / 4) + 1 > mt_tlb_max_elements(&r, stride) &&
                span + r.line <= UINT32_MAX && (2 * one_set + 1) * r.line < page) {
                probe.lo = lv[d].ways;
                stride = (uint32_t)(span + r.line);
            }
            if ((err = mt_tlb_sharing(&r, level_key[d], &probe, stride)))
                return err;
        }
    /* The first level not found holds every chain tried. */
    n = bound_n;
    /* A level that stepped in part at the longest chain leaves nothing
     * longer to have fitted the next one: no bound on it. */
    if (nlev > 0 && lv[nlev - 1].soft && lv[nlev - 1].hi >= n)
        n = 0;
    if (nlev < TLB_LEVELS && n > 1) {
        uint64_t stride = pk == PAGE_VALUE ? page : big;
        const char *limit = n >= r.max_lines ? "the L2's capacity"
                            : n >= TLB_MAX_ELEMENTS ? "the probe's largest chain"
                                                    : "the memory a chain may span";
        /* n pages fit: more than n - 1 entries (a bound reads "> lo"), as
         * long as every element had a page of its own: sure with the page
         * measured, assumed (pages of at most TLB_BIG_STRIDE) without. */
        bool page_known = pk == PAGE_VALUE;
        mt_finding f = mt_find_bound((double)(n - 1), "count", "pchase-fine paired",
                                     page_known ? MT_CONF_AGG_MIXED : TLB_CONF_PAGE_ASSUMED,
                                     "chains up to %llu elements (%llu B) showed no further step; "
                                     "the limit: %s",
                                     (unsigned long long)n, (unsigned long long)(n * stride), limit);
        /* Without the page the bound is not sure: pages of at most the
         * stride give every element an entry; larger ones put several
         * elements on a page, only the first of which misses, which the
         * paired median does not see (the climb's strides are for them,
         * the reach bound below). */
        if (!page_known)
            mt_finding_append_note(&f, "one entry per element only if pages are at most the %llu B "
                                   "stride",
                                   (unsigned long long)stride);
        if (!page_known && cv.top)
            mt_finding_append_note(&f, "strides up to %u B showed no step either (%llu elements, "
                                   "%llu B, at that one)",
                                   cv.top, (unsigned long long)cv.top_n,
                                   (unsigned long long)(cv.top_n * cv.top));
        mt_set(c, level_key[nlev], "entries", &f);
    }
    /* No level at any stride: each stride s gave its elements pages of
     * their own for pages in (s / 2, s], so a level of such pages holds
     * the n elements that fitted there and reaches more than
     * (n - 1) x s / 2; over the strides tried (the smallest sparse one up
     * to the climb's top) the least of these holds for every page between.
     * Pages above the top are not covered: a hint. */
    if (nlev == 0 && cv.least) {
        uint32_t top = cv.top ? cv.top : TLB_BIG_STRIDE;
        mt_finding f = mt_find_bound(cv.reach_lo, "B", "pchase-fine paired", TLB_CONF_PAGE_ASSUMED,
                                     "no step at strides %u B to %u B (chains up to %llu B at the "
                                     "top one); the least reach they show, at the %u B stride, "
                                     "holds for pages of %u B to %u B",
                                     (unsigned)MT_SPARSE_MIN_STRIDE, top,
                                     (unsigned long long)(cv.top ? cv.top_n * cv.top
                                                                 : bound_n * TLB_BIG_STRIDE),
                                     cv.least, (unsigned)MT_SPARSE_MIN_STRIDE / 2 + 1, top);
        mt_set(c, level_key[0], "reach", &f);
    }
    return MT_OK;
}

static bool tlb_requested(const mt_probe_options *o)
{
    return o->tlb;
}

static const mt_object_decl objects[] = {
    {"tlb1", "L1 TLB", "TLB1", MT_OBJ_TLB, 0, 90},
    {"tlb2", "L2 TLB", "TLB2", MT_OBJ_TLB, 0, 91},
    {"tlb3", "L3 TLB", "TLB3", MT_OBJ_TLB, 0, 92},
    {NULL}};
static const mt_finding_decl provides[] = {
    {"tlb1.entries", "entries"}, {"tlb1.page", "page size"}, {"tlb1.reach", "reach"},
    {"tlb1.miss_penalty", "miss penalty"}, {"tlb1.ways", "ways"},
    {"tlb1.sms_per_group", "SMs sharing one"},
    {"tlb2.entries", "entries"}, {"tlb2.reach", "reach"}, {"tlb2.miss_penalty", "miss penalty"},
    {"tlb2.ways", "ways"},
    {"tlb2.sms_per_group", "SMs sharing one"},
    {"tlb3.entries", "entries"}, {"tlb3.reach", "reach"}, {"tlb3.miss_penalty", "miss penalty"},
    {"tlb3.sms_per_group", "SMs sharing one"},
    {NULL}};
static const char *const requires[] = {"l2.line", NULL};
const mt_probe_desc mt_probe_tlb = {
    .name = "tlb",
    .summary = "TLB levels (opt-in --tlb): entries, page size, reach, miss penalty per level, first level's ways, SMs sharing each level",
    .rank = 95, .objects = objects, .provides = provides, .requires = requires, .run = tlb,
    .requested = tlb_requested,
};

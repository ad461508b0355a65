/* What the TLB probe's files share (probe_tlb.c: levels, edges and page;
 * tlb_ways.c: the first level's associativity).  Internal to src/probes. */
#ifndef MT_PROBE_TLB_PROBE_H
#define MT_PROBE_TLB_PROBE_H

#include <stdbool.h>
#include <stdint.h>

#include "../analysis/paired_shift.h"
#include "../analysis/tlb_sets.h"
#include "probe_internal.h"

typedef struct {
    uint64_t lo, hi;    /* the doubling's last fit and first overflow, then the edge */
    double step, se;    /* the step (cycles) and its standard error */
    uint32_t base;      /* the stride it was found at, before the added lines */
    bool confirmed;     /* the edge held at twice that stride */
    bool checked;       /* the confirming chains fitted the limits */
    bool odd_moved;     /* confirm(): the edge held at twice the stride and moved at the
                         * odd one: the signature of a set-associative level (probe_tlb.c) */
    bool twice_run;     /* the check at twice the stride fitted a chain's 32-bit stride */
    bool twice_held;    /* ... and the edge held there */
    uint64_t sets, ways; /* a set-associative level resolved by tlb_sets.c (sets 0: not) */
    uint64_t ways_lo;   /* tlb_sets.c: ways may be as few as this (twice the sets), 0: exact */
    uint32_t sets_top;  /* the set climb's last stride when its pattern made no geometry */
    uint32_t split;     /* tlb_sets.c, at the top stride: the sets its elements fall into
                         * (their edge is split x the ways); 0 or 1: one */
    bool soft;          /* a level past the first whose edge is not sharp (probe_tlb.c):
                         * its entries lie in [fit, lo], not at lo */
    uint64_t fit;       /* soft: the longest chain no share of whose elements stepped */
    uint64_t next_top;  /* tlb_next.c found no edge of element 0 up to this many pages apart */
} tlb_level;

typedef struct {
    mt_probe_ctx *c;
    uint32_t line;        /* L2 line added per element (spreads the L2 sets) */
    uint64_t max_lines;   /* elements one chain may have (L2 residency) */
} tlb_run;

/* Longest chain (elements) at this stride that fits the limits. */
uint64_t mt_tlb_max_elements(const tlb_run *r, uint32_t stride);
/* The step of a sequential cg chain of `test` elements over one of `ref`
 * at `stride`: the paired median shift of their common elements. */
mt_err mt_tlb_shift_of(tlb_run *r, uint64_t ref, uint64_t test, uint32_t stride,
                       mt_paired_shift *out);
/* Whether a shift is a level overflowing (TLB_MIN_STEP_CYCLES and
 * TLB_STEP_Z standard errors). */
bool mt_tlb_is_step(const mt_paired_shift *s);
/* The last element count at which level lv still fits at `stride`,
 * between lv->lo (fits) and lv->hi (overflows), by bisection. */
mt_err mt_tlb_bisect(tlb_run *r, tlb_level *lv, uint32_t stride);

/* Whether level lv's edge (lv->lo) holds at `stride`: the chain of lo
 * elements against one of lo / 2 shows no step (more than half lv->step),
 * the chain of lo + 1 against lo shows it.  *fits = false (nothing run)
 * when lo + 1 elements exceed the limits. */
mt_err mt_tlb_edge_holds(tlb_run *r, const tlb_level *lv, uint32_t stride, bool *fits, bool *holds);

/* At most this share of a level's penalty is "no interference" in the
 * sharing test (tlb_share.c): a shift between it and half the penalty is
 * neither answer.  A quarter leaves the paired median's noise (well under
 * a cycle) and a partial overlap of the two SMs' chases (a quarter of SM
 * 0's loads alone still moves the median by less than that) on the right
 * sides. */
#define TLB_SHARE_NONE_SHARE 0.25

/* Which SMs share level `key` (finding KEY.sms_per_group), its edge and
 * penalty in lv, at a stride that gives every element a page of its own:
 * tlb_share.c.  Nothing when the two chains do not fit the limits or the
 * backend cannot run them together (a recording made before). */
mt_err mt_tlb_sharing(tlb_run *r, const char *key, const tlb_level *lv, uint32_t stride);

/* The first level's ways (finding tlb1.ways), once its entries (lv->lo)
 * and the page are known: tlb_ways.c.  *ways: the value found (0 when the
 * finding is a range, a bound or nothing). */
mt_err mt_tlb_ways(tlb_run *r, const tlb_level *lv, uint64_t page, uint64_t *ways);

/* A first level whose edge moved at one of its checks, read as a set-associative level met at strides of whole multiples
 * of its sets (tlb_sets.c): on success lv->lo becomes the entries, lv->sets
 * and lv->ways the geometry, the edge confirmed, and *page the page; else
 * *page = 0 and lv is untouched. */
mt_err mt_tlb_sets_probe(tlb_run *r, tlb_level *lv, uint64_t *page);
/* For a first level the checks flagged: strides t = 4 MiB, 8 MiB ... (one
 * L2 line added per element) until the edge at t equals the edge at 2t
 * (a set-associative level's elements all in one set: its ways), or the
 * top 32-bit stride.  *found: lv replaced by that edge (base t,
 * twice_held when one set is shown), for mt_tlb_sets_probe. */
mt_err mt_tlb_sets_climb(tlb_run *r, tlb_level *lv, bool *found);

/* The entries and ways of a level past the first whose edge at one page
 * per element is soft (lv->soft), behind a fully associative first level
 * l1, from element 0's edges at strides of 2, 4, 8 ... pages: tlb_next.c.
 * out->status MT_TLB_SETS_OK when two edges in a row halved; *top: the
 * widest stride tried, in pages (0: none). */
mt_err mt_tlb_next_sets(tlb_run *r, const tlb_level *l1, const tlb_level *lv, uint64_t page,
                        mt_tlb_next *out, uint64_t *top);

#endif

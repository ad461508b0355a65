/* The geometry of a set-associative TLB level from its one-set pattern
 * (issue 9; Mei et al. 2014's strides that map to one set, with page-sized
 * lines).  Pure: the thrash outcomes of chains in, the page and the sets
 * out.
 *
 * The probe has found a level at a stride T whose edge W held at 2T: at
 * such strides (a multiple of the sets' span S x P, S sets, page P) every
 * element lands in one set, so the edge is the ways.  It then chases W + 1
 * elements at strides T + h (h = T/2, T/4, ...; one L2 line more, which
 * stays below a page over the chain): element i sits on page
 * i x T / P + floor(i x h / P), whose set is floor(i x h / P) mod S.  All
 * W + 1 share one set, and thrash, when h is a multiple of S x P or when
 * W x h < P; for P / W <= h < S x P they spread over two sets or more and
 * fit.  So, h descending, the outcomes read: thrash (h >= S x P), a band of
 * fits (P / W to S x P / 2), thrash (h <= P / 2W).  The band's top gives
 * the span S x P (2 x top, or T itself when the band starts at T / 2), its
 * bottom the page (W x bottom), and S x W the entries. */
#ifndef MT_ANALYSIS_TLB_SETS_H
#define MT_ANALYSIS_TLB_SETS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
    MT_TLB_SETS_OK = 0,       /* page, sets, entries found */
    MT_TLB_SETS_NO_BAND,      /* every stride thrashed: no set spread them (one set) */
    MT_TLB_SETS_NO_FLOOR,     /* no thrash below the band: the page is at most W x the last h */
    MT_TLB_SETS_INCONSISTENT  /* more than one band, or a band that makes no geometry */
} mt_tlb_sets_status;

typedef struct {
    mt_tlb_sets_status status;
    uint64_t page;     /* OK: W x the band's lowest h; NO_FLOOR: its upper bound */
    uint64_t span;     /* OK / NO_FLOOR: sets x page */
    uint64_t sets;     /* OK: span / page */
    uint64_t entries;  /* OK: sets x ways */
} mt_tlb_sets;

/* t: the plateau stride (a power of two); ways: the edge there (W >= 1);
 * h[k], thrash[k]: the k-th stride tried above t (strictly halving from
 * t / 2 down), whether W + 1 elements there stepped.  n >= 1. */
mt_tlb_sets mt_tlb_sets_fit(uint64_t t, uint64_t ways, const uint64_t *h, const bool *thrash,
                            size_t n);

/* A level past the first read at strides of m_k pages (k = 0..n-1, each
 * twice the one before) by the edge e_k of element 0 (0: no edge seen):
 * a level of S sets of W ways, a page's set its page number modulo S,
 * holds W x S / m elements at m pages apart while m <= S (the elements
 * fall into S / m sets) and W from m = S on.  Two edges in a row that
 * halve give the entries (e x m, the same for both); an edge that then
 * stays gives the ways (that edge) and the sets (the stride it first
 * held at).  Halving to the last edge leaves the ways at most that edge
 * (S >= its stride).  status OK: entries set, ways_hi the ways or their
 * upper bound (ways_lo == ways_hi: exact). */
typedef struct {
    mt_tlb_sets_status status; /* OK, or INCONSISTENT (no two edges halving) */
    uint64_t entries;
    uint64_t ways_lo, ways_hi;
    uint64_t sets;             /* exact ways: entries / ways; else 0 */
    size_t edges;              /* strides whose edge was seen (the caller's note) */
} mt_tlb_next;

mt_tlb_next mt_tlb_next_fit(const uint64_t *m, const uint64_t *e, size_t n);

#endif

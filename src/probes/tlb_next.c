/* The entries and ways of a set-associative TLB level past the first
 * (issue 9), for a level whose edge at one page per element is soft
 * (probe_tlb.c: a range of entries) behind a small fully associative first
 * level.
 *
 * At a stride of m pages (m a power of two, one L2 line added) a level of
 * S sets of W ways indexed by the page number modulo S puts element i into
 * set i x m mod S: S / m sets in play while m <= S, each holding W, so the
 * level holds W x S / m elements, and W from m = S on.  Element 0's set
 * (elements 0, S / m, 2S / m ...) overflows first, at W x S / m + 1
 * elements, so the edge of element 0 alone is exact (its samples against
 * a chain of element 0 by itself, as tlb_sets.c reads the first level at
 * the top stride): past the first level's entries E1 every element misses
 * the first level (fully associative, LRU), element 0 adds the first
 * level's penalty, and the level's too once its set overflows.  Element 0
 * is sampled once a lap, so a chain holds at most loads /
 * MT_PAIRED_SHIFT_MIN_PAIRS elements (216 of 3456): the edges seen are
 * those between E1 + 1 and that, which a small first level (the H100's 16
 * entries) leaves room for.  The strides double from two pages to the top
 * 32-bit stride; analysis/tlb_sets.h's mt_tlb_next_fit reads the edges. */
#include "../analysis/tlb_sets.h"
#include "confidence.h"
#include "tlb_probe.h"

/* Strides tried at most: two pages to 2^TLB_NEXT_MAX_STRIDES pages, within
 * the 32-bit stride (2 GiB at 64 MiB pages is 32 pages). */
#define TLB_NEXT_MAX_STRIDES 31

/* Whether element 0 of a chain of n elements at `stride` also misses the
 * level: its shift over a chain of element 0 alone exceeds the first
 * level's penalty and half the level's. */
static mt_err misses(tlb_run *r, uint64_t n, uint32_t stride, double pen1, double pen2,
                     bool *out)
{
    mt_paired_shift s;
    mt_err err = mt_tlb_shift_of(r, 1, n, stride, &s);
    *out = err == MT_OK && mt_tlb_is_step(&s) && s.shift > pen1 + pen2 / 2;
    return err;
}

/* Element 0's edge at `stride`: *e = 0 when no edge within [lo, hi] (the
 * level holds hi), *hidden when it misses already at lo (the level holds
 * no more elements than the first: nothing further to see). */
static mt_err edge(tlb_run *r, uint64_t lo, uint64_t hi, uint32_t stride, double pen1,
                   double pen2, uint64_t *e, bool *hidden)
{
    bool m = false;
    *e = 0;
    *hidden = false;
    mt_err err = misses(r, lo, stride, pen1, pen2, &m);
    if (err != MT_OK || (*hidden = m))
        return err;
    if ((err = misses(r, hi, stride, pen1, pen2, &m)) != MT_OK || !m)
        return err;
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        if ((err = misses(r, mid, stride, pen1, pen2, &m)) != MT_OK)
            return err;
        if (m)
            hi = mid;
        else
            lo = mid;
    }
    *e = lo;
    return MT_OK;
}

mt_err mt_tlb_next_sets(tlb_run *r, const tlb_level *l1, const tlb_level *lv, uint64_t page,
                        mt_tlb_next *out, uint64_t *top)
{
    *out = (mt_tlb_next){.status = MT_TLB_SETS_INCONSISTENT};
    *top = 0;
    uint64_t most = r->c->dev.max_fine_loads / MT_PAIRED_SHIFT_MIN_PAIRS;
    uint64_t m[TLB_NEXT_MAX_STRIDES], e[TLB_NEXT_MAX_STRIDES];
    size_t n = 0;
    for (uint64_t pages = 2; n < TLB_NEXT_MAX_STRIDES && pages * page + r->line <= UINT32_MAX;
         pages *= 2) {
        uint32_t stride = (uint32_t)(pages * page + r->line);
        uint64_t hi = mt_tlb_max_elements(r, stride);
        if (hi > most)
            hi = most;
        /* The chain's lines must keep every element on its page. */
        if (l1->lo + 1 >= hi || hi * r->line >= page)
            break;
        mt_progress(r->c, "TLB: level 2's sets, element 0 of %llu to %llu pages %llu pages apart",
                    (unsigned long long)(l1->lo + 1), (unsigned long long)hi,
                    (unsigned long long)pages);
        bool hidden = false;
        mt_err err = edge(r, l1->lo + 1, hi, stride, l1->step, lv->step, &e[n], &hidden);
        if (err == MT_ERR_REPLAY) { /* a recording made before this step */
            r->c->ei->msg[0] = '\0';
            return MT_OK;
        }
        if (err != MT_OK)
            return err;
        if (hidden)
            break;
        m[n++] = pages;
        *top = pages;
    }
    if (n)
        *out = mt_tlb_next_fit(m, e, n);
    return MT_OK;
}

/* A set-associative first TLB level's page, sets and entries (issue 9;
 * the one-set pattern of analysis/tlb_sets.h, Mei et al. 2014's strides
 * that map to one set with page-sized lines).
 *
 * Runs for a level whose edge W held at twice its stride T but moved at
 * the odd stride or at 1.5 measured pages: T is then a multiple of the
 * sets' span, every element lands in one set, and W is the ways, while
 * the entries and the page that the fully associative reading gave are W
 * and a span of sets.  W + 1 elements are chased at T + h (h halving from
 * T / 2 to TLB_MIN_SCAN_STRIDE, one L2 line added so the elements fall into
 * different L2 sets; 65 lines stay far below the smallest page), each
 * against the chain of its first W: a step of more than half the level's
 * penalty is a thrash.  The scan stops two strides into the thrash below
 * the band of fits, the pattern's last feature. */
#include "../analysis/tlb_sets.h"
#include "confidence.h"
#include "tlb_probe.h"

/* The scan's smallest h: the floor is at P / 2W, 64 B for the smallest
 * GPU page (4 KiB) under the simulator's most ways (64); chain strides
 * stay multiples of 64 B (kernel WIDE's unit). */
#define TLB_SETS_MIN_H 64u
/* Thrashes seen below the band before the scan stops: the first one fixes
 * the page, the second checks it is the floor, not a stray step. */
#define TLB_SETS_FLOOR_SEEN 2
/* Strides of the scan at most (from T / 2 to TLB_SETS_MIN_H: 2^31 / 2^6). */
#define TLB_SETS_MAX_STEPS 26

mt_err mt_tlb_sets_probe(tlb_run *r, tlb_level *lv, uint64_t *page)
{
    mt_probe_ctx *c = r->c;
    const uint64_t t = lv->base, ways = lv->lo;
    uint64_t h[TLB_SETS_MAX_STEPS];
    bool thrash[TLB_SETS_MAX_STEPS];
    size_t n = 0;
    int floor_seen = 0;
    bool band = false;
    *page = 0;
    for (uint64_t hk = t / 2; hk >= TLB_SETS_MIN_H && n < TLB_SETS_MAX_STEPS; hk /= 2) {
        uint64_t stride = t + hk + r->line;
        if (stride > UINT32_MAX || ways + 1 > mt_tlb_max_elements(r, (uint32_t)stride))
            break;
        mt_progress(c, "TLB: sets, %llu against %llu pages %llu B apart",
                    (unsigned long long)(ways + 1), (unsigned long long)ways,
                    (unsigned long long)stride);
        mt_paired_shift s;
        mt_err err = mt_tlb_shift_of(r, ways, ways + 1, (uint32_t)stride, &s);
        if (err == MT_ERR_REPLAY) { /* a recording made before this step */
            c->ei->msg[0] = '\0';
            return MT_OK;
        }
        if (err != MT_OK)
            return err;
        h[n] = hk;
        thrash[n] = mt_tlb_is_step(&s) && s.shift > lv->step / 2;
        band = band || !thrash[n];
        floor_seen += band && thrash[n];
        n++;
        if (floor_seen >= TLB_SETS_FLOOR_SEEN)
            break;
    }
    if (!n)
        return MT_OK;
    mt_tlb_sets g = mt_tlb_sets_fit(t, ways, h, thrash, n);
    if (g.status != MT_TLB_SETS_OK)
        return MT_OK;
    lv->sets = g.sets;
    lv->ways = ways;
    lv->lo = g.entries;
    lv->checked = true;
    lv->confirmed = true;
    *page = g.page;
    return MT_OK;
}

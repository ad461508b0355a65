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
#include <math.h>

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
/* The set climb's first stride: the TLB probe's first (4 MiB); a level
 * whose sets' span is below it puts its elements into one set there. */
#define TLB_SETS_CLIMB_FROM (4ull << 20)
/* Strides of the scan at most (from T / 2 to TLB_SETS_MIN_H: 2^31 / 2^6). */
#define TLB_SETS_MAX_STEPS 26
/* The set climb's longest chain: twice the simulator's most ways (64), so
 * a set of up to 64 ways shows its edge; 128 elements one L2 line apart
 * drift 16 KiB, within the smallest page the simulator allows (64 KiB),
 * so every element stays on its place's page. */
#define TLB_SETS_CLIMB_CHAIN 128u
/* Share of the W + 1 elements at the top stride that must step for them
 * to be one set: all of them do (W + 1 of W + 1), while at half the sets'
 * span (two sets of W ways holding 2W) only W + 1 of 2W + 1 do; 0.9
 * leaves room for the noise of the smallest penalties. */
#define TLB_SETS_ONE_SET_SHARE 0.9

/* Most sets in play at the top stride that the share of stepping
 * elements is read for (1 / k of them step when k sets hold the edge):
 * eight keep the shares 1, 1/2, 1/4 and 1/8 apart by more than the
 * tails' noise (well under 0.06 on the simulator and on the H100). */
#define TLB_SETS_MAX_SPLIT 8u

/* Standard errors of the split's share (the excess of the upper tail over
 * the lower, read against a full step's) a reading keeps from the edges of
 * its band (0.75 / k to 1.5 / k): a share nearer an edge than that reads
 * no k, and the ways stay a range (mt_tlb_sets_probe).  Two: a misread k
 * then needs the share 0.25 / k + 2 se off its truth, over 3 se once the
 * band is 4 se wide (some 1 in 2000), where a share read without a margin
 * misreads whenever the noise carries it 0.25 / k off. */
#define TLB_SETS_SPLIT_Z 2.0

/* Standard error of a comparison's tail excess (tail_up - tail_down):
 * multinomial shares over its pairs. */
static double tail_excess_se(const mt_paired_shift *s)
{
    double d = s->tail_up - s->tail_down;
    double v = s->tail_up + s->tail_down - d * d;
    return s->pairs && v > 0 ? sqrt(v / (double)s->pairs) : 0.0;
}

/* Whether element 0 of a chain of n elements at `stride` misses the level
 * (its samples against a chain of element 0 alone: every pair is element
 * 0's, so the median is its own, however few of the n elements step). */
static mt_err first_steps(tlb_run *r, uint64_t n, uint32_t stride, double step, bool *steps)
{
    mt_paired_shift s;
    mt_err err = mt_tlb_shift_of(r, 1, n, stride, &s);
    *steps = err == MT_OK && mt_tlb_is_step(&s) && s.shift > step / 2;
    return err;
}

/* The longest chain at `stride` whose element 0 still hits: at a stride
 * that puts element i into set i mod k of k sets (W ways each), element
 * 0's set overflows first, at k x W + 1 elements, so this is k x W
 * exactly, where the median edge of a chain against its half lies up to
 * half a set's elements past it.  *e = 0: none within the set climb's
 * longest chain. */
static mt_err first_edge(tlb_run *r, uint32_t stride, double step, uint64_t *e)
{
    uint64_t lo = 1, hi = 0;
    *e = 0;
    for (uint64_t n = 2; n <= TLB_SETS_CLIMB_CHAIN && n <= mt_tlb_max_elements(r, stride);
         n *= 2) {
        bool steps = false;
        mt_err err = first_steps(r, n, stride, step, &steps);
        if (err != MT_OK)
            return err;
        if (steps) {
            hi = n;
            break;
        }
        lo = n;
    }
    while (hi && hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        bool steps = false;
        mt_err err = first_steps(r, mid, stride, step, &steps);
        if (err != MT_OK)
            return err;
        if (steps)
            hi = mid;
        else
            lo = mid;
    }
    if (hi)
        *e = lo;
    return MT_OK;
}

/* At the top 32-bit stride t, where the edge cannot be compared with
 * twice the stride: the sets its elements fall into.  With k sets of W
 * ways in play (the sets' span k x t), element 0's edge is k x W
 * (first_edge), and one element more overflows one set: W of the k x W
 * elements step, a share of 1 / k (all of them: one set).  cur->lo
 * becomes that edge, cur->split k, and cur->twice_held whether k was
 * read (a power of two up to TLB_SETS_MAX_SPLIT dividing the edge); else
 * the reading stays "one set of W, or two of W / 2" (the share of all
 * W + 1 at TLB_SETS_ONE_SET_SHARE). */
static mt_err top_sets(tlb_run *r, uint64_t t, tlb_level *cur)
{
    uint32_t stride = (uint32_t)(t + r->line);
    uint64_t e = 0;
    mt_err err = first_edge(r, stride, cur->step, &e);
    if (err != MT_OK)
        return err;
    if (e)
        cur->lo = e;
    mt_paired_shift s;
    if ((err = mt_tlb_shift_of(r, cur->lo, cur->lo + 1, stride, &s)) != MT_OK)
        return err;
    cur->twice_held = s.share_up >= TLB_SETS_ONE_SET_SHARE;
    if (cur->twice_held || !e || 2 * e > mt_tlb_max_elements(r, stride))
        return MT_OK;
    /* The tails count a stepping pair only when its noise leaves it past
     * MT_PAIRED_SHIFT_TAIL_CYCLES: with a latency spread near the penalty
     * a chain whose every element steps moves only part of its pairs
     * there (w2432: 16 elements against 8 in 4 sets of 2 ways, every
     * one stepping 11 cycles under an L2 noise of 16 cycles, gave an
     * excess of 0.44, not 1), so the share of W elements out of k x W is
     * read against that of 2e elements against e, all of which step (each
     * set then holds twice its ways): their ratio is 1 / k whatever the
     * noise. */
    mt_paired_shift all;
    if ((err = mt_tlb_shift_of(r, e, 2 * e, stride, &all)) != MT_OK)
        return err;
    double full = all.tail_up - all.tail_down;
    if (!mt_tlb_is_step(&all) || full <= 0)
        return MT_OK;
    double share = (s.tail_up - s.tail_down) / full;
    double se = sqrt(pow(tail_excess_se(&s), 2) + pow(share * tail_excess_se(&all), 2)) / full;
    for (uint32_t k = 1; k <= TLB_SETS_MAX_SPLIT; k *= 2)
        if (share - TLB_SETS_SPLIT_Z * se > 0.75 / k &&
            share + TLB_SETS_SPLIT_Z * se <= 1.5 / k && e % k == 0) {
            cur->split = k;
            cur->twice_held = true;
            return MT_OK;
        }
    return MT_OK;
}

/* The edge at stride t (plus one L2 line per element): chains of 1, 2,
 * 4 ... up to TLB_SETS_CLIMB_CHAIN elements, each against the one of half
 * as many, the first step's edge by bisection.  *e = 0: no step. */
static mt_err edge_at(tlb_run *r, uint64_t t, tlb_level *out, uint64_t *e)
{
    uint32_t stride = (uint32_t)(t + r->line);
    *e = 0;
    /* The longest chain: the climb's, or less where the memory or the
     * L2's share binds; the doubling's last chain is that one (as the
     * main doubling's), so a set whose ways lie between the last power of
     * two and the limit still shows (w3950: 32 ways, 40 elements fit). */
    uint64_t nmax = mt_tlb_max_elements(r, stride);
    if (nmax > TLB_SETS_CLIMB_CHAIN)
        nmax = TLB_SETS_CLIMB_CHAIN;
    for (uint64_t n = 1, next = 2; n < nmax; n = next, next = 2 * n) {
        if (next > nmax)
            next = nmax;
        mt_progress(r->c, "TLB: set climb, %llu against %llu pages %llu B apart",
                    (unsigned long long)next, (unsigned long long)n, (unsigned long long)t);
        mt_paired_shift s;
        mt_err err = mt_tlb_shift_of(r, n, next, stride, &s);
        if (err != MT_OK)
            return err;
        if (mt_tlb_is_step(&s)) {
            *out = (tlb_level){.lo = n, .hi = next, .step = s.shift, .se = s.se,
                               .base = (uint32_t)t};
            if ((err = mt_tlb_bisect(r, out, stride)) != MT_OK)
                return err;
            *e = out->lo;
            return MT_OK;
        }
    }
    return MT_OK;
}

/* The edge at stride t2 = 2t from the edge `cur` found at t: below the
 * sets' span the elements at t fall into k sets and their edge is k x W,
 * at 2t into k / 2 sets (edge halved); at the span and above, one set
 * (edge the same).  So the same edge, then half of it, is checked first
 * (two chains each, mt_tlb_edge_holds) and only when neither holds is the
 * edge found afresh by edge_at's doubling and bisection (some 14 chases
 * against 2 to 4). */
static mt_err edge_next(tlb_run *r, uint64_t t2, const tlb_level *cur, tlb_level *next,
                        uint64_t *e2)
{
    uint32_t stride = (uint32_t)(t2 + r->line);
    const uint64_t guess[2] = {cur->lo, cur->lo / 2};
    for (int k = 0; k < 2 && guess[k] >= 1; k++) {
        tlb_level g = *cur;
        g.lo = guess[k];
        g.hi = guess[k] + 1;
        g.base = (uint32_t)t2;
        bool fits = false, holds = false;
        mt_progress(r->c, "TLB: set climb, edge %llu at %llu B?", (unsigned long long)g.lo,
                    (unsigned long long)t2);
        mt_err err = mt_tlb_edge_holds(r, &g, stride, &fits, &holds);
        if (err != MT_OK)
            return err;
        if (fits && holds) {
            *next = g;
            *e2 = g.lo;
            return MT_OK;
        }
    }
    return edge_at(r, t2, next, e2);
}

mt_err mt_tlb_sets_climb(tlb_run *r, tlb_level *lv, bool *found)
{
    *found = false;
    mt_note_threshold(r->c, "TLB_SETS_CLIMB_CHAIN", TLB_SETS_CLIMB_CHAIN,
                      "TLB sets: longest chain of the set climb (twice the most ways sought)");
    mt_note_threshold(r->c, "TLB_SETS_ONE_SET_SHARE", TLB_SETS_ONE_SET_SHARE,
                      "TLB sets: share of W + 1 elements stepping that makes them one set");
    mt_note_threshold(r->c, "TLB_SETS_MAX_SPLIT", TLB_SETS_MAX_SPLIT,
                      "TLB sets: most sets in play at the top stride read by the share stepping");
    mt_note_threshold(r->c, "TLB_SETS_SPLIT_Z", TLB_SETS_SPLIT_Z,
                      "TLB sets: standard errors the split's share keeps from its band's edges");
    mt_note_threshold(r->c, "TLB_SETS_MIN_H", TLB_SETS_MIN_H,
                      "TLB sets: smallest step (B) of the one-set pattern's scan");
    tlb_level cur = {0}, next = {0};
    uint64_t e = 0, e2 = 0;
    for (uint64_t t = TLB_SETS_CLIMB_FROM; t + t / 2 + r->line <= UINT32_MAX; t *= 2) {
        mt_err err = e ? MT_OK : edge_at(r, t, &cur, &e);
        if (err == MT_OK && e && 2 * t + r->line <= UINT32_MAX)
            err = edge_next(r, 2 * t, &cur, &next, &e2);
        if (err == MT_ERR_REPLAY) { /* a recording made before this step */
            r->c->ei->msg[0] = '\0';
            return MT_OK;
        }
        if (err != MT_OK)
            return err;
        if (!e)
            continue;
        bool top = 2 * t + r->line > UINT32_MAX || !e2;
        if (top || e2 == e) {
            /* One set at t (the edge held at twice it), or the top stride,
             * where the share of W + 1 elements stepping tells one set
             * (all) from two (W + 1 of 2W + 1). */
            cur.twice_run = !top;
            cur.twice_held = !top;
            if (top && (err = top_sets(r, t, &cur)) != MT_OK)
                return err;
            cur.checked = true;
            cur.confirmed = false;
            *lv = cur;
            *found = true;
            return MT_OK;
        }
        cur = next;
        e = e2;
    }
    return MT_OK;
}

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
        /* Several sets in play at t (split): element 0's set is the one
         * whose W + 1 elements the pattern follows (the others hold W);
         * its steps are told by element 0 alone. */
        mt_paired_shift s = {0};
        bool steps = false;
        mt_err err = lv->split > 1
                         ? first_steps(r, ways + 1, (uint32_t)stride, lv->step, &steps)
                         : mt_tlb_shift_of(r, ways, ways + 1, (uint32_t)stride, &s);
        if (err == MT_ERR_REPLAY) { /* a recording made before this step */
            c->ei->msg[0] = '\0';
            return MT_OK;
        }
        if (err != MT_OK)
            return err;
        h[n] = hk;
        thrash[n] = lv->split > 1 ? steps : mt_tlb_is_step(&s) && s.shift > lv->step / 2;
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
    /* k sets in play at t: the pattern read them as one of k x W ways
     * spanning t (the same entries and page); the level has k times its
     * sets, of W ways. */
    uint64_t k = lv->split > 1 ? lv->split : 1;
    lv->sets = g.sets * k;
    lv->ways = ways / k;
    /* Not shown to be one set (the top stride, whose W + 1 elements did
     * not all step): maybe two sets of half the ways each, with the same
     * entries and page (the pattern scales both alike). */
    lv->ways_lo = lv->twice_held || ways < 2 ? 0 : ways / 2;
    lv->lo = g.entries;
    lv->checked = true;
    lv->confirmed = true;
    *page = g.page;
    return MT_OK;
}

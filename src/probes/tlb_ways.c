/* The first TLB level's associativity (issue 9; Mei et al. 2014's method
 * of strides that map to one set), finding tlb1.ways.
 *
 * A level of E entries in S sets of W ways, a page's set its page number
 * modulo S, holds a chain of pages spaced S pages apart in one set: W of
 * them fit, W + 1 thrash (LRU).  Not knowing S, the probe tries each
 * candidate way count w (powers of two dividing E, w < E) at the stride of
 * E / w pages, comparing a chain of 2w elements with one of w (paired, as
 * every TLB comparison).  At that stride the level holds max(w, W)
 * elements: for w <= W the stride, S x W / w pages, is a multiple of S, so
 * every element falls into one set of W ways and 2w fit while 2w <= W;
 * for w > W it walks w / W sets, which hold w elements, so 2w
 * thrash.  The first w whose 2w elements step is W; none stepping up to
 * E / 2 leaves W = E: fully associative.  The chain spans 2 x E x page at
 * every candidate (twice the level's reach); each element also moves one
 * L2 line further so the chain's lines fall into different L2 sets, which
 * keeps every element on its page only while 2w lines stay below a page. */
#include "confidence.h"
#include "tlb_probe.h"

/* A recording made before this test existed has none of its runs: the
 * ways stay unmeasured, as they were when it was recorded. */
static mt_err unrecorded(mt_probe_ctx *c)
{
    c->ei->msg[0] = '\0';
    return MT_OK;
}

mt_err mt_tlb_ways(tlb_run *r, const tlb_level *lv, uint64_t page, uint64_t *ways)
{
    *ways = 0;
    mt_probe_ctx *c = r->c;
    const uint64_t entries = lv->lo;
    uint64_t fits = 0;  /* largest w whose 2w elements fitted: W >= 2 x fits */
    uint64_t stepped = 0; /* the first w whose 2w elements stepped: W <= it */
    uint64_t first = 0;   /* the first w compared: below it nothing is known */
    /* The loop ended at the entries (no limit stopped it): no step at its
     * largest w means W >= 2w, which only the entries themselves are. */
    bool all_tried = true;
    for (uint64_t w = 1; w < entries && entries % w == 0; w *= 2) {
        uint64_t sets = entries / w;
        uint64_t stride = sets * page + r->line;
        /* A stride beyond a chain's 32 bits: the next candidate's is half. */
        if (stride > UINT32_MAX)
            continue;
        /* The added lines must not carry an element onto the next page,
         * and the chain (2 x entries x page at every w) must fit the
         * memory and the L2: larger w only make both worse. */
        if (2 * w * r->line >= page || 2 * w > mt_tlb_max_elements(r, (uint32_t)stride)) {
            all_tried = false;
            break;
        }
        if (!first)
            first = w;
        mt_progress(c, "TLB: ways, %llu against %llu pages %llu pages apart",
                    (unsigned long long)(2 * w), (unsigned long long)w, (unsigned long long)sets);
        mt_paired_shift s;
        mt_err err = mt_tlb_shift_of(r, w, 2 * w, (uint32_t)stride, &s);
        if (err == MT_ERR_REPLAY)
            return unrecorded(c);
        if (err != MT_OK)
            return err;
        if (mt_tlb_is_step(&s) && s.shift > lv->step / 2) {
            stepped = w;
            break;
        }
        fits = w;
    }
    mt_finding f;
    if (stepped) {
        /* One set of `stepped` ways: one element more than the ways
         * thrashes all of them, not only some (a sharp edge). */
        uint64_t sets = entries / stepped;
        uint32_t stride = (uint32_t)(sets * page + r->line);
        mt_paired_shift sharp;
        mt_err err = mt_tlb_shift_of(r, stepped, stepped + 1, stride, &sharp);
        if (err == MT_ERR_REPLAY)
            return unrecorded(c);
        if (err != MT_OK)
            return err;
        bool is_sharp = mt_tlb_is_step(&sharp) && sharp.shift > lv->step / 2;
        uint64_t lo = fits ? 2 * fits : first > 1 ? 1 : stepped;
        if (lo == stepped && is_sharp)
            *ways = stepped;
        if (lo == stepped)
            f = mt_find_value((double)stepped, "count", MT_SRC_MEASURED, "pchase-fine paired",
                              is_sharp ? MT_CONF_AGG_MIXED : MT_CONF_INCONSISTENT,
                              "%llu sets: %llu pages %llu pages apart thrash, %llu fit",
                              (unsigned long long)sets, (unsigned long long)(2 * stepped),
                              (unsigned long long)sets, (unsigned long long)stepped);
        else
            f = mt_find_range((double)lo, (double)stepped, "count", "pchase-fine paired",
                              is_sharp ? MT_CONF_AGG_MIXED : MT_CONF_INCONSISTENT,
                              "%llu pages %llu pages apart thrash; fewer ways were not tried",
                              (unsigned long long)(2 * stepped), (unsigned long long)sets);
        if (!is_sharp)
            mt_finding_append_note(&f, "but %llu pages at that stride did not all miss: not one "
                                   "set indexed by the page number modulo the sets",
                                   (unsigned long long)(stepped + 1));
    } else if (all_tried && (fits || entries == 1)) {
        *ways = entries;
        f = mt_find_value((double)entries, "count", MT_SRC_MEASURED, "pchase-fine paired",
                          MT_CONF_AGG_MIXED,
                          "fully associative: %llu pages fitted at every stride of entries / w "
                          "pages (w a power of two dividing the entries)",
                          (unsigned long long)(2 * fits));
    } else if (fits) {
        f = mt_find_bound((double)(2 * fits - 1), "count", "pchase-fine paired", MT_CONF_AGG_MIXED,
                          "%llu pages %llu pages apart fitted; fewer sets did not fit the "
                          "stride, the memory or the page",
                          (unsigned long long)(2 * fits), (unsigned long long)(entries / fits));
    } else {
        return MT_OK; /* not even one candidate fitted: nothing seen */
    }
    mt_set(c, "tlb1", "ways", &f);
    return MT_OK;
}

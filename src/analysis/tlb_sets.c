/* The set-associative TLB level's page and sets from its one-set pattern
 * (tlb_sets.h). */
#include "tlb_sets.h"

static bool pow2(uint64_t v)
{
    return v && !(v & (v - 1));
}

mt_tlb_sets mt_tlb_sets_fit(uint64_t t, uint64_t ways, const uint64_t *h, const bool *thrash,
                            size_t n)
{
    mt_tlb_sets out = {.status = MT_TLB_SETS_INCONSISTENT};
    if (!n || !ways || !pow2(t))
        return out;
    for (size_t k = 0; k < n; k++)
        if (h[k] != t >> (k + 1))
            return out; /* not the halving ladder this reading assumes */
    /* The band: the first run of fits. */
    size_t top = n;
    for (size_t k = 0; k < n; k++)
        if (!thrash[k]) {
            top = k;
            break;
        }
    if (top == n) {
        out.status = MT_TLB_SETS_NO_BAND;
        return out;
    }
    size_t bottom = top;
    while (bottom + 1 < n && !thrash[bottom + 1])
        bottom++;
    /* Below the band every stride must thrash: a second band is no
     * geometry of page-number-modulo sets. */
    for (size_t k = bottom + 1; k < n; k++)
        if (!thrash[k])
            return out;
    /* Span: the band's top is span / 2; starting at t / 2 the span is t
     * (the plateau's edge held at t, so span <= t). */
    out.span = 2 * h[top];
    uint64_t page = ways * h[bottom];
    if (bottom + 1 == n) {
        /* The scan ended inside the band: W x h < P never showed, so the
         * page is at most W x the last h fitted (P / W <= that h). */
        out.status = MT_TLB_SETS_NO_FLOOR;
        out.page = page;
        return out;
    }
    if (!pow2(page) || page > out.span)
        return out;
    out.page = page;
    out.sets = out.span / page;
    out.entries = out.sets * ways;
    out.status = MT_TLB_SETS_OK;
    return out;
}

mt_tlb_next mt_tlb_next_fit(const uint64_t *m, const uint64_t *e, size_t n)
{
    mt_tlb_next out = {.status = MT_TLB_SETS_INCONSISTENT};
    for (size_t i = 0; i < n; i++)
        out.edges += e[i] != 0;
    size_t k = 0;
    while (k < n && !e[k])
        k++; /* strides whose edge lay beyond the chains (m too small) */
    /* The halving run: e[k + 1] = e[k] / 2 at m[k + 1] = 2 m[k]. */
    size_t last = k;
    while (last + 1 < n && e[last + 1] && m[last + 1] == 2 * m[last] &&
           2 * e[last + 1] == e[last])
        last++;
    if (k >= n || last == k)
        return out; /* fewer than two edges halving: no count */
    out.entries = e[k] * m[k];
    if (last + 1 < n && e[last + 1] == e[last] && m[last + 1] == 2 * m[last]) {
        /* It stopped halving: one set per element from m[last] on. */
        out.ways_lo = out.ways_hi = e[last];
        out.sets = m[last];
    } else {
        out.ways_lo = 1;
        out.ways_hi = e[last];
    }
    if (!pow2(out.entries) || !pow2(out.ways_hi))
        return out;
    out.status = MT_TLB_SETS_OK;
    return out;
}

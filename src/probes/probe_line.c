/* Line size through capacity (analysis.h, mt_line_from_capacities): the
 * capacity measured at a stride of one sector is compared with the capacity
 * at a stride of m sectors.  A chain whose stride reaches a line occupies
 * one line per element, so its capacity grows by stride / line. */
#include <math.h>

#include "probe_internal.h"

static uint64_t rdown(uint64_t v, uint64_t m) { return v / m * m; }

mt_err mt_measure_line(mt_probe_ctx *c, mt_cache_id id, mt_path path, uint64_t cap,
                       double cap_conf, uint32_t sector, uint64_t ref_min_elements, uint64_t limit,
                       int max_rounds, double hit_threshold)
{
    mt_cache_report *rep = &c->topo->cache[id];
    static const double mult[] = MT_LINE_STRIDE_MULTIPLIERS;
    /* The search must reach 1.3x the capacity expected when line == sector. */
    double m = 0;
    for (size_t i = 0; i < sizeof mult / sizeof *mult; i++)
        if ((double)cap * mult[i] * 1.3 <= (double)limit) {
            m = mult[i];
            break;
        }
    if (m == 0) {
        rep->line = mt_find_range(sector, (double)limit, "B", "capacity-ratio", 0.9,
                                  "the %llu B path limit leaves no room for the capacity test; "
                                  "line is between the fill unit and the limit",
                                  (unsigned long long)limit);
        return MT_OK;
    }
    uint32_t stride = (uint32_t)(m * sector);
    stride -= stride % 4;
    uint64_t expect = (uint64_t)((double)cap * m); /* capacity if line == sector */
    uint64_t ref = (ref_min_elements > 8 ? ref_min_elements : 8) * (uint64_t)stride;
    uint64_t start = rdown(cap > ref + stride ? cap : ref + stride, stride);
    uint64_t lim = (uint64_t)((double)expect * 1.3);
    if (lim > limit)
        lim = limit;
    uint64_t gran = rdown(expect / 64, stride);
    mt_cap_request q = {
        .path = path, .stride = stride, .start = start, .limit = rdown(lim, stride),
        .granule = gran < stride ? stride : gran, .ref_footprint = rdown(ref, stride),
        .hit_threshold = hit_threshold, .max_rounds = max_rounds,
    };
    mt_cap_result big;
    mt_progress(c, "%s line from the capacity at a %u B stride", mt_cache_name(id), stride);
    mt_err err = mt_capacity_search(c, &q, &big);
    if (err != MT_OK)
        return err;
    if (big.kind == MT_FIND_LOWER_BOUND) {
        /* Capacity above 1.3x the line==sector expectation: impossible for a
         * consistent cache (ratio can only shrink as the line grows). */
        rep->line = mt_find_range(sector, stride, "B", "capacity-ratio", 0.3,
                                  "capacity at a %u B stride exceeds %llu B: inconsistent", stride,
                                  (unsigned long long)q.limit);
        return MT_OK;
    }
    mt_line_estimate le;
    if ((err = mt_line_from_capacities((double)cap, (double)big.lo, stride, sector, &le)) != MT_OK)
        return mt_fail(c->ei, err, "line estimate from capacities %llu and %llu B failed",
                       (unsigned long long)cap, (unsigned long long)big.lo);
    double conf = cap_conf * big.confidence;
    if (le.found) {
        c->cs[id].line = le.line_bytes;
        rep->line = mt_find_value(le.line_bytes, "B", MT_SRC_MEASURED, "capacity-ratio", conf,
                                  "capacity %llu B at a %u B stride vs %llu B at %u B: ratio %.2f",
                                  (unsigned long long)big.lo, stride, (unsigned long long)cap,
                                  sector, le.ratio);
    } else if (le.lower_bound) {
        rep->line = mt_find_bound(stride, "B", "capacity-ratio", conf,
                                  "capacity %llu B at a %u B stride vs %llu B at %u B: ratio %.2f, "
                                  "so every line holds more than one element",
                                  (unsigned long long)big.lo, stride, (unsigned long long)cap,
                                  sector, le.ratio);
    } else {
        rep->line = mt_find_range(sector, stride, "B", "capacity-ratio", 0.4,
                                  "ratio %.2f (capacities %llu / %llu B) is not near stride/2^k",
                                  le.ratio, (unsigned long long)big.lo, (unsigned long long)cap);
    }
    return MT_OK;
}

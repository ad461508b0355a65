#include "evict_reduce.h"

bool mt_line_list_remove(const mt_line_list *in, uint64_t lo, uint64_t hi, mt_line_list *out)
{
    out->n = 0;
    out->lines = 0;
    uint64_t pos = 0; /* position of the current interval's first line */
    for (uint32_t i = 0; i < in->n; i++) {
        mt_line_interval v = in->iv[i];
        uint64_t a = pos, b = pos + v.count; /* positions [a, b) */
        pos = b;
        /* The parts of [a, b) before lo and from hi on survive. */
        uint64_t keep_lo_end = b < lo ? b : lo, keep_hi_start = a > hi ? a : hi;
        mt_line_interval part[2];
        int np = 0;
        if (keep_lo_end > a)
            part[np++] = (mt_line_interval){v.first, (uint32_t)(keep_lo_end - a)};
        if (b > keep_hi_start)
            part[np++] = (mt_line_interval){v.first + (uint32_t)(keep_hi_start - a),
                                            (uint32_t)(b - keep_hi_start)};
        for (int k = 0; k < np; k++) {
            if (out->n == out->cap)
                return false;
            out->iv[out->n++] = part[k];
            out->lines += part[k].count;
        }
    }
    return true;
}

static void copy_list(const mt_line_list *from, mt_line_list *to)
{
    for (uint32_t i = 0; i < from->n; i++)
        to->iv[i] = from->iv[i];
    to->n = from->n;
    to->lines = from->lines;
}

mt_err mt_evict_reduce(mt_line_list *list, mt_line_list *scratch, uint64_t max_tests,
                       mt_evict_oracle oracle, void *ctx, mt_evict_reduce_stats *st)
{
    uint64_t g = 2;
    for (;;) {
        uint64_t n = list->lines;
        if (n <= 1)
            return MT_OK;
        if (g > n)
            g = n;
        bool dropped = false;
        for (uint64_t j = 0; j < g && !dropped; j++) {
            uint64_t lo = n * j / g, hi = n * (j + 1) / g;
            if (hi == lo)
                continue;
            if (!mt_line_list_remove(list, lo, hi, scratch)) {
                st->too_fragmented = true;
                continue;
            }
            if (max_tests && st->tests >= max_tests) {
                st->budget_spent = true;
                return MT_OK;
            }
            bool evicts = false;
            st->tests++;
            mt_err err = oracle(ctx, scratch, &evicts);
            if (err != MT_OK)
                return err;
            if (evicts) {
                copy_list(scratch, list);
                dropped = true;
            }
        }
        if (!dropped) {
            if (g == n)
                return MT_OK;
            g = 2 * g < n ? 2 * g : n;
        }
    }
}

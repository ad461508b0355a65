/* Developer tool: capacity (first-miss footprint) of a path at many strides,
 * to study how a cache's tags, sets and lines behave on real hardware.
 *   capscan [--sim PRESET] PATH START LIMIT STRIDE...
 * Prints one line per stride: stride, capacity lo..hi, elements that fit. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool_session.h"

int main(int argc, char **argv)
{
    mt_tool_session ts;
    mt_err err;
    int a = mt_tool_open(&ts, argc, argv);
    if (a < 0 || argc - a < 4) {
        fprintf(stderr, "capscan: %s\n", a < 0 ? ts.ei.msg : "usage: capscan [--sim P] PATH START LIMIT STRIDE...");
        mt_backend_destroy(ts.be);
        return 2;
    }
    mt_path path;
    if (mt_path_from_name(argv[a], &path) != 0)
        return 2;
    uint64_t start = strtoull(argv[a + 1], NULL, 0), limit = strtoull(argv[a + 2], NULL, 0);
    mt_probe_ctx *c = &ts.c;
    mt_errinfo *ei = &ts.ei;
    if ((err = mt_tool_calibrate(&ts)) != MT_OK)
        goto fail;
    for (int i = a + 3; i < argc; i++) {
        uint32_t s = (uint32_t)strtoul(argv[i], NULL, 0);
        uint64_t st = start / s * s, lim = limit / s * s;
        mt_cap_request q = {.path = path, .stride = s, .start = st, .limit = lim,
                            .granule = s > st / 256 ? s : st / 256 / s * s,
                            .ref_footprint = 8ull * s, .hit_threshold = NAN};
        mt_cap_result r;
        if ((err = mt_capacity_search(c, &q, &r)) != MT_OK)
            goto fail;
        printf("%s stride %5u: kind %d  %10llu .. %10llu B  (%llu elements)  p=%.2g opt=%d %llu..%llu\n",
               argv[a], s, r.kind, (unsigned long long)r.lo, (unsigned long long)r.hi,
               (unsigned long long)(r.lo / s), r.p_detect, r.opt_confirmed,
               (unsigned long long)r.opt_lo, (unsigned long long)r.opt_hi);
        fflush(stdout);
    }
    mt_backend_destroy(ts.be);
    return 0;
fail:
    fprintf(stderr, "capscan: %s\n", ei->msg);
    mt_backend_destroy(ts.be);
    return 1;
}

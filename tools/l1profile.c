/* Developer tool: the L1 data cache's miss profile across its capacity, to
 * study what happens between the first misses and the full thrash.
 *   l1profile [--sim SPEC] FROM_KIB TO_KIB STEP_B [PERCENT...]
 * For every footprint F (lines 128 B apart... the l1d line the calibrate
 * probe does not know, so the stride is the 128 B of every NVIDIA L1 since
 * Volta) and every carveout preference given (none: the default), a
 * sequential and a random-order chain: 2 warm-up laps, then up to 4 laps
 * timed one load at a time.  Prints per experiment the miss share of each
 * timed lap, and for the sequential chain the element indices that missed
 * in the last lap as a hex bitmap (element k is bit k % 4 of digit k / 4),
 * for offline study of which lines a set structure evicts. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool_session.h"

#define LINE 128u
#define TIMED_LAPS 4u

static void print_profile(const mt_probe_ctx *c, const mt_result *r, uint64_t fp, int order,
                          int percent, double thr)
{
    size_t n;
    double *x = mt_fine_samples(c, r, 0, &n);
    uint32_t elems = (uint32_t)(fp / LINE);
    printf("F %7llu pct %3d %s laps:", (unsigned long long)fp, percent, order ? "rnd" : "seq");
    for (size_t lap = 0; (lap + 1) * elems <= n; lap++) {
        uint32_t miss = 0;
        for (uint32_t k = 0; k < elems; k++)
            miss += x[lap * elems + k] > thr;
        printf(" %.4f", (double)miss / elems);
    }
    size_t last = n / elems;
    if (order == 0 && last > 0) {
        printf(" map ");
        const double *l = x + (last - 1) * elems;
        for (uint32_t k = 0; k < elems; k += 4) {
            unsigned d = 0;
            for (uint32_t b = 0; b < 4 && k + b < elems; b++)
                d |= (unsigned)(l[k + b] > thr) << b;
            printf("%x", d);
        }
    }
    printf("\n");
    free(x);
}

int main(int argc, char **argv)
{
    mt_tool_session ts;
    mt_err err;
    int a = mt_tool_open(&ts, argc, argv);
    if (a < 0 || argc - a < 3) {
        fprintf(stderr, "l1profile: %s\n",
                a < 0 ? ts.ei.msg : "usage: l1profile [--sim SPEC] FROM_KIB TO_KIB STEP_B [PERCENT...]");
        mt_backend_destroy(ts.be);
        return 2;
    }
    uint64_t from = strtoull(argv[a], NULL, 0) * 1024, to = strtoull(argv[a + 1], NULL, 0) * 1024;
    uint64_t step = strtoull(argv[a + 2], NULL, 0);
    if (step < LINE || step % LINE)
        step = LINE;
    int percents[32], np = 0;
    for (int i = a + 3; i < argc && np < 32; i++)
        percents[np++] = atoi(argv[i]);
    if (np == 0)
        percents[np++] = -1;

    mt_probe_ctx *c = &ts.c;
    if ((err = mt_tool_calibrate(&ts)) != MT_OK)
        goto fail;
    /* The hit threshold from a 32 KiB chain that fits in any L1. */
    mt_experiment ref = mt_exp_chase(MT_PATH_GLOBAL_CA, 32768, LINE, 2, mt_fine_loads(c, 32768, LINE, 8),
                                     MT_MODE_FINE);
    double *rx;
    size_t rn;
    if ((err = mt_run_fine(c, &ref, &rx, &rn)) != MT_OK)
        goto fail;
    double thr = mt_hit_threshold(rx, rn);
    printf("hit threshold %.1f cycles (from %zu loads)\n", thr, rn);
    free(rx);

    size_t cap = (size_t)((to - from) / step + 1) * 2 * (size_t)np, n = 0;
    mt_experiment *e = calloc(cap, sizeof *e);
    int *ord = calloc(cap, sizeof *ord), *pct = calloc(cap, sizeof *pct);
    uint64_t *fps = calloc(cap, sizeof *fps);
    for (int p = 0; p < np; p++)
        for (uint64_t fp = from; fp <= to; fp += step)
            for (int o = 0; o < 2; o++) {
                uint32_t loads = mt_fine_loads(c, fp, LINE, TIMED_LAPS);
                loads -= loads % (uint32_t)(fp / LINE);
                if (loads == 0)
                    loads = (uint32_t)(fp / LINE);
                mt_experiment x = mt_exp_chase(MT_PATH_GLOBAL_CA, fp, LINE, 2, loads, MT_MODE_FINE);
                x.order = o ? MT_ORDER_RANDOM : MT_ORDER_SEQUENTIAL;
                x.order_seed = 7;
                if (percents[p] >= 0)
                    x = mt_exp_with_carveout(x, percents[p]);
                e[n] = x;
                ord[n] = o;
                pct[n] = percents[p];
                fps[n++] = fp;
            }
    mt_result *r = calloc(n, sizeof *r);
    if ((err = mt_run(c, e, n, r)) != MT_OK)
        goto fail;
    for (size_t i = 0; i < n; i++)
        print_profile(c, &r[i], fps[i], ord[i], pct[i], thr);
    mt_results_free(r, n);
    free(e);
    free(ord);
    free(pct);
    free(fps);
    mt_backend_destroy(ts.be);
    return 0;
fail:
    fprintf(stderr, "l1profile: %s\n", ts.ei.msg);
    mt_backend_destroy(ts.be);
    return 1;
}

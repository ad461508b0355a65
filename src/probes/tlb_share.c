/* Which SMs share a TLB level (issue 9), finding tlbN.sms_per_group.
 *
 * Once a level of E entries is known (its edge trusted, its page measured),
 * SM 0 chases n = ceil(3E/4) pages, each element on a page of its own (the
 * stride the level was found at), first alone (the reference), then
 * together with SM k (backend.h, mt_experiment.together) chasing n other
 * pages of its own at the same stride.  Alone the n pages fit the level.
 * If SM k translates through the same instance, the two chains put 2n > E
 * pages through it, and under LRU every one of SM 0's elements misses it:
 * SM 0's latencies step by the level's miss penalty, compared element by
 * element with the reference (the paired median, as every TLB comparison;
 * docs/method.md).  If SM k has an instance of its own, SM 0's latencies
 * stay.
 *
 * The SMs that share with SM 0 are taken to be SMs 0 .. g-1 (groups of
 * consecutive SMs by %smid, as the simulator's sms_per_group makes them):
 * SM 1 first (g = 1: per SM), then the last SM (it shares: one instance
 * for the whole GPU), else a bisection between them finds the first SM
 * that does not share, g.  A test whose shift is neither a step (more
 * than half the penalty, TLB_STEP_Z standard errors) nor clearly none (at
 * most TLB_SHARE_NONE_SHARE of the penalty) leaves the group at low
 * confidence with a note. */
#include <stdio.h>
#include <stdlib.h>

#include "confidence.h"
#include "tlb_probe.h"

/* Together group id of the probe's pairs (any non-zero number: one group
 * per batch). */
#define TLB_SHARE_GROUP 1

typedef enum { SHARE_NO = 0, SHARE_YES, SHARE_UNCLEAR } share_answer;

typedef struct {
    tlb_run *r;
    const tlb_level *lv;
    uint64_t n;        /* elements of each SM's chain */
    uint32_t stride;
    uint32_t loads;
    double *ref;       /* SM 0 alone: its samples */
    size_t nref;
    int unclear;       /* tests that were neither answer */
    int tests;
} share_ctx;

static mt_experiment sm0_chain(const share_ctx *s)
{
    mt_experiment e = mt_exp_chase(MT_PATH_GLOBAL_CG, s->n * s->stride, s->stride, 1, s->loads,
                                   MT_MODE_FINE);
    e.sm = 0;
    return e;
}

/* SM 0's chase alone: the reference every pair is compared with. */
static mt_err reference(share_ctx *s)
{
    mt_probe_ctx *c = s->r->c;
    mt_experiment e = sm0_chain(s);
    mt_result res;
    mt_err err = mt_run(c, &e, 1, &res);
    if (err != MT_OK)
        return err;
    s->ref = mt_fine_samples(c, &res, 0, &s->nref);
    mt_results_free(&res, 1);
    if (!s->ref)
        return mt_fail(c->ei, MT_ERR_NOMEM, "out of memory reading samples");
    return MT_OK;
}

/* SM 0's chase together with SM k's on pages of its own: whether SM 0's
 * elements got the level's penalty. */
static mt_err test_sm(share_ctx *s, int k, share_answer *out)
{
    mt_probe_ctx *c = s->r->c;
    mt_experiment e[2] = {sm0_chain(s), sm0_chain(s)};
    e[0].together = e[1].together = TLB_SHARE_GROUP;
    /* SM k's pages start one stride after SM 0's last, and it chases
     * longer (warm-up laps of about SM 0's timed loads), so it runs over
     * the whole of SM 0's timed loads even when it starts a little late. */
    e[1].sm = k;
    e[1].chain[0].offset = (s->n + 1) * (uint64_t)s->stride;
    e[1].warmup_laps = (uint32_t)((s->loads + s->n - 1) / s->n) + 1;
    mt_progress(c, "TLB: SM 0 and SM %d, %llu pages each", k, (unsigned long long)s->n);
    mt_result res[2];
    mt_err err = mt_run(c, e, 2, res);
    if (err != MT_OK)
        return err;
    size_t nx = 0;
    double *x = mt_fine_samples(c, &res[0], 0, &nx);
    mt_results_free(res, 2);
    if (!x)
        return mt_fail(c->ei, MT_ERR_NOMEM, "out of memory reading samples");
    mt_paired_shift sh;
    err = mt_paired_shift_cyclic(s->ref, s->nref, s->n, x, nx, s->n, &sh);
    free(x);
    if (err != MT_OK)
        return mt_fail(c->ei, err, "TLB sharing: %zu and %zu samples of %llu elements pair too few",
                       s->nref, nx, (unsigned long long)s->n);
    s->tests++;
    if (mt_tlb_is_step(&sh) && sh.shift > s->lv->step / 2)
        *out = SHARE_YES;
    else if (sh.shift <= TLB_SHARE_NONE_SHARE * s->lv->step)
        *out = SHARE_NO;
    else {
        *out = SHARE_UNCLEAR;
        s->unclear++;
    }
    return MT_OK;
}

/* A recording made before the sharing test has none of its runs (or a
 * backend that cannot run chases together): the groups stay unmeasured. */
static int unmeasured(mt_probe_ctx *c, mt_err err)
{
    if (err != MT_ERR_REPLAY && err != MT_ERR_UNSUPPORTED)
        return 0;
    c->ei->msg[0] = '\0';
    return 1;
}

/* The group of SM 0 (see the top of the file): *g SMs, the whole GPU
 * when g == sm_count. */
static mt_err find_group(share_ctx *s, int nsm, int *g)
{
    share_answer a;
    mt_err err = test_sm(s, 1, &a);
    if (err != MT_OK)
        return err;
    if (a != SHARE_YES) { /* an unclear answer counts as none: noted */
        *g = 1;
        if (nsm > 2 && (err = test_sm(s, nsm - 1, &a)) == MT_OK && a == SHARE_YES)
            s->unclear++; /* SM 1 does not share, the last SM does: not consecutive groups */
        return err;
    }
    if ((err = test_sm(s, nsm - 1, &a)) != MT_OK)
        return err;
    if (a == SHARE_YES) {
        *g = nsm;
        return MT_OK;
    }
    int lo = 1, hi = nsm - 1; /* lo shares, hi does not */
    while (hi - lo > 1) {
        int mid = lo + (hi - lo) / 2;
        if ((err = test_sm(s, mid, &a)) != MT_OK)
            return err;
        if (a == SHARE_YES)
            lo = mid;
        else
            hi = mid;
    }
    *g = hi;
    return MT_OK;
}

mt_err mt_tlb_sharing(tlb_run *r, const char *key, const tlb_level *lv, uint32_t stride)
{
    mt_probe_ctx *c = r->c;
    int nsm = c->dev.sm_count;
    if (nsm < 2 || lv->lo < 1)
        return MT_OK; /* one SM: nothing to share with */
    share_ctx s = {.r = r, .lv = lv, .stride = stride, .loads = c->dev.max_fine_loads};
    s.n = (3 * lv->lo + 3) / 4;
    /* SM k's chain ends 2n + 1 strides from the start: the limits of one
     * chain (memory, the L2's share) hold for both. */
    if (2 * s.n + 1 > mt_tlb_max_elements(r, stride))
        return MT_OK;
    mt_err err = reference(&s);
    int g = 0;
    if (err == MT_OK)
        err = find_group(&s, nsm, &g);
    free(s.ref);
    if (err != MT_OK)
        return unmeasured(c, err) ? MT_OK : err;
    double conf = s.unclear ? MT_CONF_INCONSISTENT : MT_CONF_AGG_MIXED;
    mt_finding f;
    if (g == nsm)
        f = mt_find_value((double)g, "count", MT_SRC_MEASURED, "pchase-fine paired, two SMs", conf,
                          "all %d SMs share one (one per GPU): SM 0's %llu pages missed it while "
                          "SM 1 or SM %d chased %llu others (%d tests)",
                          nsm, (unsigned long long)s.n, nsm - 1, (unsigned long long)s.n, s.tests);
    else if (g == 1)
        f = mt_find_value(1, "count", MT_SRC_MEASURED, "pchase-fine paired, two SMs", conf,
                          "one per SM: SM 0's %llu pages kept their latency while SM 1 chased "
                          "%llu others (%d tests)",
                          (unsigned long long)s.n, (unsigned long long)s.n, s.tests);
    else
        f = mt_find_value((double)g, "count", MT_SRC_MEASURED, "pchase-fine paired, two SMs", conf,
                          "SMs 0-%d share one: SM 0's %llu pages missed it while SM %d chased "
                          "%llu others, and kept their latency beside SM %d (%d tests)",
                          g - 1, (unsigned long long)s.n, g - 1, (unsigned long long)s.n, g,
                          s.tests);
    if (s.unclear)
        mt_finding_append_note(&f, "%d of %d tests were neither a step of the level's penalty nor "
                               "none (or the sharing SMs were not consecutive)",
                               s.unclear, s.tests);
    mt_set(c, key, "sms_per_group", &f);
    return MT_OK;
}

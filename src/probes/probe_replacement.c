/* L1 data cache replacement: does the cache keep what was used recently
 * (LRU, tree pseudo-LRU), evict in insertion order (FIFO), or evict without
 * order (random and the like)?  The first probe of the cache-geometry issue,
 * and the first user of explicit access sequences (MT_KIND_SEQUENCE): an
 * element is visited more than once, which no pointer chain can express.
 *
 * N = size / line lines fill the cache exactly (the measured capacity).
 * Two sequences, each starting cold:
 *   recency:   fill 0..N-1, touch again 0..R-1 (the oldest R), bring in R
 *              new lines, then time 0..R-1.  LRU keeps the touched lines
 *              (the new lines evict lines never touched again); FIFO evicts
 *              the oldest inserted, i.e. exactly the touched ones.
 *   ordering:  fill 0..N-1, bring in N/2 new lines, then time the youngest
 *              R lines (N-R..N-1).  LRU and FIFO both evict the oldest
 *              half and keep these; a policy without order evicts some.
 * R = N / 8.  The miss shares decide, with the thresholds below; between
 * them the policy is reported as not classified.  Without the set count
 * (a later probe) a direct-mapped cache cannot be told from FIFO: the
 * finding says "insertion order (FIFO, or direct-mapped)". */
#include <stdio.h>
#include <stdlib.h>

#include "confidence.h"
#include "probe_internal.h"

/* A miss share at most this low is "the lines were kept": uneven set use
 * (hashed indices) can evict a few kept lines under LRU too. */
#define POLICY_KEPT_SHARE 0.2
/* A miss share at least this high is "the lines were evicted": FIFO evicts
 * nearly all touched lines; random replacement rarely half of them. */
#define POLICY_EVICTED_SHARE 0.6
#define POLICY_REFRESH_DIVISOR 8u /* R = N / 8: few enough to stay the minority of every set */
#define POLICY_MIN_PROBES 8u      /* below 8 timed loads one miss moves a share by > 12% */

/* Miss share of the timed loads of one sequence experiment. */
static mt_err timed_miss_share(mt_probe_ctx *c, mt_experiment *e, double thr, double *share)
{
    size_t n;
    double *x;
    mt_err err = mt_run_fine(c, e, &x, &n);
    if (err != MT_OK)
        return err;
    size_t miss = 0;
    for (size_t i = 0; i < n; i++)
        miss += x[i] > thr;
    free(x);
    *share = n ? (double)miss / (double)n : 0;
    return MT_OK;
}

static mt_experiment sequence(uint64_t footprint, uint32_t line, const uint32_t *idx, uint32_t n,
                              uint32_t untimed)
{
    mt_experiment e = mt_exp_chase(MT_PATH_GLOBAL_CA, footprint, line, 0, n - untimed, MT_MODE_FINE);
    e.kind = MT_KIND_SEQUENCE;
    e.u.seq = (mt_sequence){.index = idx, .n = n, .untimed = untimed};
    return e;
}

static mt_err replacement(mt_probe_ctx *c)
{
    const mt_finding *size = mt_get(c, "l1d", "size"), *line = mt_get(c, "l1d", "line");
    const mt_cache_state *s = &c->cs[MT_CACHE_L1D];
    if (size->kind != MT_FIND_VALUE || line->kind != MT_FIND_VALUE || !s->hit_known)
        return MT_OK; /* nothing to fill exactly: no finding */
    mt_note_threshold(c, "POLICY_KEPT_SHARE", POLICY_KEPT_SHARE,
                      "replacement: at most this miss share means the lines were kept");
    mt_note_threshold(c, "POLICY_EVICTED_SHARE", POLICY_EVICTED_SHARE,
                      "replacement: at least this miss share means the lines were evicted");
    mt_note_threshold(c, "POLICY_MIN_PROBES", POLICY_MIN_PROBES,
                      "replacement: fewest timed loads per test (one miss moves a share by 1/8)");
    uint32_t ln = (uint32_t)line->value;
    uint32_t n = (uint32_t)(size->value / ln), r = n / POLICY_REFRESH_DIVISOR;
    uint32_t len_a = n + 3 * r, len_b = n + n / 2 + r;
    mt_finding f;
    char why[160] = "";
    if (r < POLICY_MIN_PROBES)
        snprintf(why, sizeof why, "not tested: %u lines give fewer than %u lines to time", n,
                 POLICY_MIN_PROBES);
    else if (!mt_backend_supports(c->be, MT_KIND_SEQUENCE))
        snprintf(why, sizeof why, "not tested: the backend runs no access sequences");
    else if (c->dev.max_sequence && len_b > c->dev.max_sequence)
        snprintf(why, sizeof why, "not tested: %u lines need sequences of %u entries (backend "
                 "limit %u)", n, len_b, c->dev.max_sequence);
    else if (r > c->dev.max_fine_loads)
        snprintf(why, sizeof why, "not tested: %u timed loads exceed the backend's %u", r,
                 c->dev.max_fine_loads);
    if (why[0]) {
        f = mt_find_value(0, "", MT_SRC_MEASURED, "access sequences", 0, "%s", why);
        f.kind = MT_FIND_NONE;
        mt_set(c, "l1d", "replacement", &f);
        return MT_OK;
    }
    uint32_t *a = malloc((size_t)len_a * sizeof *a), *b = malloc((size_t)len_b * sizeof *b);
    mt_err err = MT_OK;
    if (!a || !b) {
        err = mt_fail(c->ei, MT_ERR_NOMEM, "out of memory");
        goto out;
    }
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++)
        a[k++] = i;
    for (uint32_t i = 0; i < r; i++)
        a[k++] = i;     /* touch the oldest again */
    for (uint32_t i = 0; i < r; i++)
        a[k++] = n + i; /* new lines */
    for (uint32_t i = 0; i < r; i++)
        a[k++] = i;     /* timed */
    k = 0;
    for (uint32_t i = 0; i < n + n / 2; i++)
        b[k++] = i;
    for (uint32_t i = n - r; i < n; i++)
        b[k++] = i;     /* timed: the youngest of the first fill */
    uint64_t fp = (uint64_t)(n + n / 2) * ln;
    mt_experiment ea = sequence(fp, ln, a, len_a, len_a - r);
    mt_experiment eb = sequence(fp, ln, b, len_b, len_b - r);
    double fa, fb;
    mt_progress(c, "L1 replacement: recency and ordering sequences (%u lines)", n);
    if ((err = timed_miss_share(c, &ea, s->hit_threshold, &fa)) != MT_OK ||
        (err = timed_miss_share(c, &eb, s->hit_threshold, &fb)) != MT_OK)
        goto out;
    const char *verdict;
    double conf = MT_CONF_POLICY;
    if (fb <= POLICY_KEPT_SHARE && fa <= POLICY_KEPT_SHARE)
        verdict = "recency (LRU or tree pseudo-LRU)";
    else if (fb <= POLICY_KEPT_SHARE && fa >= POLICY_EVICTED_SHARE)
        verdict = "insertion order (FIFO, or direct-mapped)";
    else if (fb > POLICY_KEPT_SHARE)
        verdict = "unordered (random-like; not LRU, FIFO or PLRU)";
    else {
        verdict = "not classified";
        conf = MT_CONF_INCONSISTENT;
    }
    f = mt_find_value(0, "", MT_SRC_MEASURED, "access sequences (recency, ordering)", conf,
                      "%u-line fill: %.0f%% of %u lines touched again missed after %u new lines "
                      "(recency test); %.0f%% of the %u youngest missed after %u new lines "
                      "(ordering test); kept <= %.0f%%, evicted >= %.0f%%", n, 100 * fa, r, r, 100 * fb, r, n / 2, 100 * POLICY_KEPT_SHARE,
                      100 * POLICY_EVICTED_SHARE);
    f.kind = MT_FIND_TEXT;
    snprintf(f.text, sizeof f.text, "%s", verdict);
    mt_set(c, "l1d", "replacement", &f);
out:
    free(a);
    free(b);
    return err;
}

static const mt_finding_decl provides[] = {{"l1d.replacement", "replacement policy"}, {NULL}};
static const char *const requires[] = {"l1d.size", "l1d.line", NULL};
static const mt_object_decl objects[] = {{NULL}};
const mt_probe_desc mt_probe_replacement = {
    .name = "replacement", .summary = "L1 data replacement: recency (LRU/PLRU), insertion order "
                                      "(FIFO) or unordered, from access sequences",
    .rank = 90, .objects = objects, .provides = provides, .requires = requires, .run = replacement,
};

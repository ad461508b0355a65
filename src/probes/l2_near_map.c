/* The L2 near/far map from per-line latencies of every SM (l2_near_map.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../analysis/analysis.h"
#include "l2_near_map.h"
#include "latency_precision.h"
#include "probe_internal.h"

double mt_near_far_foreign_share(const double *v, size_t n, double thr)
{
    double *lo = malloc((n ? n : 1) * sizeof *lo), *hi = malloc((n ? n : 1) * sizeof *hi);
    if (!lo || !hi) {
        free(lo);
        free(hi);
        return 1;
    }
    size_t nl = 0, nh = 0;
    for (size_t i = 0; i < n; i++) {
        if (v[i] > thr)
            hi[nh++] = v[i];
        else
            lo[nl++] = v[i];
    }
    double foreign = 1;
    if (nl && nh) {
        double near = mt_median(lo, nl), far = mt_median(hi, nh);
        double sd_near = mt_robust_sd(lo, nl), sd_far = mt_robust_sd(hi, nh);
        double w = (double)nl / (double)n; /* near share */
        double in_near = (1 - w) * 0.5 * erfc((far - thr) / (sd_far * M_SQRT2)) / w;
        double in_far = w * 0.5 * erfc((thr - near) / (sd_near * M_SQRT2)) / (1 - w);
        foreign = in_near > in_far ? in_near : in_far;
    }
    free(lo);
    free(hi);
    return foreign;
}

double mt_one_class_hidden_gap(const double *v, size_t n)
{
    double *x = malloc((n ? n : 1) * sizeof *x);
    if (!x)
        return INFINITY; /* unknown: as unresolved */
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(v[i]))
            x[k++] = v[i];
    /* The spread itself, not mt_robust_sd's (floored by the hit margin's
     * MT_MIN_CLASS_GAP_CYCLES: it would hide 6 cycles in noise-free lines). */
    double sd = k > 1 ? 1.4826 * mt_mad(x, k) : NAN;
    double gap = sd >= 0 ? ONE_CLASS_HIDDEN_SDS * sd : INFINITY;
    free(x);
    return gap;
}

void mt_near_map_free(mt_near_map *m)
{
    if (!m)
        return;
    free(m->mark);
    free(m->near_share);
    free(m->group);
    memset(m, 0, sizeof *m);
}

/* The pooled decision: two populations over all SMs' hit lines, and the
 * cut between them.  *gap = distance of the class means (0: one class). */
static mt_err pooled_split(const double *v, const uint8_t *mark, size_t n, double *buf,
                           mt_near_map *m, double *gap)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (mark[i] != MT_LINE_MISS)
            buf[k++] = v[i];
    *gap = 0;
    m->threshold = NAN;
    if (k < 2)
        return MT_OK;
    mt_split sp;
    mt_err err = mt_split_two_classes(buf, k, &sp);
    if (err != MT_OK || !sp.separated)
        return err;
    mt_bimodality bm;
    if ((err = mt_bimodality_test(buf, k, sp.threshold, &bm)) != MT_OK)
        return err;
    m->delta_bic = bm.delta_bic;
    m->two_classes = bm.two_classes;
    if (m->two_classes) {
        m->threshold = sp.threshold;
        *gap = sp.high_mean - sp.low_mean;
    }
    return MT_OK;
}

/* SM s's cut: its own Otsu cut when that falls within half the pooled gap
 * of the pooled cut (an SM may sit further from both partitions than
 * another), else the pooled cut (its own split found no such gap).
 * Marks its lines and returns the expected misclassified share. */
static mt_err classify_sm(const double *v, uint8_t *mark, size_t n_lines, double *buf,
                          const mt_near_map *m, double gap, double *share, double *misclass)
{
    size_t k = 0;
    for (size_t i = 0; i < n_lines; i++)
        if (mark[i] != MT_LINE_MISS)
            buf[k++] = v[i];
    *share = k ? 1 : 0;
    *misclass = 0;
    if (!m->two_classes || k < 2)
        return MT_OK;
    double thr = m->threshold;
    mt_split sp;
    mt_err err = mt_split_two_classes(buf, k, &sp);
    if (err != MT_OK)
        return err;
    if (sp.separated && fabs(sp.threshold - m->threshold) < gap / 2)
        thr = sp.threshold;
    size_t near = 0;
    for (size_t i = 0; i < n_lines; i++)
        if (mark[i] != MT_LINE_MISS) {
            mark[i] = v[i] > thr ? MT_LINE_FAR : MT_LINE_NEAR;
            near += mark[i] == MT_LINE_NEAR;
        }
    *share = (double)near / (double)k;
    *misclass = mt_near_far_foreign_share(buf, k, thr);
    return MT_OK;
}

static double jaccard_near(const uint8_t *a, const uint8_t *b, size_t n)
{
    size_t both = 0, either = 0;
    for (size_t i = 0; i < n; i++) {
        bool na = a[i] == MT_LINE_NEAR, nb = b[i] == MT_LINE_NEAR;
        both += na && nb;
        either += na || nb;
    }
    return either ? (double)both / (double)either : 1;
}

/* Groups: each SM joins the first group whose first SM's near set it
 * matches (MAP_SAME_GROUP_JACCARD), else starts a new one. */
static void group_sms(mt_near_map *m, size_t *first)
{
    m->n_groups = 0;
    for (size_t s = 0; s < m->n_sm; s++) {
        const uint8_t *ms = m->mark + s * m->n_lines;
        size_t g = 0;
        while (g < m->n_groups &&
               jaccard_near(ms, m->mark + first[g] * m->n_lines, m->n_lines) <
                   MAP_SAME_GROUP_JACCARD)
            g++;
        if (g == m->n_groups)
            first[m->n_groups++] = s;
        m->group[s] = (int)g;
    }
}

/* Disagreement with each group's majority, and lines that the majorities
 * of several groups see as near.  count: n_groups x (n_lines + 1) scratch. */
static void check_groups(mt_near_map *m, unsigned *count)
{
    size_t L = m->n_lines, G = m->n_groups;
    unsigned *members = count + G * L;
    memset(count, 0, (G * L + G) * sizeof *count);
    for (size_t s = 0; s < m->n_sm; s++) {
        members[m->group[s]]++;
        for (size_t k = 0; k < L; k++)
            count[(size_t)m->group[s] * L + k] += m->mark[s * L + k] == MT_LINE_NEAR;
    }
    double dis = 0;
    for (size_t s = 0; s < m->n_sm; s++) {
        size_t g = (size_t)m->group[s], wrong = 0, hits = 0;
        for (size_t k = 0; k < L; k++) {
            uint8_t mk = m->mark[s * L + k];
            if (mk == MT_LINE_MISS)
                continue;
            hits++;
            bool major_near = 2 * count[g * L + k] > members[g];
            wrong += (mk == MT_LINE_NEAR) != major_near;
        }
        dis += hits ? (double)wrong / (double)hits : 0;
    }
    m->disagree = m->n_sm ? dis / (double)m->n_sm : 0;
    size_t shared = 0;
    for (size_t k = 0; k < L; k++) {
        size_t near_for = 0;
        for (size_t g = 0; g < G; g++)
            near_for += 2 * count[g * L + k] > members[g];
        shared += near_for > 1;
    }
    m->overlap = L ? (double)shared / (double)L : 0;
}

mt_err mt_near_map_build(const double *v, size_t n_sm, size_t n_lines, double miss_threshold,
                         mt_near_map *out)
{
    memset(out, 0, sizeof *out);
    if (!v || !n_sm || !n_lines)
        return MT_ERR_INVALID_ARG;
    size_t n = n_sm * n_lines;
    out->n_sm = n_sm;
    out->n_lines = n_lines;
    out->mark = malloc(n);
    out->near_share = calloc(n_sm, sizeof *out->near_share);
    out->group = calloc(n_sm, sizeof *out->group);
    double *buf = malloc(n * sizeof *buf);
    unsigned *count = malloc((n + n_sm) * sizeof *count); /* groups <= SMs */
    size_t *first = malloc(n_sm * sizeof *first);
    mt_err err = MT_OK;
    if (!out->mark || !out->near_share || !out->group || !buf || !count || !first) {
        err = MT_ERR_NOMEM;
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        out->mark[i] = !isnan(miss_threshold) && v[i] > miss_threshold ? MT_LINE_MISS
                                                                        : MT_LINE_NEAR;
        out->misses += out->mark[i] == MT_LINE_MISS;
    }
    double gap;
    if ((err = pooled_split(v, out->mark, n, buf, out, &gap)) != MT_OK)
        goto done;
    double mis = 0;
    for (size_t s = 0; s < n_sm; s++) {
        double one;
        err = classify_sm(v + s * n_lines, out->mark + s * n_lines, n_lines, buf, out, gap,
                          &out->near_share[s], &one);
        if (err != MT_OK)
            goto done;
        mis += one;
    }
    out->misclass = mis / (double)n_sm;
    group_sms(out, first);
    check_groups(out, count);
done:
    free(first);
    free(buf);
    free(count);
    if (err != MT_OK)
        mt_near_map_free(out);
    return err;
}

/* Replacement policy from per-set access sequences (probe_policy.c): what
 * each candidate policy predicts as the victim of one sequence within one
 * set, and which candidate the observed victims fit.
 *
 * A sequence is a list of line ids within one set of W ways: 0..W-1 are
 * the fill lines A0..A(W-1), W is one new line B.  The models are the
 * textbook policies (and the simulator's, docs/spec-format.md): empty ways
 * fill in order 0, 1, ...; LRU evicts the line used longest ago; FIFO the
 * line filled longest ago; tree pseudo-LRU follows ways - 1 bits that point
 * away from each access. */
#include <stdlib.h>
#include <string.h>

#include "analysis.h"

#define MAX_WAYS MT_POLICY_SETS_MAX_WAYS

/* Way holding line id `line`, or -1. */
static int find_way(const int *holds, uint32_t ways, uint32_t line)
{
    for (uint32_t w = 0; w < ways; w++)
        if (holds[w] == (int)line)
            return (int)w;
    return -1;
}

static void plru_point_away(uint8_t *tree, uint32_t ways, uint32_t w)
{
    for (uint32_t node = ways + w; node > 1; node >>= 1)
        tree[node >> 1] = (node & 1) ? 0 : 1;
}

int mt_policy_predict_victim(mt_policy_model model, uint32_t ways, const uint32_t *seq, size_t n)
{
    if (ways == 0 || ways > MAX_WAYS)
        return -1;
    if (model == MT_MODEL_PLRU && (ways & (ways - 1)) != 0)
        return -1; /* the tree needs a power-of-two way count */
    int holds[MAX_WAYS];
    uint64_t stamp[MAX_WAYS] = {0}; /* 0: empty */
    uint8_t tree[MAX_WAYS] = {0};
    for (uint32_t w = 0; w < ways; w++)
        holds[w] = -1;
    int victim_line = -1;
    for (size_t i = 0; i < n; i++) {
        uint64_t now = i + 1;
        int w = find_way(holds, ways, seq[i]);
        if (w >= 0) { /* hit: LRU and the tree remember it, FIFO does not */
            if (model == MT_MODEL_LRU)
                stamp[w] = now;
            if (model == MT_MODEL_PLRU)
                plru_point_away(tree, ways, (uint32_t)w);
            continue;
        }
        uint32_t v = 0; /* oldest stamp: the first empty way, else LRU/FIFO's victim */
        for (uint32_t k = 1; k < ways; k++)
            if (stamp[k] < stamp[v])
                v = k;
        if (stamp[v] != 0 && model == MT_MODEL_PLRU) {
            uint32_t node = 1;
            while (node < ways)
                node = 2 * node + tree[node];
            v = node - ways;
        }
        if (stamp[v] != 0)
            victim_line = holds[v];
        holds[v] = (int)seq[i];
        stamp[v] = now;
        if (model == MT_MODEL_PLRU)
            plru_point_away(tree, ways, v);
    }
    return victim_line;
}

/* The most frequent line and the runner-up's count. */
static void top_two(const uint64_t *count, uint32_t ways, uint32_t *top, uint64_t *second)
{
    *top = 0;
    for (uint32_t j = 1; j < ways; j++)
        if (count[j] > count[*top])
            *top = j;
    *second = 0;
    for (uint32_t j = 0; j < ways; j++)
        if (j != *top && count[j] > *second)
            *second = count[j];
}

static double min1(double p)
{
    return p > 1.0 ? 1.0 : p;
}

mt_policy_sets_verdict mt_classify_policy_sets(const mt_policy_sets_obs *obs,
                                               const mt_policy_sets_limits *lim)
{
    mt_policy_sets_verdict v = {.cls = MT_SETS_NONE_OF_THESE, .p_other = 1.0, .top_line = -1};
    uint32_t W = obs->ways;
    uint64_t victims = 0, none = 0;
    for (size_t t = 0; t < obs->n_tests; t++) {
        none += obs->test[t].no_miss;
        for (uint32_t j = 0; j < W; j++)
            victims += obs->test[t].victim[j];
    }
    v.samples = victims + none;
    if (v.samples == 0)
        return v;
    v.no_miss_share = (double)none / (double)v.samples;
    /* Deterministic candidates: how many samples hit their predicted
     * victim.  Ties in prediction (LRU and the tree at 2 ways) keep both. */
    for (int m = 0; m < MT_MODEL_COUNT; m++) {
        uint64_t match = 0;
        bool defined = true;
        for (size_t t = 0; t < obs->n_tests && defined; t++) {
            int want = obs->test[t].predicted[m];
            defined = want >= 0;
            if (defined)
                match += obs->test[t].victim[want];
        }
        v.match_share[m] = defined ? (double)match / (double)v.samples : 0.0;
        if (defined && v.match_share[m] >= 1.0 - lim->stray_share) {
            v.fits |= 1u << m;
            /* Random or Fermi's policy names a given line as victim with
             * chance at most 3 / (W + 2) per sample, whatever its history. */
            double p = mt_binom_at_least(v.samples, match, 3.0 / (W + 2.0));
            if (v.cls != MT_SETS_DETERMINISTIC || p > v.p_other)
                v.p_other = p; /* the weakest of the fitting candidates */
            v.cls = MT_SETS_DETERMINISTIC;
        }
    }
    if (v.cls == MT_SETS_DETERMINISTIC)
        return v;
    /* Without order: the victim does not depend on the history, so every
     * test's victims pool.  Random: uniform over the lines; Fermi: one
     * line (the one its preferred way holds) 3 : 1 over each other. */
    uint64_t pooled[MAX_WAYS] = {0};
    for (size_t t = 0; t < obs->n_tests; t++)
        for (uint32_t j = 0; j < W; j++)
            pooled[j] += obs->test[t].victim[j];
    uint32_t top;
    uint64_t second;
    top_two(pooled, W, &top, &second);
    v.top_line = (int)top;
    v.top_share = victims ? (double)pooled[top] / (double)victims : 0.0;
    if (none > lim->stray_share * (double)v.samples || victims == 0)
        return v; /* the new line often evicted nothing of this set: none of these */
    double q = 3.0 / (W + 2.0), other = 1.0 / (W + 2.0);
    /* Bonferroni over the W lines: the largest count under uniform. */
    v.p_uniform = min1(W * mt_binom_at_least(victims, pooled[top], 1.0 / W));
    double p_fermi_low = mt_binom_at_most(victims, pooled[top], q);
    double p_fermi_high = mt_binom_at_least(victims, pooled[top], q);
    double p_fermi_rest = min1((W - 1) * mt_binom_at_least(victims, second, other));
    v.p_fermi = p_fermi_low < p_fermi_high ? p_fermi_low : p_fermi_high;
    if (p_fermi_rest < v.p_fermi)
        v.p_fermi = p_fermi_rest;
    bool uniform = v.p_uniform >= lim->alpha, fermi = W > 1 && v.p_fermi >= lim->alpha;
    v.cls = uniform && fermi ? MT_SETS_RANDOM_OR_FERMI
            : uniform        ? MT_SETS_RANDOM
            : fermi          ? MT_SETS_FERMI
                             : MT_SETS_NONE_OF_THESE;
    return v;
}

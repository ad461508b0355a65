/* L2 near/far map: which lines each SM sees as near, which SMs see the
 * same map (the partitions they are attached to), the share of lines near
 * and the near and far latencies per group; checked against the L2
 * probe's far latency and partition size (docs/method.md, "L2 near/far
 * map"). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "confidence.h"
#include "l2_near_map.h"
#include "latency_precision.h"
#include "probe_internal.h"

/* 33 lines of 128 B: consecutive elements fall in different 4 KiB pages and
 * at different offsets in them, so the chain samples the address bits a
 * partition hash may use (a 128 B stride would stay inside a few pages). */
#define MAP_STRIDE 4224u
/* Lines of the chain: the near share of N lines homed by a hash has a
 * binomial error of sqrt(f (1 - f) / N), 0.024 for two partitions; 432
 * lines x 8 laps would fill the cuda backend's 3456 fine loads. */
#define MAP_LINES 432u
/* Timed laps: each line's latency is the median of its laps, whose noise
 * shrinks by about sqrt(laps) (probe_l2.c's L2_ELEMENT_MIN_LAPS reasoning);
 * at least 3 so one timer outlier cannot move a line.  4 in the first
 * round: on the H100 the classes are ~27 cycles apart with a spread of a
 * few cycles, so 4 laps separate them as well as 8, and the map costs one
 * launch per SM (132): half the loads saved 35 ms of the one-second report.
 * Where the classes overlap, more rounds add laps (MAP_MAX_ROUNDS). */
#define MAP_LAPS 4u
#define MAP_MIN_LAPS 3u
/* Rounds of MAP_LAPS laps at most: when the classes overlap, or SM 0's
 * group's class latencies are not yet pinned to the cycle, each round adds
 * laps to every line's median and loads to every class median (six rounds:
 * 24 laps, half the noise of 8), at the cost of one more experiment per SM. */
#define MAP_MAX_ROUNDS 6
/* The chain uses at most this share of the capacity one SM can use, so
 * every line stays resident under any placement (a hashed index can fill
 * some sets twice as much as the mean). */
#define MAP_CAPACITY_SHARE 0.25
/* Fewer lines give a near share too coarse to compare (1/16 = 6%). */
#define MAP_MIN_LINES 16u
/* SMs measured: all of today's GPUs (H100: 132); beyond, the map covers
 * the first ones (one experiment each, ~1 ms on a GPU). */
#define MAP_MAX_SMS 256
/* The share of the L2 one SM can use (l2.partition_size / l2.size) and the
 * near share agree within MAP_SHARE_Z (l2_near_map.h) binomial errors of
 * the near share ... */
/* ... plus this share of the near share: the capacity before the first
 * eviction is below the partition (hashed placement, non-LRU replacement:
 * the H100 uses 22.9 of 25 MiB, 8% less). */
#define MAP_PARTITION_SLACK 0.15
/* The far latency of SM 0's group and the L2 probe's far class (SM 0,
 * another chain) agree within this many cycles: each is pinned to
 * MT_LATENCY_MAX_HALF_WIDTH, so twice that plus one cycle of rounding. */
#define MAP_FAR_AGREE_CYCLES (2 * MT_LATENCY_MAX_HALF_WIDTH + 1)
/* Coverage of all the map's latency intervals together (simultaneous_level):
 * a map is one finding for its reader, and one GPU in a thousand may see
 * one of its latencies outside its interval, as one latency in twenty
 * (MT_LATENCY_CI_LEVEL) may. */
#define MAP_FAMILY_LEVEL 0.999
/* Groups reported one by one (the map names them all); their findings are
 * declared for groups 0-7 (GROUP_FINDINGS below). */
#define MAP_MAX_GROUPS_SHOWN 8
/* A map whose classes and groups passed every check: a misclassified line
 * or an unseen partition (SMs attached to it not measured) is still
 * possible. */
#define MT_CONF_NEAR_MAP 0.9
/* One latency class from every SM: a far partition a few cycles from the
 * near one would look the same (as MT_CONF_ABSENT_BY_LATENCY). */
#define MT_CONF_MAP_ONE_CLASS 0.8

/* Group labels in the map text: one character per SM. */
static const char LABELS[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ+/";
#define MAP_LABELS ((int)sizeof LABELS - 1)

/* The map as text: one label per SM; when that does not fit, runs as
 * "label*count" separated by spaces; cut with "..." when even that does
 * not fit (the note says so).  Returns false when cut. */
static bool map_text(const int *group, size_t n, char *out, size_t cap)
{
    if (n < cap) {
        for (size_t s = 0; s < n; s++)
            out[s] = group[s] < MAP_LABELS ? LABELS[group[s]] : '?';
        out[n] = '\0';
        return true;
    }
    size_t len = 0;
    out[0] = '\0';
    for (size_t s = 0; s < n;) {
        size_t run = 1;
        while (s + run < n && group[s + run] == group[s])
            run++;
        char tok[32];
        int w = snprintf(tok, sizeof tok, "%s%c*%zu", len ? " " : "",
                         group[s] < MAP_LABELS ? LABELS[group[s]] : '?', run);
        if (len + (size_t)w + 4 >= cap) {
            memcpy(out + len, " ...", 5);
            return false;
        }
        memcpy(out + len, tok, (size_t)w + 1);
        len += (size_t)w;
        s += run;
    }
    return true;
}

/* Lines of the chain: MAP_LINES, fewer when the capacity one SM can use
 * (the partition size, or a 64th of the L2 when it is not known) or the
 * path limit hold fewer. */
static uint32_t chain_lines(const mt_probe_ctx *c)
{
    const mt_finding *ps = mt_get(c, "l2", "partition_size");
    const mt_finding *ln = mt_get(c, "l2", "line");
    double cap = mt_partition_bytes(ps)       ? (double)mt_partition_bytes(ps)
                 : ps->kind == MT_FIND_ABSENT ? (double)c->dev.l2_bytes
                                              : (double)c->dev.l2_bytes / 64;
    double line = ln->kind == MT_FIND_VALUE && ln->value > 0 ? ln->value : 256;
    double n = floor(MAP_CAPACITY_SHARE * cap / line);
    uint64_t lim = c->dev.path_limit_bytes[MT_PATH_GLOBAL_CG];
    if (lim && n > (double)(lim / MAP_STRIDE))
        n = (double)(lim / MAP_STRIDE);
    return n >= MAP_LINES ? MAP_LINES : (uint32_t)n;
}

/* Every SM's samples over the rounds run so far. */
typedef struct {
    size_t sms;
    uint32_t lines, laps, loads; /* loads per experiment: lines x laps */
    int rounds;                  /* rounds run */
    double *raw; /* raw[(s * MAP_MAX_ROUNDS + r) * loads + i]: overhead removed, NAN if absent */
    double *v;   /* v[s * lines + k]: median of line k's samples from SM s, all rounds */
} map_samples;

/* Adds one round's results and recomputes the line medians: the fine
 * chase measures whole laps from element 0 (backend.h), so samples k,
 * k + lines, ... of every round are line k. */
static mt_err add_round(mt_probe_ctx *c, const mt_result *r, map_samples *ms)
{
    double one[MAP_LAPS * MAP_MAX_ROUNDS];
    int round = ms->rounds++;
    for (size_t s = 0; s < ms->sms; s++) {
        size_t n;
        double *x = mt_fine_samples(c, &r[s], 0, &n);
        if (!x)
            return mt_fail(c->ei, MT_ERR_NOMEM, "out of memory reading samples");
        double *dst = ms->raw + (s * MAP_MAX_ROUNDS + (size_t)round) * ms->loads;
        for (uint32_t i = 0; i < ms->loads; i++)
            dst[i] = i < n ? x[i] : NAN;
        free(x);
        for (uint32_t k = 0; k < ms->lines; k++) {
            size_t m = 0;
            for (int q = 0; q < ms->rounds; q++) {
                const double *src = ms->raw + (s * MAP_MAX_ROUNDS + (size_t)q) * ms->loads;
                for (uint32_t i = k; i < ms->loads && m < sizeof one / sizeof *one; i += ms->lines)
                    if (!isnan(src[i]))
                        one[m++] = src[i];
            }
            ms->v[s * ms->lines + k] = m ? mt_median(one, m) : NAN;
        }
    }
    return MT_OK;
}

/* The samples of one class's lines (near or far) from the SMs of group g
 * (g < 0: every SM): a class latency is the median of the loads, whose
 * interval holds the latency as the loads are independent (the medians of
 * a few lines would give a coarse one). */
static size_t class_values(const mt_near_map *m, const map_samples *ms, int g, int cls,
                           double *out)
{
    size_t k = 0;
    for (size_t s = 0; s < m->n_sm; s++) {
        if (g >= 0 && m->group[s] != g)
            continue;
        for (int q = 0; q < ms->rounds; q++) {
            const double *src = ms->raw + (s * MAP_MAX_ROUNDS + (size_t)q) * ms->loads;
            for (uint32_t i = 0; i < ms->loads; i++)
                if (m->mark[s * m->n_lines + i % m->n_lines] == cls && !isnan(src[i]))
                    out[k++] = src[i];
        }
    }
    return k;
}

/* A class latency finding: the median of the loads with its interval at
 * `level` (one of the map's family of intervals: simultaneous_level). */
static mt_finding class_latency(const double *x, size_t n, double level, double conf,
                                const char *what)
{
    mt_median_interval ci;
    if (!n || mt_median_ci(x, n, level, &ci) != MT_OK)
        return (mt_finding){.kind = MT_FIND_NONE};
    mt_finding f = mt_find_value(ci.median, "cycles", MT_SRC_MEASURED, "l2-map line medians", conf,
                                 "median of %zu loads of the lines %s, timer overhead removed",
                                 n, what);
    mt_finding_set_precision(&f, &ci);
    return f;
}

/* The map reports up to 2 x MAP_MAX_GROUPS_SHOWN + 1 latencies, each with
 * an interval: at MT_LATENCY_CI_LEVEL apiece, one in twenty would miss its
 * latency, and a report of 17 of them would hold a wrong one more often
 * than not.  Each interval gets the level that gives the whole family
 * MAP_FAMILY_LEVEL (Bonferroni: the misses' probabilities add up). */
static double simultaneous_level(size_t intervals)
{
    return mt_bonferroni_level(MAP_FAMILY_LEVEL, intervals);
}

/* A near share of the chain's lines: the share of all addresses near is
 * known to its binomial error over the lines; a value when that error is
 * at most MAP_SHARE_MAX_ERROR, else the range of MAP_SHARE_Z errors. */
static mt_finding share_finding(double share, size_t lines, double conf, const char *what)
{
    /* To a thousandth (a share of at most 432 lines): a mean of shares
     * such as 0.125000000000003 would print differently from the 0.125 a
     * report read back holds. */
    share = round(share * 1000) / 1000;
    double err = sqrt(share * (1 - share) / (double)lines);
    if (err <= MAP_SHARE_MAX_ERROR)
        return mt_find_value(share, "", MT_SRC_MEASURED, "l2-map otsu per SM", conf,
                             "%s; binomial error %.3f over %zu lines", what, err, lines);
    double lo = share - MAP_SHARE_Z * err, hi = share + MAP_SHARE_Z * err;
    return mt_find_range(lo < 0 ? 0 : lo, hi > 1 ? 1 : hi, "", "l2-map otsu per SM", conf,
                         "%s; %.3f, a range: its binomial error over %zu lines, %.3f, is above %g",
                         what, share, lines, err, MAP_SHARE_MAX_ERROR);
}

/* Far minus near: the difference of the class medians, a range (the
 * difference of their intervals) when either is a range. */
static mt_finding penalty_finding(const double *near, size_t nn, const double *far, size_t nf,
                                  double level, double conf)
{
    mt_median_interval a, b;
    if (!nn || !nf || mt_median_ci(near, nn, level, &a) != MT_OK ||
        mt_median_ci(far, nf, level, &b) != MT_OK)
        return (mt_finding){.kind = MT_FIND_NONE};
    const char *how = "far minus near over every SM";
    if (mt_latency_precise(&a) && mt_latency_precise(&b))
        return mt_find_value(b.median - a.median, "cycles", MT_SRC_MEASURED, "l2-map class medians",
                             conf, "%s (%.0f vs %.0f cycles: far is %.2fx near)", how, b.median,
                             a.median, b.median / a.median);
    return mt_find_range(b.lo - a.hi, b.hi - a.lo, "cycles", "l2-map class medians",
                         conf < a.level ? conf : a.level,
                         "%s (%.0f vs %.0f cycles): a range, the difference of their intervals "
                         "(%.0f-%.0f, %.0f-%.0f), wider than +-%g cycles", how, b.median, a.median,
                         b.lo, b.hi, a.lo, a.hi, MT_LATENCY_MAX_HALF_WIDTH);
}

/* Mean near share of the SMs of group g (g < 0: all). */
static double mean_share(const mt_near_map *m, int g)
{
    double sum = 0;
    size_t n = 0;
    for (size_t s = 0; s < m->n_sm; s++)
        if (g < 0 || m->group[s] == g) {
            sum += m->near_share[s];
            n++;
        }
    return n ? sum / (double)n : NAN;
}

/* The SMs of group g as a list ("0,2,4"), cut and followed by their count
 * when it does not fit. */
static void group_sms_text(const mt_near_map *m, int g, char *out, size_t cap)
{
    size_t len = 0, count = 0;
    out[0] = '\0';
    for (size_t s = 0; s < m->n_sm && len + 16 < cap; s++)
        if (m->group[s] == g) {
            len += (size_t)snprintf(out + len, cap - len, "%s%zu", count ? "," : "", s);
            count++;
        }
    size_t all = 0;
    for (size_t s = 0; s < m->n_sm; s++)
        all += m->group[s] == g;
    if (count < all)
        snprintf(out + len, cap - len, ",... (%zu SMs)", all);
}

/* The checks between findings (docs/method.md): returns why the map is
 * not to be trusted ("" when nothing contradicts it), appending to why. */
static void check_map(const mt_probe_ctx *c, const mt_near_map *m, double share,
                      double far0, double hidden, char *why, size_t cap)
{
    size_t len = strlen(why);
#define WHY(...) (len += (size_t)snprintf(why + len, len < cap ? cap - len : 0, __VA_ARGS__))
    if (m->misclass > MAP_MAX_MISCLASS)
        WHY("%sthe classes overlap: %.1f%% of the lines expected misclassified",
            len ? "; " : "", 100 * m->misclass);
    if (m->disagree > MAP_MAX_MISCLASS)
        WHY("%sSMs disagree with their group on %.1f%% of the lines", len ? "; " : "",
            100 * m->disagree);
    /* The chain fits a quarter of one SM's share: lines that missed are
     * another tenant's evictions or a hit threshold below the far class
     * (then far lines were left out as misses). */
    double missed = (double)m->misses / (double)(m->n_sm * m->n_lines);
    if (missed > MAP_MAX_MISCLASS)
        WHY("%s%.1f%% of the line latencies are above the L2 hit threshold", len ? "; " : "",
            100 * missed);
    if (m->overlap > MAP_MAX_MISCLASS)
        WHY("%s%.1f%% of the lines are near for two groups (a line has one home)",
            len ? "; " : "", 100 * m->overlap);
    const mt_finding *ps = mt_get(c, "l2", "partition_size");
    /* One class with line latencies too spread to rule out a far class
     * (mt_one_class_hidden_gap), while no trusted partition test says the
     * L2 has none: the "near" lines may be near and far ones together. */
    bool no_partitions = ps->kind == MT_FIND_ABSENT && ps->confidence >= MT_CONF_TRUSTED;
    if (!m->two_classes && !no_partitions && hidden > MT_LATENCY_MAX_HALF_WIDTH)
        WHY("%sone latency class, but its line latencies could hide a far class up to %.0f "
            "cycles away", len ? "; " : "", hidden);
    if (ps->confidence >= MT_CONF_TRUSTED && c->dev.l2_bytes) {
        /* A range (where the chain lies decides the first eviction) is
         * compared at its point nearest to the share. */
        double l2 = (double)c->dev.l2_bytes;
        double want = ps->kind == MT_FIND_VALUE   ? ps->value / l2
                      : ps->kind == MT_FIND_RANGE ? fmin(fmax(share, ps->lo / l2), ps->hi / l2)
                      : ps->kind == MT_FIND_ABSENT ? 1.0
                                                   : NAN;
        double tol = MAP_SHARE_Z * sqrt(share * (1 - share) / (double)m->n_lines) +
                     MAP_PARTITION_SLACK * share;
        if (!isnan(want) && fabs(want - share) > tol)
            WHY("%snear share %.3f but one SM uses %.3f of the L2 (l2.partition_size; "
                "tolerance %.3f)", len ? "; " : "", share, want, tol);
    }
    const mt_finding *far = mt_get(c, "l2", "far_latency");
    if (far->kind == MT_FIND_VALUE && far->confidence >= MT_CONF_TRUSTED && !isnan(far0) &&
        fabs(far->value - far0) > MAP_FAR_AGREE_CYCLES)
        WHY("%sSM 0's far latency %.1f but l2.far_latency %.1f cycles", len ? "; " : "", far0,
            far->value);
#undef WHY
}

/* Sets a finding of the map, doubted when why says so; a finding with
 * nothing measured (a group without near lines) is left unset. */
static void set_or_doubt(mt_probe_ctx *c, const char *name, mt_finding f, const char *why)
{
    if (f.kind == MT_FIND_NONE)
        return;
    if (why[0])
        mt_finding_doubt(&f, MT_CONF_INCONSISTENT, "contradicted: %s", why);
    mt_set(c, "l2", name, &f);
}

/* The far gap one class of line latencies may hide (every SM's lines that
 * hit; buf holds n_sm x n_lines values). */
static double hit_lines_hidden_gap(const mt_near_map *m, const map_samples *ms, double *buf)
{
    size_t k = 0;
    for (size_t i = 0; i < m->n_sm * m->n_lines; i++)
        if (m->mark[i] != MT_LINE_MISS)
            buf[k++] = ms->v[i];
    return mt_one_class_hidden_gap(buf, k);
}

/* Findings of the map: the map itself, groups, near share, far penalty
 * and per group its SMs' near share and latencies. */
static mt_err report_map(mt_probe_ctx *c, const mt_near_map *m, const map_samples *ms)
{
    size_t n = m->n_sm * ms->loads * (size_t)ms->rounds;
    double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    if (!x || !y) {
        free(x);
        free(y);
        return mt_fail(c->ei, MT_ERR_NOMEM, "out of memory");
    }
    double conf = m->two_classes ? MT_CONF_NEAR_MAP : MT_CONF_MAP_ONE_CLASS;
    size_t shown = m->n_groups < MAP_MAX_GROUPS_SHOWN ? m->n_groups : MAP_MAX_GROUPS_SHOWN;
    double level = simultaneous_level(m->two_classes ? 2 * shown + 1 : shown);
    double share = mean_share(m, -1);
    /* SM 0's group (group 0): its far latency is the L2 probe's far class. */
    size_t nf = class_values(m, ms, 0, MT_LINE_FAR, x);
    double far0 = nf ? mt_median(x, nf) : NAN;
    double hidden = m->two_classes ? 0 : hit_lines_hidden_gap(m, ms, x);
    char why[240] = "";
    check_map(c, m, share, far0, hidden, why, sizeof why);
    char how[200];
    snprintf(how, sizeof how,
             "%zu lines at a %u B stride, warm, %u laps x %d rounds timed from each of %zu SMs; %s",
             m->n_lines, MAP_STRIDE, ms->laps, ms->rounds, m->n_sm,
             m->two_classes ? "near/far by Otsu per SM" : "one latency class from every SM");
    mt_finding f;
    char text[sizeof f.text];
    bool whole = map_text(m->group, m->n_sm, text, sizeof text);
    f = (mt_finding){.kind = MT_FIND_TEXT, .source = MT_SRC_MEASURED, .confidence = conf};
    snprintf(f.text, sizeof f.text, "%s", text);
    snprintf(f.method, sizeof f.method, "l2-map jaccard groups");
    snprintf(f.note, sizeof f.note,
             "group of each SM from SM 0 (same near lines: Jaccard >= %g)%s; %.150s",
             MAP_SAME_GROUP_JACCARD, whole ? "" : ", cut to fit", how);
    set_or_doubt(c, "sm_map", f, why);
    f = mt_find_value((double)m->n_groups, "count", MT_SRC_MEASURED, "l2-map jaccard groups", conf,
                      "SM groups with different near lines (the L2 partitions SMs are attached "
                      "to); %.1f%% misclassified lines expected, %.1f%% disagreement in groups, "
                      "%.1f%% lines near for two groups",
                      100 * m->misclass, 100 * m->disagree, 100 * m->overlap);
    set_or_doubt(c, "map_groups", f, why);
    char what[160];
    snprintf(what, sizeof what,
             "mean over %zu SMs of the share of their hit lines that are near; %zu of %zu line "
             "latencies missed the L2", m->n_sm, m->misses, m->n_sm * m->n_lines);
    set_or_doubt(c, "near_share", share_finding(share, m->n_lines, conf, what), why);
    if (m->two_classes) {
        size_t a = class_values(m, ms, -1, MT_LINE_NEAR, x);
        size_t b = class_values(m, ms, -1, MT_LINE_FAR, y);
        set_or_doubt(c, "far_penalty", penalty_finding(x, a, y, b, level, conf), why);
    }
    for (int g = 0; g < (int)m->n_groups && g < MAP_MAX_GROUPS_SHOWN; g++) {
        char name[MT_NAME_LEN], sms[80];
        group_sms_text(m, g, sms, sizeof sms);
        snprintf(what, sizeof what, "group %c, SMs %s", LABELS[g], sms);
        snprintf(name, sizeof name, "near_share_g%c", LABELS[g]);
        set_or_doubt(c, name, share_finding(mean_share(m, g), m->n_lines, conf, what), why);
        snprintf(what, sizeof what, "near to group %c", LABELS[g]);
        f = class_latency(x, class_values(m, ms, g, MT_LINE_NEAR, x), level, conf, what);
        snprintf(name, sizeof name, "near_latency_g%c", LABELS[g]);
        set_or_doubt(c, name, f, why);
        if (m->two_classes) {
            snprintf(what, sizeof what, "far from group %c", LABELS[g]);
            f = class_latency(x, class_values(m, ms, g, MT_LINE_FAR, x), level, conf, what);
            snprintf(name, sizeof name, "far_latency_g%c", LABELS[g]);
            set_or_doubt(c, name, f, why);
        }
    }
    free(x);
    free(y);
    return MT_OK;
}

static void note_thresholds(mt_probe_ctx *c)
{
    mt_note_threshold(c, "MAP_LINES", MAP_LINES, "L2 map: lines of the chain timed from every SM");
    mt_note_threshold(c, "MAP_LAPS", MAP_LAPS, "L2 map: laps timed; a line's latency is their median");
    mt_note_threshold(c, "MAP_MIN_LAPS", MAP_MIN_LAPS, "L2 map: fewest laps timed");
    mt_note_threshold(c, "MAP_MAX_ROUNDS", MAP_MAX_ROUNDS,
                      "L2 map: most rounds of MAP_LAPS laps while the classes overlap");
    mt_note_threshold(c, "MAP_CAPACITY_SHARE", MAP_CAPACITY_SHARE,
                      "L2 map: share of one SM's L2 capacity the chain may use");
    mt_note_threshold(c, "MAP_MIN_LINES", MAP_MIN_LINES, "L2 map: fewest lines for a map");
    mt_note_threshold(c, "MAP_MAX_SMS", MAP_MAX_SMS, "L2 map: most SMs measured");
    mt_note_threshold(c, "MAP_SAME_GROUP_JACCARD", MAP_SAME_GROUP_JACCARD,
                      "L2 map: two SMs see the same map if their near lines overlap this much");
    mt_note_threshold(c, "MAP_MAX_MISCLASS", MAP_MAX_MISCLASS,
                      "L2 map: most misclassified, disagreeing or doubly near lines trusted");
    mt_note_threshold(c, "MAP_SHARE_Z", MAP_SHARE_Z,
                      "L2 map: binomial errors between the near share and partition/L2 size");
    mt_note_threshold(c, "MAP_SHARE_MAX_ERROR", MAP_SHARE_MAX_ERROR,
                      "L2 map: a near share with a larger binomial error is a range");
    mt_note_threshold(c, "MAP_FAMILY_LEVEL", MAP_FAMILY_LEVEL,
                      "L2 map: coverage of all its latency intervals together (Bonferroni)");
    mt_note_threshold(c, "MAP_PARTITION_SLACK", MAP_PARTITION_SLACK,
                      "L2 map: relative slack between the near share and partition/L2 size");
    mt_note_threshold(c, "MAP_FAR_AGREE_CYCLES", MAP_FAR_AGREE_CYCLES,
                      "L2 map: SM 0's far latency and l2.far_latency agree within this");
    mt_note_threshold(c, "ONE_CLASS_HIDDEN_SDS", ONE_CLASS_HIDDEN_SDS,
                      "L2: one latency class may hide a far class this many robust sds away");
    mt_note_latency_precision(c);
}

/* Another round is worth its time when the classes overlap (more laps
 * per line shrink each line's noise), or when one class was seen while the
 * partition size shows a partitioned L2 (the gap may still appear). */
/* SM 0's group's class latencies (near, and far with two classes) are
 * pinned to the cycle at the level report_map states them at: these are
 * the L2 latencies of the report (derive_l2_latency_from_map.c), so a map
 * whose first round leaves them ranges runs more rounds, while a quiet GPU
 * stops after one (the H100: 4 laps). */
static bool group0_latencies_pinned(const mt_near_map *m, const map_samples *ms)
{
    size_t shown = m->n_groups < MAP_MAX_GROUPS_SHOWN ? m->n_groups : MAP_MAX_GROUPS_SHOWN;
    double level = simultaneous_level(m->two_classes ? 2 * shown + 1 : shown);
    double *x = malloc(m->n_sm * ms->loads * (size_t)ms->rounds * sizeof *x);
    if (!x)
        return true; /* the report will fail on the same allocation and say so */
    bool pinned = true;
    for (int cls = MT_LINE_NEAR; pinned && cls <= (m->two_classes ? MT_LINE_FAR : MT_LINE_NEAR);
         cls++) {
        mt_median_interval ci;
        size_t n = class_values(m, ms, 0, cls, x);
        pinned = n && mt_median_ci(x, n, level, &ci) == MT_OK && mt_latency_precise(&ci);
    }
    free(x);
    return pinned;
}

static bool another_round(const mt_probe_ctx *c, const mt_near_map *m, const map_samples *ms)
{
    /* One class where the capacity test saw one SM use part of the L2: a
     * far class may hide under the noise, so more rounds.  Whatever the
     * partition's confidence: the L2 probe doubts a partition exactly when
     * it saw no far class (probe_l2.c, partition_needs_classes), which is
     * the case these rounds are for. */
    const mt_finding *ps = mt_get(c, "l2", "partition_size");
    if (!m->two_classes && mt_partition_bytes(ps))
        return true;
    if (m->two_classes && (m->misclass > MAP_MAX_MISCLASS || m->disagree > MAP_MAX_MISCLASS))
        return true;
    return !group0_latencies_pinned(m, ms);
}

/* Rounds of one experiment per SM until the map is clear or
 * MAP_MAX_ROUNDS ran; a round's warm-up is one lap longer than the last
 * one's, which makes it a new experiment (a simulator repeats the noise of
 * an experiment it ran before). */
static mt_err measure_map(mt_probe_ctx *c, map_samples *ms, mt_near_map *m)
{
    mt_experiment *e = malloc(ms->sms * sizeof *e);
    mt_result *r = calloc(ms->sms, sizeof *r);
    if (!e || !r) {
        free(e);
        free(r);
        return mt_fail(c->ei, MT_ERR_NOMEM, "out of memory");
    }
    const mt_cache_state *l2 = &c->cs[MT_CACHE_L2];
    mt_err err = MT_OK;
    bool built = false;
    for (int round = 0; round < MAP_MAX_ROUNDS && err == MT_OK; round++) {
        if (built && !another_round(c, m, ms))
            break;
        if (built)
            mt_near_map_free(m);
        built = false;
        for (size_t s = 0; s < ms->sms; s++) {
            e[s] = mt_exp_chase(MT_PATH_GLOBAL_CG, (uint64_t)ms->lines * MAP_STRIDE, MAP_STRIDE,
                                1 + (uint32_t)round, ms->loads, MT_MODE_FINE);
            e[s].sm = (int)s;
        }
        if ((err = mt_run(c, e, ms->sms, r)) != MT_OK)
            break;
        err = add_round(c, r, ms);
        mt_results_free(r, ms->sms);
        if (err != MT_OK)
            break;
        err = mt_near_map_build(ms->v, ms->sms, ms->lines, l2->hit_known ? l2->hit_threshold : NAN,
                                m);
        if (err != MT_OK)
            err = mt_fail(c->ei, err, "L2 near/far map: %s", mt_strerror(err));
        built = err == MT_OK;
    }
    free(e);
    free(r);
    return err;
}

static mt_err probe_l2_map(mt_probe_ctx *c)
{
    mt_mark_probed(c, "l2");
    note_thresholds(c);
    map_samples ms = {.lines = chain_lines(c)};
    ms.laps = ms.lines ? c->dev.max_fine_loads / ms.lines : 0;
    if (ms.laps > MAP_LAPS)
        ms.laps = MAP_LAPS;
    if (ms.lines < MAP_MIN_LINES || ms.laps < MAP_MIN_LAPS) {
        mt_finding f = {.kind = MT_FIND_NONE, .source = MT_SRC_MEASURED};
        snprintf(f.note, sizeof f.note,
                 "a chain of %u lines (%u laps) is all one SM's L2 share and the fine-load limit "
                 "allow: fewer than %u lines or %u laps", ms.lines, ms.laps, MAP_MIN_LINES,
                 MAP_MIN_LAPS);
        mt_set(c, "l2", "sm_map", &f);
        return MT_OK;
    }
    ms.loads = ms.lines * ms.laps;
    ms.sms = c->dev.sm_count < MAP_MAX_SMS ? (size_t)c->dev.sm_count : MAP_MAX_SMS;
    if (ms.sms < 1)
        ms.sms = 1;
    mt_progress(c, "L2 near/far map: %u lines from each of %zu SMs", ms.lines, ms.sms);
    ms.v = malloc(ms.sms * ms.lines * sizeof *ms.v);
    ms.raw = malloc(ms.sms * MAP_MAX_ROUNDS * ms.loads * sizeof *ms.raw);
    mt_err err = MT_OK;
    mt_near_map m;
    if (!ms.v || !ms.raw)
        err = mt_fail(c->ei, MT_ERR_NOMEM, "out of memory");
    if (err == MT_OK && (err = measure_map(c, &ms, &m)) == MT_OK) {
        err = report_map(c, &m, &ms);
        mt_near_map_free(&m);
    }
    free(ms.v);
    free(ms.raw);
    return err;
}

/* The findings of group g (g < MAP_MAX_GROUPS_SHOWN), declared one by one
 * rather than as families: the interference guard caps and clears the
 * findings a probe declares, and a family's members are not known to it. */
#define GROUP_FINDINGS(g)                                                                  \
    {"l2.near_share_g" #g, "near share of SM group " #g},                                  \
        {"l2.near_latency_g" #g, "near latency of SM group " #g},                          \
        {"l2.far_latency_g" #g, "far latency of SM group " #g}
static const mt_finding_decl provides[] = {
    {"l2.sm_map", "SM groups by near lines (SM 0 first)"},
    {"l2.map_groups", "SM groups with different near lines"},
    {"l2.near_share", "share of lines near (mean over SMs)"},
    {"l2.far_penalty", "far minus near latency (map)"},
    GROUP_FINDINGS(0), GROUP_FINDINGS(1), GROUP_FINDINGS(2), GROUP_FINDINGS(3),
    GROUP_FINDINGS(4), GROUP_FINDINGS(5), GROUP_FINDINGS(6), GROUP_FINDINGS(7),
    {NULL}};
/* The partition size bounds the chain and is checked against the near
 * share; the far class is checked against SM 0's far latency. */
static const char *const requires[] = {"l2.partition_size", "l2.far_latency", NULL};
const mt_probe_desc mt_probe_l2_map = {
    .name = "l2map", .summary = "L2 near/far map: the SM groups that see the same lines as "
                                "near, their near share and near and far latencies",
    .rank = 61, .provides = provides, .requires = requires, .run = probe_l2_map,
};

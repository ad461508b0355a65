/* The L2 near/far map (probe_l2_map.c): from the median latency of every
 * line of one chain as each SM sees it, which lines are near for which SM,
 * and which SMs see the same map (one group per L2 partition SMs are
 * attached to).  Pure: no experiments, no findings. */
#ifndef MT_PROBES_L2_NEAR_MAP_H
#define MT_PROBES_L2_NEAR_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/error.h"

/* Two SMs see the same map when their near sets overlap by at least this
 * Jaccard index (|A and B| / |A or B|).  Homes are exclusive, so SMs of
 * two partitions have disjoint near sets (index 0), and SMs of one
 * partition the same set up to misclassified lines (index near 1, still
 * above 0.5 with a quarter of the near lines wrong).  A share of lines in
 * common would not do: with 64 partitions two disjoint maps agree on 97%
 * of the lines. */
#define MAP_SAME_GROUP_JACCARD 0.5

/* A map with more misclassified lines than this, expected from the
 * classes' spreads or seen as disagreement inside a group, or with more
 * lines near for two groups at once (a line has one home), is not trusted:
 * 5% misclassified lines make a 1/P near share off by 0.05 and let SMs of
 * one partition fall into two groups. */
#define MAP_MAX_MISCLASS 0.05

/* A near share is stated as a value when its binomial error over the
 * chain's lines is at most this (0.024 for 432 lines and two partitions):
 * shares are read to two decimals.  Beyond, it is a range of MAP_SHARE_Z
 * errors.  The same MAP_SHARE_Z errors bound a stated share wherever it is
 * compared with another finding (probe_l2_map.c's check against the
 * partition size, derive_l2_partition_vs_map.c). */
#define MAP_SHARE_MAX_ERROR 0.025
#define MAP_SHARE_Z 4.0

/* One latency class hides a far class closer than this many robust
 * standard deviations of the values split (line medians or loads): below
 * about 4 sds a far class of 1/2..7/8 of the lines leaves no second mode
 * that BIC prefers on a few hundred values (seed 980 of the random specs:
 * 27 cycles under line medians spread by ~10 cycles, 8 partitions, went
 * unseen).  The latency of one class is then a mean over near and far
 * lines, up to that gap from the near one. */
#define ONE_CLASS_HIDDEN_SDS 4.0

/* Line marks of mt_near_map.mark. */
enum { MT_LINE_NEAR = 0, MT_LINE_FAR = 1, MT_LINE_MISS = 2 };

typedef struct {
    size_t n_sm, n_lines;
    bool two_classes;   /* the pooled line latencies are two populations (BIC) */
    double delta_bic;   /* of that test; 0 when it did not run */
    double threshold;   /* the pooled Otsu cut (one class: NAN) */
    uint8_t *mark;      /* mark[s * n_lines + k]: line k as SM s sees it (MT_LINE_*) */
    double *near_share; /* per SM: near lines over the lines that hit */
    int *group;         /* per SM: its map's group, numbered in order of first SM */
    size_t n_groups;
    /* Expected share of misclassified lines, mean over the SMs: each
     * class's Gaussian tail (robust spread) across the SM's cut
     * (mt_near_far_foreign_share). */
    double misclass;
    /* Mean share of its lines on which an SM disagrees with the majority
     * of its group: 0 for groups of one SM. */
    double disagree;
    /* Share of the lines that the majority of two or more groups sees as
     * near: 0 when every line has one home. */
    double overlap;
    size_t misses; /* (SM, line) pairs above the miss threshold, left out */
} mt_near_map;

/* Builds the map from v[s * n_lines + k], the median latency of line k from
 * SM s (cycles, overhead removed).  Lines slower than miss_threshold (NAN:
 * none) missed the L2 and are neither near nor far.  One class: every line
 * that hits is near, one group.  Free with mt_near_map_free. */
mt_err mt_near_map_build(const double *v, size_t n_sm, size_t n_lines, double miss_threshold,
                         mt_near_map *out);
void mt_near_map_free(mt_near_map *m);

/* Expected share of foreign members in either class of values split at
 * thr: the tail of each class, as a Gaussian of its robust spread, that
 * crosses the cut, relative to the other class's size; 1 when a class is
 * empty or memory runs out (counts as overlapping). */
double mt_near_far_foreign_share(const double *v, size_t n, double thr);

/* The largest near/far gap one latency class of these n values may hide:
 * ONE_CLASS_HIDDEN_SDS robust sds (NAN values left out).  One class stands
 * for the near latency, to the precision a latency is stated, when this is
 * at most MT_LATENCY_MAX_HALF_WIDTH (or a partition test confirms that the
 * L2 has no partitions). */
double mt_one_class_hidden_gap(const double *v, size_t n);

#endif

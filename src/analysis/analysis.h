/* The analysis core: pure functions, arrays in, structs out.
 * No I/O, no globals, no CUDA.  Every threshold is a named constant in
 * thresholds.h with its justification, and every result struct echoes the
 * thresholds it used so reports can print them. */
#ifndef MT_ANALYSIS_H
#define MT_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../core/error.h"

/* ---------- descriptive statistics ---------- */
typedef struct {
    size_t n;
    double mean, stddev, median, min, max, p05, p95;
} mt_stats;

/* NaN-free input assumed; n == 0 gives all zeros. */
mt_stats mt_describe(const double *x, size_t n);

/* Pooled sample standard deviation of `groups` groups of `per_group`
 * samples each, stored one group after another: each sample's deviation
 * from its own group's mean, over groups * (per_group - 1) degrees of
 * freedom.  Repeats of measurements whose means differ but whose noise is
 * the same (one chase at several sizes) estimate that noise together.
 * NaN when there is no degree of freedom. */
double mt_pooled_sd(const double *x, size_t groups, size_t per_group);
double mt_median(const double *x, size_t n); /* does not modify x */
/* Sorts x ascending in place (radix for large n, as every sorted copy of
 * the analysis is: one ordering rule for the whole tool). */
void mt_sort_doubles(double *x, size_t n);
/* Median of the values above `cut` as if the cut had not removed the lower
 * part of their class: the median of the window (cut, 2c - cut) about its
 * own median c, iterated (median_truncated.c).  MT_ERR_INVALID_ARG when
 * nothing lies above the cut. */
mt_err mt_median_above_cut(const double *x, size_t n, double cut, double *median);

/* ---------- search planning (doubling, then k-ary refinement) ---------- */
/* start, 2*start, 4*start ... while <= limit; if the last point is below
 * limit, limit itself is appended so the whole range is covered.
 * Returns the number of points written (<= max). */
size_t mt_plan_doubling(uint64_t start, uint64_t limit, uint64_t *out, size_t max);
/* Of the footprints a capacity search measured (fp[i], with missed[i]
 * true where that run had extra misses; a footprint may appear more than
 * once), the largest above `above` none of whose runs missed (fit, 0 when
 * none) and the smallest above it that missed (miss, 0 when none was
 * measured).  A fit above the first misses makes the miss profile not
 * monotone: the first misses were a conflict of where the chain lay, and
 * the capacity lies between them and the fit (fit_above.c). */
typedef struct {
    uint64_t fit, miss;
} mt_fit_above;
mt_fit_above mt_largest_fit_above(const uint64_t *fp, const bool *missed, size_t n,
                                  uint64_t above);
/* The most bytes of a cyclic chain a cache is shown to hold by its misses
 * (pigeonhole, held_bound.c): a cache of C bytes holds at most C bytes of a
 * chain of fp bytes when a lap begins, so a lap brings in at least fp - C
 * bytes, at most miss_bytes (the fill unit) a miss, whatever the
 * replacement policy: C >= fp - miss_bytes x misses a lap.  Footprints
 * fp[i], loads[i] timed at `stride` with misses[i] of them misses:
 * - a whole lap or more timed: the misses a lap are counted (timer
 *   outliers only add misses, so they only lower the bound);
 * - a window of a lap (only when `windows`): its miss share, taken at the
 *   upper Wilson bound of z errors, stands for the lap's.  Where misses
 *   gather outside the window the bound reads high, so a window's bound
 *   may only widen a range whose top it is, never be claimed as a lower
 *   bound.
 * The largest bound over the footprints; found: some footprint gave one. */
typedef struct {
    bool found;
    double bytes;          /* the bound, >= 0 */
    double misses_per_lap; /* at the footprint that gave it */
    double share_hi;       /* the miss share taken there (a window's: z errors up) */
    uint64_t footprint;
} mt_held_bound;
mt_held_bound mt_held_bytes_bound(const uint64_t *fp, const size_t *loads, const size_t *misses,
                                  size_t n, uint32_t stride, uint32_t miss_bytes, bool windows,
                                  double z);
/* Up to max_points footprints evenly spaced in (lo, hi], each a multiple of
 * granule and strictly increasing; hi is always the last point.  With
 * (hi - lo) / granule <= max_points every granule step is included.
 * Returns the count. */
size_t mt_plan_sweep(uint64_t lo, uint64_t hi, uint64_t granule, size_t max_points,
                     uint64_t *out);

/* ---------- change-point detection (thesis ch. 3.3) ---------- */
/* Geometric reduction of a rows x cols matrix (row-major; one row per
 * footprint, one column per measured load) to one value per row: the
 * Euclidean distance of the row from the reference vector c * (1,...,1),
 * divided by sqrt(cols), where c is the median of row 0 (the smallest
 * footprint, assumed all hits).  angle_out (optional) receives the angle in
 * radians between each row and (1,...,1). */
mt_err mt_reduce_geometric(const double *matrix, size_t rows, size_t cols,
                           double *out, double *angle_out);

/* Opt with one change point: tau in [1, n-1] minimising
 * cost(0..tau-1) + cost(tau..n-1) with the squared-error (L2) cost.
 * tau is the first index of the second segment.  n >= 2. */
mt_err mt_opt_changepoint(const double *x, size_t n, size_t *tau, double *total_cost);

typedef struct {
    double d;        /* sup |F - G| */
    double d_crit;   /* sqrt(-ln(alpha/2) * (n+m) / (2 n m)) */
    double alpha;
    double p_value;  /* asymptotic Kolmogorov distribution */
    bool reject;     /* d > d_crit: the samples differ */
    size_t n1, n2;
} mt_ks_result;

/* Two-sample Kolmogorov-Smirnov test.  Ties are handled exactly (the ECDFs
 * are compared only after all equal values are consumed). */
mt_err mt_ks_two_sample(const double *a, size_t na, const double *b, size_t nb,
                        double alpha, mt_ks_result *out);

typedef struct {
    bool found;      /* Opt found a point and KS confirmed it */
    size_t index;    /* first index after the change (valid when found) */
    double cost;
    mt_ks_result ks; /* segment [0,index) vs [index,n) */
} mt_changepoint;

/* Opt + KS on a 1-D series. */
mt_err mt_detect_changepoint(const double *x, size_t n, double alpha, mt_changepoint *out);

/* ---------- classification of latencies ---------- */
/* Otsu's threshold between two latency classes: the cut that maximises the
 * between-class variance.  separated = false if the two class means are
 * closer than MT_MIN_CLASS_GAP_CYCLES (one class only). */
typedef struct {
    double threshold;  /* values > threshold belong to the upper class */
    double low_mean, high_mean;
    double high_fraction;
    bool separated;
} mt_split;
mt_err mt_split_two_classes(const double *x, size_t n, mt_split *out);

/* Is a two-class split one population or two?  Compares one Gaussian with
 * the two-Gaussian mixture of the classes split at `threshold` (weights,
 * means and spreads of each class, spreads floored at MT_BIMODAL_MIN_SD) by
 * BIC: delta_bic = BIC(one) - BIC(two), positive when two classes explain
 * the sample better despite their three extra parameters.  two_classes =
 * both classes non-empty and delta_bic >= MT_BIMODAL_MIN_DELTA_BIC. */
typedef struct {
    bool two_classes;
    double delta_bic;
    double min_delta_bic;
} mt_bimodality;
mt_err mt_bimodality_test(const double *x, size_t n, double threshold, mt_bimodality *out);

/* ---------- line / sector size from the spacing of misses (thesis 4.3) ---------- */
typedef struct {
    bool found;
    uint32_t spacing_bytes;  /* most common distance between consecutive misses */
    double support;          /* fraction of gaps equal to that distance */
    size_t n_misses;
    double threshold;        /* latency above which a load counted as a miss */
    /* Times the gap of the misses above the threshold was halved because
     * the loads half a gap after them were a slower class too (misses that
     * the threshold hid); the support is the gap's before halving. */
    unsigned halved;
} mt_spacing;
/* lat[k] is the latency of the k-th load of a sequential chain with the given
 * stride; loads above miss_threshold are misses.  found requires at least
 * MT_MIN_MISSES_FOR_SPACING misses and support >= MT_MIN_SPACING_SUPPORT.
 * hit_median: the measured level's hit median, which the loads half a gap
 * after the misses must be a class above for the gap to halve (misses the
 * threshold hid; an upper level's misses, the measured level's hits, are
 * not); NAN: the gap never halves. */
mt_err mt_miss_spacing(const double *lat, size_t n, uint32_t stride_bytes,
                       double miss_threshold, double hit_median, mt_spacing *out);

/* ---------- line size from capacities at two strides ----------
 * A chain with stride s >= line occupies one line per element, so the
 * largest footprint that fits grows to C * s / line; with s < line it stays
 * C.  With s an odd multiple of a power of two (e.g. 384 = 3 * 128) the
 * elements spread over all sets even with modulo indexing. */
typedef struct {
    bool found;          /* ratio resolved to a power of two */
    bool lower_bound;    /* ratio ~ 1: line >= big_stride */
    uint32_t line_bytes; /* valid when found (or the bound when lower_bound) */
    double ratio;        /* cap_big / cap_small */
    double margin;       /* |L/P - 1| of the nearest power of two P (0 when lower_bound) */
} mt_line_estimate;
mt_err mt_line_from_capacities(double cap_small_stride, double cap_big_stride,
                               uint32_t big_stride, uint32_t min_line,
                               mt_line_estimate *out);

/* Whether a bound "line >= claim" (as many bytes fit at a power-of-two
 * stride as at a sector stride) is corroborated by one of the n strides
 * that are no power of two: strides[i] with fit_bytes[i] > 0 bytes fitted
 * (0: not measured) and resident[i] elements held at most.  Such a stride
 * corroborates when it kept as many bytes as the sector stride's cap (a
 * line of at least that stride too), or its own ratio reads, within
 * MT_LINE_RATIO_FIRM, a power of two L >= claim that no resident count at
 * a stride of at least L refutes (more than cap / L beyond
 * MT_LINE_RATIO_TOLERANCE).  A hashed index can pin one set bit at a
 * power-of-two stride and keep half the lines, reading as the bound; a
 * stride that is no power of two has no such bit (unseen seed 3683). */
bool mt_line_bound_corroborated(double cap, const uint32_t *strides, const double *fit_bytes,
                                const double *resident, size_t n, uint32_t claim,
                                uint32_t min_line);

/* ---------- comparing a test sample with a reference ----------
 * "Differs" (disturbed / has misses) iff the KS test rejects at alpha AND
 * the fraction of loads above hit_threshold grew by at least
 * MT_MIN_MISS_FRACTION_INCREASE.  The second condition keeps tiny but
 * statistically significant shifts (timer jitter) from counting. */
typedef struct {
    bool differs;
    mt_ks_result ks;
    double miss_frac_ref, miss_frac_test;
    double mean_ref, mean_test;
    double hit_threshold;
    double min_increase;
} mt_comparison;
mt_err mt_compare_to_reference(const double *ref, size_t nref, const double *test,
                               size_t ntest, double hit_threshold, double alpha,
                               mt_comparison *out);

/* ---------- misses a hit threshold cannot see (compare_beyond.c) ----------
 * The loads of ref and test above `floor` (the hit threshold of a cache in
 * front, whose misses these are) compared as mt_compare_to_reference does,
 * with the line one MT_MIN_CLASS_GAP_CYCLES above the reference's median as
 * the threshold: slower when KS rejects at alpha and the share above that
 * line rose by MT_MIN_MISS_FRACTION_INCREASE.  Tested only when both have
 * at least MT_MISS_MIN_COUNT such loads. */
typedef struct {
    bool tested, slower;
    size_t n_ref, n_test;          /* loads above floor */
    double median_ref, median_test;
    mt_comparison cmp;
} mt_beyond_comparison;
mt_err mt_compare_beyond(const double *ref, size_t nref, const double *test, size_t ntest,
                         double floor, double alpha, mt_beyond_comparison *out);

/* ---------- are there significantly more misses than in the reference? ----------
 * Counts loads above hit_threshold in both samples and asks whether the
 * test's count is improbably high if misses occurred at the reference rate:
 * one-sided exact binomial tail P(X >= misses_test | n_test, p0) < alpha,
 * with p0 = (misses_ref + 1) / (n_ref + 2) (Laplace's rule, so a clean
 * reference with zero misses still gives a non-zero rate).  This finds the
 * FIRST footprint with any eviction, which Opt on a gradual ramp cannot. */
typedef struct {
    bool more_misses;
    size_t misses_ref, misses_test;
    size_t n_test;      /* loads of the test sample */
    double p0;
    double p_value;
    double alpha;
    double hit_threshold;
} mt_miss_excess;
mt_err mt_miss_excess_test(const double *ref, size_t nref, const double *test,
                           size_t ntest, double hit_threshold, double alpha,
                           mt_miss_excess *out);
/* The same question with the reference's count a draw too (miss_two_sample.c):
 * P(X >= misses_test) for X ~ Binomial(misses_ref + misses_test,
 * n_test / (n_ref + n_test)); 1 when neither sample has a miss. */
double mt_miss_excess_two_sample_p(size_t misses_ref, size_t n_ref, size_t misses_test,
                                   size_t n_test);

/* ---------- mean latency of the misses of a mixed chain ----------
 * A chain meant to miss a cache may keep some hits (random replacement, a
 * next level too small to hold a chain many times the cache) and a few
 * timer outliers.  Samples at or below hit_threshold are hits; of the rest,
 * those above median + MT_MISS_OUTLIER_SDS robust standard deviations of the
 * misses (at least MT_MIN_CLASS_GAP_CYCLES) are outliers; the mean is taken
 * over the misses in between (a mean, not a median: the misses of an L2 with
 * partitions are a mix of near and far hits, and what a miss costs on
 * average is their mean). */
typedef struct {
    size_t n, hits, misses, outliers;
    double mean;        /* mean of the kept misses (0 when none) */
    double median;      /* median of all misses before the cut */
    double cut;         /* outlier cut used */
    double hit_threshold;
} mt_miss_mean;
mt_err mt_miss_mean_latency(const double *x, size_t n, double hit_threshold, mt_miss_mean *out);

/* ---------- misses below the hit threshold (miss_mixture.c) ----------
 * Loads in the band (median + MT_MIN_CLASS_GAP_CYCLES, hit_threshold]
 * against its mirror image below the hit median: hits are symmetric about
 * their median, so a one-sided binomial excess (p < alpha) means misses
 * reach below the threshold (leaks).  The mixture mean of the misses is
 * over every load at or below `cut` (the outlier cut of the misses) minus
 * the estimated hits (twice those below the median plus those at it), each
 * counted at the hit median. */
typedef struct {
    bool leaks;
    double p;                      /* binomial p-value of the upper band's excess */
    size_t upper_band, lower_band; /* loads in the two mirrored bands */
    double hits;                   /* estimated hits */
    double misses;                 /* loads at or below the cut minus hits */
    double mean;                   /* mixture mean of the misses */
} mt_miss_leak;
mt_err mt_miss_leak_test(const double *x, size_t n, double hit_median, double hit_threshold,
                         double cut, double alpha, mt_miss_leak *out);

/* ---------- standard error of a chain's mean over its elements ----------
 * x holds `runs` runs of n / runs samples each (n a multiple of runs), each
 * of a sequential chain of n_elem elements at a place of its own; sample k
 * of a run (starting after whole warm-up laps) is element k mod n_elem of
 * that run's chain.  Samples above `cut` are left out;
 * each element's samples are averaged; the standard error of the mean over
 * elements is computed for blocks of 1, 2, 4, ... max_block adjacent
 * elements (while at least MT_SE_MIN_BLOCKS blocks remain) and the largest
 * is returned (se NAN when even single elements give too few blocks). */
typedef struct {
    double se;       /* cycles; NAN when unknown */
    size_t block;    /* block size (elements) that gave it */
    size_t elements; /* elements with samples */
} mt_chain_se;
mt_err mt_chain_mean_se(const double *x, size_t n, size_t runs, size_t n_elem, double cut,
                        size_t max_block, mt_chain_se *out);

/* ---------- slices per SM (thesis 4.6) ----------
 * disturbed[w] says whether the chain of warp w+1 evicted warp 0's chain.
 * The warps that share warp 0's slice form 1/slices of all warps; slices =
 * n_warps / (1 + count(disturbed)), accepted only when it divides exactly
 * and is a power of two (ok == false otherwise).  When the sharing warps
 * are warp 0 and the ones right after it and no later warp shares again,
 * the tested warps never saw the pattern repeat: more slices may lie beyond
 * them, and slices is only a lower bound (at_least). */
typedef struct {
    bool ok;
    bool at_least;
    int slices;
    int sharing_warps;  /* including warp 0 */
    int n_warps;
} mt_slices;
mt_err mt_count_slices(const bool *disturbed, size_t n_tested, mt_slices *out);

/* ---------- capacity from a footprint sweep ----------
 * rows = footprints (ascending), cols = fine samples per footprint.  Reduces
 * geometrically, runs Opt + KS, and reports the largest footprint before the
 * change (lo) and the first after it (hi). */
typedef struct {
    bool found;
    uint64_t lo, hi;
    mt_changepoint cp;
} mt_capacity;
mt_err mt_capacity_from_sweep(const uint64_t *footprints, const double *matrix,
                              size_t rows, size_t cols, double alpha, mt_capacity *out);

/* ---------- precision of a median ----------
 * Distribution-free confidence interval of the median of n independent
 * samples: [lo, hi] are the k-th smallest and k-th largest sample for the
 * largest k whose coverage 1 - 2 P(Binomial(n, 1/2) <= k - 1) is at least
 * `level` (0 < level < 1).  `level` in the result is the coverage reached:
 * below the one asked for only when n is too small (fewer than 6 samples
 * for 95%), and then lo, hi are the extremes. */
typedef struct {
    size_t n;
    double median, lo, hi;
    double level;
} mt_median_interval;
mt_err mt_median_ci(const double *x, size_t n, double level, mt_median_interval *out);

/* ---------- binomial tails ----------
 * P(X >= k) and P(X <= k) for X ~ Binomial(n, p), exact, summed in log
 * space (stable for n up to at least 1e6). */
double mt_binom_at_least(uint64_t n, uint64_t k, double p);
double mt_binom_at_most(uint64_t n, uint64_t k, double p);

/* ---------- fewer misses than another sample? ----------
 * One-sided Fisher exact test: the probability, with both samples' loads
 * and their total misses fixed, that sample a has miss_a misses or fewer
 * (small: a misses less often than b). */
double mt_fisher_fewer(uint64_t miss_a, uint64_t n_a, uint64_t miss_b, uint64_t n_b);

/* ---------- replacement class (probe_replacement.c) ----------
 * recency: timed loads of the oldest lines, touched again before new lines
 * came in (LRU keeps them, FIFO evicts them); untouched: the same sequence
 * without the touch, the same lines timed (the control: every ordered
 * policy evicts them when the new lines land in their sets); ordering:
 * timed loads of the youngest lines after half a cache of new lines (LRU
 * and FIFO keep them).  Ordering share above kept_share: unordered.
 * Otherwise the recency share picks recency (<= kept_share), insertion
 * order (>= evicted_share) or unclassified (between).  Recency also needs
 * the touch to have saved the lines: the touched lines missed less often
 * than the untouched ones, one-sided Fisher p_touch below touch_alpha.
 * Without that the new lines did not contend with the timed lines (a
 * hashed index sends them to other sets; a direct-mapped cache keeps its
 * lines whatever was touched) and nothing is said about recency
 * (unclassified, no_contention set).  For the two ordered classes
 * p_unordered is the probability that a policy without order produced
 * counts at least this close: it evicts each youngest line with
 * probability at least unordered_min_young_evict and each touched oldest
 * line with probability at most unordered_max_oldest_evict (tails
 * multiplied: the two tests are independent runs).  1 for the other
 * classes. */
typedef enum {
    MT_POLICY_RECENCY,
    MT_POLICY_INSERTION,
    MT_POLICY_UNORDERED,
    MT_POLICY_UNCLASSIFIED,
} mt_policy_class;
typedef struct {
    size_t missed, timed;
} mt_miss_count;
typedef struct {
    double kept_share, evicted_share;
    double unordered_min_young_evict, unordered_max_oldest_evict;
    double touch_alpha;
} mt_policy_limits;
typedef struct {
    mt_policy_class cls;
    double recency_share, untouched_share, ordering_share;
    double p_unordered;
    double p_touch;     /* Fisher: touched lines missed no less often than untouched */
    bool no_contention; /* recency-like shares, but the touch made no difference */
} mt_policy_verdict;
mt_policy_verdict mt_classify_policy(mt_miss_count recency, mt_miss_count untouched,
                                     mt_miss_count ordering, const mt_policy_limits *lim);

/* ---------- replacement policy from per-set sequences (probe_policy.c) ----------
 * policy_sets.c.  Line ids within one set of `ways` ways: 0..ways-1 the
 * fill lines in fill order, ways a new line.  mt_policy_predict_victim:
 * the line the model evicts last in seq (the sequence ends with the new
 * line), or -1 (nothing evicted, PLRU at a non-power-of-two way count, or
 * more than MT_POLICY_SETS_MAX_WAYS ways). */
#define MT_POLICY_SETS_MAX_WAYS 1024 /* the most the spec format allows */
typedef enum { MT_MODEL_LRU, MT_MODEL_FIFO, MT_MODEL_PLRU, MT_MODEL_COUNT } mt_policy_model;
int mt_policy_predict_victim(mt_policy_model model, uint32_t ways, const uint32_t *seq, size_t n);

/* One test's outcome over its samples (one set each): victim[j] samples
 * whose first miss, timing A0..A(W-1) in order, was line j (the lines
 * after the first miss may miss only because its refill evicted them);
 * no_miss samples without any; predicted[m] each model's victim. */
typedef struct {
    uint64_t victim[MT_POLICY_SETS_MAX_WAYS];
    uint64_t no_miss;
    int predicted[MT_MODEL_COUNT];
} mt_policy_sets_test;
typedef struct {
    uint32_t ways;
    size_t n_tests;
    const mt_policy_sets_test *test;
} mt_policy_sets_obs;
typedef struct {
    double stray_share; /* share of samples a fitting model may miss (timer outliers) */
    double alpha;       /* significance of every test below */
} mt_policy_sets_limits;
typedef enum {
    MT_SETS_DETERMINISTIC,   /* fits: the models (bits) whose victims were seen */
    MT_SETS_RANDOM,          /* no model; uniform victims, Fermi's 3:1 rejected */
    MT_SETS_FERMI,           /* no model; uniform rejected, one line 3:1 fits */
    MT_SETS_RANDOM_OR_FERMI, /* no model; neither rejected */
    MT_SETS_NONE_OF_THESE,
} mt_policy_sets_class;
typedef struct {
    mt_policy_sets_class cls;
    unsigned fits;                        /* bit m: model m fits */
    double match_share[MT_MODEL_COUNT];   /* share of samples on each model's victim */
    double p_other; /* deterministic: chance that random or Fermi matched this often */
    double p_uniform, p_fermi;            /* unordered: fit of each (two-sided for Fermi) */
    int top_line;                         /* unordered: the most frequent victim */
    double top_share, no_miss_share;
    uint64_t samples;
} mt_policy_sets_verdict;
/* A model fits when at least 1 - stray_share of all samples were its
 * victim.  Otherwise the pooled victims are tested against uniform (largest
 * count, Bonferroni over the lines) and Fermi's weights (largest count
 * against 3 / (W + 2), both tails; the runner-up against 1 / (W + 2)). */
mt_policy_sets_verdict mt_classify_policy_sets(const mt_policy_sets_obs *obs,
                                               const mt_policy_sets_limits *lim);

#endif

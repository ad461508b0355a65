/* Shared state and helpers of the probe files (not part of the public API). */
#ifndef MT_PROBE_INTERNAL_H
#define MT_PROBE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../analysis/analysis.h"
#include "../analysis/thresholds.h"
#include "probe.h"

/* The logical caches the built-in probes measure: an index into the probes'
 * private state (mt_probe_ctx.cs).  The topology itself knows objects by key
 * only (mt_cache_key). */
typedef enum {
    MT_CACHE_L1D = 0,  /* L1 data cache (global loads, ld.global.ca) */
    MT_CACHE_TEX,      /* texture cache */
    MT_CACHE_RO,       /* read-only data cache (ld.global.nc) */
    MT_CACHE_CONST_L1, /* constant L1 */
    MT_CACHE_CONST_L15,/* constant L1.5 */
    MT_CACHE_SHARED,   /* shared memory */
    MT_CACHE_L2,
    MT_CACHE_DRAM,
    MT_CACHE_COUNT
} mt_cache_id;

const char *mt_cache_key(mt_cache_id id);  /* "l1d", "texture", ... (object keys) */
const char *mt_cache_name(mt_cache_id id); /* "L1 Data", "Texture", ... */

/* What a probe learnt about one logical cache and later probes reuse. */
typedef struct {
    bool present;       /* caches this path at all */
    bool hit_known;
    double hit_threshold; /* fine-grained cycles (overhead removed) above which a load missed */
    double hit_fine;    /* median fine-grained hit latency, overhead removed */
    double miss_fine;   /* median of the presence test's cg chain (the next level), 0 = unknown */
    uint32_t sector;    /* bytes, 0 = unknown */
    uint32_t line;      /* bytes, 0 = unknown */
    uint64_t size;      /* bytes of one slice, 0 = unknown */
    bool size_is_bound; /* size is only a lower bound */
    double latency;     /* hit latency, cycles (L2: the near partition's) */
    double agg_latency; /* L2 only: aggregate latency over both partitions */
    /* L2 only: bytes one SM used before its first L2 eviction (the
     * partition-size test's edge: one partition, or the whole L2, which
     * need not be the driver's size); 0 when not measured. */
    uint64_t sm_capacity;
    /* DRAM only: robust sd of single cold-miss latencies and how many misses
     * gave it (the L2 probe's sector chain); 0 when not measured. */
    double load_sd;
    size_t load_sd_n;
    double load_median; /* DRAM only: median of those misses */
    /* The line's confidence is below what the size gives it only because
     * the capacity at the ratio's stride came out as a range, both of
     * whose ends give the same line (measure_line.c); a set index that puts
     * consecutive lines in different sets confirms it, at
     * line_conf_confirmed (line_confirm.c). */
    bool line_edge_capped;
    double line_conf_confirmed;
} mt_cache_state;

struct mt_probe_ctx {
    mt_backend *be;
    const mt_probe_options *opt;
    mt_topology *topo;
    mt_errinfo *ei;
    const mt_probe_desc *desc; /* the running probe: what it may set */
    mt_err set_err;            /* first failure of mt_set (checked after each probe) */
    mt_errinfo set_ei;
    mt_device_info dev;
    double overhead_fine; /* cycles each fine sample carries besides the load */
    double overhead_agg;  /* cycles per load of the aggregate loop besides the load */
    mt_cache_state cs[MT_CACHE_COUNT];
    unsigned experiments; /* run by the current probe */
    const char *probe;    /* name of the running probe, for progress */
};

/* ---- running experiments ---- */
void mt_progress(mt_probe_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
mt_err mt_run(mt_probe_ctx *c, const mt_experiment *e, size_t n, mt_result *r);
void mt_results_free(mt_result *r, size_t n);

/* Loads that cover `laps` laps of the chain, capped at the backend's
 * fine-grained limit (mt_device_info.max_fine_loads). */
uint32_t mt_fine_loads(const mt_probe_ctx *c, uint64_t footprint, uint32_t stride, double laps);
/* Fine samples of chain i as doubles with the fine overhead removed (malloc'd). */
double *mt_fine_samples(const mt_probe_ctx *c, const mt_result *r, int chain, size_t *n);
/* Adds to *m chain 0's fine samples of r (overhead removed, as
 * mt_fine_samples gives them) above thr as misses, and all of them as
 * timed loads. */
void mt_count_misses(const mt_probe_ctx *c, const mt_result *r, double thr, mt_miss_count *m);
/* Runs one experiment; *x = chain 0's fine samples, overhead removed (malloc'd). */
mt_err mt_run_fine(mt_probe_ctx *c, const mt_experiment *e, double **x, size_t *n);
/* A sector finding from miss spacing says when the spacing was halved
 * (mt_spacing.halved: misses the threshold hid half a gap after the others). */
void mt_note_spacing_halved(mt_finding *f, const mt_spacing *sp);
/* Aggregate per-load latency with loop overhead removed. */
double mt_agg_latency(const mt_probe_ctx *c, const mt_experiment *e, const mt_result *r);

/* v rounded down to a multiple of m (footprints must be whole strides). */
static inline uint64_t mt_round_down(uint64_t v, uint64_t m)
{
    return m ? v / m * m : v;
}
/* Footprint of a hit-latency chain: half the cache, in whole strides, and
 * at least one stride (a cache measured as one stride, e.g. the low end of
 * an unconfirmed size range, still gets a chain). */
static inline uint64_t mt_hit_footprint(uint64_t half_size, uint32_t stride)
{
    uint64_t fp = mt_round_down(half_size, stride);
    return fp < stride ? stride : fp;
}

/* Path that reaches a logical cache (probe_l1.c). */
mt_path mt_cache_path(mt_cache_id id);
/* Fine samples (malloc'd) of a cold chain of `footprint` bytes at a 4 B
 * stride, one lap as far as the backend times: it misses once per fill
 * unit (probe_l1.c). */
mt_err mt_cold_stride4_samples(mt_probe_ctx *c, mt_path p, uint32_t footprint, double **x,
                               size_t *n);
/* Fill unit: spacing of the misses of a cold stride-4 chain (probe_l1.c). */
mt_err mt_measure_sector(mt_probe_ctx *c, mt_path p, double miss_threshold, double hit_median,
                         uint32_t footprint, mt_spacing *sp);
/* Median per-load latency of aggregate chases, loop overhead removed (probe_l1.c). */
mt_err mt_measure_agg_latency(mt_probe_ctx *c, mt_path p, uint64_t footprint, uint32_t stride,
                              uint32_t warm, double *lat, mt_stats *st);

/* ---- classification ---- */
/* Hit threshold from an all-hit reference: median + max(MT_MIN_CLASS_GAP_CYCLES,
 * MT_HIT_MARGIN_MADS robust standard deviations). */
double mt_hit_threshold(const double *ref, size_t n);
/* The median absolute deviation (NAN when out of memory); 1.4826 x it is
 * the standard deviation of Gaussian samples, robust to outliers. */
double mt_mad(const double *x, size_t n);

/* Otsu's two classes after dropping the slowest 1% of the samples, so a few
 * interrupt-sized outliers cannot become the "upper class"; high_fraction is
 * then recounted over all samples. */
mt_err mt_split_robust(const double *x, size_t n, mt_split *out);
/* Sorts x and returns how many of its fastest values to keep: all but the
 * slowest 1% (interrupt-sized outliers), at least one. */
size_t mt_drop_slowest_percent(double *x, size_t n);

/* ---- findings ----
 * mt_set stores finding `name` of object `key` (mt_cache_key) in the
 * topology, with the label the running probe's descriptor declares for it.
 * Setting a finding the descriptor does not declare is a bug: the first such
 * failure (or running out of memory) is kept in c->set_err and ends the
 * probe's run with that error.  mt_get never returns NULL: a finding that
 * is not there reads as kind MT_FIND_NONE. */
void mt_set(mt_probe_ctx *c, const char *key, const char *name, const mt_finding *f);
/* Splits a finding id "object.finding": copies the object key into key and
 * returns the finding name, or NULL when there is no dot or the key does not
 * fit in n bytes. */
const char *mt_split_finding_id(const char *id, char *key, size_t n);
/* 1 when a declared finding id is a family ("l1d.size_at_carveout_*", probe.h). */
bool mt_finding_id_is_family(const char *id);
const mt_finding *mt_get(const mt_probe_ctx *c, const char *key, const char *name);
/* Bytes of the L2 one SM can use as l2.partition_size states them: its
 * value, or the low end of a range (a hashed L2 evicts some placements of a
 * chain from there on, probe_l2.c), so a chain sized from it fits wherever
 * it lies; 0 when the finding states no size (absent, not measured). */
uint64_t mt_partition_bytes(const mt_finding *ps);
/* Marks an object as measured by this run. */
void mt_mark_probed(mt_probe_ctx *c, const char *key);

mt_finding mt_find_value(double v, const char *unit, mt_source src, const char *method,
                         double conf, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
mt_finding mt_find_bound(double lo, const char *unit, const char *method, double conf,
                         const char *fmt, ...) __attribute__((format(printf, 5, 6)));
mt_finding mt_find_range(double lo, double hi, const char *unit, const char *method,
                         double conf, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
mt_finding mt_find_absent(const char *method, double conf, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ---- capacity search (doubling, k-ary refinement, Opt+KS confirmation) ---- */
typedef struct {
    mt_path path;
    int thread;
    uint32_t stride;
    uint64_t start, limit;   /* doubling range */
    uint64_t granule;        /* stop refining when the interval is this small */
    uint64_t ref_footprint;  /* all-hit reference chain */
    double hit_threshold;    /* NAN: derive from the reference */
    int max_rounds;          /* refinement rounds, 0 = until the granule is reached */
    int quick;               /* 1: skip the Opt+KS confirmation sweep */
    /* > 0: hit threshold of a chain known to hit (the presence test's).  A
     * reference whose median is above it does not fit in the cache (a cache
     * smaller than ref_footprint): the reference and start are halved until
     * it fits, down to ref_min_bytes.  0: the reference is taken as given. */
    double fit_threshold;
    uint64_t ref_min_bytes;
    /* > 0: every experiment of the search requests the shared-memory
     * carveout carveout_percent (mt_exp_with_carveout); 0: the default. */
    int set_carveout;
    int carveout_percent;
    /* 1: when the reference shows timer outliers, re-test the edge with
     * pooled runs (mt_capacity_search's EDGE_SCAN). */
    int pool_edge;
    /* > 0: median fine latency of the level this path's misses go to; the
     * hit threshold (given or derived) is capped at MT_HIT_CUT_NEXT_LEVEL of
     * the way from the reference's median to it.  0: no cap. */
    double next_level_median;
    /* 1: every footprint's chain ends where the largest (limit) would, so
     * the footprints are nested from the end and a fine run's timed loads
     * (the chain's first elements) are the lines a larger footprint added.
     * For chains longer than the loads a run times (the L2's): every set a
     * footprint overflows holds a line it added to one that fitted, so the
     * timed window sees the overflow whatever the set index; a window over
     * the oldest lines sees only the sets a hash maps them to (a hashed L2
     * overflowing 6% past its partition looked like a fit). */
    int window_at_growth;
    /* 1: when a footprint above the first one with extra misses fitted (a
     * miss profile that is not monotone: conflicts of where the chain lies
     * in a hashed cache, or a policy that evicts early by chance), the
     * search also refines the largest footprint that fits, up to
     * max_rounds batches between it and the next one that missed
     * (mt_cap_result.fit_above).  0: the first misses alone place the edge. */
    int seek_fit_above;
    /* > 0: hit threshold of a cache in front of this one (the constant
     * L1's); only loads above it reach this cache.  A lower bound then also
     * needs those loads of every doubling footprint to be no slower than
     * the reference's (mt_compare_beyond): a next level whose latency lies
     * inside this cache's hit threshold passes for hits.  0: no such test. */
    double front_threshold;
    /* > 0: the most bytes one miss brings into this cache (its fill unit,
     * the spacing of its cold misses).  A lower bound then claims only what
     * the misses of the footprints timed over whole laps allow: a cache of
     * S bytes misses at least (F - S) / miss_bytes times a lap of a chain of
     * F bytes, whatever its policy, and the binomial test passes a few
     * misses a lap among the reference's outliers (a random-replacement
     * constant L1.5 of 64768 B missed 45 of the 4096 loads of the 64 KiB
     * bank, p = 0.03, and read "> 65536 B" at confidence 1: unseen seed
     * 2274).  0: the largest footprint is the bound. */
    uint32_t miss_bytes;
} mt_cap_request;

typedef struct {
    mt_finding_kind kind; /* VALUE (lo), RANGE [lo,hi], LOWER_BOUND (> lo) */
    uint64_t lo, hi;
    double p_detect;      /* binomial p-value of the first footprint with misses */
    bool opt_confirmed;   /* Opt + KS found a change in the final sweep */
    bool unconfirmed;     /* the confirmation sweep ran and found no change: a range */
    bool placement;       /* the first-miss footprint misses less when shifted: a range */
    bool borderline;      /* a footprint's extra misses did not repeat when re-tested: a range */
    uint64_t opt_lo, opt_hi;
    double ks_d, ks_p;
    double hit_threshold;
    bool hit_capped;      /* hit_threshold was capped by next_level_median */
    double confidence;
    /* Miss share of the doubling footprint after the first one with extra
     * misses (about twice the capacity found); NAN when there is none.  A
     * real capacity edge makes most of such a chain miss; timer outliers
     * that fired the first-miss test do not. */
    double share_beyond;
    uint64_t ref_used;    /* the reference footprint used (< the request's: it did not fit) */
    bool ref_missed;      /* even the smallest reference missed: confidence at most 0.3 */
    /* Share of the reference's loads above hit_threshold: a reference that
     * does not fit the cache (more than MT_CAP_REF_MAX_MISS_SHARE) makes
     * every footprint's misses an excess over its own, so the edge found is
     * no capacity (mt_measure_line skips such a stride). */
    double ref_miss_share;
    /* LOWER_BOUND: the largest footprint, which had no significant extra
     * misses (bound_fp); lo is below it where miss_bytes x the misses a
     * lap at bound_misses_fp allow no more (mt_cap_request.miss_bytes). */
    uint64_t bound_fp, bound_misses_fp;
    double bound_misses;
    uint32_t bound_miss_bytes;
    /* Most elements any measured footprint kept resident: elements minus
     * misses per whole lap timed (footprints with no whole lap timed are
     * left out).  In one lap of a cyclic chain every hit was resident at
     * the lap's start, so whatever the policy, a cache holds at least this
     * many lines (the pigeonhole bound the line probe checks its ratio by). */
    double most_resident;
    /* Counts of the comparison that placed hi (p_detect's): the reference's
     * misses of its loads and the first-miss footprint's, for a test that
     * takes the reference's count as a draw too (mt_miss_excess_two_sample_p). */
    size_t edge_misses_ref, edge_n_ref, edge_misses, edge_n;
    /* The pooled edge re-test (pool_edge): footprints scanned (0: did not
     * run), bytes lo moved down, and whether every scanned one had extra
     * misses (the result is then a range below them). */
    size_t edge_scanned;
    uint64_t edge_moved;
    bool edge_below;
    bool edge_thin;       /* the re-test ran because the edge was thin (EDGE_THIN_MISSES) */
    /* front_threshold: the first doubling footprint whose loads past the
     * cache in front were slower than the reference's (hidden_hi, 0: none),
     * the one before it (or the reference: hidden_lo), and their medians. */
    uint64_t hidden_lo, hidden_hi;
    double hidden_median_ref, hidden_median, hidden_ks_p;
    /* seek_fit_above: the largest footprint measured with no extra misses
     * above hi (0: none, the miss profile rose once), and the smallest one
     * with extra misses above it (0: none measured).  Such a profile puts
     * the first eviction anywhere from lo to fit_above, depending on where
     * the chain lies. */
    uint64_t fit_above, miss_above;
    /* seek_fit_above: what a run that missed in part shows the cache held
     * (mt_held_bytes_bound), where it is above hi and above fit_above (0:
     * none), that run's footprint and its miss share at the bound's top. */
    uint64_t held_above, held_fp;
    double held_share;
} mt_cap_result;

mt_err mt_capacity_search(mt_probe_ctx *c, const mt_cap_request *q, mt_cap_result *out);
/* Turns a capacity result into a size finding. */
mt_finding mt_capacity_finding(const mt_cap_result *r, const char *what);

/* Line via the capacity at a larger stride (probe_line.c).  cap is the
 * capacity measured at a stride of `sector`; ref_min_elements the fewest
 * elements of the all-hit reference chain (e.g. enough to thrash an inner
 * level), at least 8; hit_threshold NAN derives it from that reference. */
mt_err mt_measure_line(mt_probe_ctx *c, mt_cache_id id, mt_path path, uint64_t cap,
                       double cap_conf, uint32_t sector, uint64_t ref_min_elements, uint64_t limit,
                       int max_rounds, double hit_threshold);
/* One chain of 1.5 N elements (N = cap / line) at 1.5 x line, timed over
 * whole laps (line_pigeonhole.c): *resident = elements - misses / laps, NAN
 * when the chain does not fit one run or the path limit; *stride its
 * stride.  More than N resident refutes the line. */
mt_err mt_line_pigeonhole(mt_probe_ctx *c, mt_path path, uint64_t cap, uint32_t line,
                          uint64_t limit, double hit_threshold, double *resident,
                          uint32_t *stride);

/* One element in a random half of each of 1.5 N line-sized blocks, timed
 * over a second lap of an explicit sequence (line_scatter.c): *resident =
 * elements that hit; NAN when the backend, the path (texture) or the limits
 * leave no such run.  More than N resident refutes the line, also under a
 * set index that aliases every regular stride. */
mt_err mt_line_pigeonhole_scattered(mt_probe_ctx *c, mt_path path, uint64_t cap, uint32_t line,
                                    uint64_t limit, double hit_threshold, double *resident);

/* Adds a threshold to the topology's list (once per name). */
void mt_note_threshold(mt_probe_ctx *c, const char *name, double value, const char *why);

/* Puts a reason before a finding's note ("REASON; old note"), for notes
 * whose tail is a long list that may be cut: the reason survives, and a
 * cut note ends in "..." rather than mid-word. */
void mt_finding_note_first(mt_finding *f, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif

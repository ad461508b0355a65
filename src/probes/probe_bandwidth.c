/* Bandwidth of every level and memory-level parallelism (opt-in:
 * --bandwidth; docs/method.md, "Bandwidth").
 *
 * Bandwidth: for each level, a footprint that keeps the data in it (per SM
 * for the SM's own levels, for the GPU for the L2 and DRAM) is streamed by
 * every SM (MT_KIND_STREAM) at a ladder of configurations (threads per SM,
 * accesses in flight per thread, vector width).  Each configuration runs
 * twice, R and 2R repeats over the same data, and the rate is the
 * difference of bytes over the difference of cycles: the launch's fixed
 * cost and the first, cold repeat cancel.  The best configuration is then
 * run MT_BW_RUNS more times and the median reported, in bytes per cycle
 * per SM (slowest block's cycles) and GB/s (the launch's globaltimer).  A
 * copy counts the bytes read plus the bytes written.
 *
 * MLP: one SM runs k independent dependent chases (k = 1, 2, 4 ... the
 * block limit) through ld.global.cg into the L2 or DRAM; by Little's law
 * the loads in flight are rate(k) x latency = rate(k) / rate(1). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../analysis/bandwidth.h"
#include "confidence.h"
#include "probe_internal.h"

/* Bytes each SM moves in the shorter run of a pair: at 128 B/clk about
 * 130k cycles (65 us at 2 GHz), long enough that the launch's cost and a
 * block's late start are a small part of the difference, short enough
 * that the whole probe stays within issue 10's 3 s on an H100. */
#define BW_TARGET_BYTES_SM (16u << 20)
/* Repeated runs of the best configuration: the median of 3 discards one
 * disturbed run. */
#define BW_RUNS 3u
/* Offset between repeated runs' data (the simulator repeats an
 * experiment's noise: a shifted copy is an independent run, on a GPU too). */
#define BW_RUN_SHIFT (64u << 10)
/* Shared memory per block for the shared-memory streams (a copy takes
 * twice this): 16 KiB leaves room for two blocks of a copy in the default
 * 48 KiB a block may use and in any carveout of 64 KiB or more. */
#define BW_SHARED_BLOCK (16u << 10)
/* The L1 footprint is a quarter of the measured size or less (a power of
 * two): far from the edge whatever the replacement policy; a copy's two
 * buffers take half. */
#define BW_L1_SHARE 4u
/* A size range at most this share wide counts as a size (its lower end):
 * a quarter of it stays inside the cache whatever the exact edge. */
#define BW_SIZE_RANGE_SLACK 0.01
/* The L2 footprint is a quarter of what one SM can use (the near
 * partition; a copy's two buffers take half, safe from a measured size a
 * few percent high) or, when that was not measured, a sixteenth of the
 * driver's L2 (the sim may model half the driver's figure, split in up to
 * eight partitions). */
#define BW_L2_PART_DIV 4u
#define BW_L2_UNKNOWN_DIV 16u
/* The whole-L2 read spans more than the partition one SM uses by this
 * share (a measured partition a few percent low still leaves the data
 * beyond it) and at most this share of the L2's measured size (room for
 * lines the hash homes unevenly and for a near share measured a little
 * low; every SM streams, so each partition holds the lines homed in it). */
#define BW_L2_WHOLE_MARGIN 0.10
#define BW_L2_WHOLE_SHARE 0.75
/* The L2 read within a partition (l2.bw_read_partition): data below the
 * partition one SM uses (each partition can hold all of it), read by a
 * few SMs each line, at these eighths of the partition.  gpu-benches'
 * gpu-l2-cache reaches its best (8.2-8.35 TB/s on the H100, 2026-11-24)
 * with data of 0.75-1.06 partitions read by ~7 blocks each; beyond a
 * partition it falls (8.0-8.1 at 30-34 MB).  The figure is the bytes the
 * SMs receive: ncu on the H100 counted 97% of them read in the L2 slices
 * at 7/8 of a partition and 91% at 3/4 (8-byte loads, 8 in flight), the
 * rest merged on the way (docs/method.md). */
static const unsigned bw_l2_part_eighths[] = {4, 6, 7};
#define BW_L2_PART_SIZES (sizeof bw_l2_part_eighths / sizeof bw_l2_part_eighths[0])
/* SMs reading each line of the read within a partition, at least: few
 * enough that most requests reach the L2 slices (the shared-data read
 * with all 132 SMs on 1 MiB had the slices read 40% of the bytes; the
 * peer's ~7 readers 99.5%, memtopo's kernel with 6.6-7.8 readers 91-97%),
 * enough to reach the peer's figure (each SM its own data below a
 * partition gave 7.5 TB/s on the H100).  The per-SM share is the power of
 * two that gives at least this many readers. */
#define BW_L2_PART_READERS 4u
/* Levels: L1, texture, read-only, shared, L2 near read (3 sizes), L2
 * writes and copies, whole L2, L2 within a partition (3 sizes), DRAM. */
#define BW_MAX_LEVELS 14
/* The near-partition read tries its shared data at a quarter of the
 * partition and at halves of it down to this share of a quarter: less
 * data served more on the H100 (gpu-benches' gpu-l2-cache: 10.5 TB/s at
 * 1.5 MB, 8.8 at 4 MB), and the search keeps the best. */
#define BW_L2_NEAR_SIZES 3
/* DRAM streams span this many times the driver's L2. */
#define BW_DRAM_L2_TIMES 4u
/* MLP sweep: loads per chase in the shorter run (twice in the longer);
 * an L2 chase's lap is this many loads, so its data is warm after the
 * first lap. */
#define MLP_LOADS 256u
#define MLP_L2_LAP 64u
#define MLP_MIN_STRIDE 32u
/* The GPU-wide sweep's L2 chases each stay within a line of their own (so
 * no two chases' loads merge into one request), and their data is three
 * quarters of the partition one SM uses (the most chases at every SM). */
#define MLP_GPU_L2_REGION 128u
#define MLP_GPU_L2_QUARTERS 3u
/* The GPU-wide DRAM sweep's data, at most this many bytes (the chases it
 * needs at every SM never revisit a line). */
#define MLP_GPU_DRAM_MAX (4ull << 30)
/* Most configurations one level and op tries (the ladder has at most
 * 4 occupancies x 4 depths, the SM's own levels the same ladder again at
 * 4- and 8-byte vectors, the whole-L2 read at 8-byte vectors, plus the
 * narrower vectors at the best and the repeats). */
#define BW_MAX_CONFIGS 64

typedef struct {
    const char *key;    /* object */
    const char *what;   /* for notes */
    const char *suffix; /* of the finding names: "" or "_whole" */
    mt_path path;
    uint64_t fp_sm;     /* bytes per SM per repeat (shared: per block) */
    unsigned ops;       /* bit per mt_stream_op */
    /* Reads with shared data (backend.h): the data all SMs read, of which
     * each SM streams fp_sm bytes; 0: every SM its own fp_sm. */
    uint64_t shared_data;
    /* 1: reads run balanced where their rounds tile each block's share
     * (backend.h: the repeats handed out on demand, every SM streaming its
     * own data until the end); the whole-L2 read on a backend with
     * MT_CAP_STREAM_BALANCED. */
    int balanced;
} bw_level;

typedef struct {
    uint32_t threads, blocks_per_sm, vec, in_flight;
} bw_config;

static uint64_t pow2_floor(uint64_t v)
{
    uint64_t p = 1;
    while (p <= v / 2)
        p *= 2;
    return v ? p : 0;
}

static const char *op_name(mt_stream_op op)
{
    return op == MT_STREAM_READ ? "read" : op == MT_STREAM_WRITE ? "write" : "copy";
}

/* Whether a configuration of the level runs balanced: a round that
 * wraps around a block's share cannot be split into warps' slices, so
 * such a configuration runs as a static split. */
static int runs_balanced(const bw_level *l, const bw_config *k)
{
    uint64_t step = (uint64_t)k->threads * k->vec * k->in_flight * k->blocks_per_sm;
    return l->balanced && l->fp_sm % step == 0;
}

/* The stream experiment of a configuration at `repeats`, run `run`. */
static mt_experiment config_exp(const mt_probe_ctx *c, const bw_level *l, mt_stream_op op,
                                const bw_config *k, uint32_t repeats, uint32_t run)
{
    uint32_t S = (uint32_t)c->dev.sm_count;
    uint32_t blocks = S * k->blocks_per_sm;
    uint64_t bytes = l->path == MT_PATH_SHARED ? (uint64_t)blocks * l->fp_sm
                     : l->shared_data               ? l->shared_data
                                                    : S * l->fp_sm;
    mt_experiment e = mt_exp_stream(op, l->path, blocks, k->threads, k->vec, k->in_flight, bytes,
                                    repeats, 0);
    e.chain[0].offset = l->path == MT_PATH_SHARED ? 0 : (uint64_t)run * BW_RUN_SHIFT;
    e.u.stream.balanced = (uint32_t)runs_balanced(l, k);
    /* Shared data: each block streams its part of the SM's fp_sm bytes. */
    if (l->shared_data)
        e.chain[0].stride = (uint32_t)(l->fp_sm / k->blocks_per_sm);
    return e;
}

/* Bytes one SM moves per repeat (a copy: read + written): its data, or
 * one round of its threads' accesses when that is wider (they wrap around
 * the data, backend.h). */
static double moved_sm(const bw_level *l, mt_stream_op op, const bw_config *k)
{
    double round_block = (double)k->threads * k->vec * k->in_flight;
    double b = l->path == MT_PATH_SHARED
                   ? fmax((double)l->fp_sm, round_block) * k->blocks_per_sm
                   : fmax((double)l->fp_sm, round_block * k->blocks_per_sm);
    return op == MT_STREAM_COPY ? 2 * b : b;
}

/* Cycles of one repeat of the ladder's top configuration (pilot) times
 * the shorter run's repeats may reach this: the ladder's slowest
 * configuration, with 64 times fewer bytes in flight, then still fits a
 * 32-bit sample at twice the repeats (2^25 x 64 x 2 = 2^32). */
#define BW_PILOT_CYCLES_MAX (1u << 25)

static uint32_t first_repeats(const bw_level *l, mt_stream_op op, const bw_config *k,
                              double pilot_cycles)
{
    double r = ceil(BW_TARGET_BYTES_SM / moved_sm(l, op, k));
    if (pilot_cycles > 0 && r * pilot_cycles > BW_PILOT_CYCLES_MAX)
        r = floor(BW_PILOT_CYCLES_MAX / pilot_cycles);
    return r < 1 ? 1 : (uint32_t)r;
}

/* A sample the backend saturated (backend.h) carries no time. */
static double sample(const mt_result *r, int i)
{
    return r->cycles[0][i] == UINT32_MAX ? NAN : (double)r->cycles[0][i];
}

/* The SM clock the clock probe measured (MHz), 0 when it did not. */
static double measured_clock_mhz(mt_probe_ctx *c)
{
    const mt_finding *f = mt_get(c, "gpu", "sm_clock");
    return f->kind == MT_FIND_VALUE && f->value > 0 ? f->value : 0;
}

/* Rates of n configurations, runs run0..: pairs of R and 2R repeats in one
 * batch; bw[i] B/clk/SM, gbps[i] GB/s (NAN where a difference is not
 * positive); blk[i] (when not NULL) B/clk/SM from the slowest block's own
 * clock64 interval (for the note: it needs no clock frequency). */
static mt_err measure(mt_probe_ctx *c, const bw_level *l, mt_stream_op op, const bw_config *k,
                      size_t n, uint32_t run0, double pilot, double *bw, double *gbps, double *blk)
{
    mt_experiment *e = calloc(2 * n, sizeof *e);
    mt_result *r = calloc(2 * n, sizeof *r);
    if (!e || !r) {
        free(e);
        free(r);
        return mt_fail(c->ei, MT_ERR_NOMEM, "out of memory for %zu stream experiments", 2 * n);
    }
    for (size_t i = 0; i < n; i++) {
        uint32_t rep = first_repeats(l, op, &k[i], pilot);
        uint32_t run = run0 + (uint32_t)i;
        e[2 * i] = config_exp(c, l, op, &k[i], rep, run);
        e[2 * i + 1] = config_exp(c, l, op, &k[i], 2 * rep, run);
    }
    mt_err err = mt_run(c, e, 2 * n, r);
    if (err == MT_OK) {
        double mhz = measured_clock_mhz(c);
        for (size_t i = 0; i < n; i++) {
            double per_rep = moved_sm(l, op, &k[i]);
            double rep = e[2 * i].u.stream.repeats;
            double S = c->dev.sm_count;
            gbps[i] = mt_bw_slope(rep * per_rep * S, sample(&r[2 * i], 1),
                                  2 * rep * per_rep * S, sample(&r[2 * i + 1], 1));
            /* Per SM and cycle from the launch's own interval at the SM
             * clock in effect: the slowest block's clock64 interval covers
             * only its own blocks' lifetime, which undercounts when an SM
             * runs a configuration's blocks in waves (registers or shared
             * memory for fewer than all of them at once: on the H100 it
             * gave 251 B/clk/SM for the L1 where the launch gave 125).
             * Without a measured clock, the block interval is all there is. */
            double by_block = mt_bw_slope(rep * per_rep, sample(&r[2 * i], 0), 2 * rep * per_rep,
                                          sample(&r[2 * i + 1], 0));
            bw[i] = mhz > 0 ? gbps[i] * 1e3 / (S * mhz) : by_block;
            if (blk)
                blk[i] = by_block;
        }
        mt_results_free(r, 2 * n);
    }
    free(e);
    free(r);
    return err;
}

/* Whether a configuration fits the level: a round of accesses covers the
 * data whole times or wraps around it (powers of two), and, shared, the
 * SM holds its blocks' arrays. */
static int config_fits(const mt_probe_ctx *c, const bw_level *l, mt_stream_op op,
                       const bw_config *k)
{
    uint64_t step = (uint64_t)k->threads * k->vec * k->in_flight;
    if (l->path == MT_PATH_SHARED) {
        uint64_t smem = op == MT_STREAM_COPY ? 2 * l->fp_sm : l->fp_sm;
        return (l->fp_sm % step == 0 || step % l->fp_sm == 0) &&
               (!c->dev.smem_per_sm || smem * k->blocks_per_sm <= c->dev.smem_per_sm / 2);
    }
    step *= k->blocks_per_sm;
    /* Shared data: a block's share is a whole number of vectors above one
     * (backend.h). */
    if (l->shared_data && l->fp_sm / k->blocks_per_sm <= k->vec)
        return 0;
    return l->fp_sm % step == 0 || step % l->fp_sm == 0;
}

/* Threads one SM holds (returned) and one block may have (*block: at
 * most 1024, the stream kernel's, in whole warps). */
static uint32_t thread_limits(const mt_probe_ctx *c, uint32_t *block)
{
    uint32_t tmax = c->dev.max_threads_per_block > 0 ? (uint32_t)c->dev.max_threads_per_block : 1024;
    if (tmax > 1024)
        tmax = 1024;
    tmax -= tmax % 32;
    *block = tmax;
    return c->dev.max_threads_per_sm > 0 ? (uint32_t)c->dev.max_threads_per_sm : tmax;
}

/* The ladder: threads per SM from 256 (or one warp short of it) doubling
 * to the SM's limit, 1, 2, 4 or 8 accesses in flight, 16-byte vectors. */
static size_t ladder(const mt_probe_ctx *c, const bw_level *l, mt_stream_op op, bw_config *k,
                     size_t cap)
{
    uint32_t tmax, sm_max = thread_limits(c, &tmax);
    size_t n = 0;
    for (uint32_t t = 256; n < cap; t *= 2) {
        if (t > sm_max)
            t = sm_max - sm_max % 32;
        /* Blocks of at most tmax threads making up t (the top: all the SM
         * holds, as blocks of the block limit when it divides it). */
        uint32_t blocks = (t + tmax - 1) / tmax;
        uint32_t T = t / blocks;
        T -= T % 32;
        if (T == 0)
            break;
        for (uint32_t u = 1; u <= MT_STREAM_MAX_IN_FLIGHT && n < cap; u *= 2) {
            bw_config x = {T, blocks, 16, u};
            if (config_fits(c, l, op, &x))
                k[n++] = x;
        }
        if (t >= sm_max)
            break;
    }
    return n;
}

/* The figure a finding of set_pair stands for: its value, or the rate a
 * lower bound was made from (a level measured at several sizes keeps its
 * best, whichever of the two it was). */
static double measured_rate(const mt_finding *f)
{
    return f->kind == MT_FIND_VALUE         ? f->value
           : f->kind == MT_FIND_LOWER_BOUND ? f->lo / (1 - MT_BW_RISE_SHARE)
                                            : 0;
}

/* One finding of set_pair: a value, or where the rate still rose a lower
 * bound.  A rate still rising at the most bytes in flight a launch allows
 * is what this kernel got, not the level's ceiling (random spec w1472:
 * shared-memory copies 7% under theirs, w1364: a whole-L2 read whose data
 * held too few bytes in flight, 10x under), so it is a bound; it gives away
 * MT_BW_RISE_SHARE, the share within which two rates count as the same
 * (mt_bw_best), because a rate read at the ceiling may come out a little
 * over it (the R and 2R difference; 0.02% in the random specs when
 * the bound was the rate itself). */
static mt_finding rate_finding(double rate, int rising, const char *unit, const char *note)
{
    if (rising)
        return mt_find_bound(rate * (1 - MT_BW_RISE_SHARE), unit, "stream-difference",
                             MT_CONF_DIFFERENCE, "%s", note);
    return mt_find_value(rate, unit, MT_SRC_MEASURED, "stream-difference", MT_CONF_DIFFERENCE, "%s",
                         note);
}

/* The two findings of a level and op.  `rising`: the best rate still
 * grew at the most bytes in flight a launch allows (said in the note: the
 * level may deliver more to a kernel with more loads in flight than
 * threads x 16 B x MT_STREAM_MAX_IN_FLIGHT), and the findings are lower
 * bounds (rate_finding). */
static void set_pair(mt_probe_ctx *c, const bw_level *l, mt_stream_op op, double bw, double gbps,
                     double by_block, int rising, const bw_config *k, uint32_t runs)
{
    char name[32], cfg[512], data[96];
    /* A level measured at several sizes (the L2's near read) keeps its
     * best. */
    snprintf(name, sizeof name, "bw_%s%s", op_name(op), l->suffix);
    const mt_finding *had = mt_get(c, l->key, name);
    if (measured_rate(had) >= bw)
        return;
    if (l->shared_data && strcmp(l->suffix, "_partition") == 0)
        snprintf(data, sizeof data, "%llu KiB per SM of %llu KiB, each line read by %.1f SMs",
                 (unsigned long long)(l->fp_sm >> 10), (unsigned long long)(l->shared_data >> 10),
                 (double)c->dev.sm_count * (double)l->fp_sm / (double)l->shared_data);
    else if (l->shared_data)
        snprintf(data, sizeof data, "%llu KiB per SM of %llu KiB all SMs read",
                 (unsigned long long)(l->fp_sm >> 10), (unsigned long long)(l->shared_data >> 10));
    else
        snprintf(data, sizeof data, "%llu KiB per %s", (unsigned long long)(l->fp_sm >> 10),
                 l->path == MT_PATH_SHARED ? "block" : "SM");
    snprintf(cfg, sizeof cfg,
             "%s of %s, %s; best of the search: %u blocks/SM x %u threads, %u B vectors, %u in "
             "flight%s; median of %u runs (R and 2R repeats)%s%s",
             op_name(op), l->what, data, k->blocks_per_sm, k->threads, k->vec, k->in_flight,
             /* balanced: the repeats handed out on demand (backend.h) */
             runs_balanced(l, k) ? ", balanced" : "",
             runs,
             op == MT_STREAM_COPY ? "; bytes read + written" : "",
             rising ? "; still rising at the most in flight a launch allows: a bound, less "
                      "MT_BW_RISE_SHARE"
                    : "");
    /* The slowest block's clock64 interval, next to the figure from the
     * launch's time at the measured clock: they agree when each SM runs
     * its blocks at once, and the block's is high when an SM runs them in
     * waves (measure()). */
    char note[sizeof cfg + 64];
    snprintf(note, sizeof note, "%s; %.1f by the slowest block's clock", cfg, by_block);
    mt_finding f = rate_finding(bw, rising, "B/clk/SM", note);
    snprintf(name, sizeof name, "bw_%s%s", op_name(op), l->suffix);
    mt_set(c, l->key, name, &f);
    snprintf(note, sizeof note, "%s; %.1f B/clk/SM over %d SMs", cfg, bw, c->dev.sm_count);
    f = rate_finding(gbps, rising, "GB/s", note);
    snprintf(name, sizeof name, "gbps_%s%s", op_name(op), l->suffix);
    mt_set(c, l->key, name, &f);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of three finite values (NAN if any is not). */
static double median3(double *v)
{
    for (int i = 0; i < 3; i++)
        if (!isfinite(v[i]))
            return NAN;
    qsort(v, 3, sizeof *v, cmp_double);
    return v[1];
}

static mt_err level_op(mt_probe_ctx *c, const bw_level *l, mt_stream_op op)
{
    bw_config k[BW_MAX_CONFIGS];
    double bw[BW_MAX_CONFIGS], gbps[BW_MAX_CONFIGS], inflight[BW_MAX_CONFIGS];
    size_t n = ladder(c, l, op, k, BW_MAX_CONFIGS - 2);
    if (n == 0)
        return MT_OK;
    mt_progress(c, "%s bandwidth of %s (%zu configurations)", op_name(op), l->what, n);
    /* Pilot: one repeat of the top configuration sizes the others' runs. */
    mt_experiment pe = config_exp(c, l, op, &k[n - 1], 1, BW_MAX_CONFIGS);
    mt_result pr;
    mt_err err = mt_run(c, &pe, 1, &pr);
    if (err)
        return err;
    double pilot = sample(&pr, 0);
    mt_results_free(&pr, 1);
    if (!isfinite(pilot))
        return MT_OK; /* even one repeat is too long to time: no claim */
    if ((err = measure(c, l, op, k, n, 0, pilot, bw, gbps, NULL)))
        return err;
    size_t best;
    int rising;
    for (size_t i = 0; i < n; i++) {
        inflight[i] = (double)k[i].threads * k[i].blocks_per_sm * k[i].vec * k[i].in_flight;
        if (!isfinite(bw[i]))
            bw[i] = 0;
    }
    if (mt_bw_best(inflight, bw, n, &best, &rising) != MT_OK || !(bw[best] > 0))
        return MT_OK;
    /* Narrower vectors: whole ladders where the best figure came from
     * narrow loads on the H100, elsewhere at the best configuration's
     * threads and accesses.  The SM's own levels run the ladder again at
     * 4- and 8-byte vectors: one 128-byte warp access per cycle is how the
     * L1 reaches its 128 B/clk (gpu-benches' gpu-cache got 127.5 with
     * 4-byte loads where the 16-byte ladder got 124.3; memtopo's round
     * kernel got 127.4-127.9 at 4 and 8 bytes, 1024 threads, session 9),
     * and the best occupancy for them need not be the 16-byte one.  The
     * whole-L2 read runs it again at 8 bytes, the width gpu-benches'
     * gpu-l2-cache reads with (on the H100 it did not beat the 16-byte
     * ladder for data beyond a partition: 7.5-7.8 against 7.8 TB/s,
     * session 9; another GPU's L2 may differ), and so does the read
     * within a partition (8 bytes gave 8.2-8.4 TB/s there, 16 bytes
     * 7.8-8.0, session 9). */
    size_t m = n;
    int sm_level = l->path != MT_PATH_GLOBAL_CG;
    int l2_read = strcmp(l->suffix, "_whole") == 0 || strcmp(l->suffix, "_partition") == 0;
    unsigned laddered = sm_level ? (4u | 8u) : l2_read ? 8u : 0u;
    for (uint32_t v = 4; v <= 8; v *= 2)
        for (size_t i = 0; (laddered & v) && i < n && m < BW_MAX_CONFIGS - 2; i++) {
            bw_config x = k[i];
            x.vec = v;
            if (config_fits(c, l, op, &x))
                k[m++] = x;
        }
    for (uint32_t v = 4; v <= 8 && m < BW_MAX_CONFIGS; v *= 2) {
        bw_config x = k[best];
        x.vec = v;
        if (!(laddered & v) && config_fits(c, l, op, &x))
            k[m++] = x;
    }
    if (m > n) {
        if ((err = measure(c, l, op, k + n, m - n, (uint32_t)n, pilot, bw + n, gbps + n, NULL)))
            return err;
        for (size_t i = n; i < m; i++)
            if (isfinite(bw[i]) && bw[i] > bw[best])
                best = i;
    }
    bw_config again[BW_RUNS];
    double rb[BW_RUNS], rg[BW_RUNS], rk[BW_RUNS];
    for (uint32_t i = 0; i < BW_RUNS; i++)
        again[i] = k[best];
    if ((err = measure(c, l, op, again, BW_RUNS, (uint32_t)m, pilot, rb, rg, rk)))
        return err;
    double b = median3(rb), g = median3(rg);
    if (!isfinite(b) || !isfinite(g))
        return MT_OK;
    set_pair(c, l, op, b, g, median3(rk), rising, &k[best], BW_RUNS);
    return MT_OK;
}

/* ---- memory-level parallelism ---- */

#define MLP_MAX_POINTS 12

/* Loads per cycle of each of blocks[i] blocks (one per SM) of k[i] chases
 * over bytes[i] of level data (the slowest block's cycles). */
static mt_err chase_rates(mt_probe_ctx *c, const uint64_t *bytes, const uint32_t *blocks, int dram,
                          const uint32_t *k, size_t n, double *rate)
{
    enum { R = BW_RUNS };
    mt_experiment *e = calloc(2 * R * n, sizeof *e);
    mt_result *r = calloc(2 * R * n, sizeof *r);
    if (!e || !r) {
        free(e);
        free(r);
        return mt_fail(c->ei, MT_ERR_NOMEM, "out of memory for the MLP sweep");
    }
    for (size_t i = 0; i < n; i++) {
        uint64_t region = bytes[i] / ((uint64_t)blocks[i] * k[i]);
        uint64_t laps = dram ? 2 * MLP_LOADS : MLP_L2_LAP;
        uint32_t stride = (uint32_t)mt_round_down(region / laps, MLP_MIN_STRIDE);
        if (stride < MLP_MIN_STRIDE)
            stride = MLP_MIN_STRIDE;
        for (uint32_t run = 0; run < R; run++)
            for (uint32_t t = 0; t < 2; t++) {
                mt_experiment *x = &e[(i * R + run) * 2 + t];
                *x = mt_exp_stream(MT_STREAM_CHASE, MT_PATH_GLOBAL_CG, blocks[i], k[i], 4, 1,
                                   bytes[i], MLP_LOADS << t, stride);
                x->chain[0].offset = (uint64_t)run * BW_RUN_SHIFT;
            }
    }
    mt_err err = mt_run(c, e, 2 * R * n, r);
    if (err == MT_OK) {
        for (size_t i = 0; i < n; i++) {
            double v[R];
            for (uint32_t run = 0; run < R; run++) {
                const mt_result *a = &r[(i * R + run) * 2], *b = a + 1;
                v[run] = mt_bw_slope((double)MLP_LOADS * k[i], sample(a, 0),
                                     2.0 * MLP_LOADS * k[i], sample(b, 0));
            }
            rate[i] = median3(v);
        }
        mt_results_free(r, 2 * R * n);
    }
    free(e);
    free(r);
    return err;
}

/* Loads the GPU keeps in flight to a level: blocks of k chases on m = 1,
 * 2, 4 ... SMs up to all of them, k the chases one SM needs to saturate
 * (k_sm) or as many as gpu_bytes holds at every SM; by Little's law in
 * flight(m) = m x rate(m) / rate1, rate1 one chase's loads per cycle on one
 * SM (the per-SM sweep's first point).  The finding is the figure with
 * every SM chasing. */
static mt_err mlp_gpu(mt_probe_ctx *c, const char *key, const char *what, uint64_t gpu_bytes,
                      int dram, uint32_t k_sm, double rate1)
{
    uint32_t S = (uint32_t)c->dev.sm_count;
    /* A chase's data: DRAM never revisited in the longer run; the L2 a
     * line of its own. */
    uint64_t need = dram ? 2ull * MLP_LOADS * MLP_MIN_STRIDE : MLP_GPU_L2_REGION;
    uint64_t per_sm = pow2_floor(gpu_bytes / S);
    uint32_t k = k_sm;
    while (k > 1 && per_sm / k < need)
        k /= 2;
    if (S < 2 || per_sm / k < need || !(rate1 > 0))
        return MT_OK;
    uint32_t m[MLP_MAX_POINTS], kk[MLP_MAX_POINTS];
    uint64_t data[MLP_MAX_POINTS];
    double rate[MLP_MAX_POINTS];
    size_t n = 0;
    for (uint32_t x = 1; x < S && n < MLP_MAX_POINTS - 1; x *= 2)
        m[n++] = x;
    m[n++] = S;
    /* Every point spans the same data (fewer SMs: more of it each), so
     * it stays in the level measured. */
    for (size_t i = 0; i < n; i++)
        data[i] = per_sm * S, kk[i] = k;
    mt_progress(c, "memory-level parallelism of the GPU at the %s (%zu sweep points)", what, n);
    mt_err err = chase_rates(c, data, m, dram, kk, n, rate);
    if (err)
        return err;
    char sweep[320];
    size_t len = 0;
    for (size_t i = 0; i < n && len < sizeof sweep; i++)
        len += (size_t)snprintf(sweep + len, sizeof sweep - len, "%s%u: %.0f", i ? ", " : "",
                                m[i], m[i] * rate[i] / rate1);
    double inflight = S * rate[n - 1] / rate1;
    if (!isfinite(inflight) || !(inflight > 0))
        return MT_OK;
    mt_finding f;
    if (inflight < MT_MLP_LINEAR_SHARE * S * k)
        f = mt_find_value(inflight, "count", MT_SRC_MEASURED, "chase-sweep-little",
                          MT_CONF_DIFFERENCE,
                          "loads in flight to the %s, %u SMs x %u ld.global.cg chases: rate / "
                          "one chase's on one SM (Little's law); SMs: in flight %s",
                          what, S, k, sweep);
    else
        f = mt_find_bound(inflight * (1 - MT_MLP_PLATEAU_TOL), "count", "chase-sweep-little",
                          MT_CONF_DIFFERENCE,
                          "%.0f loads in flight to the %s, %u SMs x %u chases: nearly all, the "
                          "GPU keeps more than the sweep asks; SMs: in flight %s",
                          inflight, what, S, k, sweep);
    mt_set(c, key, "mlp_gpu", &f);
    return MT_OK;
}

/* Most chases one block runs: the block limit. */
static uint32_t tmax_chases(const mt_probe_ctx *c)
{
    return c->dev.max_threads_per_block > 0 ? (uint32_t)c->dev.max_threads_per_block : 1024;
}

static mt_err mlp_level(mt_probe_ctx *c, const char *key, const char *what, uint64_t bytes,
                        uint64_t gpu_bytes, int dram)
{
    uint32_t tmax = tmax_chases(c);
    uint32_t k[MLP_MAX_POINTS];
    double chases[MLP_MAX_POINTS], rate[MLP_MAX_POINTS];
    size_t n = 0;
    uint64_t need_region = dram ? 2ull * MLP_MIN_STRIDE : (uint64_t)MLP_L2_LAP * MLP_MIN_STRIDE;
    for (uint32_t x = 1; x <= tmax && n < MLP_MAX_POINTS; x *= 2)
        if (bytes / x >= need_region && bytes % ((uint64_t)x * 4) == 0)
            k[n++] = x;
    if (n < 2)
        return MT_OK;
    mt_progress(c, "memory-level parallelism at the %s (%zu sweep points)", what, n);
    uint64_t data[MLP_MAX_POINTS];
    uint32_t one[MLP_MAX_POINTS];
    for (size_t i = 0; i < n; i++)
        data[i] = bytes, one[i] = 1;
    mt_err err = chase_rates(c, data, one, dram, k, n, rate);
    if (err)
        return err;
    /* The sweep ends before the first point too long to time. */
    for (size_t i = 0; i < n; i++)
        if (!isfinite(rate[i]) || !(rate[i] > 0)) {
            n = i;
            break;
        }
    if (n < 2)
        return MT_OK;
    for (size_t i = 0; i < n; i++)
        chases[i] = k[i];
    mt_mlp_fit fit;
    if (mt_mlp_from_sweep(chases, rate, n, &fit) != MT_OK)
        return MT_OK;
    mt_finding f;
    if (fit.saturated)
        f = mt_find_value(fit.mlp, "count", MT_SRC_MEASURED, "chase-sweep-little",
                          MT_CONF_DIFFERENCE,
                          "loads one SM keeps in flight to the %s: rate(k) / rate(1) over k = 1..%u "
                          "independent ld.global.cg chases (Little's law); saturates from %.0f "
                          "chases; %.1f cycles per load at one chase",
                          what, k[n - 1], fit.at_chases, 1 / rate[0]);
    else
        f = mt_find_bound(fit.mlp * (1 - MT_MLP_PLATEAU_TOL), "count", "chase-sweep-little",
                          MT_CONF_DIFFERENCE,
                          "%.1f loads in flight to the %s with %u chases, still rising: the SM "
                          "keeps more than the sweep could ask for",
                          fit.mlp, what, k[n - 1]);
    mt_set(c, key, "mlp", &f);
    return mlp_gpu(c, key, what, gpu_bytes, dram, fit.saturated ? (uint32_t)fit.at_chases : k[n - 1],
                   rate[0]);
}

/* ---- the probe ---- */

static void note_thresholds(mt_probe_ctx *c)
{
    mt_note_threshold(c, "MT_BW_RISE_SHARE", MT_BW_RISE_SHARE,
                      "bandwidth: still rising (a lower bound) if the most bytes in flight beat "
                      "half as many by this share");
    mt_note_threshold(c, "MT_MLP_PLATEAU_TOL", MT_MLP_PLATEAU_TOL,
                      "MLP: sweep points within this share of the most in flight form the plateau");
    mt_note_threshold(c, "MT_MLP_LINEAR_SHARE", MT_MLP_LINEAR_SHARE,
                      "MLP: saturated only if the last point keeps fewer than this share of its "
                      "chases in flight");
    mt_note_threshold(c, "BW_TARGET_BYTES_SM", BW_TARGET_BYTES_SM,
                      "bandwidth: bytes each SM moves in the shorter run of a pair");
    mt_note_threshold(c, "BW_SIZE_RANGE_SLACK", BW_SIZE_RANGE_SLACK,
                      "bandwidth: an L1 size range at most this share wide stands for its low end");
    mt_note_threshold(c, "BW_L2_WHOLE_MARGIN", BW_L2_WHOLE_MARGIN,
                      "whole-L2 read: data beyond the partition one SM uses by this share");
    mt_note_threshold(c, "BW_L2_WHOLE_SHARE", BW_L2_WHOLE_SHARE,
                      "whole-L2 read: data at most this share of the L2's measured size");
    mt_note_threshold(c, "BW_L2_PART_READERS", BW_L2_PART_READERS,
                      "L2 read within a partition: at least this many SMs read each line of data "
                      "below one partition");
}

/* The L2 read within a partition at `eighths` of the partition one SM
 * uses: the SM's share is the power of two giving each line at least
 * BW_L2_PART_READERS readers, the data a whole number of shares (the
 * backend's shared-data rule).  0 (no level) when the partition was not
 * measured or the data would be too small to share. */
static uint64_t l2_part_data(mt_probe_ctx *c, unsigned eighths, uint64_t *fp_sm)
{
    const mt_finding *part = mt_get(c, "l2", "partition_size");
    uint64_t S = (uint64_t)c->dev.sm_count;
    /* A doubted partition still sizes the data: the figure is then no
     * surer than it (doubt_by_partition). */
    if (!mt_partition_bytes(part) || S == 0)
        return 0;
    uint64_t d = mt_partition_bytes(part) * eighths / 8;
    uint64_t want = d * BW_L2_PART_READERS / S;
    uint64_t sm = pow2_floor(want);
    if (sm < want)
        sm *= 2;
    if (sm < 4096 || d < 2 * sm)
        return 0;
    *fp_sm = sm;
    return d - d % sm;
}

/* Per SM bytes of the whole-L2 read: data beyond the partition one SM
 * uses and within the L2, whose size is the partition over the share of
 * lines near an SM (the L2 map; no driver figure: a GPU may use less of
 * its L2 than the driver says).  0 when either was not measured, or one
 * partition is (nearly) the whole L2. */
static uint64_t l2_whole_sm(mt_probe_ctx *c)
{
    const mt_finding *part = mt_get(c, "l2", "partition_size");
    const mt_finding *share = mt_get(c, "l2", "near_share");
    uint64_t S = (uint64_t)c->dev.sm_count;
    if (!mt_partition_bytes(part) || share->kind != MT_FIND_VALUE ||
        share->confidence < MT_CONF_TRUSTED || !(share->value > 0) || S == 0)
        return 0;
    /* Beyond the top of a partition range (the largest chain that fitted),
     * within the L2 its low end allows. */
    double top = part->kind == MT_FIND_RANGE ? part->hi : part->value;
    double lo = top * (1 + BW_L2_WHOLE_MARGIN);
    double hi = (double)mt_partition_bytes(part) / share->value * BW_L2_WHOLE_SHARE;
    /* The multiple of the largest power of two that has one in range: a
     * round of accesses must tile the data (config_fits), so the data's
     * largest power-of-two factor caps the bytes in flight the search may
     * try (40 KiB per SM, 5 x 8 KiB, allowed 8 KiB in flight and read at a
     * tenth of the L2's rate on a simulated GPU; the H100's 256 KiB allows
     * every round). */
    uint64_t x = (uint64_t)(hi / (double)S);
    for (uint64_t p = pow2_floor(x); p >= 4096; p /= 2) {
        uint64_t fp = x - x % p;
        if ((double)(fp * S) > lo)
            return fp;
    }
    return 0;
}

/* The L2's levels: a read of shared data all SMs read (backend.h), writes
 * and copies of each SM's own data, both within a quarter of the
 * partition, and a read of each SM's own data across the whole L2 (data
 * beyond one partition). */
static int l2_levels(mt_probe_ctx *c, bw_level *lv, int n, uint64_t l2_sm, uint64_t near_data,
                     unsigned rwc)
{
    /* Shared data: what the SMs receive.  The H100's crossbar merges
     * requests of several SMs for the same lines (ncu: the L2 slices
     * served 40% of the bytes the SMs got, at the slices' own limit of
     * ~4.4 KB per L2 cycle, as with each SM's own data; docs/method.md),
     * so this is not the L2's own throughput. */
    const char *shared = "the L2 (data all SMs share, ld.global.cg; bytes the SMs receive, requests "
                         "for the same lines may merge before the L2)";
    const char *near = "the L2 (each SM its own data, a quarter of the partition one SM uses in all, "
                       "ld.global.cg)";
    unsigned private_ops = rwc;
    if (c->be->ops->caps & MT_CAP_STREAM_SHARED_DATA) {
        /* Each SM streams the widest round a launch can issue, so no
         * configuration wraps around its share. */
        uint64_t tsm = c->dev.max_threads_per_sm > 0 ? (uint64_t)c->dev.max_threads_per_sm : 1024;
        uint64_t widest = pow2_floor(tsm * 16 * MT_STREAM_MAX_IN_FLIGHT);
        for (int i = 0; i < BW_L2_NEAR_SIZES && (near_data >> i) >= 4096; i++) {
            uint64_t d = near_data >> i;
            uint64_t sm = widest < d ? widest : d;
            lv[n++] = (bw_level){"l2", shared, "", MT_PATH_GLOBAL_CG, sm, 1u << MT_STREAM_READ, d, 0};
        }
        private_ops &= ~(1u << MT_STREAM_READ);
    }
    lv[n++] = (bw_level){"l2", near, "", MT_PATH_GLOBAL_CG, l2_sm, private_ops, 0, 0};
    uint64_t whole = l2_whole_sm(c);
    /* Balanced where the backend can: on the H100 a static split ends
     * with its slowest SMs (docs/method.md). */
    if (whole)
        lv[n++] = (bw_level){"l2", "the whole L2 (data across its partitions, ld.global.cg)",
                             "_whole", MT_PATH_GLOBAL_CG, whole, 1u << MT_STREAM_READ, 0,
                             (c->be->ops->caps & MT_CAP_STREAM_BALANCED) != 0};
    /* Within a partition: data below one partition (every partition can
     * hold all of it), a few SMs on each line so that most of their
     * requests reach the slices (on the H100 91-97%, ncu; docs/method.md):
     * the bytes the SMs receive, the pattern of gpu-benches' best L2
     * points. */
    const char *within = "the L2 within a partition (data below the partition one SM uses, a few "
                         "SMs read each line, ld.global.cg; bytes the SMs receive)";
    for (size_t i = 0; (c->be->ops->caps & MT_CAP_STREAM_SHARED_DATA) && i < BW_L2_PART_SIZES;
         i++) {
        uint64_t sm = 0, d = l2_part_data(c, bw_l2_part_eighths[i], &sm);
        if (d)
            lv[n++] = (bw_level){"l2", within, "_partition", MT_PATH_GLOBAL_CG, sm,
                                 1u << MT_STREAM_READ, d, 0};
    }
    return n;
}

/* The whole-L2 and within-a-partition reads size their data from
 * l2.partition_size.  A doubted partition (on the H100 the L2 line test
 * doubts it in about one run of three: its 256 B-stride chain ends early)
 * still gives data beyond or below a partition of about that size, so the
 * figures are measured, but no surer than the size they rest on. */
static void doubt_by_partition(mt_probe_ctx *c)
{
    const mt_finding *part = mt_get(c, "l2", "partition_size");
    if (!mt_partition_bytes(part) || part->confidence >= MT_CONF_TRUSTED)
        return;
    static const char *const sized[] = {"bw_read_whole", "gbps_read_whole", "bw_read_partition",
                                        "gbps_read_partition"};
    for (size_t i = 0; i < sizeof sized / sizeof *sized; i++) {
        const mt_finding *f = mt_get(c, "l2", sized[i]);
        if (f->kind == MT_FIND_NONE)
            continue;
        mt_finding g = *f;
        mt_finding_doubt(&g, part->confidence,
                         "its data was sized from l2.partition_size, itself doubted (%.2f)",
                         part->confidence);
        mt_set(c, "l2", sized[i], &g);
    }
}

static mt_err bandwidth(mt_probe_ctx *c)
{
    if (!mt_backend_supports(c->be, MT_KIND_STREAM)) {
        mt_progress(c, "skipped: the backend runs no stream experiments");
        return MT_OK;
    }
    note_thresholds(c);
    const mt_cache_state *cs = c->cs;
    uint32_t S = (uint32_t)c->dev.sm_count;
    if (S == 0)
        return MT_OK;
    double peak = mt_dram_peak_gbps(c->dev.bus_width_bits, c->dev.mem_clock_khz);
    if (peak > 0) {
        mt_finding f = mt_find_value(peak, "GB/s", MT_SRC_DRIVER, "driver attribute",
                                     MT_CONF_DRIVER,
                                     "bus %d bits / 8 x memory clock %d MHz x 2 (double data rate)",
                                     c->dev.bus_width_bits, c->dev.mem_clock_khz / 1000);
        mt_set(c, "dram", "peak_gbps", &f);
    }
    const unsigned rwc = (1u << MT_STREAM_READ) | (1u << MT_STREAM_WRITE) | (1u << MT_STREAM_COPY);
    bw_level lv[BW_MAX_LEVELS];
    int n = 0;
    /* SM-local levels: a quarter of the measured size per SM. */
    static const struct {
        mt_cache_id id;
        const char *what;
        mt_path path;
        unsigned ops;
    } local[] = {
        {MT_CACHE_L1D, "the L1 data cache (ld.global.ca)", MT_PATH_GLOBAL_CA, 7},
        {MT_CACHE_TEX, "the texture cache (tex1Dfetch)", MT_PATH_TEXTURE, 1},
        {MT_CACHE_RO, "the read-only cache (ld.global.nc)", MT_PATH_GLOBAL_NC, 1},
    };
    for (size_t i = 0; i < sizeof local / sizeof local[0]; i++) {
        const mt_cache_state *s = &cs[local[i].id];
        uint64_t fp = pow2_floor(s->size / BW_L1_SHARE);
        /* Only a size to trust keeps the data in the cache: a trusted
         * value, or a narrow range (the H100's L1 at some carveouts and
         * runs: an edge that moves by a line or two with where the chain
         * lies, 238272-238304 B at 0.4), whose lower end s->size is and a
         * quarter of which is far inside the cache wherever the edge is. */
        const mt_finding *size = mt_get(c, mt_cache_key(local[i].id), "size");
        bool narrow = size->kind == MT_FIND_RANGE && size->lo > 0 &&
                      size->hi <= size->lo * (1 + BW_SIZE_RANGE_SLACK);
        bool trusted = size->kind != MT_FIND_NONE &&
                       (size->confidence >= MT_CONF_TRUSTED || narrow);
        if (s->present && trusted && fp >= 4096)
            lv[n++] = (bw_level){mt_cache_key(local[i].id), local[i].what, "", local[i].path, fp,
                                 local[i].ops, 0, 0};
    }
    uint64_t shared_lim = c->dev.path_limit_bytes[MT_PATH_SHARED];
    uint64_t fb = pow2_floor(shared_lim / 2 < BW_SHARED_BLOCK ? shared_lim / 2 : BW_SHARED_BLOCK);
    if (fb >= 1024)
        lv[n++] = (bw_level){"shared", "shared memory", "", MT_PATH_SHARED, fb, rwc, 0, 0};
    /* The L2: half of the partition one SM uses. */
    const mt_finding *part = mt_get(c, "l2", "partition_size");
    uint64_t l2 = c->dev.l2_bytes;
    uint64_t near = mt_partition_bytes(part) && part->confidence >= MT_CONF_TRUSTED
                        ? mt_partition_bytes(part) / BW_L2_PART_DIV
                        : l2 / BW_L2_UNKNOWN_DIV;
    uint64_t l2_sm = pow2_floor(near / S);
    /* The MLP sweep reads without copying: twice the bandwidth's L2 data,
     * room for more chases of a warm lap each, where that is half the
     * measured partition.  Without one, l2 / BW_L2_UNKNOWN_DIV is already all
     * of the smallest partition the driver's figure allows (half of it in
     * eight): twice that spilled to DRAM and read the DRAM's MLP, 232 for
     * the L2's 82 (seed w1107, an L2 of half the driver's size). */
    bool part_known = part->kind == MT_FIND_VALUE && part->confidence >= MT_CONF_TRUSTED;
    uint64_t l2_mlp = pow2_floor(part_known ? 2 * near : near);
    if (l2_sm >= 4096)
        n = l2_levels(c, lv, n, l2_sm, pow2_floor(near), rwc);
    /* DRAM: several times the L2, within the path limit (a copy spans 2x). */
    uint64_t lim = c->dev.path_limit_bytes[MT_PATH_GLOBAL_CG];
    uint64_t dram_sm = pow2_floor(BW_DRAM_L2_TIMES * l2 / S);
    while (dram_sm && (dram_sm * S < BW_DRAM_L2_TIMES * l2))
        dram_sm *= 2;
    if (l2 && dram_sm && (!lim || 2 * dram_sm * S + (uint64_t)BW_MAX_CONFIGS * BW_RUN_SHIFT <= lim))
        lv[n++] = (bw_level){"dram", "DRAM (ld.global.cg)", "", MT_PATH_GLOBAL_CG, dram_sm, rwc, 0, 0};
    mt_err err;
    for (int i = 0; i < n; i++) {
        mt_mark_probed(c, lv[i].key);
        for (int op = MT_STREAM_READ; op <= MT_STREAM_COPY; op++)
            if ((lv[i].ops & (1u << op)) && (err = level_op(c, &lv[i], (mt_stream_op)op)))
                return err;
    }
    doubt_by_partition(c);
    if (!mt_backend_supports(c->be, MT_KIND_STREAM) ||
        !(c->be->ops->caps & MT_CAP_STREAM_CHASE))
        return MT_OK;
    int l2_done = 0;
    for (int i = 0; i < n; i++) {
        int dram = strcmp(lv[i].key, "dram") == 0;
        /* The GPU-wide DRAM sweep: enough data for the most chases per SM
         * within the path limit (a sixteenth of it kept free). */
        uint64_t dram_gpu = (uint64_t)S * tmax_chases(c) * 2 * MLP_LOADS * MLP_MIN_STRIDE;
        if (dram_gpu > MLP_GPU_DRAM_MAX)
            dram_gpu = MLP_GPU_DRAM_MAX;
        if (lim && dram_gpu > lim - lim / 16)
            dram_gpu = lim - lim / 16;
        if (dram_gpu < lv[i].fp_sm * S)
            dram_gpu = lv[i].fp_sm * S;
        /* Once per level (the L2 has several streams). */
        if (dram || (strcmp(lv[i].key, "l2") == 0 && !l2_done++))
            if ((err = mlp_level(c, lv[i].key, dram ? "DRAM" : "L2",
                                 dram ? lv[i].fp_sm * S : l2_mlp,
                                 dram ? dram_gpu : pow2_floor(MLP_GPU_L2_QUARTERS * near), dram)))
                return err;
    }
    return MT_OK;
}

static bool bandwidth_requested(const mt_probe_options *o)
{
    return o->bandwidth;
}

static const mt_finding_decl provides[] = {
#define BW_OPS(obj)                                                                                \
    {obj ".bw_read", "read bandwidth per SM"}, {obj ".gbps_read", "read bandwidth"},               \
        {obj ".bw_write", "write bandwidth per SM"}, {obj ".gbps_write", "write bandwidth"},       \
        {obj ".bw_copy", "copy bandwidth per SM"}, {obj ".gbps_copy", "copy bandwidth"}
    BW_OPS("l1d"),
    BW_OPS("shared"),
    BW_OPS("l2"),
    BW_OPS("dram"),
#undef BW_OPS
    {"l2.bw_read_whole", "read bandwidth per SM, data across the whole L2"},
    {"l2.gbps_read_whole", "read bandwidth, data across the whole L2"},
    {"l2.bw_read_partition", "read bandwidth per SM, data within a partition"},
    {"l2.gbps_read_partition", "read bandwidth, data within a partition"},
    {"texture.bw_read", "read bandwidth per SM"},
    {"texture.gbps_read", "read bandwidth"},
    {"readonly.bw_read", "read bandwidth per SM"},
    {"readonly.gbps_read", "read bandwidth"},
    {"dram.peak_gbps", "peak bandwidth (bus x clock x 2)"},
    {"l2.mlp", "loads in flight per SM (MLP)"},
    {"dram.mlp", "loads in flight per SM (MLP)"},
    {"l2.mlp_gpu", "loads in flight per GPU (MLP)"},
    {"dram.mlp_gpu", "loads in flight per GPU (MLP)"},
    {NULL}};
static const char *const requires[] = {"l1d.size", "shared.latency", "l2.partition_size", NULL};
static const mt_object_decl objects[] = {{NULL}};
const mt_probe_desc mt_probe_bandwidth = {
    .name = "bandwidth",
    .summary = "bandwidth of every level (read, write, copy) and loads in flight per SM",
    .rank = 200, .objects = objects, .provides = provides, .requires = requires,
    .run = bandwidth, .requested = bandwidth_requested,
};

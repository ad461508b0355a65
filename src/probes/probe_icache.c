/* Instruction caches (issue 10 part 5; the thesis' section 6.2 sketch,
 * after Jia et al.'s Volta and Turing micro-benchmarks): per level the
 * size and the cycles per instruction of code it serves.
 *
 * Opt-in (--icache): on a GPU each block size is a module the driver
 * compiles (about 1.5 s for the largest), which the default run has no
 * time for.
 *
 * One warp runs a block of straight-line code (MT_KIND_ICACHE: independent
 * integer instructions, no branch) once to warm the caches, then
 * ICACHE_LAPS times timed.  Block sizes double from MT_ICACHE_MIN_BYTES to
 * ICACHE_TOP_BYTES; the cycles per instruction (a lap's cycles, timer
 * overhead removed, over its instructions; the median of the laps) stay
 * flat while a level holds the block and rise when it no longer does
 * (a sequential block one line larger than an LRU cache misses all of
 * it on every lap).  Each rise of at least ICACHE_MIN_STEP cycles per
 * instruction and ICACHE_STEP_Z standard errors ends a level
 * (analysis/icache_levels.h): its size lies between the last block of its
 * plateau and the first of the next; the last plateau is whatever serves
 * the instruction caches' misses (the L2 on NVIDIA GPUs), holding at least
 * the largest block run. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../analysis/icache_levels.h"
#include "probe_internal.h"

/* Largest block run: 32 Ki instructions, 4x the largest L1 instruction
 * cache reported for NVIDIA GPUs (128 KiB, Jia et al. on Volta), so the
 * plateau beyond it shows; the JIT compiles it in about 1.5 s on the
 * H100's host, the smaller blocks beside it (the cuda backend compiles a
 * batch's blocks at once), which is most of the probe's time. */
#define ICACHE_TOP_BYTES (512u << 10)
/* Timed laps per block: the median of 9 ignores up to 4 laps an
 * interrupt or a clock change hit. */
#define ICACHE_LAPS 9u
/* Smallest rise of cycles per instruction taken as a level's end: half
 * the simulator's smallest step between levels (MT_SIM_MIN_ICACHE_STEP),
 * and on a GPU several times the spread of a lap's mean over thousands of
 * instructions. */
#define ICACHE_MIN_STEP 0.25
/* ... and at least this many standard errors of the two medians'
 * difference: six keep a chance rise below 1e-8 over the ten steps of a
 * sweep. */
#define ICACHE_STEP_Z 6.0
/* Confidence of a level found by a rise that passed both tests: the step
 * is large and repeated over ICACHE_LAPS laps, but the edge between two
 * doublings is all the sweep says of the size. */
#define ICACHE_CONF 0.9
/* Confidence of a level whose plateau is one block between two rises:
 * on a GPU such a block is as often one that a level partly holds (the
 * H100's 128 KiB block, between its 64 KiB and 256 KiB ones) as a level
 * of its own, so its findings are doubtful. */
#define ICACHE_CONF_ONE_BLOCK 0.4
/* Confidence of the last plateau's size bound: it holds whenever the
 * sweep reached the top. */
#define ICACHE_CONF_BOUND 0.9

#define ICACHE_LEVEL_KEYS 4
static const char *const level_key[ICACHE_LEVEL_KEYS] = {"icache1", "icache2", "icache3",
                                                         "icache4"};

/* Median and standard error (1.2533 x 1.4826 x MAD / sqrt(n): the median's
 * of Gaussian samples) of the cycles per instruction of r's laps. */
static mt_err lap_cpi(mt_probe_ctx *c, const mt_result *r, uint32_t code_bytes,
                      mt_icache_point *pt)
{
    size_t n = 0;
    double *x = mt_fine_samples(c, r, 0, &n);
    if (!x || n == 0) {
        free(x);
        return mt_fail(c->ei, MT_ERR_NOMEM, "out of memory for icache samples");
    }
    double instructions = (double)code_bytes / MT_ICACHE_INSTRUCTION_BYTES;
    for (size_t i = 0; i < n; i++)
        x[i] /= instructions;
    pt->code_bytes = code_bytes;
    pt->cpi = mt_median(x, n);
    pt->se = 1.2533 * 1.4826 * mt_mad(x, n) / sqrt((double)n);
    free(x);
    return MT_OK;
}

/* "1K 2.01, 2K 2.00, ..." : the measured curve, for every finding's note. */
static void curve_text(const mt_icache_point *p, size_t n, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && len < cap; i++) {
        int w = snprintf(buf + len, cap - len, "%s%uK %.2f", i ? ", " : "",
                         p[i].code_bytes >> 10, p[i].cpi);
        if (w < 0)
            break;
        len += (size_t)w;
    }
}

static mt_err icache(mt_probe_ctx *c)
{
    for (int d = 0; d < ICACHE_LEVEL_KEYS; d++)
        mt_mark_probed(c, level_key[d]);
    mt_note_threshold(c, "ICACHE_MIN_STEP", ICACHE_MIN_STEP,
                      "icache: smallest rise of cycles per instruction that ends a level");
    mt_note_threshold(c, "ICACHE_STEP_Z", ICACHE_STEP_Z,
                      "icache: standard errors of the medians' difference a rise must exceed");
    mt_note_threshold(c, "ICACHE_TOP_BYTES", ICACHE_TOP_BYTES,
                      "icache: largest block of straight-line code run (B)");
    mt_note_threshold(c, "ICACHE_LAPS", ICACHE_LAPS, "icache: timed laps per block");
    mt_note_threshold(c, "ICACHE_CONF_ONE_BLOCK", ICACHE_CONF_ONE_BLOCK,
                      "icache: confidence of a level seen in one block between two rises");
    if (!mt_backend_supports(c->be, MT_KIND_ICACHE))
        return MT_OK; /* a recording made before icache experiments, or a spec without them */

    mt_experiment e[MT_ICACHE_MAX_POINTS];
    mt_result r[MT_ICACHE_MAX_POINTS];
    mt_icache_point pt[MT_ICACHE_MAX_POINTS];
    size_t n = 0;
    for (uint32_t b = MT_ICACHE_MIN_BYTES; b <= ICACHE_TOP_BYTES && n < MT_ICACHE_MAX_POINTS;
         b *= 2)
        e[n++] = mt_exp_icache(b, ICACHE_LAPS);
    mt_progress(c, "instruction caches: %zu blocks of straight-line code, %u B to %u B", n,
                MT_ICACHE_MIN_BYTES, ICACHE_TOP_BYTES);
    mt_err err = mt_run(c, e, n, r);
    if (err != MT_OK)
        return err;
    for (size_t i = 0; i < n && !err; i++)
        err = lap_cpi(c, &r[i], e[i].u.icache.code_bytes, &pt[i]);
    mt_results_free(r, n);
    if (err != MT_OK)
        return err;

    mt_icache_level lv[MT_ICACHE_MAX_LEVELS];
    size_t nlev = 0;
    if ((err = mt_icache_levels(pt, n, ICACHE_MIN_STEP, ICACHE_STEP_Z, lv, &nlev)) != MT_OK)
        return mt_fail(c->ei, err, "icache: the sweep's sizes are not ascending");
    char curve[200];
    curve_text(pt, n, curve, sizeof curve);
    for (size_t d = 0; d < nlev && d < ICACHE_LEVEL_KEYS; d++) {
        const mt_icache_level *l = &lv[d];
        bool last = d + 1 == nlev;
        uint32_t fit = pt[l->last].code_bytes;
        bool one_block = !last && d > 0 && l->first == l->last;
        double conf = one_block ? ICACHE_CONF_ONE_BLOCK : ICACHE_CONF;
        const char *why = one_block ? " one block between two rises: maybe a partial fit of the "
                                      "level before, not a level;"
                                    : "";
        mt_finding size;
        if (last)
            /* It held the largest block run: "> top - one instruction". */
            size = mt_find_bound((double)(fit - MT_ICACHE_INSTRUCTION_BYTES), "B", "icache-sweep",
                                 ICACHE_CONF_BOUND,
                                 "held every block up to %u B, the largest run; cycles per "
                                 "instruction by block (KiB): %s",
                                 fit, curve);
        else
            /* Up to one byte below the block it did not hold: a level of
             * 2036 B holds 127 instructions (2032 B) and not 2048 B. */
            size = mt_find_range((double)fit, (double)(pt[l->last + 1].code_bytes - 1),
                                 "B", "icache-sweep", conf,
                                 "holds %u B of code, not %u B (a rise of %.2f cycles per "
                                 "instruction, %.0f standard errors);%s curve (KiB): %s",
                                 fit, pt[l->last + 1].code_bytes, l->step, l->step_z, why, curve);
        mt_set(c, level_key[d], "size", &size);
        mt_finding lat = mt_find_value(l->cpi, "cycles", MT_SRC_MEASURED, "icache-sweep", conf,
                                       "cycles per instruction of code this level serves: median "
                                       "of blocks %u..%u B (%u laps each);%s",
                                       pt[l->first].code_bytes, fit, ICACHE_LAPS,
                                       one_block ? why : " all its blocks");
        mt_set(c, level_key[d], "latency", &lat);
    }
    return MT_OK;
}

static bool icache_requested(const mt_probe_options *o)
{
    return o->icache;
}

static const mt_object_decl objects[] = {
    {"icache1", "Instruction cache 1", "I1", MT_OBJ_CACHE, 0, 95},
    {"icache2", "Instruction cache 2", "I2", MT_OBJ_CACHE, 0, 96},
    {"icache3", "Instruction cache 3", "I3", MT_OBJ_CACHE, 0, 97},
    {"icache4", "Instruction cache 4", "I4", MT_OBJ_CACHE, 0, 98},
    {NULL}};
static const mt_finding_decl provides[] = {
    {"icache1.size", "code size held"}, {"icache1.latency", "cycles per instruction"},
    {"icache2.size", "code size held"}, {"icache2.latency", "cycles per instruction"},
    {"icache3.size", "code size held"}, {"icache3.latency", "cycles per instruction"},
    {"icache4.size", "code size held"}, {"icache4.latency", "cycles per instruction"},
    {NULL}};
const mt_probe_desc mt_probe_icache = {
    .name = "icache",
    .summary = "instruction caches (opt-in --icache): code size held and cycles per instruction "
               "per level",
    .rank = 96, .objects = objects, .provides = provides, .run = icache,
    .requested = icache_requested,
};

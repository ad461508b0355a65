/* The backend interface: the only thing probes know about a GPU.
 *
 * A backend describes its device (what a driver query would tell) and runs
 * batches of pointer-chase experiments, returning raw cycle samples.  Two
 * real backends exist (cuda, sim) plus two wrappers (record, replay).
 *
 * Batch semantics (all backends must honour them):
 *  - Experiments in one batch are independent.  A backend may run them
 *    concurrently on different SMs (one block per SM) when `exclusive` is 0.
 *    Experiments whose data lives in a GPU-wide level (L2, DRAM) set
 *    exclusive = 1 and are then run alone, so that no other SM disturbs the
 *    shared cache.
 *  - Every experiment starts with cold caches for its own data: the sim
 *    resets its caches; the cuda backend flushes L2 before an experiment
 *    with warmup_laps == 0 and relies on L1 being invalidated per launch.
 *  - With two chains the order is the thesis' sharing protocol: chain 0
 *    warms, chain 1 warms, chain 0 is measured, chain 1 is measured, each
 *    step run by its own thread (chain[i].thread) with the others idle.
 */
#ifndef MT_BACKEND_H
#define MT_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "../core/device.h"
#include "../core/error.h"

typedef enum {
    MT_PATH_GLOBAL_CA = 0, /* ld.global.ca: cache at all levels (L1 + L2) */
    MT_PATH_GLOBAL_CG,     /* ld.global.cg: cache in L2 only */
    MT_PATH_GLOBAL_NC,     /* ld.global.nc: read-only data cache (__ldg) */
    MT_PATH_TEXTURE,       /* tex1Dfetch through a texture object */
    MT_PATH_CONSTANT,      /* constant bank (64 KiB, wrapped as the thesis does) */
    MT_PATH_SHARED,        /* shared memory */
    MT_PATH_NONE,          /* no load: times the timer + dependency overhead alone */
    MT_PATH_COUNT
} mt_path;

typedef enum {
    MT_MODE_FINE = 0,  /* one cycle sample per measured load */
    MT_MODE_AGGREGATE  /* one sample: total cycles of all measured loads */
} mt_mode;

typedef enum {
    MT_ORDER_SEQUENTIAL = 0, /* element i -> i+1 (wraps), the thesis' chain */
    MT_ORDER_RANDOM          /* a random cyclic permutation of the elements */
} mt_order;

typedef struct {
    int thread;         /* thread index inside the block that runs this chain */
    mt_path path;
    uint64_t footprint; /* bytes spanned by the chain; elements = footprint / stride */
    uint32_t stride;    /* bytes between consecutive elements; multiple of 4, >= 4 */
    uint64_t offset;    /* byte offset of element 0 inside the path's buffer, so two
                           chains of one experiment can use disjoint data */
} mt_chain;

#define MT_MAX_CHAINS 2

typedef struct {
    mt_chain chain[MT_MAX_CHAINS];
    int n_chains;          /* 1, or 2 for sharing / slices-per-SM tests */
    mt_order order;
    uint32_t order_seed;   /* permutation seed for MT_ORDER_RANDOM */
    uint32_t warmup_laps;  /* full passes over each chain before measuring; 0 = cold */
    uint32_t loads;        /* loads measured per chain (continuing the chain) */
    mt_mode mode;
    int sm;                /* SM to run on, -1 = any */
    int exclusive;         /* 1: run alone (data in a GPU-wide level) */
} mt_experiment;

typedef struct {
    /* FINE: n[i] == loads, cycles[i][k] = cycles of load k of chain i, with the
     *       fine timer overhead still included (probes subtract it).
     * AGGREGATE: n[i] == 1, cycles[i][0] = total cycles for `loads` loads,
     *       loop overhead still included. */
    uint32_t *cycles[MT_MAX_CHAINS];
    uint32_t n[MT_MAX_CHAINS];
    int sm_ran; /* SM the experiment ran on (%smid), -1 if unknown */
} mt_result;

void mt_result_free(mt_result *r);

/* Validates an experiment against a device's limits (stride alignment,
 * footprint within the path limit, loads within max_fine_loads...). */
mt_err mt_experiment_check(const mt_experiment *e, const mt_device_info *dev,
                           mt_errinfo *ei);

typedef struct mt_backend mt_backend;

typedef struct {
    const char *name; /* "sim", "cuda", "replay", "record" */
    mt_err (*get_info)(mt_backend *b, mt_device_info *out, mt_errinfo *ei);
    /* Runs n experiments; on success out[0..n-1] are filled (caller frees
     * with mt_result_free).  On failure nothing in out needs freeing. */
    mt_err (*run_batch)(mt_backend *b, const mt_experiment *exps, size_t n,
                        mt_result *out, mt_errinfo *ei);
    void (*destroy)(mt_backend *b);
} mt_backend_ops;

struct mt_backend {
    const mt_backend_ops *ops;
    void *impl;
};

/* Convenience wrappers (NULL-safe destroy). */
mt_err mt_backend_info(mt_backend *b, mt_device_info *out, mt_errinfo *ei);
mt_err mt_backend_run(mt_backend *b, const mt_experiment *exps, size_t n,
                      mt_result *out, mt_errinfo *ei);
void mt_backend_destroy(mt_backend *b);

/* Constructors.  Each lives in its own file (backend_<name>.c). */

/* preset: a built-in preset name ("h100", "a100", ...) or a spec file path.
 * seed_override: if has_seed, replaces the spec's seed. */
mt_err mt_backend_sim_open(const char *preset_or_file, int has_seed,
                           uint64_t seed_override, mt_backend **out,
                           mt_errinfo *ei);
/* Fails with MT_ERR_NOT_BUILT when compiled without nvcc. */
mt_err mt_backend_cuda_open(int device, mt_backend **out, mt_errinfo *ei);
/* Reads a directory written by the record wrapper. */
mt_err mt_backend_replay_open(const char *dir, mt_backend **out, mt_errinfo *ei);
/* Wraps inner (takes ownership); everything measured is kept in memory and
 * written to dir by mt_record_flush (also called by destroy). */
mt_err mt_backend_record_wrap(mt_backend *inner, const char *dir,
                              mt_backend **out, mt_errinfo *ei);
mt_err mt_record_flush(mt_backend *rec, mt_errinfo *ei);

/* Hash of every parameter of an experiment, mixed into h0 (splitmix64): the
 * sim seeds an experiment's noise with it, the replay indexes recordings. */
uint64_t mt_hash_mix(uint64_t h, uint64_t v);
uint64_t mt_experiment_hash(uint64_t h0, const mt_experiment *e);

const char *mt_path_name(mt_path p);          /* "ca", "cg", "nc", "tex", "const", "shared", "none" */
int mt_path_from_name(const char *s, mt_path *out); /* 0 ok, -1 unknown */

#endif

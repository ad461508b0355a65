/* The performance model (issue 12): GPUMech's interval analysis of one
 * representative warp, its multithreading model (round-robin or
 * greedy-then-oldest), and the contention GPUMech is weak on (miss slots,
 * bandwidth per level, shared-memory bank conflicts, barriers, the last
 * wave), fed by the machine memtopo measured.  docs/model.md has the
 * equations and where every input comes from.
 *
 * Pure C: structs in, structs out; no I/O, no globals, no printing (the
 * parsers take text, the CLI reads the files).  Every constant is named
 * below with why it has its value. */
#ifndef MT_MODEL_H
#define MT_MODEL_H

#include <stddef.h>

#include "../core/error.h"
#include "../topology/topology.h"

/* ---- the machine --------------------------------------------------------- */
typedef enum {
    MT_MI_SM_COUNT = 0,
    MT_MI_CLOCK_MHZ,
    MT_MI_WARP_SIZE,
    MT_MI_SCHEDULERS,      /* warp schedulers (sub-partitions) per SM */
    MT_MI_MAX_WARPS_SM,
    MT_MI_MAX_BLOCKS_SM,
    MT_MI_REGS_SM,
    MT_MI_SMEM_SM,         /* shared memory per SM at the largest carveout */
    MT_MI_SMEM_RESERVED,   /* shared memory the driver reserves per block */
    MT_MI_UNIFIED_L1,      /* L1 + shared bytes per SM (l1d.carveout_unified) */
    MT_MI_L1_SIZE,         /* L1 data size at the probes' carveout */
    MT_MI_L1_LAT,
    MT_MI_SECTOR,
    MT_MI_SHARED_LAT,
    MT_MI_BANKS,
    MT_MI_CONFLICT_CYCLES, /* extra cycles per extra way of a bank conflict */
    MT_MI_L2_SIZE,
    MT_MI_L2_NEAR_LAT,
    MT_MI_L2_FAR_LAT,
    MT_MI_L2_NEAR_SHARE,
    MT_MI_DRAM_LAT,
    MT_MI_L1_BW_READ,      /* bytes per cycle per SM */
    MT_MI_L1_BW_WRITE,
    MT_MI_L1_BW_COPY,
    MT_MI_SHARED_BW,       /* bytes per cycle per SM */
    MT_MI_L2_GBPS_READ,    /* GB/s, whole GPU */
    MT_MI_L2_GBPS_WRITE,
    MT_MI_L2_GBPS_COPY,
    MT_MI_DRAM_GBPS_READ,
    MT_MI_DRAM_GBPS_WRITE,
    MT_MI_DRAM_GBPS_COPY,
    MT_MI_L2_MLP,          /* L2 loads one SM keeps in flight */
    MT_MI_DRAM_MLP,
    MT_MI_ALU_LAT,         /* dependent-issue latency of an ALU/FMA result */
    MT_MI_COUNT
} mt_model_input_id;

typedef struct {
    double value;
    int set;            /* 1 when the value is known */
    int assumed;        /* 1: a stated default, not a measurement or driver query */
    char source[64];    /* the finding or attribute it came from ("l2.latency") */
} mt_model_input;

typedef struct {
    mt_model_input in[MT_MI_COUNT];
    char gpu[128];
    /* L1 size per carveout (shared bytes), from l1d.size_at_carveout_*. */
    int n_carveouts;
    double carveout_smem[16], carveout_l1[16];
} mt_model_machine;

/* Name (what-if key), unit, and the default with its justification for
 * each input (NULL default: none is defensible, the model stops). */
const char *mt_model_input_key(mt_model_input_id id);
const char *mt_model_input_unit(mt_model_input_id id);
/* The option of `memtopo` that measures the finding behind an input. */
const char *mt_model_input_hint(mt_model_input_id id);

/* Fills m from a topology (a report, or one just measured).  Inputs the
 * model cannot do without and that the topology lacks leave m partly
 * filled and return MT_ERR_INVALID_ARG naming the finding and the option
 * that measures it. */
mt_err mt_model_machine_from_topology(const mt_topology *t, mt_model_machine *m, mt_errinfo *ei);

/* ---- the kernel ---------------------------------------------------------- */
/* Distances (in instructions) an ALU result is read after it is written,
 * counted up to this many: beyond it no stall is possible on sm_70+ (the
 * dependent-issue latency is 4-6 cycles, docs/model.md). */
#define MT_MODEL_MAX_DEP 8

typedef struct {
    char name[160];
    char source[16];        /* "ncu", "ncu+sass", "kd" */
    /* launch */
    double grid_blocks, block_threads, regs_per_thread, smem_per_block;
    double carveout_smem;   /* shared bytes per SM chosen for the launch; <= 0 unknown */
    /* per warp (averages over every warp of the launch) */
    double inst;            /* warp instructions */
    double inst_fp64, inst_sfu;  /* of which on the slower pipes */
    double ld_global, st_global; /* warp-level global/local load and store instructions */
    double ld_shared, st_shared;
    double ld_sectors, st_sectors; /* 32-B sectors per global request */
    double l1_wavefronts;   /* L1 data-path passes of global accesses; <= 0: from sectors */
    double atomics;         /* global atomic and reduction instructions (served by the L2) */
    double atomic_sectors;  /* sectors per atomic request */
    double l1_hit;          /* sector hit rate of global loads in the L1, 0..1 */
    double l2_hit;          /* sector hit rate of reads in the L2, 0..1 */
    double dram_read_bytes, dram_write_bytes; /* per warp; < 0: derived from hit rates */
    double bank_ways;       /* shared-memory wavefronts per shared instruction (>= 1) */
    double barriers;        /* barrier instructions per warp */
    double ld_intervals;    /* groups of global loads issued before the first use */
    double sh_intervals;    /* the same for shared loads */
    double use_distance;    /* instructions from a load group to the first use */
    double alu_dep[MT_MODEL_MAX_DEP + 1]; /* per warp: ALU instructions reading a result d back */
    int has_dep;            /* alu_dep known (SASS or .kd); else an assumption */
} mt_model_kernel;

/* .kd text (docs/model.md, "Kernel description"): one kernel.  `name` is
 * what errors call the text (the file name).  MT_ERR_SPEC_PARSE naming the
 * line on bad input. */
mt_err mt_model_kd_parse(const char *text, const char *name, mt_model_kernel *k, mt_errinfo *ei);

/* Nsight Compute `--page raw --csv` text: one kernel per launch row, the
 * program's own output around it ignored.  *out is malloc'ed (free()). */
mt_err mt_model_ncu_parse(const char *text, const char *name, mt_model_kernel **out, size_t *n,
                          mt_errinfo *ei);
/* Adds the SASS source page (`--page source --csv --print-source sass`):
 * instruction mix and dependence distances.  A page with one listing per
 * launch, in the raw page's order and names, gives listing i to launch i;
 * otherwise each launch gets the first listing of its kernel's name.
 * Kernels without a listing keep the raw page's counts. */
mt_err mt_model_sass_apply(const char *text, const char *name, mt_model_kernel *k, size_t n,
                           mt_errinfo *ei);

/* One CSV record starting at *p (RFC 4180 quotes), cells malloc'ed into
 * *cells (free with mt_model_csv_free); *p moves past the record.  0 at the
 * end of the text. */
int mt_model_csv_record(const char **p, char ***cells, size_t *n);
void mt_model_csv_free(char **cells, size_t n);
/* A number as ncu prints it ("1,234.5"); 0 when the cell is not one. */
int mt_model_number(const char *cell, double *out);

/* ---- the model ----------------------------------------------------------- */
typedef enum { MT_SCHED_GTO = 0, MT_SCHED_RR } mt_model_sched;

typedef enum {
    MT_CPI_BASE = 0,  /* issue */
    MT_CPI_DEP,       /* waiting on ALU results */
    MT_CPI_L1,        /* L1 / shared-memory hits */
    MT_CPI_L2_NEAR,
    MT_CPI_L2_FAR,
    MT_CPI_DRAM,
    MT_CPI_MSHR,      /* misses beyond what the SM keeps in flight */
    MT_CPI_BW_L1,     /* bandwidth queueing, per level */
    MT_CPI_BW_L2,
    MT_CPI_BW_DRAM,
    MT_CPI_BANK,      /* shared-memory bank conflicts */
    MT_CPI_BARRIER,
    MT_CPI_TAIL,      /* the last wave's idle SMs */
    MT_CPI_COUNT
} mt_cpi_part;
const char *mt_cpi_name(mt_cpi_part p); /* "L2 near" */
const char *mt_cpi_key(mt_cpi_part p);  /* "l2_near" (JSON) */

typedef struct {
    mt_model_sched sched;
    double clock_mhz;       /* > 0: predict at this clock instead of the machine's */
    double occupancy;       /* > 0: force this share of the SM's warps (0..1] */
} mt_model_options;

#define MT_MODEL_MAX_NOTES 16
typedef struct {
    double cycles;          /* SM cycles of the whole launch */
    double seconds;
    double clock_mhz;
    double stack[MT_CPI_COUNT]; /* cycles; sums to `cycles` */
    double blocks_per_sm;   /* resident */
    double warps_per_sm;
    char occupancy_limit[16]; /* "warps", "registers", "shared", "blocks", "forced" */
    double waves;
    double l1_bytes;        /* L1 size the kernel sees at its carveout */
    double load_latency;    /* average global load latency, cycles */
    char limit[256];        /* the limiting resource in one sentence */
    int n_notes;
    char notes[MT_MODEL_MAX_NOTES][200]; /* assumptions this prediction used */
} mt_model_result;

mt_err mt_model_predict(const mt_model_machine *m, const mt_model_kernel *k,
                        const mt_model_options *o, mt_model_result *r, mt_errinfo *ei);

/* ---- what-if ------------------------------------------------------------- */
/* Applies KEY=VALUE: an input key (`l2.size=2x`, `l1d.latency=20`,
 * `dram.gbps_read=4000`; "Nx" multiplies), `occupancy=50%` or
 * `clock=1500` (options).  MT_ERR_INVALID_ARG naming the key. */
mt_err mt_model_what_if(const char *kv, mt_model_machine *m, mt_model_options *o, mt_errinfo *ei);

/* The kernel profiled on `from` run on `to`: hit rates rescaled where the
 * L1 or L2 sizes differ (docs/model.md, "Cross-GPU").  Adds nothing when
 * the sizes agree.  Returns how many rates changed. */
int mt_model_retarget(mt_model_kernel *k, const mt_model_machine *from, const mt_model_machine *to);

#endif

/* The simulator's device description: an INI-like, human-written spec file
 * (docs/spec-format.md) parsed into a fixed-size struct.  The struct owns no
 * heap memory, so it can be copied and edited freely (tests do). */
#ifndef MT_SIM_SPEC_H
#define MT_SIM_SPEC_H

#include <stddef.h>
#include <stdint.h>

#include "../backend/backend.h"
#include "../backend/device.h"
#include "../core/error.h"
#include "access_model.h"
#include "banks.h"

/* Hard limits that keep a typo in a spec from exhausting host memory or
 * making a single load cost milliseconds.  The largest preset (H100 L2,
 * 409,600 lines of 128 B) is well inside them. */
#define MT_SIM_MAX_CACHES 8               /* [cache ...] sections */
#define MT_SIM_MAX_SLICES 64              /* slices of one per-SM cache */
#define MT_SIM_MAX_WAYS 1024              /* lookups scan the ways linearly */
#define MT_SIM_MAX_LINES (1u << 22)       /* lines of one slice (16 B each in the model: 64 MB) */
#define MT_SIM_MAX_TOTAL_LINES (1u << 23) /* lines over all caches and slices: 128 MB */
#define MT_SIM_MAX_CACHE_BYTES (1ull << 30)
#define MT_SIM_MAX_LINE 4096
#define MT_SIM_MAX_SECTORS_PER_LINE 32    /* sector valid bits live in a uint32_t */
#define MT_SIM_MAX_LATENCY 1e6            /* cycles; anything above is a typo */
#define MT_SIM_MAX_PARTITIONS 64
#define MT_SIM_MAX_INDEX_BITS 22          /* log2 of the most sets a slice can have (MT_SIM_MAX_LINES) */
#define MT_SIM_MAX_PARTITION_MAP 256      /* entries of partition_of_sm (after N*P expansion) */

/* Limits that keep every accepted spec measurable, and its full run short
 * (src/sim/spec_measurable.c checks them; docs/spec-format.md, "Limits",
 * gives the reasons). */
#define MT_SIM_MAX_OUTLIER_RATE 0.01      /* spikes in at most 1% of fine samples */
#define MT_SIM_MAX_OUTLIER_CYCLES 10000.0 /* typical spike size */
#define MT_SIM_NOISE_PER_LATENCY 0.125    /* noise stddev <= latency / 8 on every path */
#define MT_SIM_MIN_CONST_BANK 8192u       /* constant bytes the probes need (probe_constant.c) */
#define MT_SIM_MAX_CONST_MEM (1u << 20)   /* 16x what every NVIDIA GPU has */
#define MT_SIM_MIN_SMEM 4096u             /* the shared probe's 4 KiB chain */
#define MT_SIM_MIN_L2 (64u << 10)         /* the L2 probe's chains are L2/256 .. 4 x L2 */
#define MT_SIM_L2_DRIVER_RATIO 2.0        /* driver's l2_size vs the modelled L2 */
#define MT_SIM_GLOBAL_PATH_PER_L2 4       /* global path limit >= 4 x the L2 */
#define MT_SIM_MAX_L2_BYTES (128ull << 20)    /* run time grows with the L2's bytes ... */
#define MT_SIM_MAX_L2_BYTE_WAYS (2ull << 30) /* ... times its ways (lookups scan the ways) */

/* Logical paths a cache can serve ("serves = ..."), also the suffixes of the
 * per-path latency overrides ("latency.tex = 86"). */
typedef enum {
    MT_SIM_LP_L1D = 0, /* ld.global.ca */
    MT_SIM_LP_TEX,     /* tex1Dfetch */
    MT_SIM_LP_RO,      /* ld.global.nc */
    MT_SIM_LP_CONST,   /* constant bank */
    MT_SIM_LP_CG,      /* ld.global.cg: only the L2 and DRAM serve it */
    MT_SIM_LP_COUNT
} mt_sim_lpath;

typedef enum {
    MT_SIM_INDEX_MODULO = 0,
    MT_SIM_INDEX_XOR,
    MT_SIM_INDEX_HASH /* set bit i = parity(line_addr & index_mask[i]) */
} mt_sim_index;
typedef enum {
    MT_SIM_REPL_LRU = 0,
    MT_SIM_REPL_FIFO,
    MT_SIM_REPL_RANDOM,
    MT_SIM_REPL_FERMI,
    MT_SIM_REPL_PLRU /* tree pseudo-LRU: power-of-two ways only */
} mt_sim_repl;
typedef enum { MT_SIM_SLICE_WARP_MOD = 0, MT_SIM_SLICE_THREAD_MOD, MT_SIM_SLICE_GROUP } mt_sim_slice_map;

typedef struct {
    char name[32];          /* the NAME of [cache NAME] */
    int line_no;            /* line of the section header (for messages) */
    unsigned serves;        /* bit (1u << mt_sim_lpath) per served path */
    int is_l2;              /* serves = all: the GPU-wide L2 */
    double level;           /* order along a path: lower is closer to the SM */
    uint64_t size;          /* bytes of ONE slice (what one thread sees) */
    uint32_t line, sector, fill; /* bytes; fill = bytes fetched on a miss */
    uint32_t ways;          /* == size / line when fully associative */
    int fully_assoc;
    mt_sim_index index;
    mt_sim_repl repl;
    uint32_t fermi_way;     /* the way 'fermi' evicts 3x as often */
    uint64_t index_mask[MT_SIM_MAX_INDEX_BITS]; /* index = hash: line-address bits of set bit i */
    uint32_t n_index_masks; /* == log2(sets) with index = hash, else 0 */
    uint64_t unified;       /* bytes of the array shared with shared memory (size =
                               unified - carveout); 0 = a cache of fixed size */
    int carveout_ways;      /* unified only (carveout_takes = ways): the sets stay
                               unified / line / ways and the carveout takes whole
                               ways from them (mt_sim_set_ways); 0: it takes sets */
    double latency[MT_SIM_LP_COUNT];     /* total cycles of a load served here */
    double far_latency[MT_SIM_LP_COUNT]; /* L2 only: hit homed in another partition */
    double noise;           /* Gaussian stddev, cycles */
    uint32_t partitions;    /* L2 only; 1 elsewhere */
    uint32_t slices;
    mt_sim_slice_map slice_map;
    uint32_t slice_group;   /* threads per group for MT_SIM_SLICE_GROUP */
    /* L2 only: SM s is attached to partition partition_map[s % len]; len 0
     * means the default, s % partitions. */
    uint8_t partition_map[MT_SIM_MAX_PARTITION_MAP];
    uint32_t partition_map_len;
} mt_sim_cache_spec;

typedef struct {
    double latency[MT_SIM_LP_COUNT];
    double noise;
} mt_sim_level_spec;

/* [tlb NAME]: one level of address translation (docs/spec-format.md, "TLB
 * levels"), in file order from the SM outwards.  A global load (l1d, tex,
 * ro and cg paths) looks its page up level by level, each level fully
 * associative with LRU replacement, and pays miss_penalty for every level
 * that misses. */
#define MT_SIM_MAX_TLBS 3
#define MT_SIM_MAX_TLB_ENTRIES 65536u
#define MT_SIM_MIN_TLB_PAGE (64ull << 10)
/* Up to 1 GiB: pages far above the 2 MiB large page, as a GPU that maps a
 * big allocation with huge pages or coalesced page-table fragments would
 * show them (issue 9: the H100 kept every latency over 74 GiB at a 4 MiB
 * stride); the TLB probe climbs its stride to measure them. */
#define MT_SIM_MAX_TLB_PAGE (1ull << 30)
/* Measurable (spec_tlb.c): each level holds at least this many times the
 * entries of the one before it, and every miss penalty is at least this
 * many cycles. */
#define MT_SIM_TLB_ENTRY_RATIO 4u
#define MT_SIM_MIN_TLB_PENALTY 8.0
typedef struct {
    char name[32];
    int line_no;           /* line of the section header (for messages) */
    uint32_t entries;
    uint64_t page;         /* bytes one entry translates, power of two */
    double miss_penalty;   /* cycles added to a load that misses this level */
    /* Since issue 9's sharing: entries / ways sets, a page's set its page
     * number modulo the sets; ways == entries (the default) is fully
     * associative. */
    uint32_t ways;
    /* SMs (%smid, consecutive) per instance of the level: SM s uses
     * instance s / sms_per_group; 0 (`all`, the default) is one instance
     * for the whole GPU. */
    uint32_t sms_per_group;
} mt_sim_tlb_spec;
/* Ways of a set-associative level (fewer ways than entries): a power of
 * two up to this many, so a lookup scans a short set. */
#define MT_SIM_MAX_TLB_SET_WAYS 64u

/* [icache NAME]: one level of instruction caching (docs/spec-format.md,
 * "Instruction caches"), in file order from the SM outwards.  A block of
 * straight-line code (MT_KIND_ICACHE) is served, warm, by the first level
 * that holds all of it (each level fully associative with LRU replacement:
 * code one byte larger than a level misses it on every lap) and runs at
 * that level's cycles per instruction.  The last level stands for what
 * serves code no instruction cache holds (the L2): it must hold the
 * largest block an experiment may run. */
#define MT_SIM_MAX_ICACHES 4
#define MT_SIM_MIN_ICACHE_LATENCY 0.5 /* cycles per instruction: dual issue at most */
#define MT_SIM_MAX_ICACHE_LATENCY 1000.0
/* Measurable (spec_icache.c): each level at least this many times the
 * size of the one before (a doubling sweep then runs a block between
 * them), and at least this many cycles per instruction slower. */
#define MT_SIM_ICACHE_SIZE_RATIO 2u
#define MT_SIM_MIN_ICACHE_STEP 0.5
typedef struct {
    char name[32];
    int line_no;        /* line of the section header (for messages) */
    uint64_t size;      /* bytes of code the level holds */
    double latency;     /* cycles per instruction of code it serves */
    double noise;       /* Gaussian stddev per instruction, cycles */
} mt_sim_icache_spec;

/* [link N] and [host_link] (docs/spec-format.md, "Links"): this GPU's
 * link to GPU N of the node (its position in the node's --sim list) and
 * to the host, as the driver and NVML would describe them and as the link
 * performs.  Read by the link model (link_model.c) for MT_KIND_LINK. */
#define MT_SIM_MAX_LINKS (MT_LINK_MAX_PEER + 1)
#define MT_SIM_MIN_LINK_LATENCY 50.0   /* cycles: above any on-chip level a chase could confuse */
#define MT_SIM_MIN_LINK_BANDWIDTH 0.5  /* GB/s: a PCIe Gen1 x2 link */
#define MT_SIM_MAX_LINK_BANDWIDTH 2000.0 /* GB/s: above NVLink 5's 18 links (900 GB/s) */
#define MT_SIM_MAX_NVLINKS 18u         /* the H100/H200's NVLink count */
#define MT_SIM_MAX_NVLINK_VERSION 5u
#define MT_SIM_MAX_PCIE_GEN 6u
#define MT_SIM_MAX_PCIE_WIDTH 32u
#define MT_SIM_MAX_PERF_RANK 16u
/* Fixed cost of one repeat of a bandwidth op (a launch, a copy's start):
 * the link probe's two transfer sizes cancel it. */
#define MT_SIM_LINK_SETUP_NS 8000.0
/* Relative Gaussian noise of a bandwidth op's time (a real copy's repeat
 * spread is of this order). */
#define MT_SIM_LINK_TIME_NOISE 0.003
typedef struct {
    int present;            /* the section was given */
    int line_no;
    int type;               /* mt_link_type: MT_LINK_TYPE_PCIE or _NVLINK */
    int peer_access;        /* [link N]: SMs may load the peer's memory ([host_link]: 1) */
    int atomics;            /* native atomics over the link */
    uint32_t nvlinks, nvlink_version; /* nvlink only */
    uint32_t pcie_gen, pcie_width;    /* pcie only */
    uint32_t perf_rank;
    double latency, noise;  /* cycles of one load over the link; Gaussian stddev */
    double read_gbps, write_gbps, copy_in_gbps, copy_out_gbps; /* GB/s (1e9 B/s) */
} mt_sim_link_spec;

/* [tenant]: another workload sharing the simulated GPU (docs/spec-format.md,
 * "The interfering tenant").  Its activity follows the backend's batch
 * counter, so a probe that is re-measured later may find it gone. */
#define MT_SIM_MAX_TENANT_PIDS 8
typedef struct {
    int present;            /* a [tenant] section was given */
    int start_batch;        /* first batch (0-based) it can be active in */
    int stop_batch;         /* first batch it is gone again; 0 = never leaves */
    int period;             /* duty cycle in batches; 0 = active throughout */
    int active_batches;     /* of each period, the first this many batches */
    double l2_latency;      /* cycles added to a load served by the L2 (queueing) */
    double dram_latency;    /* cycles added to a load served by DRAM */
    double jitter;          /* Gaussian stddev of those added cycles */
    uint32_t evict_every;   /* every this many of our loads it streams ... */
    uint32_t evict_lines;   /* ... this many lines of its own through our L2 partition */
    int n_pids;             /* processes the device reports besides us */
    int pids[MT_SIM_MAX_TENANT_PIDS];
} mt_sim_tenant_spec;

/* [throughput] (docs/spec-format.md, "Throughput"): what stream
 * experiments (MT_KIND_STREAM) see.  Bytes per SM cycle. */
#define MT_SIM_MIN_BW 1.0       /* B/clk: slower is no GPU level (and keeps streams short) */
#define MT_SIM_MAX_BW_SM 4096.0 /* B/clk per SM: 32x the widest L1 datapath known */
#define MT_SIM_MAX_BW_GPU 1e6   /* B/clk for the whole GPU */
#define MT_SIM_MAX_MSHR 65536u
typedef struct {
    double read, write;         /* per SM; 0 = not given (the level is not streamed) */
    double read_gpu, write_gpu; /* whole GPU; 0 = no GPU-wide limit */
} mt_sim_bw_spec;
typedef struct {
    int present;                /* a [throughput] section was given */
    mt_sim_bw_spec cache[MT_SIM_MAX_CACHES]; /* by index of mt_sim_spec.cache */
    mt_sim_bw_spec shared;
    mt_sim_bw_spec dram;        /* GPU-wide only: per SM, the L2's figures limit it */
    uint32_t mshr;              /* outstanding L2 requests (sectors) per SM */
} mt_sim_throughput_spec;

/* [cluster] (docs/spec-format.md, "Clusters and TMA"): thread-block
 * clusters and the bulk copy engine of Hopper and later (compute
 * capability 9.0 or more), what MT_KIND_CLUSTER experiments see. */
#define MT_SIM_MAX_CLUSTER_PORTABLE 8u /* CUDA's portable cluster size limit */
#define MT_SIM_MIN_CLUSTER_SMEM (32u << 10) /* smem_per_block with [cluster]: the copies' 32 KiB */
#define MT_SIM_MAX_COPY_BW 512.0       /* B/clk per SM of a copy engine or a block's copy */
#define MT_SIM_MAX_COPY_LATENCY 4096.0 /* cycles of one copy's fixed cost */
typedef struct {
    int present;             /* a [cluster] section was given */
    uint32_t max_size;       /* largest cluster launched (non-portable attribute) */
    uint32_t portable_size;  /* largest portable cluster */
    double remote_latency;   /* cycles of a load from another block's shared memory */
    double remote_noise;     /* its Gaussian stddev */
    double link_bw;          /* B/clk per SM reading another block's shared memory */
    double tma_latency, tma_bw;   /* one bulk copy: fixed cycles, B/clk per SM */
    double copy_latency, copy_bw; /* the same copy by a block's loads and stores */
} mt_sim_cluster_spec;

typedef struct {
    /* [device] */
    char name[128];
    int cc_major, cc_minor;
    int sm_count;
    int clock_mhz, mem_clock_mhz, bus_width_bits;
    int actual_clock_mhz; /* SM clock in effect (clock experiments); 0 = clock_mhz */
    uint64_t global_mem, l2_size, persisting_l2_max;
    uint32_t smem_per_sm, smem_per_block, smem_per_block_optin;
    uint32_t const_mem, const_reserved;
    int max_threads_per_block, max_threads_per_sm, warp_size, regs_per_sm;
    uint64_t seed;
    double timer_overhead;  /* cycles in every fine-grained sample */
    double loop_overhead;   /* cycles per load in aggregate mode */
    double outlier_rate;    /* probability per fine-grained sample */
    double outlier_cycles;  /* typical spike size */
    int fail_after_batches; /* test hook: batches after which the "GPU" fails; 0 = never */
    /* Test hook: after this many batches the backend raise()s
     * signal_number (SIGINT or SIGTERM), as a user's Ctrl-C or a kill
     * would; 0 = never. */
    int signal_after_batches;
    int signal_number;
    int carveout_percent;   /* -1 unknown */
    uint32_t carveout_smem; /* 0 unknown */
    /* Carveouts an experiment may request (carveouts_kib), bytes ascending;
     * none: the carveout cannot be changed. */
    uint32_t carveouts[MT_MAX_CARVEOUTS];
    int n_carveouts;
    /* [cache NAME] sections in file order; l2 = index of the serves = all one */
    mt_sim_cache_spec cache[MT_SIM_MAX_CACHES];
    int n_caches;
    int l2;
    /* [dram], [shared] */
    mt_sim_level_spec dram;
    mt_sim_level_spec shared;
    mt_sim_bank_spec banks; /* [shared] banks, bank_width, conflict_cycles, broadcast */
    mt_sim_tenant_spec tenant; /* [tenant], optional */
    mt_sim_throughput_spec tp; /* [throughput], optional */
    mt_sim_cluster_spec cluster; /* [cluster], optional */
    mt_sim_access_spec access;   /* [access], optional (defaults from [shared]) */
    char source[256];       /* file name used in messages */
    /* [tlb NAME] sections in file order (level 1 first); none: translation
     * is free, as before TLBs were modelled. */
    mt_sim_tlb_spec tlb[MT_SIM_MAX_TLBS];
    int n_tlbs;
    /* [icache NAME] sections in file order (nearest first); none: the
     * simulated GPU runs no icache experiments. */
    mt_sim_icache_spec icache[MT_SIM_MAX_ICACHES];
    int n_icaches;
    /* [link N] (link[N].present) and [host_link]; none: the simulated GPU
     * runs no link experiments. */
    mt_sim_link_spec link[MT_SIM_MAX_LINKS];
    mt_sim_link_spec host_link;
} mt_sim_spec;

/* Parses spec text.  fname is only used in messages ("FILE:LINE: msg").
 * Every problem is MT_ERR_SPEC_PARSE with a one-line message. */
mt_err mt_sim_spec_parse(const char *text, const char *fname, mt_sim_spec *out,
                         mt_errinfo *ei);

/* A built-in preset's text, or NULL. */
const char *mt_sim_preset_text(const char *name);
/* "h100, a100, ..." into buf (always terminated). */
void mt_sim_preset_names(char *buf, size_t cap);

/* Preset name or file path.  Unknown name that is not a readable file:
 * MT_ERR_INVALID_ARG listing the presets. */
mt_err mt_sim_spec_load(const char *preset_or_file, mt_sim_spec *out, mt_errinfo *ei);

/* Longest MT_KIND_SEQUENCE index list the sim runs (mt_device_info
 * max_sequence): 64 Ki entries walk a 1024-way set 64 times over, far more
 * than any replacement-policy test needs, and keep the per-experiment hash
 * and simulation cheap. */
#define MT_SIM_MAX_SEQUENCE 65536u

/* What a driver query on this device would say, plus the sim backend's
 * limits (path_limit_bytes, max_fine_loads, max_sequence ...) and
 * scheduling facts (concurrent_experiments = sm_count). */
void mt_sim_spec_device_info(const mt_sim_spec *s, mt_device_info *out);

/* The sim's limit of the global paths (ca, cg, nc): half of global_mem,
 * at most 4 GiB. */
uint64_t mt_sim_global_path_limit(const mt_sim_spec *s);
/* 1 when the tenant is active during batch `batch` (0-based count of the
 * batches the backend ran before this one); 0 without a tenant. */
int mt_sim_tenant_active(const mt_sim_tenant_spec *t, int batch);

/* The partition of a (partitioned) L2 that SM `sm` (-1: 0) is attached to:
 * partition_of_sm's entry, or sm mod partitions. */
uint32_t mt_sim_partition_of_sm(const mt_sim_cache_spec *cs, int sm);

/* Shared memory per SM under a requested carveout `percent` (0..100: the
 * smallest of the spec's carveouts holding that share of smem_per_sm, as
 * mt_carveout_smem_of), or the spec's default carveout_smem for percent < 0. */
uint32_t mt_sim_carveout_smem(const mt_sim_spec *s, int percent);

/* Bytes of cache cs under `carveout_smem` bytes of shared memory: unified -
 * carveout_smem for a cache sharing its array, else its size. */
uint64_t mt_sim_cache_size(const mt_sim_cache_spec *cs, uint32_t carveout_smem);

/* Usable ways of set `set` (its label under the index) of a unified cache
 * with carveout_takes = ways, under `carveout_smem` bytes of shared memory:
 * the carveout's lines T = carveout_smem / line come from the S = unified /
 * line / ways sets one way at a time from the highest label down, so every
 * set loses floor(T / S) ways and the T mod S sets with the highest labels
 * one more (under a modulo index a sequential chain reaches those last, so
 * its first miss still comes at unified - carveout).  Any other cache: its
 * ways. */
uint32_t mt_sim_set_ways(const mt_sim_cache_spec *cs, uint32_t carveout_smem, uint64_t set);

/* Name of a logical path ("l1d", "tex", "ro", "const", "cg"). */
const char *mt_sim_lpath_name(mt_sim_lpath p);

#endif

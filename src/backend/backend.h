/* The backend interface, version 2.11: the only thing probes know about a GPU.
 *
 * A backend describes its device (what a driver query would tell) and runs
 * batches of experiments, returning raw cycle samples.  Backends: cuda (real
 * GPUs), sim (a simulated GPU from a spec file), replay (answers from a
 * recording) and record (a wrapper that keeps everything another backend
 * measured).  Each one is a file (or folder) that defines one
 * `const mt_backend_entry` (see the registry below); nothing else has to be
 * edited to add one.
 *
 * Versioning: mt_backend_ops.api_version must equal MT_BACKEND_API_VERSION;
 * what an implementation can run beyond the pointer chase is announced by
 * mt_backend_ops.caps (MT_CAP_*), and an experiment of a kind the backend
 * does not announce fails with MT_ERR_UNSUPPORTED.
 *
 * Batch semantics (all backends must honour them):
 *  - Experiments in one batch are independent.  The BACKEND decides how to
 *    pack them: probes only say where the data lives (scope).  SM-scope
 *    experiments (data in SM-local levels) may run concurrently on different
 *    SMs; GPU-scope experiments (data in the L2 or DRAM) run alone, so that
 *    nothing else disturbs the shared level.  mt_device_info tells probes how
 *    many SM-scope experiments one batch runs at once
 *    (concurrent_experiments), so they can size a batch without knowing why.
 *  - Every experiment starts with cold caches for its own data: the sim
 *    resets its caches; the cuda backend flushes the L2 before a GPU-scope
 *    experiment with warmup_laps == 0 and relies on the L1 being invalidated
 *    per launch.
 *  - With two chains the order is the thesis' sharing protocol: chain 0
 *    warms, chain 1 warms, chain 0 is measured, chain 1 is measured, each
 *    step run by its own thread (chain[i].thread) with the others idle.
 */
#ifndef MT_BACKEND_H
#define MT_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "device.h"
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

/* What an experiment measures.  Zero is the pointer chase, so an experiment
 * built before kinds existed still means what it meant. */
typedef enum {
    MT_KIND_CHASE = 0, /* dependent pointer chase over 1-2 chains (version 1's only kind) */
    MT_KIND_SEQUENCE,  /* dependent loads of an explicit list of element indices */
    MT_KIND_STREAM,    /* many warps per SM streaming a buffer: read, write or copy */
    MT_KIND_BANKS,     /* one warp's shared-memory access pattern (bank conflicts) */
    MT_KIND_CLUSTER,   /* blocks of one thread-block cluster reading each other's shared memory */
    MT_KIND_CLOCK,     /* the SM clock in effect: clock cycles against the global ns timer */
    MT_KIND_ICACHE,    /* straight-line code of a given size, run warm: the instruction caches */
    MT_KIND_ACCESS,    /* one warp's global load pattern, warm (access granularity, coalescing) */
    MT_KIND_LINK,      /* a link to another GPU or the host: its attributes, latency, bandwidth */
    MT_KIND_EVICT,     /* an L2 eviction test: a target line, a pool of lines read in parallel, the target timed */
    MT_KIND_COUNT
} mt_exp_kind;

/* Capability flags of a backend (mt_backend_ops.caps): one per kind. */
#define MT_CAP_CHASE    (1u << MT_KIND_CHASE)
#define MT_CAP_SEQUENCE (1u << MT_KIND_SEQUENCE)
#define MT_CAP_STREAM   (1u << MT_KIND_STREAM)
#define MT_CAP_BANKS    (1u << MT_KIND_BANKS)
#define MT_CAP_CLUSTER  (1u << MT_KIND_CLUSTER)
#define MT_CAP_CLOCK    (1u << MT_KIND_CLOCK)
#define MT_CAP_ICACHE   (1u << MT_KIND_ICACHE) /* since 2.4 */
#define MT_CAP_ACCESS   (1u << MT_KIND_ACCESS) /* since 2.5 */
#define MT_CAP_LINK     (1u << MT_KIND_LINK)   /* since 2.8 */
#define MT_CAP_EVICT    (1u << MT_KIND_EVICT)  /* since 2.9 */
/* Not a kind: the backend runs the members of a `together` group of a
 * batch at the same time on their SMs (mt_experiment.together). */
#define MT_CAP_TOGETHER (1u << 19) /* since 2.10 */
/* Not a kind (bits from 16 up are features): the backend runs experiments
 * under a requested shared-memory carveout (mt_experiment.set_carveout).
 * Which carveouts exist is mt_device_info's carveout_smem_options. */
#define MT_CAP_CARVEOUT (1u << 16)
/* Since 2.2: MT_KIND_STREAM's chase op (independent chases per SM, the
 * memory-level-parallelism sweep) besides read, write and copy. */
#define MT_CAP_STREAM_CHASE (1u << 17)
/* MT_KIND_STREAM reads whose blocks share data (chain[0].stride = the
 * share of a block, below): several SMs read the same lines, as a
 * partitioned L2 serves them from the partition near each SM. */
#define MT_CAP_STREAM_SHARED_DATA (1u << 18) /* since 2.7 */
/* MT_KIND_STREAM reads with mt_stream.balanced set (below): the repeats
 * are handed out on demand, so every SM streams until the launch ends. */
#define MT_CAP_STREAM_BALANCED (1u << 20) /* since 2.11 */

/* Where an experiment's data lives, which is all a backend needs to know to
 * schedule it. */
typedef enum {
    MT_SCOPE_SM = 0, /* SM-local levels (L1, texture, constant, shared): may share a
                        batch with other SM-scope experiments, each on its own SM */
    MT_SCOPE_GPU     /* a GPU-wide level (L2, DRAM): runs alone */
} mt_scope;

/* MT_KIND_SEQUENCE: chain[0] lays out the elements exactly as for a chase
 * (element k at chain[0].offset + k * stride, k < footprint / stride) and
 * `index` lists the elements to load, in order, each load's address
 * depending on the previous load's value (so they cannot overlap).  An
 * element may appear any number of times, which a pointer chain cannot
 * express: this is what replacement-policy tests need.  The first `untimed`
 * entries are loaded without timing (to put the cache in a known state);
 * the remaining `loads` = n - untimed entries are measured (fine: one sample
 * each; aggregate: one total).  The index list itself never passes through
 * the cache being measured (the cuda backend stages it in shared memory).
 * n <= mt_device_info.max_sequence.  n_chains must be 1, order is ignored,
 * warmup_laps must be 0 (warming is part of the list). */
typedef struct {
    const uint32_t *index; /* element indices; owned by the caller */
    uint32_t n;            /* entries in index */
    uint32_t untimed;      /* leading entries loaded without timing */
} mt_sequence;

/* MT_KIND_STREAM (docs/method.md, "Bandwidth"): `blocks` blocks of
 * `threads` threads stream the chain[0] path's buffer.
 *  - read / write / copy: the buffer's `bytes` (from chain[0].offset on)
 *    are read, written, or read and written to the `bytes` after them
 *    (copy), `repeats` times over.  Each block streams its own share,
 *    bytes / blocks in a row (shared path: in its own shared memory):
 *    thread t accesses vectors t, t + T, t + 2T ... of it (T = threads),
 *    each access `vector_bytes` wide, `in_flight` independent accesses
 *    issued before any is used; the same share at every repeat.  When one
 *    round of a block (threads x vector_bytes x in_flight) spans more than
 *    its share, accesses wrap around the share (vector index modulo
 *    share / vector_bytes): small data can still have many bytes in
 *    flight, and a repeat moves the round, not the share.  Moved per
 *    repeat: blocks x max(share, round).
 *  - read with shared data (MT_CAP_STREAM_SHARED_DATA): chain[0].stride
 *    = W, a multiple of vector_bytes above it that divides `bytes`, is
 *    every block's share instead of bytes / blocks: block b streams the
 *    (b mod (bytes / W))-th W bytes of the data, so blocks b and
 *    b + bytes / W read the same lines (each access as above, wrapping
 *    around W).  Moved per repeat: blocks x max(W, round).
 *  - balanced read (since 2.11, MT_CAP_STREAM_BALANCED; `balanced` = 1, a
 *    global path, each block its own share, a whole number of rounds):
 *    each warp of a block reads its own 1/warps of the block's share
 *    (lane l: vectors l, l + 32 ... of it, `in_flight` in flight), and
 *    the blocks x warps x `repeats` reads of those slices are handed out
 *    on demand (a warp takes the next few from a counter when it is done
 *    with its last), not `repeats` to each: an SM that the memory serves
 *    faster reads its own slices more often, so every SM streams until
 *    the end and the launch moves what the whole GPU can (on the H100 a
 *    static split ends with the slowest SMs: docs/method.md).  No two
 *    SMs read the same lines.  Moved in all: bytes x repeats, as a read.
 *    The slowest block's cycles then span the whole launch.
 *  - chase (since 2.2, MT_CAP_STREAM_CHASE; memory-level parallelism):
 *    every thread follows its own dependent chain through its own
 *    bytes / (blocks x threads) bytes, one 4-byte load per chain[0].stride
 *    bytes, `repeats` loads in all: threads x blocks independent chases.
 * Shape: one chain, chain[0].footprint = the bytes the launch spans
 * (bytes, 2 x bytes for a copy), chain[0].stride = vector_bytes (a chase:
 * its stride; a read with shared data: the share W), loads = repeats, aggregate mode, no warm-up.  Result: one
 * chain of two samples: cycles[0][0] = SM cycles of the slowest block,
 * cycles[0][1] = nanoseconds of the whole launch (globaltimer); a sample
 * that does not fit 32 bits reads UINT32_MAX (saturated). */
typedef enum { MT_STREAM_READ = 0, MT_STREAM_WRITE, MT_STREAM_COPY, MT_STREAM_CHASE } mt_stream_op;
#define MT_STREAM_MAX_IN_FLIGHT 8u
#define MT_STREAM_MAX_BLOCKS 65535u
typedef struct {
    mt_stream_op op;
    uint32_t blocks, threads; /* blocks >= 1; threads a multiple of 32 */
    uint32_t vector_bytes;    /* 4, 8 or 16 (a chase: 4) */
    uint64_t bytes;           /* bytes read (or written) per repeat, all blocks together */
    uint32_t repeats;
    uint32_t in_flight;       /* 1, 2, 4 ... MT_STREAM_MAX_IN_FLIGHT (a chase: 1) */
    uint32_t balanced;        /* 0, or 1: a balanced read (MT_CAP_STREAM_BALANCED) */
} mt_stream;

/* MT_KIND_BANKS (since 2.2, MT_CAP_BANKS): one warp; thread t <
 * n_threads loads shared-memory word `word_index[t]` (words of
 * `word_bytes`, 4, 8 or 16, so byte word_index[t] x word_bytes) `loads`
 * times, all threads in the same instruction; one sample per load of
 * thread 0: cycles of the warp's load, with the fine timer overhead
 * included as in a chase's fine samples.  Shape (mt_exp_banks builds it):
 * one chain on the shared path whose footprint spans every word read and
 * whose stride is word_bytes, fine mode, no warm-up laps (the backend
 * warms its own instruction path). */
typedef struct {
    uint32_t word_bytes;
    uint32_t word_index[32];
    uint32_t n_threads; /* 1..32 */
} mt_banks;

/* MT_KIND_CLUSTER (since 2.3, MT_CAP_CLUSTER; Hopper and later, where the
 * device's max_cluster_size >= 2): the thread-block cluster and the bulk
 * copy engine (docs/method.md, "Clusters and TMA").
 *  - chase: a cluster of `cluster_size` blocks (1 of them per SM); block 0's
 *    thread 0 chases chain[0] (shared path) laid out in the shared memory of
 *    block `target_rank`, through cluster shared addresses (mapa,
 *    ld.shared::cluster): target_rank 0 is its own shared memory by the same
 *    instruction, the local reference.  Aggregate mode and sequential order
 *    only; warm-up laps and the sample as for a chase (the loop overhead is
 *    the chase's, within a few cycles on a GPU).
 *  - stream: one cluster of `cluster_size` blocks of `threads` threads;
 *    block r reads the `bytes` of shared memory of block (r + target_rank)
 *    mod cluster_size (target_rank >= 1: always another block), 16 bytes a
 *    thread and access, `repeats` times over.
 *  - bulk_copy (TMA): `blocks` blocks (one per SM); in each, one thread
 *    copies `bytes` of global memory (its block's own share of chain[0],
 *    path cg) into shared memory with one cp.async.bulk and waits for its
 *    mbarrier, `repeats` times: one copy in flight, so cycles per repeat
 *    are the copy's latency plus its bytes over the engine's rate.
 *  - plain_copy: the same bytes copied by the block's `threads` threads
 *    with 16-byte loads and stores, the block synchronised after each copy.
 * Shapes (mt_exp_cluster_* build them): chase: one shared chain at offset
 * 0 within smem_per_block, cluster_size 2..max_cluster_size, target_rank <
 * cluster_size.  stream: one shared chain of footprint = bytes (<=
 * smem_per_block, a multiple of 16) and stride 16, loads = repeats,
 * aggregate, no warm-up, cluster_size 2..max_cluster_size.  Copies: one cg
 * chain of footprint blocks x bytes and stride 16, bytes a multiple of 16
 * up to smem_per_block, loads = repeats, aggregate, no warm-up,
 * cluster_size 1.  Result of a stream or copy: one chain of two samples as
 * for MT_KIND_STREAM (slowest block's SM cycles, the launch's ns). */
typedef enum {
    MT_CLUSTER_CHASE = 0,
    MT_CLUSTER_STREAM,
    MT_CLUSTER_BULK_COPY,
    MT_CLUSTER_PLAIN_COPY,
    MT_CLUSTER_OP_COUNT
} mt_cluster_op;
/* The largest cluster any CUDA GPU launches (16, with the non-portable
 * cluster size attribute; 8 without). */
#define MT_CLUSTER_MAX_SIZE 16u
typedef struct {
    mt_cluster_op op;
    uint32_t cluster_size;
    uint32_t target_rank;
    uint32_t threads;  /* stream, copies: threads per block, a multiple of 32 */
    uint32_t blocks;   /* copies: blocks; chase, stream: 1 (one cluster) */
    uint64_t bytes;    /* stream: bytes each block reads; copies: bytes of one copy */
    uint32_t repeats;  /* stream, copies */
} mt_cluster;

/* MT_KIND_CLOCK: one thread spins for `ns` nanoseconds of the GPU's global
 * timer (%globaltimer, driven by a fixed-frequency clock) and counts the SM
 * cycles (%clock64) that pass meanwhile: cycles / ns is the SM clock
 * actually in effect (boost, throttling, a locked clock), which the
 * driver's "max clock" attribute does not tell.  The experiment has the
 * shape every recording row needs: one chain on the `none` path (never
 * loaded), loads = 2, fine mode, no warm-up; the result is one chain of two
 * samples: cycles[0][0] = SM cycles elapsed, cycles[0][1] = ns elapsed.
 * MT_CLOCK_MIN_NS <= ns <= MT_CLOCK_MAX_NS (the cycle count must fit 32
 * bits at any clock up to 4 GHz). */
#define MT_CLOCK_MIN_NS 10000u
#define MT_CLOCK_MAX_NS 500000000u
typedef struct {
    uint32_t ns;
} mt_clock;

/* MT_KIND_ICACHE (since 2.4, MT_CAP_ICACHE; docs/method.md, "Instruction
 * caches"): one warp runs a block of `code_bytes` of straight-line code
 * (code_bytes / MT_ICACHE_INSTRUCTION_BYTES independent integer
 * instructions, no branch inside it) warmup_laps times untimed, then
 * `loads` times timed; one sample per timed lap: the cycles of the whole
 * block, with the fine timer overhead included as in a chase's fine
 * samples.  The backend owns the code (the cuda backend generates PTX for
 * the size and has the driver compile it).  Shape (mt_exp_icache builds
 * it): one chain on the `none` path (never loaded), fine mode, any SM
 * (sm = -1: the code is the same on every SM), 1 <=
 * warmup_laps <= MT_ICACHE_MAX_WARMUP, 1 <= loads <= MT_ICACHE_MAX_LAPS, code_bytes a multiple of
 * MT_ICACHE_INSTRUCTION_BYTES within MT_ICACHE_MIN_BYTES..MAX_BYTES. */
#define MT_ICACHE_INSTRUCTION_BYTES 16u /* one SASS instruction since Volta */
#define MT_ICACHE_MIN_BYTES 1024u
#define MT_ICACHE_MAX_BYTES (1u << 20)
#define MT_ICACHE_MAX_WARMUP 4u
#define MT_ICACHE_MAX_LAPS 64u /* timed laps (samples) of one experiment */
typedef struct {
    uint32_t code_bytes;
} mt_icache;

/* MT_KIND_ACCESS (since 2.5, MT_CAP_ACCESS; docs/method.md, "Global
 * access granularity"): one warp; thread t < n_threads loads the 4-byte
 * global word word_index[t] (byte chain[0].offset + 4 x word_index[t] of
 * the path's buffer) through chain[0].path, ld.global.ca (warm L1) or
 * ld.global.cg (warm L2), all threads in the same instruction.  The
 * pattern is loaded warmup_laps (1) times untimed, so its lines are in the
 * level the path reaches first, then `loads` times timed; one sample per
 * timed load of thread 0: cycles of the warp's load, with the fine timer
 * overhead included as in a chase's fine samples.  The parameters are a
 * warp's word pattern as for banks (mt_banks, word_bytes 4).  Shape
 * (mt_exp_access builds it): one chain on the ca or cg path, offset a
 * multiple of MT_ACCESS_ALIGN (so word 0 starts a line of any cache),
 * footprint spanning every word read, stride 4, fine mode, warmup_laps 1,
 * any SM.  Every access experiment of a batch sees the same buffer: the
 * cuda backend runs them one after another in one block, so one SM serves
 * them all (the same L2 partition for the same line). */
#define MT_ACCESS_ALIGN 4096u
#define MT_ACCESS_MAX_SPAN (64u << 10) /* bytes of the words one pattern reads */

/* MT_KIND_LINK (since 2.8, MT_CAP_LINK; docs/method.md, "Links"): the
 * link from this GPU to `peer` (another GPU of the node: a CUDA device
 * ordinal, or the simulated GPU's position in the node's --sim list) or to
 * the host (peer = MT_LINK_HOST).  Ops:
 *  - query: what the driver and NVML say of the link.  One `none` chain,
 *    fine mode, loads = MT_LINK_QUERY_FIELDS; the samples are the fields
 *    of mt_link_field in order (MT_LINK_NOT_AVAILABLE where the driver or
 *    NVML cannot tell).  It measures nothing: the answers travel as
 *    samples so that a recording keeps and replays them like any other.
 *  - chase: one thread of one SM of this GPU follows a pointer chase over
 *    memory of the peer (peer access enabled) or over pinned, mapped host
 *    memory, with loads that no cache of this GPU keeps (ld.volatile).
 *    chain[0] on the cg path gives footprint and stride; fine samples as
 *    a chase's (timer overhead included), after warmup_laps laps.
 *  - sm_read, sm_write: every SM of this GPU streams `bytes` of peer (or
 *    mapped host) memory, read or written, `repeats` times;
 *  - copy_in, copy_out: the copy engine moves `bytes`, `repeats` times,
 *    from the peer (host) to this GPU, or from this GPU to the peer (host):
 *    cudaMemcpyPeerAsync or cudaMemcpyAsync from pinned host memory.
 *    Bandwidth ops: one `none` chain, aggregate mode, loads = repeats; one
 *    sample: the nanoseconds of all repeats (saturated at UINT32_MAX).
 *    Every byte moved counts once: bytes x repeats per sample. */
typedef enum {
    MT_LINK_QUERY = 0,
    MT_LINK_CHASE,
    MT_LINK_SM_READ,
    MT_LINK_SM_WRITE,
    MT_LINK_COPY_IN,
    MT_LINK_COPY_OUT,
    MT_LINK_OP_COUNT
} mt_link_op;
#define MT_LINK_HOST (-1)
#define MT_LINK_MAX_PEER 15           /* peer ordinals 0..15: a node run's GPUs */
#define MT_LINK_MAX_BYTES (1ull << 30)  /* one repeat of a bandwidth op */
#define MT_LINK_MAX_TOTAL (4ull << 30)  /* bytes x repeats: 4 s at 1 GB/s fits 32 bits of ns */
#define MT_LINK_MAX_REPEATS 64u
#define MT_LINK_NOT_AVAILABLE UINT32_MAX
typedef enum {
    MT_LINK_F_PEER_ACCESS = 0, /* 1: this GPU's SMs can load from the peer's memory */
    MT_LINK_F_TYPE,            /* mt_link_type */
    MT_LINK_F_NVLINKS,         /* active NVLinks to the peer */
    MT_LINK_F_NVLINK_VERSION,  /* the NVLink generation, 1..6 (not NVML's enum) */
    MT_LINK_F_PCIE_GEN,        /* this GPU's PCIe generation (current) */
    MT_LINK_F_PCIE_WIDTH,      /* lanes (current) */
    MT_LINK_F_PERF_RANK,       /* cudaDevP2PAttrPerformanceRank (0 best) */
    MT_LINK_F_ATOMICS,         /* 1: native atomics over the link */
    MT_LINK_QUERY_FIELDS
} mt_link_field;
typedef enum { MT_LINK_TYPE_NONE = 0, MT_LINK_TYPE_PCIE, MT_LINK_TYPE_NVLINK } mt_link_type;
typedef struct {
    mt_link_op op;
    int32_t peer;     /* a device ordinal, or MT_LINK_HOST */
    uint64_t bytes;   /* bandwidth ops: bytes per repeat (multiple of 4096) */
    uint32_t repeats; /* bandwidth ops: 1..MT_LINK_MAX_REPEATS */
} mt_link;
/* MT_KIND_EVICT (since 2.9, MT_CAP_EVICT; docs/method.md, "L2 eviction
 * sets beyond 2 MiB"): an eviction test in the L2 partition of the SM
 * that runs it.  chain[0] (path cg) lays out lines as a chase does
 * (element k at chain[0].offset + k x stride; stride = the L2's line).
 * The parameters are an index list (u.evict, an mt_sequence with
 * untimed = 0): index[0] is the target element, then n_intervals =
 * (n - 1) / 2 pairs (first element, count) give the pool: ascending,
 * disjoint, none holding the target, count >= 1.  Each of `loads` repeats
 * starts from an empty L2 (flushed), loads the target, then every pool
 * element once (one 4-byte cg load per element, issued in parallel by
 * the threads of the target's SM, in no particular order), and when
 * every pool load has returned, loads the target again, timed: one fine
 * sample per repeat (the fine timer overhead included, as a chase's).
 * The intervals never pass through the L2 after the target's first load
 * (the cuda backend stages them in shared memory before it).  Shape
 * (mt_exp_evict builds it): one cg chain, fine mode, no warm-up, GPU
 * scope, 1 <= loads <= MT_EVICT_MAX_REPEATS, 1 <= n_intervals <=
 * MT_EVICT_MAX_INTERVALS (the sequence limit max_sequence does not
 * apply). */
#define MT_EVICT_MAX_INTERVALS 4096u
#define MT_EVICT_MAX_REPEATS 16u

typedef struct {
    mt_exp_kind kind;
    mt_chain chain[MT_MAX_CHAINS];
    int n_chains;          /* 1, or 2 for sharing / slices-per-SM tests (chase only) */
    mt_order order;
    uint32_t order_seed;   /* permutation seed for MT_ORDER_RANDOM */
    uint32_t warmup_laps;  /* full passes over each chain before measuring; 0 = cold */
    uint32_t loads;        /* loads measured per chain (continuing the chain) */
    mt_mode mode;
    int sm;                /* SM to run on, -1 = any */
    mt_scope scope;        /* where the data lives: decides how the backend packs it */
    /* Since 2.1 (MT_CAP_CARVEOUT): with set_carveout the experiment runs
     * with the shared-memory carveout preference carveout_percent (0..100,
     * as cudaFuncAttributePreferredSharedMemoryCarveout takes it: a share of
     * smem_per_sm, which the device rounds up to one of its carveouts:
     * mt_carveout_smem).  A cache sharing its array with shared memory (the
     * L1 of Volta and later) is then what that carveout leaves.  Without
     * set_carveout (zero, as in every experiment built before 2.1) the
     * backend's default carveout, mt_device_info.carveout_percent. */
    int set_carveout;
    int carveout_percent;
    /* Since 2.10 (MT_CAP_TOGETHER): experiments of one batch with the same
     * non-zero `together` run at the same time, each on its own SM, with
     * nothing else beside them: what one SM's loads do to another's (which
     * SMs share a TLB level, docs/method.md).  Each member is a chase of
     * one chain on the cg path (the L2 only: SM-local caches stay out of
     * it), fine mode, on a planned SM (sm >= 0, a different one for each
     * member), GPU scope; members use disjoint data when their chains'
     * offsets and footprints do not overlap.  Every member starts its warm-up
     * laps at the launch, then its measured loads, as if alone; a member
     * with more loads (warm-up laps included) than another goes on after
     * it.  0 (every experiment built before 2.10): alone, as before. */
    int together;
    union {                /* the kind's own parameters (none for a chase) */
        mt_sequence seq;
        mt_stream stream;
        mt_banks banks;
        mt_cluster cluster;
        mt_clock clock;
        mt_icache icache;
        mt_banks access; /* MT_KIND_ACCESS: a warp's 4-byte word pattern */
        mt_link link;
        mt_sequence evict; /* MT_KIND_EVICT: the target, then the pool's intervals */
    } u;
} mt_experiment;

typedef struct {
    /* FINE: n[i] == loads, cycles[i][k] = cycles of load k of chain i, with the
     *       fine timer overhead still included (probes subtract it).
     * AGGREGATE: n[i] == 1, cycles[i][0] = total cycles for `loads` loads,
     *       loop overhead still included.
     * Other kinds: as their parameter struct says. */
    uint32_t *cycles[MT_MAX_CHAINS];
    uint32_t n[MT_MAX_CHAINS];
    int sm_ran; /* SM the experiment ran on (%smid), -1 if unknown */
} mt_result;

void mt_result_free(mt_result *r);

/* A chase experiment with one chain on thread 0, sequential order, any SM;
 * scope from the path (cg data lives in the L2: GPU scope).  The one
 * experiment builder of the project (probes, tools and tests use it). */
mt_experiment mt_exp_chase(mt_path p, uint64_t footprint, uint32_t stride, uint32_t warmup_laps,
                           uint32_t loads, mt_mode mode);

/* e with set_carveout and carveout_percent = percent (0..100). */
mt_experiment mt_exp_with_carveout(mt_experiment e, int percent);

/* Shared memory per SM that a carveout preference of `percent` gives on a
 * device whose carveouts are options[0..n-1] (bytes, ascending, the last
 * equal to smem_per_sm): the smallest option holding floor(percent x
 * smem_per_sm / 100) bytes, as the CUDA driver rounds a preference up to a
 * supported configuration.  0 when n == 0 (unknown). */
uint32_t mt_carveout_smem_of(const uint32_t *options, int n, uint32_t smem_per_sm, int percent);
/* The same for a device's carveout_smem_options. */
uint32_t mt_carveout_smem(const mt_device_info *d, int percent);
/* The smallest percentage that gives `smem` bytes (one of the device's
 * options), or -1 when none does: what a probe asks for to get a carveout. */
int mt_carveout_percent(const mt_device_info *d, uint32_t smem);

/* A stream experiment (MT_KIND_STREAM) of the shape backend.h gives, on
 * any SM; scope GPU unless the path is shared (SM-local data still
 * occupies every SM, but nothing else may run beside it: GPU scope). */
mt_experiment mt_exp_stream(mt_stream_op op, mt_path p, uint32_t blocks, uint32_t threads,
                            uint32_t vector_bytes, uint32_t in_flight, uint64_t bytes,
                            uint32_t repeats, uint32_t chase_stride);

/* A clock experiment (MT_KIND_CLOCK) of `ns` nanoseconds on SM `sm` (-1 any). */
/* A banks experiment (MT_KIND_BANKS): thread t < n_threads (1..32) reads
 * word word_index[t] of word_bytes; `loads` fine samples. */
mt_experiment mt_exp_banks(uint32_t word_bytes, const uint32_t *word_index, uint32_t n_threads,
                           uint32_t loads);
mt_experiment mt_exp_clock(uint32_t ns, int sm);
/* Cluster experiments (MT_KIND_CLUSTER), of the shapes backend.h gives:
 * a chase of block 0 through block target_rank's shared memory; a stream
 * of every block of one cluster through its neighbour's (target_rank
 * further on); a copy (bulk or plain) of `bytes` per block, `blocks` blocks. */
mt_experiment mt_exp_cluster_chase(uint32_t cluster_size, uint32_t target_rank,
                                   uint64_t footprint, uint32_t stride, uint32_t warmup_laps,
                                   uint32_t loads, mt_mode mode);
mt_experiment mt_exp_cluster_stream(uint32_t cluster_size, uint32_t target_rank, uint32_t threads,
                                    uint64_t bytes, uint32_t repeats);
mt_experiment mt_exp_cluster_copy(mt_cluster_op op, uint32_t blocks, uint32_t threads,
                                  uint64_t bytes, uint32_t repeats);
/* Bytes one block of a stream experiment streams per repeat before its
 * round wraps: bytes / blocks, or the share W of a read with shared data. */
uint64_t mt_stream_block_share(const mt_experiment *e);
/* "chase", "stream", "bulk_copy", "plain_copy" ("?" otherwise). */
const char *mt_cluster_op_name(mt_cluster_op op);
int mt_cluster_op_from_name(const char *s, mt_cluster_op *out); /* 0 ok, -1 unknown */
/* An icache experiment (MT_KIND_ICACHE): code_bytes of straight-line code,
 * one warm lap, `laps` timed laps (fine samples), on any SM. */
mt_experiment mt_exp_icache(uint32_t code_bytes, uint32_t laps);
/* An access experiment (MT_KIND_ACCESS) on path ca or cg: thread t <
 * n_threads (1..32) loads 4-byte word word_index[t] from byte 0 of the
 * path's buffer; one warm lap, `loads` fine samples, any SM. */
mt_experiment mt_exp_access(mt_path p, const uint32_t *word_index, uint32_t n_threads,
                            uint32_t loads);
/* Link experiments (MT_KIND_LINK), of the shapes above: the query, a
 * chase over the peer's (host's) memory, and a bandwidth op. */
mt_experiment mt_exp_link_query(int32_t peer);
mt_experiment mt_exp_link_chase(int32_t peer, uint64_t footprint, uint32_t stride,
                                uint32_t warmup_laps, uint32_t loads);
mt_experiment mt_exp_link_bandwidth(mt_link_op op, int32_t peer, uint64_t bytes, uint32_t repeats);
/* "query", "chase", "sm_read", "sm_write", "copy_in", "copy_out" ("?"). */
const char *mt_link_op_name(mt_link_op op);
int mt_link_op_from_name(const char *s, mt_link_op *out); /* 0 ok, -1 unknown */
/* An evict experiment (MT_KIND_EVICT) over `elements` lines of
 * `line_bytes` from byte 0 of the cg buffer: list = the target element,
 * then (first, count) pairs, n entries in all (odd); `repeats` fine
 * samples, any SM.  The list is the caller's (not copied). */
mt_experiment mt_exp_evict(uint64_t elements, uint32_t line_bytes, const uint32_t *list,
                           uint32_t n, uint32_t repeats);
/* Kinds whose parameters are an index list (mt_sequence): a sequence and
 * an evict experiment, which the recordings store alike. */
static inline int mt_kind_has_index_list(mt_exp_kind k)
{
    return k == MT_KIND_SEQUENCE || k == MT_KIND_EVICT;
}

/* The batch-level rules of `together` groups (backend.h,
 * mt_experiment.together): every member of a group on an SM of its own,
 * within the device's SMs.  Backends that run groups check a batch with it
 * after each experiment's own check. */
mt_err mt_batch_check_together(const mt_experiment *exps, size_t n, const mt_device_info *dev,
                               mt_errinfo *ei);

/* Largest footprint (offset + bytes) chain c may have on dev: its path's
 * limit, or the sparse limit for a sparse global chain (device.h). */
uint64_t mt_chain_limit(const mt_device_info *dev, const mt_chain *c);
/* The sparse limit of a device with free_bytes free (device.h's margin;
 * 0 when the margin takes it all). */
uint64_t mt_sparse_limit(uint64_t free_bytes);
/* Validates an experiment against a device's limits (stride alignment,
 * footprint within the path limit, loads within max_fine_loads, sequence
 * indices within the chain...). */
mt_err mt_experiment_check(const mt_experiment *e, const mt_device_info *dev,
                           mt_errinfo *ei);

typedef struct mt_backend mt_backend;

#define MT_BACKEND_API_VERSION 2
/* Additions that leave version-2 code working: 1 = carveout requests
 * (MT_CAP_CARVEOUT, mt_experiment.set_carveout, the device's
 * carveout_smem_options); 2 = stream experiments (mt_stream.in_flight,
 * the chase op, MT_CAP_STREAM_CHASE) and MT_KIND_BANKS implemented (sim,
 * cuda, record, replay). */
/* 3 = MT_KIND_CLUSTER implemented (sim with a [cluster] section, cuda on
 * Hopper and later, record, replay; mt_cluster's op, threads, blocks,
 * bytes, repeats) and the device's max_cluster_size /
 * max_cluster_size_portable. */
/* 4 = MT_KIND_ICACHE (MT_CAP_ICACHE: straight-line code of a given size,
 * the instruction caches). */
/* 5 = MT_KIND_ACCESS (MT_CAP_ACCESS: one warp's global load pattern,
 * the access granularity through the L1 and the L2). */
/* 6 = mt_backend_entry.count_devices and mt_backend_count_devices: how
 * many devices a backend that opens devices by ordinal can open (cuda: the
 * driver's count), for --device all. */
/* 7 = MT_CAP_STREAM_SHARED_DATA: a stream read of data every block
 * shares (mt_stream_block_share), the L2 read gpu-benches measures. */
/* 8 = MT_KIND_LINK (MT_CAP_LINK: the links to other GPUs of the node and
 * to the host: driver/NVML attributes, latency, bandwidth). */
/* 9 = MT_KIND_EVICT (MT_CAP_EVICT: an L2 eviction test, a target and a
 * pool of lines read in parallel; the L2's eviction sets beyond 2 MiB). */
/* 10 = mt_experiment.together and MT_CAP_TOGETHER: chases of chosen SMs
 * run at the same time (which SMs share a TLB level). */
/* 11 = mt_stream.balanced and MT_CAP_STREAM_BALANCED: a stream read
 * whose repeats are handed out on demand (the whole-L2 read). */
#define MT_BACKEND_API_MINOR 11

typedef struct {
    unsigned api_version; /* MT_BACKEND_API_VERSION */
    const char *name;     /* "sim", "cuda", "replay", "record" */
    unsigned caps;        /* MT_CAP_* of the kinds run_batch accepts */
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

/* Convenience wrappers (NULL-safe destroy).  mt_backend_run refuses kinds
 * the backend does not announce (MT_ERR_UNSUPPORTED) before calling it. */
mt_err mt_backend_info(mt_backend *b, mt_device_info *out, mt_errinfo *ei);
mt_err mt_backend_run(mt_backend *b, const mt_experiment *exps, size_t n,
                      mt_result *out, mt_errinfo *ei);
void mt_backend_destroy(mt_backend *b);
/* 1 when b runs experiments of kind k. */
int mt_backend_supports(const mt_backend *b, mt_exp_kind k);

/* ---- registry: name -> constructor ----
 * Every backend file defines exactly one
 *     const mt_backend_entry mt_backend_entry_<name> = { ... };
 * at file scope; the build collects these definitions from the backend
 * sources it compiles (tools/gen_registry.sh), so a backend that is not
 * built (cuda without nvcc) is simply not in the registry. */
typedef struct {
    const char *target; /* sim: preset name or spec file; replay: directory;
                           cuda: unused */
    int device;         /* cuda: device ordinal */
    int has_seed;       /* sim: replace the spec's noise seed */
    uint64_t seed;
} mt_backend_args;

typedef struct {
    const char *name;    /* "cuda", "sim", "replay" */
    const char *summary; /* one line for --help and docs */
    mt_err (*open)(const mt_backend_args *a, mt_backend **out, mt_errinfo *ei);
    /* Since 2.6: how many devices `open` accepts as mt_backend_args.device
     * (0 .. *n - 1), asked without opening one; NULL for a backend that
     * opens a target (a preset, a spec, a directory), not a device. */
    mt_err (*count_devices)(int *n, mt_errinfo *ei);
} mt_backend_entry;

/* NULL-terminated, in name order (generated: build/gen/registry.c). */
extern const mt_backend_entry *const mt_backend_registry[];
const mt_backend_entry *mt_backend_find(const char *name);
/* Opens backend `name`; MT_ERR_NOT_BUILT when this binary has no such backend. */
mt_err mt_backend_open(const char *name, const mt_backend_args *a, mt_backend **out,
                       mt_errinfo *ei);

/* The devices backend `name` can open, *n (0 when it finds none):
 * MT_ERR_NOT_BUILT when this binary has no such backend, MT_ERR_UNSUPPORTED
 * when it opens targets rather than devices, else what its count_devices
 * returns (cuda without a driver: MT_ERR_NO_DEVICE). */
mt_err mt_backend_count_devices(const char *name, int *n, mt_errinfo *ei);

/* Wraps inner (takes ownership on success); everything measured is kept in
 * memory and written to dir by mt_record_flush (recording/recording.h). */
mt_err mt_backend_record_wrap(mt_backend *inner, const char *dir,
                              mt_backend **out, mt_errinfo *ei);

/* Hash of every parameter of an experiment, mixed into h0 (splitmix64): the
 * sim seeds an experiment's noise with it, the replay indexes recordings.
 * For a chase it is the version-1 hash (scope GPU hashing as exclusive = 1),
 * so recordings made before version 2 still replay; other kinds mix in the
 * kind and their parameters. */
uint64_t mt_hash_mix(uint64_t h, uint64_t v);
uint64_t mt_experiment_hash(uint64_t h0, const mt_experiment *e);

const char *mt_path_name(mt_path p);          /* "ca", "cg", "nc", "tex", "const", "shared", "none" */
int mt_path_from_name(const char *s, mt_path *out); /* 0 ok, -1 unknown */
const char *mt_kind_name(mt_exp_kind k);      /* "chase", "sequence", "stream", "banks", "cluster", "clock", "icache", "access", "evict" */
int mt_kind_from_name(const char *s, mt_exp_kind *out);

#endif

/* What the cuda backend's host code and its kernels agree on: descriptor
 * structs copied byte for byte to the device, the shared-memory layout of
 * the probe kernels and the named limits that follow from it.  Plain C, no
 * CUDA header, so the pure host logic (layout.c, schedule.c, limits.c) and
 * its unit tests build on machines without CUDA. */
#ifndef MT_CUDA_KERNEL_ABI_H
#define MT_CUDA_KERNEL_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Fine-grained samples per chain, kept in shared memory during the timed
 * loop.  3456 words (13.5 KiB) + the 256-byte header below fit the 16 KiB
 * carveout on cc 8.x/9.x even if the 1 KiB per-block reserve is counted
 * twice (sm_90 cubins list it as static shared memory, and the device also
 * reports it as reserved): 1 + 1 + 13.75 <= 16 KiB.  That leaves the L1
 * data cache at 256 - 16 = 240 KiB on Hopper; one lap of a 128-byte stride
 * chain over 432 KiB fits in one experiment. */
#define MTK_FINE_MAX 3456u

/* Longest MT_KIND_SEQUENCE index list.  The list is staged in the same
 * shared-memory words as the fine samples (each timed load's sample
 * overwrites its own, already consumed, list entry), so a sequence needs
 * no shared memory beyond what a chase uses and the sequence kernel runs
 * with the chase kernel's 16 KiB carveout: the L1 a sequence sees is the
 * L1 the chase measured (a larger list, e.g. 8192 entries = 32 KiB, would
 * need the 64 KiB carveout and shrink Hopper's L1 from 240 to 192 KiB,
 * which would make replacement tests disagree with the capacity found by
 * chases).  3456 entries cover, e.g., filling a 240 KiB L1 with 128-byte
 * lines (1920 loads) and measuring 1536 more. */
#define MTK_SEQ_MAX MTK_FINE_MAX
/* The aggregate sequence loop reads its deltas 8 at a time, one group
 * ahead, and may read up to this many words past the list's end (values
 * never used); the shared memory after the list must hold them. */
#define MTK_SEQ_OVERREAD_WORDS 8u

/* Dynamic shared memory layout of every probe kernel (bytes). */
#define MTK_SMEM_HDR 256u                     /* block state + dependent-store sink */
#define MTK_SMEM_SAMPLES MTK_SMEM_HDR         /* MTK_FINE_MAX words (sequence: the list) */
#define MTK_SMEM_CHAIN (MTK_SMEM_HDR + 4u * MTK_FINE_MAX) /* shared-path chain copy */

/* The constant-path chain array: the whole 64 KiB a module may own. */
#define MTK_CONST_WORDS 16384u

/* Claim / plan tables are indexed by %smid; larger ids never run work. */
#define MTK_MAX_SMID 1024

#define MTK_MAX_THREADS 1024

/* Probe kernels.  A launch runs one of them for all its experiments.
 *   A:     pointer chase, no chain in shared memory (16 KiB carveout, large L1)
 *   B:     pointer chase with shared-path chains copied into shared memory
 *   SEQ_A: explicit sequence, no shared-path data (same carveout as A)
 *   SEQ_B: explicit sequence over a shared-path element array (as B) */
enum {
    MTK_KERNEL_A = 0,
    MTK_KERNEL_B,
    MTK_KERNEL_SEQ_A,
    MTK_KERNEL_SEQ_B,
    MTK_KERNEL_WIDE,
    MTK_KERNEL_COUNT
};

/* Kernel WIDE: the chase of kernel A over global chains that reach beyond
 * what 32-bit word indices address (MTC_WORD_REACH_BYTES, layout.h; the
 * TLB probe's sparse sweeps, issue 9).  Its elements hold the successor's
 * index in units of MTK_WIDE_UNIT bytes instead of 4, so 32 bits address
 * 2^32 x 64 B = 256 GiB.  The timed loop is kernel A's with another
 * immediate in the address's multiply-add (the address is formed before
 * the first clock read anyway), and kernel A itself stays as it was. */
#define MTK_WIDE_SHIFT 6u
#define MTK_WIDE_UNIT (1u << MTK_WIDE_SHIFT)
/* Element index units of the other kernels: 4-byte words. */
#define MTK_WORD_SHIFT 2u

typedef struct {
    uint64_t buf;        /* device address of word 0 of the chain's path buffer */
    uint64_t tex;        /* cudaTextureObject_t over that buffer (texture path) */
    uint64_t warm_loads; /* warmup_laps * elements */
    uint32_t start;      /* word index of element 0 (offset / 4) */
    uint32_t path;       /* mt_path */
    uint32_t thread;     /* thread index that runs this chain */
    uint32_t out_off;    /* fine mode: word offset of the samples in the sample buffer */
    uint32_t smem_words; /* shared path: words [0, smem_words) of buf copied to shared */
    uint32_t one;        /* always 1: a run-time constant ptxas cannot fold (none path) */
} mtk_chain;

/* mtk_exp.flags: warm every chain with all threads of the block at once
 * (independent loads of the elements in chain order, MTK_WARM_THREADS
 * threads) instead of one dependent lap.  Set only for one-lap warm-ups of
 * sequential chains over global memory (ca, cg, nc, texture):
 *  - in GPU-scope experiments (data in the L2 or DRAM): one thread chasing
 *    a 200 MB chain at DRAM latency needs ~2 s, the block needs ~2 ms, and
 *    the cache ends up holding the same lines with the same recency order
 *    up to a window of about MTK_WARM_THREADS elements (far below the L2's
 *    capacity granule);
 *  - in SM-scope experiments only for chains that fill at least
 *    MTK_PARALLEL_WARM_SM_MIN_BYTES of any SM-local cache (below).  A chain
 *    of L1 size keeps the exact dependent lap: there the window would be a
 *    sizeable part of the cache. */
#define MTK_EXP_PARALLEL_WARM 1u
#define MTK_WARM_THREADS 1024u
/* Chains shorter than this keep the dependent lap (it is quick anyway). */
#define MTK_PARALLEL_WARM_MIN_ELEMENTS 4096u
/* An SM-scope chain is warmed in parallel when its elements fill at least
 * this much of an SM-local cache (elements x min(stride,
 * MTK_PARALLEL_WARM_SM_LINE): each element takes at least one line of the
 * smallest line or sector any NVIDIA L1 or texture cache has, 32 B):
 * four times the largest L1 (256 KiB).  Such a chain is a miss chain (the
 * L1 miss penalty, the sector spacing): it is measured from element 0,
 * which the warm-up loaded first and which more than three caches' worth
 * of later elements, MTK_WARM_THREADS of them issued at once or not, have
 * evicted from the L1 whatever its policy, while every element is in the
 * L2 as after the dependent lap.  On the H100 the dependent laps of the
 * default report's 12 such chains (1-6 MB, at L2 latency) cost ~75 ms. */
#define MTK_PARALLEL_WARM_SM_MIN_BYTES (1u << 20)
#define MTK_PARALLEL_WARM_SM_LINE 32u

/* A pointer-chase experiment (kernels A and B). */
typedef struct {
    mtk_chain c[2];
    uint32_t n_chains;
    uint32_t mode;  /* mt_mode */
    uint32_t loads; /* measured loads per chain */
    uint32_t flags; /* MTK_EXP_* */
} mtk_exp;

/* An explicit-sequence experiment (kernels SEQ_A and SEQ_B).  The element
 * array is c, built exactly as a sequential chase chain (element k holds
 * the word index of element k+1, wrapping).  list holds n int32 deltas:
 * the word index of load i is value(load i-1) + list[i], with value(-1) =
 * 0, so every address depends on the previous load's value. */
typedef struct {
    mtk_chain c;
    uint64_t list;    /* device address of the n deltas */
    uint32_t n;       /* entries (loads) in the list */
    uint32_t untimed; /* leading entries loaded without timing */
    uint32_t mode;    /* mt_mode */
    uint32_t pad;
} mtk_seq;

/* One slot of the descriptor array of a launch: all slots of a launch hold
 * the same kind (the kernel decides which member it reads). */
typedef union {
    mtk_exp chase;
    mtk_seq seq;
} mtk_desc;

/* Written by the kernel (zeroed by the host before each launch). */
typedef struct {
    uint32_t claimed;  /* 1 once a block ran this experiment */
    int32_t sm_ran;    /* %smid of that block */
    uint32_t aborted;  /* 1: the kernel's own deadline stopped a warm-up */
    uint32_t pad;
    uint32_t final_j[2];  /* chase: word index after the last measured load;
                             sequence: [0] = value returned by the last load */
    uint64_t total[2];    /* aggregate mode: clock64 cycles of the measured loop */
} mtk_status;

typedef struct {
    const mtk_desc *descs;
    mtk_status *st;
    uint32_t *samples;
    const int32_t *plan; /* plan[smid] = experiment index or -1 (MTK_MAX_SMID entries) */
    const int32_t *any;  /* experiments that may run on any SM without a plan */
    uint32_t *sm_claim;  /* MTK_MAX_SMID entries, zeroed before the launch */
    uint64_t deadline_cycles; /* per-block budget for warm-up laps (clock64) */
    int32_t n_any;
    int32_t pad;
} mtk_launch;

/* One chain to write into device memory: the 32-bit word at byte
 * (start + k*stride) << shift of buf holds start + succ(k)*stride;
 * succ(k) = k+1 mod n, or succ[k] when given.  start and stride count
 * units of 1 << shift bytes (MTK_WORD_SHIFT, or MTK_WIDE_SHIFT for kernel
 * WIDE).  Only the chain's own words are written: a sparse chain of 70 GB
 * costs one store per element. */
typedef struct {
    uint64_t buf;
    uint64_t succ; /* device pointer to n uint32 successors, 0 = sequential */
    uint32_t start_w;
    uint32_t stride_w;
    uint32_t n;
    uint32_t shift;
} mtk_build;

#ifdef __cplusplus
}
#endif

#endif

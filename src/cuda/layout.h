/* Data layout of the cuda backend (pure: no CUDA header, unit-tested by
 * tests/test_cuda_layout.c).
 *
 *  - Every experiment of a launch gets its own device buffers (placed one
 *    after the other in an arena), so concurrent experiments never share
 *    data.  Inside one experiment the global paths (ca, cg, nc, tex) share
 *    one buffer, as in the sim's single global address space: the same
 *    offset on ca and tex is the same data, and chains meant to be
 *    disjoint must use disjoint offsets.  Shared-path chains have a buffer
 *    of their own (copied into shared memory by the kernel).  Buffers
 *    >= 1 MiB are 2 MiB aligned, smaller ones 64 KiB aligned.
 *  - Constant-path chains live in the kernel module's single 64 KiB
 *    __constant__ array, uploaded before the launch; experiments whose
 *    constant words disagree go to different launches (mtc_const_paint).
 *  - A sequence's element array is a sequential chain (whatever the
 *    experiment's order says), and its index list becomes int32 deltas
 *    (mtc_seq_deltas; kernel_abi.h says how the kernel uses them).
 *  - mtc_plan_launch turns the experiments of one launch into kernel
 *    descriptors, chain-build jobs and staging arrays; mtc_collect turns
 *    what the kernel wrote back into results, checking that every chain
 *    and every sequence ended where the layout says it must. */
#ifndef MT_CUDA_LAYOUT_H
#define MT_CUDA_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "../backend/backend.h"
#include "kernel_abi.h"

/* Chains of two experiments that overlap are checked word by word up to
 * this many elements; beyond, overlapping different chains are refused. */
#define MTC_OVERLAP_CHECK_MAX (1u << 22)

/* Bytes the 32-bit word indices of kernels A, B and SEQ_* address: a
 * chase whose global chains reach beyond runs on kernel WIDE, whose
 * indices count MTK_WIDE_UNIT bytes (up to MTC_WIDE_REACH_BYTES). */
#define MTC_WORD_REACH_BYTES (1ull << (32 + MTK_WORD_SHIFT))
#define MTC_WIDE_REACH_BYTES (1ull << (32 + MTK_WIDE_SHIFT))

/* Buffer classes: chains of one class in one experiment share a buffer. */
enum { MTC_BUF_GLOBAL = 0, MTC_BUF_SHARED, MTC_BUF_COUNT, MTC_BUF_NONE = -1 };

int mtc_buf_class(mt_path p);
int mtc_path_has_buffer(mt_path p);
int mtc_uses_path(const mt_experiment *e, mt_path p);
/* The kernel (MTK_KERNEL_*) that runs e. */
int mtc_kernel_of(const mt_experiment *e);
/* 1 when a chase's warm-up lap is loaded by the whole block at once
 * (MTK_EXP_PARALLEL_WARM, kernel_abi.h): one-lap warm-ups of long
 * sequential chains over global memory (ca, cg, nc, texture), in GPU-scope
 * experiments, and in SM-scope ones when the chain fills
 * MTK_PARALLEL_WARM_SM_MIN_BYTES of any SM-local cache. */
int mtc_parallel_warm(const mt_experiment *e);
/* log2 of the bytes one unit of e's element indices counts: MTK_WIDE_SHIFT
 * on kernel WIDE, else MTK_WORD_SHIFT. */
unsigned mtc_index_shift(const mt_experiment *e);
/* A chase that needs kernel WIDE must have every global chain's offset and
 * stride a multiple of MTK_WIDE_UNIT, end within MTC_WIDE_REACH_BYTES and
 * use no shared-path chain: MT_ERR_UNSUPPORTED (one line) otherwise. */
mt_err mtc_check_wide(const mt_experiment *e, mt_errinfo *ei);
/* The order the element array is built in (sequences: sequential). */
mt_order mtc_layout_order(const mt_experiment *e);
/* Bytes of a buffer class the experiment needs: max(offset + elements *
 * stride) over its chains of that class (0 when none). */
uint64_t mtc_class_span(const mt_experiment *e, int cls);
/* Places the experiment's buffers from `cursor` on (arena offsets per
 * buffer class, UINT64_MAX when unused); returns the new cursor. */
uint64_t mtc_place_buffers(const mt_experiment *e, uint64_t cursor, uint64_t base[MTC_BUF_COUNT]);
/* Same data: same buffer (class), offset, stride and length. */
int mtc_same_data(const mt_chain *a, const mt_chain *b);
/* Two chains of one experiment in the same buffer must not write different
 * successors into one word: MT_ERR_UNSUPPORTED when they would. */
mt_err mtc_check_overlap(const mt_experiment *e, mt_errinfo *ei);
/* Element index reached after `loads` steps from element 0 (warm-up laps
 * are whole laps and end where they started); succ only for random order. */
uint64_t mtc_final_element(const mt_chain *c, mt_order order, const uint32_t *succ, uint32_t loads);

/* ---- the constant image of one launch ---- */
typedef struct {
    uint32_t *word;     /* MTK_CONST_WORDS: the image */
    uint8_t *set;       /* MTK_CONST_WORDS: 1 where a chain wrote the word */
    uint32_t *tmp_succ; /* MTK_CONST_WORDS: scratch successors */
    uint32_t hi;        /* bytes of the image in use */
} mtc_const_image;

mt_err mtc_const_image_init(mtc_const_image *ci, mt_errinfo *ei);
void mtc_const_image_free(mtc_const_image *ci);
/* Starts a new launch: no word taken. */
void mtc_const_image_reset(mtc_const_image *ci);
/* Checks (commit = 0) or writes (commit = 1) the constant words of e into
 * the image.  *fits = 0 when a word is already taken by a different
 * successor. */
mt_err mtc_const_paint(mtc_const_image *ci, const mt_experiment *e, int commit, int *fits,
                       mt_errinfo *ei);

/* ---- sequences ---- */
/* Word index of element k of c. */
uint32_t mtc_word(const mt_chain *c, uint64_t k);
/* Value a load of element k returns (the next element's word index; for
 * the `none` path, which loads nothing, the word index itself). */
uint32_t mtc_seq_value(const mt_chain *c, uint64_t k);
/* deltas[i] for the n entries of e's list (see kernel_abi.h); returns the
 * value the last load returns. */
uint32_t mtc_seq_deltas(const mt_experiment *e, int32_t *deltas);

/* ---- one launch ---- */
typedef struct {
    /* In: device addresses the descriptors point into (any numbers in
     * tests) and host arrays of the capacities named. */
    uint64_t d_arena, d_succ, d_seq;
    mtk_desc *descs;     /* one per experiment of the launch */
    mtk_build *build;    /* 2 per experiment */
    uint32_t *succ;      /* mtc_launch_needs' succ_words */
    int32_t *seq;        /* mtc_launch_needs' seq_words */
    int32_t *plan;       /* MTK_MAX_SMID */
    int32_t *any;        /* one per experiment */
    uint32_t *expect;    /* 2 per experiment: the final word / value */
    uint64_t *tex_base;  /* per experiment: arena offset a texture must cover */
    uint64_t *tex_bytes; /* per experiment: its bytes, 0 = no texture */
    uint32_t *const_succ; /* MTK_CONST_WORDS scratch */
    uint64_t tex_limit;  /* the texture path limit */
    /* Out. */
    size_t n_build, n_succ, n_seq, n_samples;
    uint32_t max_build_n;
    int n_any;
    unsigned block;   /* threads per block */
    double est_loads; /* loads of the longest experiment (warm-up included) */
} mtc_launch_plan;

/* Staging words the experiments idx[0..n-1] need. */
void mtc_launch_needs(const mt_experiment *exps, const size_t *idx, size_t n, size_t *succ_words,
                      size_t *seq_words);
/* Fills p's outputs and arrays for the experiments idx[0..n-1] (all of one
 * kernel), whose buffers are placed from arena offset 0 in order. */
mt_err mtc_plan_launch(const mt_experiment *exps, const size_t *idx, size_t n, mtc_launch_plan *p,
                       mt_errinfo *ei);
/* Sets the texture object of every buffer chain of descriptor d. */
void mtc_set_texture(mtk_desc *d, int kernel, uint64_t tex);
/* Results of the launch: claimed[k] = 1 when a block ran experiment
 * idx[k], whose result then goes to out[idx[k]] (caller frees them, also
 * on failure).  Checks aborts, SM placement and end positions. */
mt_err mtc_collect(const mt_experiment *exps, const size_t *idx, size_t n,
                   const mtc_launch_plan *p, const mtk_status *st, const uint32_t *samples,
                   uint64_t deadline_cycles, mt_result *out, int *claimed, mt_errinfo *ei);

#endif

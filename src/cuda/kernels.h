/* Host entry points of the cuda backend's kernels (kernels_chase.cu,
 * kernels_sequence.cu, kernels_util.cu, kernels_banks.cu), callable from C.  The descriptor
 * types are in kernel_abi.h.  Only src/cuda includes CUDA headers. */
#ifndef MT_CUDA_KERNELS_H
#define MT_CUDA_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "kernel_abi.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    size_t static_smem;
    int regs;
    int binary_version; /* e.g. 90 for sm_90 SASS */
    int ptx_version;
    int carveout_percent; /* the shared-memory carveout preference set on it */
} mtk_func_info;

/* One family of probe kernels (one .cu file): the variant without
 * shared-path data (smem = 0) and the one with it (smem = 1); the chase
 * family has a third, kernel WIDE (smem = MTK_VARIANT_WIDE).  Every
 * family module owns its own 64 KiB constant-path array, so the constant
 * image is uploaded to the family that runs the launch. */
typedef struct {
    const char *name;
    cudaError_t (*info)(int smem, mtk_func_info *out);
    /* Blocks of `block` threads that fit one SM with dyn_smem bytes (the
     * occupancy calculator; reflects the carveout preference). */
    cudaError_t (*occupancy)(int smem, int block, size_t dyn_smem, int *blocks);
    cudaError_t (*set_attrs)(int smem, int carveout_percent, int max_dyn_smem);
    cudaError_t (*launch)(int smem, unsigned grid, unsigned block, size_t dyn_smem,
                          cudaStream_t s, const mtk_launch *l);
    cudaError_t (*const_upload)(const void *src, size_t bytes, cudaStream_t s);
} mtk_family;

extern const mtk_family mtk_family_chase;    /* kernels A and B */
extern const mtk_family mtk_family_sequence; /* kernels SEQ_A and SEQ_B */

/* The family and variant of a kernel id (MTK_KERNEL_*). */
static inline const mtk_family *mtk_family_of(int kernel)
{
    return kernel == MTK_KERNEL_SEQ_A || kernel == MTK_KERNEL_SEQ_B ? &mtk_family_sequence
                                                                    : &mtk_family_chase;
}
#define MTK_VARIANT_WIDE 2
/* The variant argument (`smem`) of the family's functions. */
static inline int mtk_kernel_smem(int kernel)
{
    if (kernel == MTK_KERNEL_WIDE)
        return MTK_VARIANT_WIDE;
    return kernel == MTK_KERNEL_B || kernel == MTK_KERNEL_SEQ_B;
}

/* Utilities (kernels_util.cu). */
cudaError_t mtk_launch_build(const mtk_build *d_desc, unsigned n_desc, uint32_t max_n,
                             cudaStream_t s);
cudaError_t mtk_launch_flush(void *buf, size_t bytes, unsigned blocks, cudaStream_t s);
/* MT_KIND_CLOCK: `blocks` blocks, one claims (claim must be 0); out[0] =
 * SM cycles, out[1] = ns elapsed (>= ns), out[2] = %smid. */
cudaError_t mtk_launch_clock(uint32_t ns, int target, unsigned blocks, uint32_t *claim,
                             uint32_t *out, cudaStream_t s);
/* MT_KIND_BANKS (kernels_banks.cu): one warp per experiment; descs, samples
 * and smids in device memory.  Block i runs descs[i]: thread t <
 * n_threads loads word word_index[t] of word_bytes, loads + 1 times (the
 * first untimed); samples[i * stride + k] = cycles of timed load k;
 * smids[i] = %smid.  Every block has (span_words + 32) x 4 B of dynamic
 * shared memory: the words read, then a sink word per thread. */
typedef struct {
    uint32_t word_bytes, n_threads, loads, reserved;
    uint32_t word_index[32];
} mtk_banks_desc;
cudaError_t mtk_launch_banks(const mtk_banks_desc *descs, unsigned n, uint32_t span_words,
                             uint32_t stride, uint32_t *samples, uint32_t *smids, cudaStream_t s);
/* MT_KIND_ACCESS (kernels_access.cu): one block of one warp runs descs
 * 0..n-1 in order (descs, buf, samples and smids in device memory): thread
 * t < n_threads loads the word at byte offset_bytes + 4 x word_index[t] of
 * buf (cg: ld.global.cg, else ld.global.ca), loads + 1 times (the first
 * untimed); samples[k * stride + j] = cycles of timed load j of desc k;
 * smids[k] = %smid. */
typedef struct {
    uint32_t n_threads, loads, cg, offset_bytes;
    uint32_t word_index[32];
} mtk_access_desc;
cudaError_t mtk_launch_access(const mtk_access_desc *descs, unsigned n, const uint32_t *buf,
                              uint32_t stride, uint32_t *samples, uint32_t *smids,
                              cudaStream_t s);
/* MT_KIND_LINK (kernels_link.cu): one thread chases `chain` (element i
 * holds the word index of the next) with ld.volatile, `warm` loads untimed
 * then `loads` timed into out[]; and a grid-stride read or write of
 * `bytes` (a multiple of 16) of buf, never[0] written only by chance-free
 * data (keeps the read's sum alive). */
cudaError_t mtk_launch_link_chase(const uint32_t *chain, uint32_t warm, uint32_t loads,
                                  uint32_t *out, cudaStream_t s);
cudaError_t mtk_launch_link_stream(void *buf, uint64_t bytes, int write, unsigned blocks,
                                   unsigned threads, uint32_t *never, cudaStream_t s);
/* MT_KIND_EVICT (kernels_evict.cu): `blocks` blocks of MTK_EVICT_THREADS;
 * the first on SM `sm` (claim, zero before the launch) runs one repeat of
 * the test: intervals[2k] = first element of interval k, intervals[2k + 1]
 * = the pool position where it ends (exclusive, a running sum); elements
 * at byte base + element x stride.  out[0] = the timed target load's
 * cycles (fine timer overhead included), out[1] = %smid, out[2] = a sink.
 * 2 x n_intervals words of dynamic shared memory (at most 32 KiB). */
#define MTK_EVICT_THREADS 1024
typedef struct {
    uint64_t base;
    uint32_t stride, target, n_intervals;
    int sm;
    const uint32_t *intervals;
    uint32_t *claim, *out;
} mtk_evict_args;
cudaError_t mtk_launch_evict(const mtk_evict_args *a, unsigned blocks, cudaStream_t s);
/* Oldest SASS architecture in this build, e.g. 75 (from __CUDA_ARCH_LIST__). */
int mtk_oldest_arch(void);
/* Newest PTX/SASS architecture built, e.g. 90. */
int mtk_newest_arch(void);

#ifdef __cplusplus
}
#endif

#endif

/* MT_KIND_STREAM on the GPU: what stream.c (host) and kernels_stream.cu
 * agree on.  Private to src/cuda. */
#ifndef MT_CUDA_STREAM_ABI_H
#define MT_CUDA_STREAM_ABI_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    uint64_t src, dst;      /* device addresses (copy: dst = src + bytes); shared: unused */
    uint64_t tex;           /* cudaTextureObject_t over src (texture path) */
    uint64_t out;           /* 5 x u64: max block cycles, first start ns, last end ns, sink,
                               the balanced read's ticket counter (zeroed by the host) */
    uint64_t n_vec;         /* vectors of a block's share (shared: per block) */
    uint64_t groups;        /* distinct shares (< 2^32): block b streams share b mod groups */
    uint64_t region_words;  /* chase: words of each thread's region */
    uint32_t stride_words;  /* chase: words between a thread's loads */
    uint32_t repeats;       /* repeats (chase: loads per thread) */
    uint32_t iters;         /* rounds of in_flight accesses per thread per repeat */
    uint32_t op;            /* mt_stream_op */
    uint32_t path;          /* mt_path */
    uint32_t vec;           /* 4, 8, 16 */
    uint32_t in_flight;     /* 1, 2, 4, 8 */
    uint32_t zero;          /* always 0: the round kernel's opaque pointer step (kernels_stream.cu) */
    uint32_t balanced;      /* 1: a balanced read (backend.h) */
    uint32_t ticket_reads;  /* balanced: reads of a warp's slice per ticket */
} mtk_stream_args;

/* One stream launch: `grid` blocks of `block` threads, `smem` bytes of
 * dynamic shared memory (the shared path's arrays). */
cudaError_t mtk_launch_stream(const mtk_stream_args *a, unsigned grid, unsigned block, size_t smem,
                              cudaStream_t s);

#ifdef __cplusplus
}
#endif

#endif

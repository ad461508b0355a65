/* MT_KIND_CLUSTER on the GPU: what cluster.c (host) and kernels_cluster.cu
 * agree on.  Private to src/cuda. */
#ifndef MT_CUDA_CLUSTER_ABI_H
#define MT_CUDA_CLUSTER_ABI_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    uint64_t src;         /* copies: global data, block b's bytes at src + b x bytes */
    uint64_t out;         /* 4 x u64: max block cycles, first start ns, last end ns, sink */
    uint32_t op;          /* mt_cluster_op */
    uint32_t target_rank; /* chase: block read; stream: rank offset of the block read */
    uint32_t elements;    /* chase: elements of the chain */
    uint32_t stride_words;/* chase: words between elements */
    uint32_t warmup_laps; /* chase */
    uint32_t loads;       /* chase: loads timed */
    uint32_t repeats;     /* stream, copies */
    uint32_t bytes;       /* stream: bytes of each block's shared array; copies: of one copy */
} mtk_cluster_args;

/* One launch of `blocks` blocks of `threads` threads in clusters of
 * `cluster_size` (1: no cluster), `smem` bytes of dynamic shared memory.
 * The chase writes its aggregate cycles to out[0]; streams and copies
 * reduce their blocks into out[0..2] as stream launches do. */
cudaError_t mtk_launch_cluster(const mtk_cluster_args *a, unsigned blocks, unsigned threads,
                               unsigned cluster_size, size_t smem, cudaStream_t s);

/* The largest cluster the device launches, with the non-portable size
 * attribute (*most) and without it (*portable); 0 and 0 before compute
 * capability 9.0 (call only on a current device of 9.0 or later). */
cudaError_t mtk_cluster_limits(int *most, int *portable);

#ifdef __cplusplus
}
#endif

#endif

/* Interface between the CUDA backend's host code (backend_cuda.c, C11) and
 * its kernels (kernels.cu).  Plain C types only: the descriptors are copied
 * byte for byte to the device.  Only src/cuda includes CUDA headers. */
#ifndef MT_CUDA_KERNELS_H
#define MT_CUDA_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

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

/* Dynamic shared memory layout of both probe kernels (bytes). */
#define MTK_SMEM_HDR 256u                     /* block state + dependent-store sink */
#define MTK_SMEM_SAMPLES MTK_SMEM_HDR         /* MTK_FINE_MAX words */
#define MTK_SMEM_CHAIN (MTK_SMEM_HDR + 4u * MTK_FINE_MAX) /* shared-path chain copy */

/* The constant-path chain array: the whole 64 KiB a module may own. */
#define MTK_CONST_WORDS 16384u

/* Claim / plan tables are indexed by %smid; larger ids never run work. */
#define MTK_MAX_SMID 1024

#define MTK_MAX_THREADS 1024

/* Probe kernels: A holds no chain in shared memory (small carveout, large
 * L1); B copies shared-path chains into dynamic shared memory. */
enum { MTK_KERNEL_A = 0, MTK_KERNEL_B = 1 };

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

typedef struct {
    mtk_chain c[2];
    uint32_t n_chains;
    uint32_t mode;  /* mt_mode */
    uint32_t loads; /* measured loads per chain */
    uint32_t pad;
} mtk_exp;

/* Written by the kernel (zeroed by the host before each launch). */
typedef struct {
    uint32_t claimed;  /* 1 once a block ran this experiment */
    int32_t sm_ran;    /* %smid of that block */
    uint32_t aborted;  /* 1: the kernel's own deadline stopped a warm-up */
    uint32_t pad;
    uint32_t final_j[2];  /* word index after the last measured load */
    uint64_t total[2];    /* aggregate mode: clock64 cycles of the measured loop */
} mtk_status;

typedef struct {
    const mtk_exp *exps;
    mtk_status *st;
    uint32_t *samples;
    const int32_t *plan; /* plan[smid] = experiment index or -1 (MTK_MAX_SMID entries) */
    const int32_t *any;  /* experiments that may run on any SM without a plan */
    uint32_t *sm_claim;  /* MTK_MAX_SMID entries, zeroed before the launch */
    uint64_t deadline_cycles; /* per-block budget for warm-up laps (clock64) */
    int32_t n_any;
    int32_t pad;
} mtk_launch;

/* One chain to write into device memory: word start + k*stride_w holds
 * start + succ(k)*stride_w; succ(k) = k+1 mod n, or succ[k] when given. */
typedef struct {
    uint64_t buf;
    uint64_t succ; /* device pointer to n uint32 successors, 0 = sequential */
    uint32_t start_w;
    uint32_t stride_w;
    uint32_t n;
    uint32_t pad;
} mtk_build;

typedef struct {
    size_t static_smem;
    int regs;
    int binary_version; /* e.g. 90 for sm_90 SASS */
    int ptx_version;
} mtk_func_info;

cudaError_t mtk_probe_info(int which, mtk_func_info *out);
/* Blocks of `block` threads that fit one SM with dyn_smem bytes (the
 * occupancy calculator; reflects the carveout preference). */
cudaError_t mtk_probe_occupancy(int which, int block, size_t dyn_smem, int *blocks);
cudaError_t mtk_probe_set_attrs(int which, int carveout_percent, int max_dyn_smem);
cudaError_t mtk_launch_probe(int which, unsigned grid, unsigned block, size_t dyn_smem,
                             cudaStream_t s, const mtk_launch *l);
cudaError_t mtk_launch_build(const mtk_build *d_desc, unsigned n_desc, uint32_t max_n,
                             cudaStream_t s);
cudaError_t mtk_launch_flush(void *buf, size_t bytes, unsigned blocks, cudaStream_t s);
cudaError_t mtk_const_upload(const void *src, size_t bytes, cudaStream_t s);
size_t mtk_const_bytes(void);
/* Oldest SASS architecture in this build, e.g. 75 (from __CUDA_ARCH_LIST__). */
int mtk_oldest_arch(void);
/* Newest PTX/SASS architecture built, e.g. 90. */
int mtk_newest_arch(void);

#ifdef __cplusplus
}
#endif

#endif

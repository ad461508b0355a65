/* MT_KIND_CLUSTER on the GPU (backend.h): one launch per experiment, run
 * by itself.  A chase or stream is one cluster of cluster_size blocks with
 * the chain's or stream's array in dynamic shared memory; a copy reads the
 * arena at chain[0].offset (block b its b-th `bytes`).  The kernels are in
 * kernels_cluster.cu (compute capability 9.0 and later). */
#include <stdlib.h>
#include <string.h>

#include "cluster_abi.h"
#include "cuda_impl.h"

/* The four 64-bit words the kernel reduces into, in the sample buffer
 * (idle between launches, as stream.c uses it). */
#define MTC_CLUSTER_OUT_WORDS 4
/* A bulk copy's mbarrier lives in the first 16 bytes of its shared memory. */
#define MTC_BULK_BARRIER_BYTES 16u

mt_err mtc_run_cluster(cuda_impl *im, const mt_experiment *e, mt_result *out, mt_errinfo *ei)
{
    mt_err rc = MT_OK;
    const mt_cluster *k = &e->u.cluster;
    const mt_chain *c = &e->chain[0];
    memset(out, 0, sizeof *out);
    out->sm_ran = -1;
    mtk_cluster_args a;
    memset(&a, 0, sizeof a);
    a.op = (uint32_t)k->op;
    a.target_rank = k->target_rank;
    a.repeats = k->repeats;
    a.bytes = (uint32_t)k->bytes;
    unsigned blocks = k->cluster_size, threads = k->threads;
    size_t smem = (size_t)k->bytes;
    int copy = k->op == MT_CLUSTER_BULK_COPY || k->op == MT_CLUSTER_PLAIN_COPY;
    if (k->op == MT_CLUSTER_CHASE) {
        a.elements = (uint32_t)(c->footprint / c->stride);
        a.stride_words = c->stride / 4;
        a.warmup_laps = e->warmup_laps;
        a.loads = e->loads;
        threads = 32; /* one warp lays out the chain; thread 0 chases */
        smem = (size_t)c->footprint;
    } else if (copy) {
        blocks = k->blocks;
        if ((rc = mtc_ensure_arena(im, c->offset + c->footprint, ei)) != MT_OK)
            return rc;
        a.src = im->d.arena + c->offset;
        if (k->op == MT_CLUSTER_BULK_COPY)
            smem += MTC_BULK_BARRIER_BYTES;
    }
    {
        unsigned long long init[MTC_CLUSTER_OUT_WORDS] = {0, ~0ull, 0, 0};
        unsigned long long got[MTC_CLUSTER_OUT_WORDS];
        a.out = (uint64_t)(uintptr_t)im->d.samples;
        if (copy) /* defined data to copy (its value is never used) */
            CK(cudaMemsetAsync((void *)(uintptr_t)a.src, 0, (size_t)c->footprint, im->stream));
        CK(cudaMemcpyAsync(im->d.samples, init, sizeof init, cudaMemcpyHostToDevice, im->stream));
        CK(mtk_launch_cluster(&a, blocks, threads, copy ? 1 : k->cluster_size, smem, im->stream));
        CK(cudaStreamSynchronize(im->stream));
        CK(cudaMemcpy(got, im->d.samples, sizeof got, cudaMemcpyDeviceToHost));
        im->stats.launches++;
        uint32_t n = k->op == MT_CLUSTER_CHASE ? 1 : 2;
        out->cycles[0] = malloc(n * sizeof *out->cycles[0]);
        if (!out->cycles[0]) {
            rc = mt_fail(ei, MT_ERR_NOMEM, "out of memory for a cluster result");
            goto out;
        }
        /* Saturated when too long for a sample (backend.h). */
        out->cycles[0][0] = got[0] > UINT32_MAX ? UINT32_MAX : (uint32_t)got[0];
        if (n == 2) {
            unsigned long long ns = got[2] > got[1] ? got[2] - got[1] : 0;
            out->cycles[0][1] = ns > UINT32_MAX ? UINT32_MAX : (uint32_t)ns;
        }
        out->n[0] = n;
    }
out:
    if (rc != MT_OK)
        mt_result_free(out);
    return rc;
}

mt_err mtc_cluster_limits(mt_device_info *d, mt_errinfo *ei)
{
    mt_err rc = MT_OK;
    d->max_cluster_size = d->max_cluster_size_portable = 0;
    if (d->cc_major < 9)
        return MT_OK; /* clusters came with Hopper */
    CK(mtk_cluster_limits(&d->max_cluster_size, &d->max_cluster_size_portable));
out:
    return rc;
}

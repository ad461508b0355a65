/* The device side of a batch of one-warp experiments (warp_batch.h): the
 * banks and access kinds launch differently but upload, collect and free
 * their descriptors, samples and SM ids the same way. */
#include <stdlib.h>
#include <string.h>

#include "cuda_impl.h"

mt_err mtc_warp_batch_start(cuda_impl *im, mtc_warp_batch *b, const void *descs,
                            size_t desc_bytes, size_t n, uint32_t stride, mt_errinfo *ei)
{
    mt_err rc = MT_OK;
    memset(b, 0, sizeof *b);
    b->n = n;
    b->stride = stride;
    b->h_samples = malloc(n * stride * sizeof *b->h_samples);
    b->h_smids = malloc(n * sizeof *b->h_smids);
    if (!b->h_samples || !b->h_smids)
        return mt_fail(ei, MT_ERR_NOMEM, "out of memory for %zu one-warp experiments", n);
    CK(cudaMalloc(&b->d_desc, desc_bytes));
    CK(cudaMalloc((void **)&b->d_samples, n * stride * sizeof *b->d_samples));
    CK(cudaMalloc((void **)&b->d_smids, n * sizeof *b->d_smids));
    CK(cudaMemcpyAsync(b->d_desc, descs, desc_bytes, cudaMemcpyHostToDevice, im->stream));
out:
    return rc;
}

mt_err mtc_warp_batch_finish(cuda_impl *im, mtc_warp_batch *b, const mt_experiment *exps,
                             const size_t *which, mt_result *out, mt_errinfo *ei)
{
    mt_err rc = MT_OK;
    CK(cudaStreamSynchronize(im->stream));
    CK(cudaMemcpy(b->h_samples, b->d_samples, b->n * b->stride * sizeof *b->h_samples,
                  cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(b->h_smids, b->d_smids, b->n * sizeof *b->h_smids, cudaMemcpyDeviceToHost));
    im->stats.launches++;
    for (size_t k = 0; k < b->n; k++) {
        mt_result *r = &out[which[k]];
        uint32_t loads = exps[which[k]].loads;
        r->cycles[0] = malloc((size_t)loads * sizeof *r->cycles[0]);
        if (!r->cycles[0])
            return mt_fail(ei, MT_ERR_NOMEM, "out of memory for %u samples", loads);
        memcpy(r->cycles[0], b->h_samples + k * b->stride, (size_t)loads * sizeof *r->cycles[0]);
        r->n[0] = loads;
        r->sm_ran = (int)b->h_smids[k];
    }
out:
    return rc;
}

void mtc_warp_batch_free(mtc_warp_batch *b)
{
    /* Also after a failure; their own errors would hide the first. */
    cudaFree(b->d_desc);
    cudaFree(b->d_samples);
    cudaFree(b->d_smids);
    free(b->h_samples);
    free(b->h_smids);
    memset(b, 0, sizeof *b);
}

/* MT_KIND_BANKS on the GPU (backend.h): every banks experiment of a batch
 * in one launch of kernels_banks.cu, a block of one warp each.  Shared
 * memory is private to a block, so the experiments cannot disturb each
 * other wherever the blocks land. */
#include <stdlib.h>
#include <string.h>

#include "cuda_impl.h"

mt_err mtc_run_banks(cuda_impl *im, const mt_experiment *exps, const size_t *which, size_t n,
                     mt_result *out, mt_errinfo *ei)
{
    mt_err rc = MT_OK;
    mtk_banks_desc *h = calloc(n, sizeof *h), *d_desc = NULL;
    uint32_t *d_samples = NULL, *d_smids = NULL, *h_samples = NULL, *h_smids = NULL;
    uint32_t span_words = 0, stride = 1;
    if (!h) {
        rc = mt_fail(ei, MT_ERR_NOMEM, "out of memory for %zu banks experiments", n);
        goto out;
    }
    for (size_t k = 0; k < n; k++) {
        const mt_experiment *e = &exps[which[k]];
        h[k].word_bytes = e->u.banks.word_bytes;
        h[k].n_threads = e->u.banks.n_threads;
        h[k].loads = e->loads;
        memcpy(h[k].word_index, e->u.banks.word_index, sizeof h[k].word_index);
        uint32_t words = (uint32_t)(e->chain[0].footprint / 4);
        span_words = words > span_words ? words : span_words;
        stride = e->loads > stride ? e->loads : stride;
    }
    h_samples = malloc(n * stride * sizeof *h_samples);
    h_smids = malloc(n * sizeof *h_smids);
    if (!h_samples || !h_smids) {
        rc = mt_fail(ei, MT_ERR_NOMEM, "out of memory for %zu banks experiments", n);
        goto out;
    }
    CK(cudaMalloc((void **)&d_desc, n * sizeof *d_desc));
    CK(cudaMalloc((void **)&d_samples, n * stride * sizeof *d_samples));
    CK(cudaMalloc((void **)&d_smids, n * sizeof *d_smids));
    CK(cudaMemcpyAsync(d_desc, h, n * sizeof *h, cudaMemcpyHostToDevice, im->stream));
    CK(mtk_launch_banks(d_desc, (unsigned)n, span_words, stride, d_samples, d_smids, im->stream));
    CK(cudaStreamSynchronize(im->stream));
    CK(cudaMemcpy(h_samples, d_samples, n * stride * sizeof *h_samples, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(h_smids, d_smids, n * sizeof *h_smids, cudaMemcpyDeviceToHost));
    im->stats.launches++;
    for (size_t k = 0; k < n; k++) {
        mt_result *r = &out[which[k]];
        uint32_t loads = exps[which[k]].loads;
        r->cycles[0] = malloc((size_t)loads * sizeof *r->cycles[0]);
        if (!r->cycles[0]) {
            rc = mt_fail(ei, MT_ERR_NOMEM, "out of memory for %u samples", loads);
            goto out;
        }
        memcpy(r->cycles[0], h_samples + k * stride, (size_t)loads * sizeof *r->cycles[0]);
        r->n[0] = loads;
        r->sm_ran = (int)h_smids[k];
    }
out:
    /* Frees after a failure too; their own errors would hide the first. */
    cudaFree(d_desc);
    cudaFree(d_samples);
    cudaFree(d_smids);
    free(h);
    free(h_samples);
    free(h_smids);
    return rc;
}

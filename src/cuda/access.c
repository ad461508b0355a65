/* MT_KIND_ACCESS on the GPU (backend.h): every access experiment of a
 * batch in one launch of kernels_access.cu, one block of one warp running
 * them in order over one zeroed buffer of its own (so its words read 0
 * and the loads' addresses stay where the patterns put them). */
#include <stdlib.h>
#include <string.h>

#include "cuda_impl.h"

mt_err mtc_run_access(cuda_impl *im, const mt_experiment *exps, const size_t *which, size_t n,
                      mt_result *out, mt_errinfo *ei)
{
    mt_err rc = MT_OK;
    mtk_access_desc *h = calloc(n, sizeof *h), *d_desc = NULL;
    uint32_t *d_samples = NULL, *d_smids = NULL, *h_samples = NULL, *h_smids = NULL;
    char *d_raw = NULL;
    uint64_t span = 0;
    uint32_t stride = 1;
    if (!h) {
        rc = mt_fail(ei, MT_ERR_NOMEM, "out of memory for %zu access experiments", n);
        goto out;
    }
    for (size_t k = 0; k < n; k++) {
        const mt_experiment *e = &exps[which[k]];
        h[k].n_threads = e->u.access.n_threads;
        h[k].loads = e->loads;
        h[k].cg = e->chain[0].path == MT_PATH_GLOBAL_CG;
        h[k].offset_bytes = (uint32_t)e->chain[0].offset;
        memcpy(h[k].word_index, e->u.access.word_index, sizeof h[k].word_index);
        uint64_t end = e->chain[0].offset + e->chain[0].footprint;
        span = end > span ? end : span;
        stride = e->loads > stride ? e->loads : stride;
    }
    h_samples = malloc(n * stride * sizeof *h_samples);
    h_smids = malloc(n * sizeof *h_smids);
    if (!h_samples || !h_smids) {
        rc = mt_fail(ei, MT_ERR_NOMEM, "out of memory for %zu access experiments", n);
        goto out;
    }
    /* The patterns assume a base aligned to MT_ACCESS_ALIGN (a line of
     * any cache starts there); cudaMalloc promises only 256 B. */
    CK(cudaMalloc((void **)&d_raw, span + MT_ACCESS_ALIGN));
    CK(cudaMemsetAsync(d_raw, 0, span + MT_ACCESS_ALIGN, im->stream));
    const uint32_t *buf = (const uint32_t *)(d_raw + (MT_ACCESS_ALIGN -
                                                      (uintptr_t)d_raw % MT_ACCESS_ALIGN) %
                                                         MT_ACCESS_ALIGN);
    CK(cudaMalloc((void **)&d_desc, n * sizeof *d_desc));
    CK(cudaMalloc((void **)&d_samples, n * stride * sizeof *d_samples));
    CK(cudaMalloc((void **)&d_smids, n * sizeof *d_smids));
    CK(cudaMemcpyAsync(d_desc, h, n * sizeof *h, cudaMemcpyHostToDevice, im->stream));
    CK(mtk_launch_access(d_desc, (unsigned)n, buf, stride, d_samples, d_smids, im->stream));
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
    cudaFree(d_raw);
    cudaFree(d_desc);
    cudaFree(d_samples);
    cudaFree(d_smids);
    free(h);
    free(h_samples);
    free(h_smids);
    return rc;
}

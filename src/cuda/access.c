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
    mtc_warp_batch b = {0};
    mtk_access_desc *h = calloc(n, sizeof *h);
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
    /* The patterns assume a base aligned to MT_ACCESS_ALIGN (a line of
     * any cache starts there); cudaMalloc promises only 256 B. */
    CK(cudaMalloc((void **)&d_raw, span + MT_ACCESS_ALIGN));
    CK(cudaMemsetAsync(d_raw, 0, span + MT_ACCESS_ALIGN, im->stream));
    const uint32_t *buf = (const uint32_t *)(d_raw + (MT_ACCESS_ALIGN -
                                                      (uintptr_t)d_raw % MT_ACCESS_ALIGN) %
                                                         MT_ACCESS_ALIGN);
    if ((rc = mtc_warp_batch_start(im, &b, h, n * sizeof *h, n, stride, ei)) != MT_OK)
        goto out;
    CK(mtk_launch_access(b.d_desc, (unsigned)n, buf, stride, b.d_samples, b.d_smids, im->stream));
    rc = mtc_warp_batch_finish(im, &b, exps, which, out, ei);
out:
    /* Frees after a failure too; their own errors would hide the first. */
    cudaFree(d_raw);
    mtc_warp_batch_free(&b);
    free(h);
    return rc;
}

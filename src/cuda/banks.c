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
    mtc_warp_batch b = {0};
    mtk_banks_desc *h = calloc(n, sizeof *h);
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
    if ((rc = mtc_warp_batch_start(im, &b, h, n * sizeof *h, n, stride, ei)) != MT_OK)
        goto out;
    CK(mtk_launch_banks(b.d_desc, (unsigned)n, span_words, stride, b.d_samples, b.d_smids,
                        im->stream));
    rc = mtc_warp_batch_finish(im, &b, exps, which, out, ei);
out:
    mtc_warp_batch_free(&b);
    free(h);
    return rc;
}

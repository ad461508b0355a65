/* MT_KIND_EVICT on the GPU (backend.h): each repeat flushes the L2, then
 * one launch runs the test on the experiment's SM (SM 0 when it names
 * none, so that every test of a probe sees the same partition), stream
 * ordered after the flush.  The intervals go up once per experiment as
 * (first element, end position) pairs in the sequence staging buffer;
 * the kernel is in kernels_evict.cu. */
#include <stdlib.h>
#include <string.h>

#include "cuda_impl.h"

mt_err mtc_run_evict(cuda_impl *im, const mt_experiment *e, mt_result *out, mt_errinfo *ei)
{
    mt_err rc = MT_OK;
    const mt_sequence *q = &e->u.evict;
    const mt_chain *c = &e->chain[0];
    uint32_t n_iv = (q->n - 1) / 2;
    memset(out, 0, sizeof *out);
    out->sm_ran = -1;
    if ((rc = mtc_ensure_arena(im, c->offset + c->footprint, ei)) != MT_OK)
        return rc;
    if ((rc = mtc_ensure_staging(im, 0, 2 * (size_t)n_iv, ei)) != MT_OK)
        return rc;
    uint32_t *host = (uint32_t *)im->h.seq;
    uint64_t end = 0;
    for (uint32_t k = 0; k < n_iv; k++) {
        end += q->index[2 + 2 * k];
        if (end > UINT32_MAX)
            return mt_fail(ei, MT_ERR_INVALID_ARG, "evict experiment: a pool of %llu lines "
                           "(the kernel counts positions in 32 bits)", (unsigned long long)end);
        host[2 * k] = q->index[1 + 2 * k];
        host[2 * k + 1] = (uint32_t)end;
    }
    out->cycles[0] = malloc((size_t)e->loads * sizeof *out->cycles[0]);
    if (!out->cycles[0])
        return mt_fail(ei, MT_ERR_NOMEM, "out of memory for %u samples", e->loads);
    out->n[0] = e->loads;
    CK(cudaMemcpyAsync(im->d.seq, host, 2 * (size_t)n_iv * sizeof *host, cudaMemcpyHostToDevice,
                       im->stream));
    mtk_evict_args a = {.base = im->d.arena + c->offset, .stride = c->stride,
                        .target = q->index[0], .n_intervals = n_iv, .sm = e->sm >= 0 ? e->sm : 0,
                        .intervals = (const uint32_t *)im->d.seq, .claim = im->d.claim,
                        .out = im->d.samples};
    for (uint32_t r = 0; r < e->loads; r++) {
        uint32_t got[3] = {0, UINT32_MAX, 0};
        for (int t = 0; t < MTC_MAX_PLACEMENT_TRIES && got[1] == UINT32_MAX; t++) {
            CK(cudaMemsetAsync(im->d.claim, 0, sizeof(uint32_t), im->stream));
            CK(cudaMemcpyAsync(im->d.samples, got, sizeof got, cudaMemcpyHostToDevice,
                               im->stream));
            CK(mtk_launch_flush(im->d.flush, im->d.flush_bytes, (unsigned)(4 * im->nsm),
                                im->stream));
            im->stats.l2_flushes++;
            CK(mtk_launch_evict(&a, (unsigned)im->nsm, im->stream));
            CK(cudaStreamSynchronize(im->stream));
            CK(cudaMemcpy(got, im->d.samples, sizeof got, cudaMemcpyDeviceToHost));
            im->stats.launches++;
        }
        if (got[1] == UINT32_MAX) {
            rc = mt_fail(ei, MT_ERR_DEVICE, "evict experiment: no block reached SM %d in %d "
                         "launches", a.sm, MTC_MAX_PLACEMENT_TRIES);
            goto out;
        }
        out->cycles[0][r] = got[0];
        out->sm_ran = (int)got[1];
    }
out:
    if (rc != MT_OK)
        mt_result_free(out);
    return rc;
}

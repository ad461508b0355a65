/* Host staging and device buffers of the cuda backend: the fixed ones
 * (allocated at open, sized by the SM count) and the ones that grow with
 * the batches (the chain arena, random successors, sequence lists). */
#include <stdlib.h>
#include <string.h>

#include "cuda_impl.h"

static uint64_t align_up(uint64_t x, uint64_t a)
{
    return (x + a - 1) / a * a;
}

static void *xcalloc(size_t n, size_t sz)
{
    return calloc(n ? n : 1, sz);
}

mt_err mtc_buffers_alloc(cuda_impl *im, mt_errinfo *ei)
{
    mt_err rc = MT_OK;
    const size_t nsm = (size_t)im->nsm;
    mtc_host_buffers *h = &im->h;
    mtc_device_buffers *d = &im->d;

    h->descs = xcalloc(nsm, sizeof *h->descs);
    h->st = xcalloc(nsm, sizeof *h->st);
    h->samples = xcalloc(nsm * 2 * MTK_FINE_MAX, sizeof *h->samples);
    h->plan = xcalloc(MTK_MAX_SMID, sizeof *h->plan);
    h->any = xcalloc(nsm, sizeof *h->any);
    h->build = xcalloc(nsm * 2, sizeof *h->build);
    h->expect = xcalloc(nsm * 2, sizeof *h->expect);
    h->tex_base = xcalloc(nsm, sizeof *h->tex_base);
    h->tex_bytes = xcalloc(nsm, sizeof *h->tex_bytes);
    h->texs = xcalloc(nsm, sizeof *h->texs);
    h->group_idx = xcalloc(nsm, sizeof *h->group_idx);
    h->claimed = xcalloc(nsm, sizeof *h->claimed);
    if (!h->descs || !h->st || !h->samples || !h->plan || !h->any || !h->build || !h->expect ||
        !h->tex_base || !h->tex_bytes || !h->texs || !h->group_idx || !h->claimed)
        return mt_fail(ei, MT_ERR_NOMEM, "out of memory opening the cuda backend");
    if ((rc = mtc_const_image_init(&im->cimg, ei)) != MT_OK)
        return rc;

    CK(cudaStreamCreateWithFlags(&im->stream, cudaStreamNonBlocking));
    im->have_stream = 1;
    CK(cudaEventCreateWithFlags(&im->done, cudaEventDisableTiming));
    im->have_event = 1;
    CK(cudaMalloc((void **)&d->descs, nsm * sizeof(mtk_desc)));
    CK(cudaMalloc((void **)&d->st, nsm * sizeof(mtk_status)));
    CK(cudaMalloc((void **)&d->samples, nsm * 2 * MTK_FINE_MAX * sizeof(uint32_t)));
    CK(cudaMalloc((void **)&d->plan, MTK_MAX_SMID * sizeof(int32_t)));
    CK(cudaMalloc((void **)&d->any, nsm * sizeof(int32_t)));
    CK(cudaMalloc((void **)&d->claim, MTK_MAX_SMID * sizeof(uint32_t)));
    CK(cudaMalloc((void **)&d->build, nsm * 2 * sizeof(mtk_build)));
    /* L2 flush buffer: twice the L2 so a read-modify-write pass evicts it. */
    d->flush_bytes = (size_t)align_up(2 * im->info.l2_bytes, MTC_MIB);
    if (d->flush_bytes == 0)
        d->flush_bytes = 2 * MTC_MIB;
    CK(cudaMalloc(&d->flush, d->flush_bytes));
    CK(cudaMemsetAsync(d->flush, 0, d->flush_bytes, im->stream));
    CK(cudaStreamSynchronize(im->stream));
out:
    return rc;
}

void mtc_buffers_free_device(cuda_impl *im)
{
    /* Errors are ignored: this runs on failure paths and in destroy. */
    mtc_device_buffers *d = &im->d;
    void *ptrs[] = {d->arena_raw, d->flush, d->descs, d->st,    d->samples, d->plan,
                    d->any,       d->claim, d->build, d->succ,  d->seq};
    for (size_t i = 0; i < sizeof ptrs / sizeof ptrs[0]; i++)
        if (ptrs[i])
            cudaFree(ptrs[i]);
    memset(d, 0, sizeof *d);
    if (im->have_event)
        cudaEventDestroy(im->done);
    if (im->have_stream)
        cudaStreamDestroy(im->stream);
    im->have_event = im->have_stream = 0;
}

void mtc_buffers_free_host(cuda_impl *im)
{
    mtc_host_buffers *h = &im->h;
    free(h->descs);
    free(h->st);
    free(h->samples);
    free(h->plan);
    free(h->any);
    free(h->build);
    free(h->expect);
    free(h->tex_base);
    free(h->tex_bytes);
    free(h->texs);
    free(h->succ);
    free(h->seq);
    free(h->group_idx);
    free(h->claimed);
    memset(h, 0, sizeof *h);
    mtc_const_image_free(&im->cimg);
}

mt_err mtc_ensure_arena(cuda_impl *im, uint64_t bytes, mt_errinfo *ei)
{
    mt_err rc = MT_OK;
    mtc_device_buffers *d = &im->d;
    if (bytes <= d->arena_cap)
        return MT_OK;
    uint64_t cap = align_up(bytes, MTC_ARENA_GRANULE);
    if (d->arena_raw) {
        CK(cudaFree(d->arena_raw));
        d->arena_raw = NULL;
        d->arena_cap = 0;
    }
    cudaError_t ce = cudaMalloc(&d->arena_raw, (size_t)(cap + MTC_BIG_ALIGN));
    if (ce == cudaErrorMemoryAllocation) {
        /* Sparse chains may ask for nearly all the memory free at open:
         * say how much, since another process may have taken it since. */
        size_t free_b = 0, total_b = 0;
        (void)cudaGetLastError();
        d->arena_raw = NULL;
        if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess)
            free_b = 0;
        return mt_fail(ei, MT_ERR_DEVICE_OOM,
                       "device memory short: the chains need %llu MiB, %llu MiB are free now",
                       (unsigned long long)((cap + MTC_BIG_ALIGN) >> 20),
                       (unsigned long long)(free_b >> 20));
    }
    CK(ce);
    d->arena = align_up((uint64_t)(uintptr_t)d->arena_raw, MTC_BIG_ALIGN);
    d->arena_cap = cap;
out:
    return rc;
}

/* Grows a host array and its device twin to at least `words` 32-bit words. */
static mt_err ensure_words(void **host, size_t *host_cap, void **dev, size_t *dev_cap, size_t words,
                           const char *what, mt_errinfo *ei)
{
    mt_err rc = MT_OK;
    if (words > *host_cap) {
        void *p = realloc(*host, words * sizeof(uint32_t));
        if (!p)
            return mt_fail(ei, MT_ERR_NOMEM, "out of memory for %zu %s", words, what);
        *host = p;
        *host_cap = words;
    }
    if (words > *dev_cap) {
        if (*dev) {
            CK(cudaFree(*dev));
            *dev = NULL;
            *dev_cap = 0;
        }
        CK(cudaMalloc(dev, words * sizeof(uint32_t)));
        *dev_cap = words;
    }
out:
    return rc;
}

mt_err mtc_ensure_staging(cuda_impl *im, size_t succ_words, size_t seq_words, mt_errinfo *ei)
{
    mt_err rc;
    void *hs = im->h.succ, *ds = im->d.succ, *hq = im->h.seq, *dq = im->d.seq;
    rc = ensure_words(&hs, &im->h.succ_cap, &ds, &im->d.succ_cap, succ_words ? succ_words : 1,
                      "chain successors", ei);
    im->h.succ = hs;
    im->d.succ = ds;
    if (rc != MT_OK)
        return rc;
    rc = ensure_words(&hq, &im->h.seq_cap, &dq, &im->d.seq_cap, seq_words ? seq_words : 1,
                      "sequence entries", ei);
    im->h.seq = hq;
    im->d.seq = dq;
    return rc;
}

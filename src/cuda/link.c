/* MT_KIND_LINK on the GPU (backend.h): the link from this GPU to another
 * GPU of the node or to the host.  The query asks the runtime (peer
 * access, cudaDeviceGetP2PAttribute) and NVML (nvml_links.c); the chase
 * and the SM streams run kernels of kernels_link.cu over the peer's
 * memory (peer access enabled) or pinned mapped host memory; the copies
 * are cudaMemcpyPeerAsync / cudaMemcpyAsync.  Bandwidth ops are timed by
 * CUDA events around `repeats` operations, after one untimed operation
 * (first-touch and mapping costs). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_impl.h"
#include "nvml_links.h"

/* SM streams: blocks per SM and threads per block, enough 16-byte loads
 * in flight to fill a link (a PCIe Gen5 x16 link needs ~64 KiB in flight
 * at ~1 us; 2 x 512 threads x 132 SMs x 16 B is 2 MiB). */
#define LINK_BLOCKS_PER_SM 2u
#define LINK_THREADS 512u

static mt_err pci_of(int dev, mtc_pci_addr *a, mt_errinfo *ei)
{
    mt_err rc = MT_OK;
    int d = 0, b = 0, s = 0;
    CK(cudaDeviceGetAttribute(&d, cudaDevAttrPciDomainId, dev));
    CK(cudaDeviceGetAttribute(&b, cudaDevAttrPciBusId, dev));
    CK(cudaDeviceGetAttribute(&s, cudaDevAttrPciDeviceId, dev));
    a->domain = (unsigned)d, a->bus = (unsigned)b, a->device = (unsigned)s;
out:
    return rc;
}

static mt_err check_peer(const cuda_impl *im, int32_t peer, mt_errinfo *ei)
{
    mt_err rc = MT_OK;
    int count = 0;
    if (peer == MT_LINK_HOST)
        return MT_OK;
    CK(cudaGetDeviceCount(&count));
    if (peer >= count || peer == im->dev)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "link experiment to GPU %d: the driver lists GPUs "
                       "0..%d and this is GPU %d", (int)peer, count - 1, im->dev);
out:
    return rc;
}

static mt_err query(cuda_impl *im, int32_t peer, uint32_t *f, mt_errinfo *ei)
{
    mt_err rc = MT_OK;
    mtc_pci_addr self, other;
    mtc_nvml_links nv;
    for (int i = 0; i < MT_LINK_QUERY_FIELDS; i++)
        f[i] = MT_LINK_NOT_AVAILABLE;
    if ((rc = pci_of(im->dev, &self, ei)) != MT_OK)
        return rc;
    if (peer != MT_LINK_HOST && (rc = pci_of(peer, &other, ei)) != MT_OK)
        return rc;
    mtc_nvml_link_query(&self, peer == MT_LINK_HOST ? NULL : &other, &nv);
    f[MT_LINK_F_PCIE_GEN] = nv.pcie_gen;
    f[MT_LINK_F_PCIE_WIDTH] = nv.pcie_width;
    if (peer == MT_LINK_HOST) {
        /* A discrete GPU reaches the host over its PCIe link. */
        f[MT_LINK_F_TYPE] = MT_LINK_TYPE_PCIE;
        f[MT_LINK_F_PEER_ACCESS] = 1;
        return MT_OK;
    }
    int can = 0, rank = 0, atomics = 0;
    CK(cudaDeviceCanAccessPeer(&can, im->dev, peer));
    f[MT_LINK_F_PEER_ACCESS] = (uint32_t)can;
    if (can) {
        CK(cudaDeviceGetP2PAttribute(&rank, cudaDevP2PAttrPerformanceRank, im->dev, peer));
        CK(cudaDeviceGetP2PAttribute(&atomics, cudaDevP2PAttrNativeAtomicSupported, im->dev,
                                     peer));
        f[MT_LINK_F_PERF_RANK] = (uint32_t)rank;
        f[MT_LINK_F_ATOMICS] = (uint32_t)atomics;
    }
    /* NVLinks straight to the peer; or, with none, every active one when
     * the peer is reachable (an NVSwitch fabric: NVML names the switch,
     * not the GPU, at the far end); else PCIe.  No NVML: unknown. */
    if (nv.nvlinks_active == MT_LINK_NOT_AVAILABLE) {
        f[MT_LINK_F_TYPE] = MT_LINK_NOT_AVAILABLE;
    } else if (nv.nvlinks_to_peer != MT_LINK_NOT_AVAILABLE && nv.nvlinks_to_peer > 0) {
        f[MT_LINK_F_TYPE] = MT_LINK_TYPE_NVLINK;
        f[MT_LINK_F_NVLINKS] = nv.nvlinks_to_peer;
        f[MT_LINK_F_NVLINK_VERSION] = nv.nvlink_version;
    } else if (nv.nvlinks_active > 0 && can) {
        f[MT_LINK_F_TYPE] = MT_LINK_TYPE_NVLINK;
        f[MT_LINK_F_NVLINKS] = nv.nvlinks_active;
        f[MT_LINK_F_NVLINK_VERSION] = nv.nvlink_version;
    } else {
        f[MT_LINK_F_TYPE] = MT_LINK_TYPE_PCIE;
    }
out:
    return rc;
}

/* Memory behind the link: `bytes` on the peer, or pinned mapped host
 * memory; *dev_ptr is what this GPU's kernels address. */
typedef struct {
    void *peer_buf;  /* cudaMalloc on the peer */
    void *host_buf;  /* cudaHostAlloc, mapped */
    void *dev_ptr;
} far_mem;

/* Buffers kept between bandwidth experiments: pinning 64 MiB of host
 * memory costs about as much as copying it, and a node run asks for 24
 * such experiments per link.  One far buffer (for one peer) and one of
 * this GPU's, grown on demand, freed with the backend. */
struct mtc_link_buffers {
    far_mem far;
    int32_t far_peer;
    uint64_t far_bytes;
    void *near;
    uint64_t near_bytes;
};

static void far_free(far_mem *m);

void mtc_link_free(cuda_impl *im)
{
    if (!im->links)
        return;
    far_free(&im->links->far);
    if (im->links->near)
        cudaFree(im->links->near);
    free(im->links);
    im->links = NULL;
}

static mt_err far_alloc(cuda_impl *im, int32_t peer, uint64_t bytes, far_mem *m, mt_errinfo *ei)
{
    mt_err rc = MT_OK;
    memset(m, 0, sizeof *m);
    if (peer == MT_LINK_HOST) {
        CK(cudaHostAlloc(&m->host_buf, bytes, cudaHostAllocMapped));
        CK(cudaHostGetDevicePointer(&m->dev_ptr, m->host_buf, 0));
        return MT_OK;
    }
    CK(cudaSetDevice(peer));
    CK(cudaMalloc(&m->peer_buf, bytes));
    CK(cudaSetDevice(im->dev));
    m->dev_ptr = m->peer_buf;
out:
    cudaSetDevice(im->dev); /* back to this GPU whatever failed */
    return rc;
}

static void far_free(far_mem *m)
{
    if (!m)
        return;
    if (m->peer_buf)
        cudaFree(m->peer_buf);
    if (m->host_buf)
        cudaFreeHost(m->host_buf);
    memset(m, 0, sizeof *m);
}

/* SM loads of the peer's memory need peer access, enabled once per pair
 * (an already enabled one is not an error). */
static mt_err enable_peer(cuda_impl *im, int32_t peer, mt_errinfo *ei)
{
    if (peer == MT_LINK_HOST)
        return MT_OK;
    cudaError_t ce = cudaDeviceEnablePeerAccess(peer, 0);
    if (ce == cudaErrorPeerAccessAlreadyEnabled) {
        (void)cudaGetLastError(); /* clears the sticky-free error state */
        return MT_OK;
    }
    return ce == cudaSuccess ? MT_OK
                             : mtc_cuda_err(ei, ce, "cudaDeviceEnablePeerAccess", __FILE__, __LINE__);
}

static mt_err chase(cuda_impl *im, const mt_experiment *e, mt_result *out, mt_errinfo *ei)
{
    mt_err rc = MT_OK;
    const mt_chain *c = &e->chain[0];
    uint64_t n = c->footprint / c->stride, step = c->stride / 4;
    uint32_t *chain = calloc(c->footprint / 4, sizeof *chain), *dout = NULL;
    far_mem m;
    memset(&m, 0, sizeof m);
    if (!chain)
        return mt_fail(ei, MT_ERR_NOMEM, "out of memory for a link chase");
    for (uint64_t i = 0; i < n; i++)
        chain[i * step] = (uint32_t)(((i + 1) % n) * step);
    if ((rc = enable_peer(im, e->u.link.peer, ei)) != MT_OK ||
        (rc = far_alloc(im, e->u.link.peer, c->footprint, &m, ei)) != MT_OK)
        goto out;
    CK(cudaMemcpy(m.dev_ptr, chain, c->footprint, cudaMemcpyHostToDevice));
    CK(cudaMalloc((void **)&dout, (size_t)e->loads * sizeof *dout));
    out->cycles[0] = malloc((size_t)e->loads * sizeof *out->cycles[0]);
    if (!out->cycles[0]) {
        rc = mt_fail(ei, MT_ERR_NOMEM, "out of memory for %u samples", e->loads);
        goto out;
    }
    CK(mtk_launch_link_chase((const uint32_t *)m.dev_ptr, (uint32_t)(e->warmup_laps * n), e->loads,
                             dout, im->stream));
    CK(cudaStreamSynchronize(im->stream));
    CK(cudaMemcpy(out->cycles[0], dout, (size_t)e->loads * sizeof *dout, cudaMemcpyDeviceToHost));
    out->n[0] = e->loads;
    im->stats.launches++;
out:
    if (dout)
        cudaFree(dout);
    far_free(&m);
    free(chain);
    return rc;
}

/* One bandwidth op of `bytes` between this GPU's buffer `near` and the
 * memory behind the link. */
static cudaError_t one_op(cuda_impl *im, const mt_link *l, void *near, const far_mem *m,
                          uint32_t *never)
{
    unsigned blocks = LINK_BLOCKS_PER_SM * (unsigned)im->nsm;
    switch (l->op) {
    case MT_LINK_SM_READ:
        return mtk_launch_link_stream(m->dev_ptr, l->bytes, 0, blocks, LINK_THREADS, never,
                                      im->stream);
    case MT_LINK_SM_WRITE:
        return mtk_launch_link_stream(m->dev_ptr, l->bytes, 1, blocks, LINK_THREADS, never,
                                      im->stream);
    case MT_LINK_COPY_IN:
        return l->peer == MT_LINK_HOST
                   ? cudaMemcpyAsync(near, m->host_buf, l->bytes, cudaMemcpyHostToDevice, im->stream)
                   : cudaMemcpyPeerAsync(near, im->dev, m->peer_buf, l->peer, l->bytes, im->stream);
    default:
        return l->peer == MT_LINK_HOST
                   ? cudaMemcpyAsync(m->host_buf, near, l->bytes, cudaMemcpyDeviceToHost, im->stream)
                   : cudaMemcpyPeerAsync(m->peer_buf, l->peer, near, im->dev, l->bytes, im->stream);
    }
}

/* The kept buffers, at least `bytes` each, the far one behind peer's link. */
static mt_err kept_buffers(cuda_impl *im, int32_t peer, uint64_t bytes, mt_errinfo *ei)
{
    mt_err rc = MT_OK;
    if (!im->links && !(im->links = calloc(1, sizeof *im->links)))
        return mt_fail(ei, MT_ERR_NOMEM, "out of memory for link buffers");
    struct mtc_link_buffers *k = im->links;
    if (k->far_bytes < bytes || k->far_peer != peer) {
        far_free(&k->far);
        k->far_bytes = 0;
        if ((rc = far_alloc(im, peer, bytes, &k->far, ei)) != MT_OK)
            return rc;
        k->far_bytes = bytes, k->far_peer = peer;
    }
    if (k->near_bytes < bytes) {
        if (k->near)
            cudaFree(k->near);
        k->near = NULL;
        k->near_bytes = 0;
        CK(cudaMalloc(&k->near, bytes));
        k->near_bytes = bytes;
    }
out:
    return rc;
}

static mt_err bandwidth(cuda_impl *im, const mt_experiment *e, mt_result *out, mt_errinfo *ei)
{
    mt_err rc = MT_OK;
    const mt_link *l = &e->u.link;
    bool sm = l->op == MT_LINK_SM_READ || l->op == MT_LINK_SM_WRITE;
    uint32_t *never = NULL;
    cudaEvent_t t0 = NULL, t1 = NULL;
    if (sm && (rc = enable_peer(im, l->peer, ei)) != MT_OK)
        return rc;
    if ((rc = kept_buffers(im, l->peer, l->bytes, ei)) != MT_OK)
        return rc;
    void *near = im->links->near;
    const far_mem m = im->links->far;
    CK(cudaMalloc((void **)&never, sizeof *never));
    CK(cudaEventCreate(&t0));
    CK(cudaEventCreate(&t1));
    CK(one_op(im, l, near, &m, never)); /* untimed: first touch, mappings */
    CK(cudaEventRecord(t0, im->stream));
    for (uint32_t r = 0; r < l->repeats; r++)
        CK(one_op(im, l, near, &m, never));
    CK(cudaEventRecord(t1, im->stream));
    CK(cudaEventSynchronize(t1));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, t0, t1));
    out->cycles[0] = malloc(sizeof *out->cycles[0]);
    if (!out->cycles[0]) {
        rc = mt_fail(ei, MT_ERR_NOMEM, "out of memory for a link sample");
        goto out;
    }
    double ns = (double)ms * 1e6;
    out->cycles[0][0] = ns >= 4294967295.0 ? UINT32_MAX : ns < 1 ? 1u : (uint32_t)(ns + 0.5);
    out->n[0] = 1;
    im->stats.launches += l->repeats + 1;
out:
    if (t0)
        cudaEventDestroy(t0);
    if (t1)
        cudaEventDestroy(t1);
    if (never)
        cudaFree(never);
    return rc;
}

mt_err mtc_run_link(cuda_impl *im, const mt_experiment *e, mt_result *out, mt_errinfo *ei)
{
    mt_err rc;
    memset(out, 0, sizeof *out);
    out->sm_ran = -1;
    if ((rc = check_peer(im, e->u.link.peer, ei)) != MT_OK)
        return rc;
    if (e->u.link.op == MT_LINK_QUERY) {
        out->cycles[0] = malloc(MT_LINK_QUERY_FIELDS * sizeof *out->cycles[0]);
        if (!out->cycles[0])
            return mt_fail(ei, MT_ERR_NOMEM, "out of memory for a link query");
        out->n[0] = MT_LINK_QUERY_FIELDS;
        rc = query(im, e->u.link.peer, out->cycles[0], ei);
    } else if (e->u.link.op == MT_LINK_CHASE) {
        rc = chase(im, e, out, ei);
    } else {
        rc = bandwidth(im, e, out, ei);
    }
    if (rc != MT_OK)
        mt_result_free(out);
    return rc;
}

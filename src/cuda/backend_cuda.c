/* The cuda backend: runs batches of experiments on an NVIDIA GPU through
 * the CUDA runtime API.  This file is the backend's face: its registry
 * entry, open / destroy and the batch loop.  The parts:
 *   device_query.c  driver attributes -> mt_device_info, kernel attributes
 *   limits.c        launch configuration and limits (pure)
 *   schedule.c      which experiments share a launch, requeueing (pure)
 *   layout.c        buffers, constant image, descriptors, results (pure)
 *   buffers.c       host staging and device memory
 *   launch.c        one launch: uploads, L2 flush, kernel, watchdog
 *   kernels_*.cu    the kernels (chase, sequence, utilities)
 *   clock.c         MT_KIND_CLOCK experiments (the SM clock in effect)
 *   stream.c        MT_KIND_STREAM experiments (kernels_stream.cu)
 *   banks.c         MT_KIND_BANKS experiments (shared-memory bank conflicts)
 *   icache.c        MT_KIND_ICACHE experiments (generated code, icache_ptx.c)
 *   link.c          MT_KIND_LINK experiments (peer GPUs and the host; nvml_links.c)
 *   access.c        MT_KIND_ACCESS experiments (a warp's global load pattern)
 *   evict.c         MT_KIND_EVICT experiments (an L2 eviction test)
 * Kinds: MT_KIND_CHASE, MT_KIND_SEQUENCE, MT_KIND_CLOCK, MT_KIND_STREAM,
 * MT_KIND_BANKS, MT_KIND_CLUSTER, MT_KIND_ICACHE, MT_KIND_ACCESS, MT_KIND_LINK and MT_KIND_EVICT (backend.h gives the contract); the others are refused with
 * MT_ERR_UNSUPPORTED. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../core/phase_times.h"
#include "cuda_impl.h"
#include "nvml_procs.h"

_Static_assert((int)MT_CUDA_KERNEL_A == (int)MTK_KERNEL_A && (int)MT_CUDA_KERNEL_B == (int)MTK_KERNEL_B &&
                   (int)MT_CUDA_KERNEL_SEQ_A == (int)MTK_KERNEL_SEQ_A &&
                   (int)MT_CUDA_KERNEL_SEQ_B == (int)MTK_KERNEL_SEQ_B &&
                   (int)MT_CUDA_KERNEL_WIDE == (int)MTK_KERNEL_WIDE &&
                   (int)MT_CUDA_KERNELS == (int)MTK_KERNEL_COUNT,
               "kernel indices of backend_cuda.h and kernel_abi.h disagree");
_Static_assert(MT_NUM_PATHS == MT_PATH_COUNT, "device.h path count out of date");

static const mt_backend_ops cuda_ops;
static mt_err cuda_count_devices(int *n, mt_errinfo *ei);

static void cuda_destroy(mt_backend *b)
{
    if (!b)
        return;
    cuda_impl *im = b->impl;
    if (im) {
        /* After a watchdog timeout a kernel may still run: cudaFree would
         * wait for it, so the device memory is left to process exit. */
        if (!im->broken) {
            mtc_buffers_free_device(im);
            mtc_link_free(im);
        }
        mtc_buffers_free_host(im);
        mtc_nvml_close(im->nvml);
        free(im);
    }
    free(b);
}

mt_err mt_backend_cuda_open(int device, mt_backend **out, mt_errinfo *ei)
{
    mt_err rc = MT_OK;
    int count = 0;
    mtc_nvml_start *nvml_start = NULL;
    *out = NULL;
    double t = mt_phase_now();
    rc = cuda_count_devices(&count, ei);
    mt_phase_add("cuda.open.count_devices", mt_phase_now() - t);
    if (rc != MT_OK)
        return rc;
    if (count == 0)
        return mt_fail(ei, MT_ERR_NO_DEVICE, "no CUDA GPU found");
    if (device < 0 || device >= count)
        return mt_fail(ei, MT_ERR_NO_DEVICE, "CUDA device %d does not exist (%d found)", device,
                       count);

    mt_backend *b = calloc(1, sizeof *b);
    cuda_impl *im = calloc(1, sizeof *im);
    if (!b || !im) {
        free(b);
        free(im);
        return mt_fail(ei, MT_ERR_NOMEM, "out of memory opening the cuda backend");
    }
    b->ops = &cuda_ops;
    b->impl = im;
    im->dev = device;
    /* NVML starts on a thread of its own meanwhile (nvml_procs.h). */
    nvml_start = mtc_nvml_start_init();
    t = mt_phase_now();
    CK(cudaSetDevice(device));
    mt_phase_add("cuda.open.set_device", mt_phase_now() - t);
    t = mt_phase_now();

    int major = 0, minor = 0;
    CK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    CK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
    if (major * 10 + minor < mtk_oldest_arch()) {
        rc = mt_fail(ei, MT_ERR_UNSUPPORTED_DEVICE,
                     "CUDA device %d has compute capability %d.%d; this memtopo's kernels were "
                     "built for %d.%d .. %d.%d (rebuild with an older CUDA toolkit for this GPU)",
                     device, major, minor, mtk_oldest_arch() / 10, mtk_oldest_arch() % 10,
                     mtk_newest_arch() / 10, mtk_newest_arch() % 10);
        goto out;
    }
    if ((rc = mtc_query_device(im, ei)) != MT_OK)
        goto out;
    mt_phase_add("cuda.open.query_device", mt_phase_now() - t);
    t = mt_phase_now();
    {
        /* NVML knows devices by PCI bus id (CUDA's ordinals can differ
         * from NVML's under CUDA_VISIBLE_DEVICES). */
        char pci[32];
        bool have_pci = cudaDeviceGetPCIBusId(pci, (int)sizeof pci, device) == cudaSuccess;
        if (nvml_start)
            im->nvml = mtc_nvml_finish(nvml_start, have_pci ? pci : NULL);
        else if (have_pci)
            im->nvml = mtc_nvml_open(pci);
        nvml_start = NULL;
        mtc_nvml_query(im->nvml, &im->info);
        im->nvml_asked_at = mt_phase_now();
    }
    mt_phase_add("cuda.open.nvml", mt_phase_now() - t);
    t = mt_phase_now();
    if ((rc = mtc_buffers_alloc(im, ei)) != MT_OK)
        goto out;
    mt_phase_add("cuda.open.buffers", mt_phase_now() - t);
    *out = b;
    return MT_OK;
out:
    mtc_nvml_finish(nvml_start, NULL); /* a failure before NVML was picked */
    cuda_destroy(b);
    return rc;
}

static mt_err cuda_open_entry(const mt_backend_args *a, mt_backend **out, mt_errinfo *ei)
{
    return mt_backend_cuda_open(a ? a->device : 0, out, ei);
}

/* The driver's device count (--device all): a machine without a driver or
 * a GPU is MT_ERR_NO_DEVICE, as opening one would be. */
static mt_err cuda_count_devices(int *n, mt_errinfo *ei)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return mt_fail(ei, MT_ERR_NO_DEVICE,
                       "cudaGetDeviceCount failed at %s:%d: %s; no usable CUDA GPU or driver",
                       __FILE__, __LINE__, cudaGetErrorString(e));
    }
    *n = count;
    return MT_OK;
}

const mt_backend_entry mt_backend_entry_cuda = { "cuda", "an NVIDIA GPU through the CUDA runtime (--device N)", cuda_open_entry, cuda_count_devices };

/* Kinds whose experiments of one batch run together in launches of their
 * own (icache: the module compiles overlap on host threads). */
typedef mt_err (*mtc_together_runner)(cuda_impl *im, const mt_experiment *exps,
                                      const size_t *which, size_t n, mt_result *out,
                                      mt_errinfo *ei);
static const struct {
    mt_exp_kind kind;
    mtc_together_runner run;
} together_kinds[] = {
    {MT_KIND_BANKS, mtc_run_banks},
    {MT_KIND_ACCESS, mtc_run_access},
    {MT_KIND_ICACHE, mtc_run_icache},
};

/* Kinds run one experiment at a time, each in a launch (or copy) of its own. */
typedef mt_err (*mtc_one_runner)(cuda_impl *im, const mt_experiment *e, mt_result *out,
                                 mt_errinfo *ei);
static const struct {
    mt_exp_kind kind;
    mtc_one_runner run;
} alone_kinds[] = {
    {MT_KIND_CLOCK, mtc_run_clock},     {MT_KIND_STREAM, mtc_run_stream},
    {MT_KIND_CLUSTER, mtc_run_cluster}, {MT_KIND_LINK, mtc_run_link},
    {MT_KIND_EVICT, mtc_run_evict},
};

static bool runs_together(mt_exp_kind kind)
{
    for (size_t k = 0; k < sizeof together_kinds / sizeof together_kinds[0]; k++)
        if (kind == together_kinds[k].kind)
            return true;
    return false;
}

static mt_err cuda_run_batch(mt_backend *b, const mt_experiment *exps, size_t n, mt_result *out,
                             mt_errinfo *ei)
{
    cuda_impl *im = b->impl;
    mt_err rc = MT_OK;
    size_t *pending = NULL, *tries = NULL;
    size_t npend = n;
    mtc_group *g = NULL;
    const mtc_sched_limits lim = {im->nsm, im->cfg.arena_max};

    if (im->broken)
        return mt_fail(ei, MT_ERR_TIMEOUT,
                       "the cuda backend is unusable after an earlier kernel timeout");
    for (size_t i = 0; i < n; i++) {
        memset(&out[i], 0, sizeof out[i]);
        out[i].sm_ran = -1;
    }
    for (size_t i = 0; i < n; i++)
        if ((rc = mtc_validate(&exps[i], i, &im->info, ei)) != MT_OK)
            return rc;
    if ((rc = mt_batch_check_together(exps, n, &im->info, ei)) != MT_OK)
        return rc;
    if (n == 0)
        return MT_OK;
    pending = malloc(n * sizeof *pending);
    tries = calloc(n, sizeof *tries);
    g = calloc(1, sizeof *g);
    if (!pending || !tries || !g) {
        rc = mt_fail(ei, MT_ERR_NOMEM, "out of memory for a batch of %zu experiments", n);
        goto out;
    }
    g->idx = im->h.group_idx;
    CK(cudaSetDevice(im->dev));
    /* The kinds with launches of their own first (banks, access, icache in
     * that order, each kind's experiments together), then the kinds run
     * one experiment at a time; the rest go through launch groups. */
    for (size_t k = 0; k < sizeof together_kinds / sizeof together_kinds[0]; k++) {
        npend = 0;
        for (size_t i = 0; i < n; i++)
            if (exps[i].kind == together_kinds[k].kind)
                pending[npend++] = i;
        if (npend && (rc = together_kinds[k].run(im, exps, pending, npend, out, ei)) != MT_OK)
            goto out;
    }
    npend = 0;
    for (size_t i = 0; i < n; i++) {
        mtc_one_runner run_one = NULL;
        if (runs_together(exps[i].kind))
            continue;
        for (size_t k = 0; k < sizeof alone_kinds / sizeof alone_kinds[0]; k++)
            if (exps[i].kind == alone_kinds[k].kind)
                run_one = alone_kinds[k].run;
        if (!run_one)
            pending[npend++] = i;
        else if ((rc = run_one(im, &exps[i], &out[i], ei)) != MT_OK)
            goto out;
    }

    while (npend) {
        if ((rc = mtc_group_form(&lim, exps, pending, npend, g, &im->cimg, ei)) != MT_OK)
            goto out;
        if ((rc = mtc_run_group(im, exps, g, out, im->h.claimed, ei)) != MT_OK)
            goto out;
        if ((rc = mtc_group_retire(exps, g, im->h.claimed, pending, &npend, tries,
                                   &im->stats.requeued, ei)) != MT_OK)
            goto out;
    }
out:
    if (rc != MT_OK)
        for (size_t i = 0; i < n; i++)
            mt_result_free(&out[i]);
    free(pending);
    free(tries);
    free(g);
    return rc;
}

static mt_err cuda_get_info(mt_backend *b, mt_device_info *out, mt_errinfo *ei)
{
    (void)ei;
    cuda_impl *im = b->impl;
    /* Asked again (at most every MTC_NVML_MIN_INTERVAL_S): the
     * interference checks call this after every batch and at every
     * reference measurement to see who else is busy on the GPU now. */
    double t = mt_phase_now();
    if (t - im->nvml_asked_at >= MTC_NVML_MIN_INTERVAL_S) {
        mtc_nvml_query(im->nvml, &im->info);
        im->nvml_asked_at = t;
        mt_phase_add("cuda.nvml_query", mt_phase_now() - t);
    }
    *out = im->info;
    return MT_OK;
}

static const mt_backend_ops cuda_ops = {
    .api_version = MT_BACKEND_API_VERSION,
    .name = "cuda",
    .caps = MT_CAP_CHASE | MT_CAP_SEQUENCE | MT_CAP_CLOCK | MT_CAP_CARVEOUT | MT_CAP_STREAM |
            MT_CAP_STREAM_CHASE | MT_CAP_STREAM_SHARED_DATA | MT_CAP_BANKS | MT_CAP_CLUSTER | MT_CAP_ICACHE |
            MT_CAP_ACCESS | MT_CAP_LINK | MT_CAP_EVICT | MT_CAP_TOGETHER | MT_CAP_STREAM_BALANCED,
    .get_info = cuda_get_info,
    .run_batch = cuda_run_batch,
    .destroy = cuda_destroy,
};

mt_err mt_cuda_get_stats(const mt_backend *b, mt_cuda_stats *out)
{
    if (!b || b->ops != &cuda_ops || !out)
        return MT_ERR_INVALID_ARG;
    *out = ((const cuda_impl *)b->impl)->stats;
    return MT_OK;
}

mt_err mt_cuda_set_watchdog(mt_backend *b, double seconds)
{
    if (!b || b->ops != &cuda_ops || !(seconds >= 0))
        return MT_ERR_INVALID_ARG;
    ((cuda_impl *)b->impl)->watchdog_s = seconds;
    return MT_OK;
}

/* One launch of the cuda backend: plan (layout.c), texture objects,
 * uploads, chain build, L2 flush for cold experiments, the probe kernel,
 * the host watchdog, and the results (layout.c again).
 *
 * The host waits for each launch with a watchdog; the chase kernel also
 * bounds its warm-up laps with clock64.  After a host-side timeout the
 * kernel may still run, so the backend refuses further work and destroy
 * leaves the device memory to process exit (freeing it would block). */
#include <string.h>
#include <time.h>

#include "../core/phase_times.h"
#include "cuda_impl.h"

/* Waits for im->done with a time limit. */
static mt_err wait_done(cuda_impl *im, double limit_s, mt_errinfo *ei)
{
    double t0 = mt_phase_now();
    for (;;) {
        cudaError_t e = cudaEventQuery(im->done);
        if (e == cudaSuccess)
            return MT_OK;
        if (e != cudaErrorNotReady)
            return mtc_cuda_err(ei, e, "cudaEventQuery(probe kernel)", __FILE__, __LINE__);
        double waited = mt_phase_now() - t0;
        if (waited > limit_s) {
            im->broken = 1;
            return mt_fail(ei, MT_ERR_TIMEOUT,
                           "probe kernel still running after %.0f s (watchdog); the cuda backend "
                           "is unusable for the rest of this run",
                           limit_s);
        }
        if (waited < MTC_POLL_SPIN_S)
            continue;
        struct timespec ts = {0, MTC_POLL_SLEEP_NS};
        nanosleep(&ts, NULL);
    }
}

/* Sets the launch's carveout preference on its kernel when it differs from
 * the one set now (the default, cfg.carveout_percent, unless an earlier
 * launch asked for another), and reads it back: the runtime keeps the
 * preference, and a kernel that did not take it would measure another L1.
 * Which configuration the driver then picks at launch (the smallest
 * carveout holding the preference and the kernel's shared memory) the
 * runtime does not report; the device's carveout_smem_options list only
 * configurations that hold the kernel's shared memory, so
 * mt_carveout_smem predicts it. */
static mt_err apply_carveout(cuda_impl *im, const mtc_group *g, mt_errinfo *ei)
{
    mt_err rc = MT_OK;
    int k = g->kernel;
    int want = g->set_carveout ? g->carveout_percent : im->cfg.carveout_percent[k];
    if (im->carveout_now[k] == want)
        return MT_OK;
    const mtk_family *fam = mtk_family_of(k);
    mtk_func_info fi;
    CK(fam->set_attrs(mtk_kernel_smem(k), want, (int)im->cfg.dyn_smem[k]));
    CK(fam->info(mtk_kernel_smem(k), &fi));
    if (fi.carveout_percent != want)
        return mt_fail(ei, MT_ERR_DEVICE,
                       "the driver kept a carveout preference of %d%% where %d%% was set",
                       fi.carveout_percent, want);
    im->carveout_now[k] = want;
    im->stats.carveout_changes++;
out:
    return rc;
}

/* A 32-bit texture object over `bytes` of the arena from offset `base`. */
static mt_err make_texture(cuda_impl *im, uint64_t base, uint64_t bytes, cudaTextureObject_t *tex,
                           mt_errinfo *ei)
{
    mt_err rc = MT_OK;
    struct cudaResourceDesc rd;
    struct cudaTextureDesc td;
    memset(&rd, 0, sizeof rd);
    memset(&td, 0, sizeof td);
    rd.resType = cudaResourceTypeLinear;
    rd.res.linear.devPtr = (void *)(uintptr_t)(im->d.arena + base);
    rd.res.linear.desc = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindSigned);
    rd.res.linear.sizeInBytes = (size_t)bytes;
    td.readMode = cudaReadModeElementType;
    CK(cudaCreateTextureObject(tex, &rd, &td, NULL));
out:
    return rc;
}

mt_err mtc_run_group(cuda_impl *im, const mt_experiment *exps, const mtc_group *g, mt_result *out,
                     int *claimed, mt_errinfo *ei)
{
    mt_err rc = MT_OK;
    mtc_host_buffers *h = &im->h;
    mtc_device_buffers *d = &im->d;
    const mtk_family *fam = mtk_family_of(g->kernel);
    size_t ntex = 0;
    size_t succ_words = 0, seq_words = 0;
    mtc_launch_plan p;
    double t_phase = mt_phase_now();

    mtc_launch_needs(exps, g->idx, g->n, &succ_words, &seq_words);
    if ((rc = mtc_ensure_staging(im, succ_words, seq_words, ei)) != MT_OK)
        return rc;
    if ((rc = mtc_ensure_arena(im, g->arena_used, ei)) != MT_OK)
        return rc;
    if ((rc = apply_carveout(im, g, ei)) != MT_OK)
        return rc;

    memset(&p, 0, sizeof p);
    p.d_arena = d->arena;
    p.d_succ = (uint64_t)(uintptr_t)d->succ;
    p.d_seq = (uint64_t)(uintptr_t)d->seq;
    p.descs = h->descs;
    p.build = h->build;
    p.succ = h->succ;
    p.seq = h->seq;
    p.plan = h->plan;
    p.any = h->any;
    p.expect = h->expect;
    p.tex_base = h->tex_base;
    p.tex_bytes = h->tex_bytes;
    p.const_succ = im->cimg.tmp_succ;
    p.tex_limit = im->info.path_limit_bytes[MT_PATH_TEXTURE];
    if ((rc = mtc_plan_launch(exps, g->idx, g->n, &p, ei)) != MT_OK)
        return rc;
    mt_phase_add("cuda.group.plan", mt_phase_now() - t_phase);
    t_phase = mt_phase_now();
    for (size_t k = 0; k < g->n; k++) {
        cudaTextureObject_t tex = 0;
        if (!p.tex_bytes[k])
            continue;
        if ((rc = make_texture(im, p.tex_base[k], p.tex_bytes[k], &tex, ei)) != MT_OK)
            goto out;
        h->texs[ntex++] = tex;
        mtc_set_texture(&h->descs[k], g->kernel, (uint64_t)tex);
    }

    /* Chains, then (for cold experiments) the L2 flush, then the probe. */
    if (p.n_succ)
        CK(cudaMemcpyAsync(d->succ, h->succ, p.n_succ * sizeof(uint32_t), cudaMemcpyHostToDevice,
                           im->stream));
    if (p.n_seq)
        CK(cudaMemcpyAsync(d->seq, h->seq, p.n_seq * sizeof(int32_t), cudaMemcpyHostToDevice,
                           im->stream));
    if (p.n_build) {
        CK(cudaMemcpyAsync(d->build, h->build, p.n_build * sizeof(mtk_build),
                           cudaMemcpyHostToDevice, im->stream));
        CK(mtk_launch_build(d->build, (unsigned)p.n_build, p.max_build_n, im->stream));
    }
    if (im->cimg.hi) {
        CK(fam->const_upload(im->cimg.word, im->cimg.hi, im->stream));
        im->stats.const_uploads++;
    }
    if (g->cold) {
        CK(mtk_launch_flush(d->flush, d->flush_bytes, (unsigned)(4 * im->nsm), im->stream));
        im->stats.l2_flushes++;
    }
    CK(cudaMemcpyAsync(d->descs, h->descs, g->n * sizeof(mtk_desc), cudaMemcpyHostToDevice,
                       im->stream));
    CK(cudaMemcpyAsync(d->plan, h->plan, MTK_MAX_SMID * sizeof(int32_t), cudaMemcpyHostToDevice,
                       im->stream));
    if (p.n_any)
        CK(cudaMemcpyAsync(d->any, h->any, (size_t)p.n_any * sizeof(int32_t),
                           cudaMemcpyHostToDevice, im->stream));
    CK(cudaMemsetAsync(d->st, 0, g->n * sizeof(mtk_status), im->stream));
    CK(cudaMemsetAsync(d->claim, 0, MTK_MAX_SMID * sizeof(uint32_t), im->stream));

    double limit_s = mtc_watchdog_s(p.est_loads, im->info.clock_khz, im->watchdog_s);
    mtk_launch L;
    memset(&L, 0, sizeof L);
    L.descs = d->descs;
    L.st = d->st;
    L.samples = d->samples;
    L.plan = d->plan;
    L.any = d->any;
    L.n_any = p.n_any;
    L.sm_claim = d->claim;
    L.deadline_cycles = mtc_deadline_cycles(limit_s, im->info.clock_khz);
    /* Only "any SM" work: that many blocks suffice (one block fits an SM). */
    unsigned grid = g->n_planned ? (unsigned)im->nsm : (unsigned)p.n_any;
    CK(fam->launch(mtk_kernel_smem(g->kernel), grid, p.block, im->cfg.dyn_smem[g->kernel],
                   im->stream, &L));
    CK(cudaEventRecord(im->done, im->stream));
    im->stats.launches++;
    mt_phase_add("cuda.group.submit", mt_phase_now() - t_phase);
    t_phase = mt_phase_now();
    if ((rc = wait_done(im, limit_s, ei)) != MT_OK)
        goto out;
    mt_phase_add("cuda.group.wait", mt_phase_now() - t_phase);
    t_phase = mt_phase_now();
    CK(cudaMemcpy(h->st, d->st, g->n * sizeof(mtk_status), cudaMemcpyDeviceToHost));
    if (p.n_samples)
        CK(cudaMemcpy(h->samples, d->samples, p.n_samples * sizeof(uint32_t),
                      cudaMemcpyDeviceToHost));
    rc = mtc_collect(exps, g->idx, g->n, &p, h->st, h->samples, L.deadline_cycles, out, claimed, ei);
    mt_phase_add("cuda.group.fetch", mt_phase_now() - t_phase);
out:
    if (!im->broken)
        for (size_t t = 0; t < ntex; t++)
            cudaDestroyTextureObject(h->texs[t]);
    return rc;
}

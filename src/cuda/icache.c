/* MT_KIND_ICACHE on the GPU (backend.h, mt_icache): the experiment's
 * straight-line code is generated as PTX for its size (icache_ptx.c),
 * compiled by the driver's JIT for this GPU (cudaLibraryLoadData, CUDA 12
 * and later), and run by one warp of one block, which times every lap.
 *
 * The JIT is nearly all of the cost (the GPU runs a block in
 * microseconds): a batch's blocks are compiled at once, one host thread
 * each, before any of them runs, so the batch takes about as long as its
 * largest block's compile. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_impl.h"
#include "icache_ptx.h"

/* Bytes of the JIT's error log kept for the message of a failed compile. */
#define MTC_ICACHE_JIT_LOG 512

#if CUDART_VERSION >= 12000
/* Compiles the PTX of a block of code_bytes and returns its kernel. */
static mt_err load_kernel(uint32_t code_bytes, cudaLibrary_t *lib, cudaKernel_t *kernel,
                          mt_errinfo *ei)
{
    mt_err rc = MT_OK;
    char *ptx = mtc_icache_ptx(code_bytes);
    if (!ptx)
        return mt_fail(ei, MT_ERR_NOMEM, "out of memory for %u B of icache code", code_bytes);
    char log[MTC_ICACHE_JIT_LOG] = "";
    /* The JIT's default optimisation (level 4): at level 0 ptxas compiles
     * the 512 KiB block four times faster (0.45 s against 1.72 s on the
     * H100's host, CUDA 13.0) but every mad then waits for the one before
     * it: 15 cycles per instruction on the H100 at every size, no level
     * seen (2026-11-24). */
    enum cudaJitOption opt[] = {cudaJitErrorLogBuffer, cudaJitErrorLogBufferSizeBytes};
    void *val[] = {log, (void *)(uintptr_t)sizeof log};
    cudaError_t ce = cudaLibraryLoadData(lib, ptx, opt, val, 2, NULL, NULL, 0);
    free(ptx);
    if (ce != cudaSuccess) {
        log[sizeof log - 1] = '\0';
        for (char *p = log; *p; p++) /* a one-line message */
            if (*p == '\n')
                *p = ' ';
        mt_errinfo why;
        rc = mtc_cuda_err(&why, ce, "cudaLibraryLoadData (icache code)", __FILE__, __LINE__);
        return mt_fail(ei, rc, "%s%s%s", why.msg, log[0] ? "; JIT: " : "", log);
    }
    CK(cudaLibraryGetKernel(kernel, *lib, MTC_ICACHE_ENTRY));
out:
    if (rc != MT_OK)
        (void)cudaLibraryUnload(*lib);
    return rc;
}

/* One block's compile on a host thread of its own. */
typedef struct {
    int dev;
    uint32_t code_bytes;
    cudaLibrary_t lib;
    cudaKernel_t kernel;
    mt_err rc;
    mt_errinfo ei;
    int started, loaded;
} jit_job;

static void *jit_thread(void *arg)
{
    jit_job *j = arg;
    cudaError_t ce = cudaSetDevice(j->dev);
    if (ce != cudaSuccess)
        j->rc = mtc_cuda_err(&j->ei, ce, "cudaSetDevice (icache JIT thread)", __FILE__, __LINE__);
    else
        j->rc = load_kernel(j->code_bytes, &j->lib, &j->kernel, &j->ei);
    j->loaded = j->rc == MT_OK;
    return NULL;
}

/* Runs the compiled block of e once: one warp, laps timed on the GPU. */
static mt_err run_block(cuda_impl *im, const mt_experiment *e, cudaKernel_t kernel,
                        mt_result *out, mt_errinfo *ei)
{
    mt_err rc = MT_OK;
    uint32_t laps = e->warmup_laps + e->loads;
    size_t words = MTC_ICACHE_OUT_HEADER + (size_t)laps;
    uint32_t *d_out = NULL, *got = calloc(words, sizeof *got);
    if (!got)
        return mt_fail(ei, MT_ERR_NOMEM, "out of memory for %u icache laps", laps);
    CK(cudaMalloc((void **)&d_out, words * sizeof *d_out));
    CK(cudaMemsetAsync(d_out, 0, words * sizeof *d_out, im->stream));
    uint32_t seed = e->u.icache.code_bytes; /* any value: the result is only stored */
    void *args[] = {&d_out, &laps, &seed};
    /* One warp: the code runs on one SM sub-partition, whose L0 is the
     * first level it meets. */
    CK(cudaLaunchKernel((const void *)kernel, (dim3){1, 1, 1}, (dim3){32, 1, 1}, args, 0,
                        im->stream));
    CK(cudaStreamSynchronize(im->stream));
    CK(cudaMemcpy(got, d_out, words * sizeof *got, cudaMemcpyDeviceToHost));
    im->stats.launches++;
    out->cycles[0] = malloc((size_t)e->loads * sizeof *out->cycles[0]);
    if (!out->cycles[0]) {
        rc = mt_fail(ei, MT_ERR_NOMEM, "out of memory for %u icache samples", e->loads);
        goto out;
    }
    memcpy(out->cycles[0], got + MTC_ICACHE_OUT_HEADER + e->warmup_laps,
           (size_t)e->loads * sizeof *got);
    out->n[0] = e->loads;
    out->sm_ran = (int)got[1];
out:
    if (d_out)
        (void)cudaFree(d_out);
    free(got);
    return rc;
}

mt_err mtc_run_icache(cuda_impl *im, const mt_experiment *exps, const size_t *idx, size_t n,
                      mt_result *out, mt_errinfo *ei)
{
    for (size_t i = 0; i < n; i++) {
        memset(&out[idx[i]], 0, sizeof out[idx[i]]);
        out[idx[i]].sm_ran = -1;
    }
    /* Before Volta an instruction is 8 B plus shared control words: the
     * sizes would not mean what MT_ICACHE_INSTRUCTION_BYTES says. */
    if (im->info.cc_major < 7)
        return mt_fail(ei, MT_ERR_UNSUPPORTED,
                       "icache experiments need 16-byte instructions (compute capability 7.0 "
                       "or later; this GPU is %d.%d)",
                       im->info.cc_major, im->info.cc_minor);
    jit_job *job = calloc(n, sizeof *job);
    pthread_t *th = calloc(n, sizeof *th);
    if (!job || !th) {
        free(job);
        free(th);
        return mt_fail(ei, MT_ERR_NOMEM, "out of memory for %zu icache compiles", n);
    }
    /* All compiles at once: the largest block's dominates the batch's
     * time; a thread that cannot start compiles here instead. */
    for (size_t i = 0; i < n; i++) {
        job[i].dev = im->dev;
        job[i].code_bytes = exps[idx[i]].u.icache.code_bytes;
        job[i].started = pthread_create(&th[i], NULL, jit_thread, &job[i]) == 0;
        if (!job[i].started)
            jit_thread(&job[i]);
    }
    for (size_t i = 0; i < n; i++)
        if (job[i].started)
            pthread_join(th[i], NULL);
    mt_err rc = MT_OK;
    for (size_t i = 0; i < n && rc == MT_OK; i++) {
        if (job[i].rc != MT_OK)
            rc = mt_fail(ei, job[i].rc, "%s", job[i].ei.msg);
        else
            rc = run_block(im, &exps[idx[i]], job[i].kernel, &out[idx[i]], ei);
    }
    for (size_t i = 0; i < n; i++)
        if (job[i].loaded)
            (void)cudaLibraryUnload(job[i].lib);
    free(job);
    free(th);
    return rc;
}
#else
mt_err mtc_run_icache(cuda_impl *im, const mt_experiment *exps, const size_t *idx, size_t n,
                      mt_result *out, mt_errinfo *ei)
{
    (void)im;
    (void)exps;
    for (size_t i = 0; i < n; i++)
        memset(&out[idx[i]], 0, sizeof out[idx[i]]);
    return mt_fail(ei, MT_ERR_UNSUPPORTED,
                   "icache experiments need a memtopo built with CUDA 12 or later "
                   "(cudaLibraryLoadData)");
}
#endif

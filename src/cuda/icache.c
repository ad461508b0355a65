/* MT_KIND_ICACHE on the GPU (backend.h, mt_icache): the experiment's
 * straight-line code is generated as PTX for its size (icache_ptx.c),
 * compiled by the driver's JIT for this GPU (cudaLibraryLoadData, CUDA 12
 * and later), and run by one warp of one block, which times every lap. */
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

mt_err mtc_run_icache(cuda_impl *im, const mt_experiment *e, mt_result *out, mt_errinfo *ei)
{
    mt_err rc = MT_OK;
    memset(out, 0, sizeof *out);
    out->sm_ran = -1;
    /* Before Volta an instruction is 8 B plus shared control words: the
     * sizes would not mean what MT_ICACHE_INSTRUCTION_BYTES says. */
    if (im->info.cc_major < 7)
        return mt_fail(ei, MT_ERR_UNSUPPORTED,
                       "icache experiments need 16-byte instructions (compute capability 7.0 "
                       "or later; this GPU is %d.%d)",
                       im->info.cc_major, im->info.cc_minor);
    cudaLibrary_t lib;
    cudaKernel_t kernel;
    if ((rc = load_kernel(e->u.icache.code_bytes, &lib, &kernel, ei)) != MT_OK)
        return rc;
    uint32_t laps = e->warmup_laps + e->loads;
    size_t words = MTC_ICACHE_OUT_HEADER + (size_t)laps;
    uint32_t *d_out = NULL, *got = calloc(words, sizeof *got);
    if (!got) {
        rc = mt_fail(ei, MT_ERR_NOMEM, "out of memory for %u icache laps", laps);
        goto out;
    }
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
    (void)cudaLibraryUnload(lib);
    free(got);
    return rc;
}
#else
mt_err mtc_run_icache(cuda_impl *im, const mt_experiment *e, mt_result *out, mt_errinfo *ei)
{
    (void)im;
    (void)e;
    memset(out, 0, sizeof *out);
    return mt_fail(ei, MT_ERR_UNSUPPORTED,
                   "icache experiments need a memtopo built with CUDA 12 or later "
                   "(cudaLibraryLoadData)");
}
#endif

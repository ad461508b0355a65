/* MT_KIND_STREAM on the GPU (backend.h): one launch per experiment, run
 * by itself (streams occupy every SM), over the arena: the data at
 * chain[0].offset (a copy writes the bytes after it), a texture object
 * over it for the texture path, shared-path arrays in dynamic shared
 * memory.  The kernels are in kernels_stream.cu. */
#include <stdlib.h>
#include <string.h>

#include "cuda_impl.h"
#include "stream_abi.h"

/* The 64-bit words the kernel reduces into, in the sample buffer (idle
 * between launches, as clock.c uses it): four results and the balanced
 * read's ticket counter. */
#define MTC_STREAM_OUT_WORDS 5
/* A balanced read's ticket: a warp takes at least this many bytes of
 * reads of its slice at a time.  All warps take tickets from one counter,
 * so a ticket must be large enough that the counter is no bottleneck: on
 * the H100 (2026-11-24, diagnostic kernel, 33.8 MB read by 132 x 2 x 1024
 * threads) 16 KiB tickets read 5.9 TB/s, 32 KiB 8.0, 64 KiB 8.0-8.05; and
 * small enough that warps end within a few microseconds of each other
 * (0.03 ms of a 2.2 ms launch at 64 KiB). */
#define MTC_TICKET_BYTES (64u << 10)

static mt_err texture_over(cuda_impl *im, uint64_t addr, uint64_t bytes, uint32_t vec,
                           cudaTextureObject_t *tex, mt_errinfo *ei)
{
    mt_err rc = MT_OK;
    struct cudaResourceDesc rd;
    struct cudaTextureDesc td;
    memset(&rd, 0, sizeof rd);
    memset(&td, 0, sizeof td);
    int comps = (int)(vec / 4);
    rd.resType = cudaResourceTypeLinear;
    rd.res.linear.devPtr = (void *)(uintptr_t)addr;
    rd.res.linear.desc = cudaCreateChannelDesc(32, comps > 1 ? 32 : 0, comps > 2 ? 32 : 0,
                                               comps > 2 ? 32 : 0, cudaChannelFormatKindUnsigned);
    rd.res.linear.sizeInBytes = (size_t)bytes;
    td.readMode = cudaReadModeElementType;
    (void)im;
    CK(cudaCreateTextureObject(tex, &rd, &td, NULL));
out:
    return rc;
}

mt_err mtc_run_stream(cuda_impl *im, const mt_experiment *e, mt_result *out, mt_errinfo *ei)
{
    mt_err rc = MT_OK;
    const mt_stream *s = &e->u.stream;
    const mt_chain *c = &e->chain[0];
    cudaTextureObject_t tex = 0;
    int have_tex = 0;
    memset(out, 0, sizeof *out);
    out->sm_ran = -1;
    int shared = c->path == MT_PATH_SHARED;
    uint64_t span = c->footprint;
    if (!shared && (rc = mtc_ensure_arena(im, c->offset + span, ei)) != MT_OK)
        return rc;
    uint64_t base = im->d.arena + c->offset;
    mtk_stream_args a;
    memset(&a, 0, sizeof a); /* a.zero among them: always 0 (stream_abi.h) */
    a.src = base;
    /* A copy writes the bytes after the ones it reads; a write alone
     * writes its own span (the chain's footprint is just `bytes`). */
    a.dst = s->op == MT_STREAM_COPY ? base + s->bytes : base;
    a.op = (uint32_t)s->op;
    a.path = (uint32_t)c->path;
    a.vec = s->vector_bytes;
    a.in_flight = s->in_flight;
    a.repeats = s->repeats;
    /* Each block streams its own share (backend.h). */
    uint64_t step = (uint64_t)s->threads * s->vector_bytes * s->in_flight;
    uint64_t data = mt_stream_block_share(e);
    a.n_vec = data / s->vector_bytes;
    /* Blocks beyond the data's shares read the same lines again (a read
     * with shared data, backend.h); otherwise every block has its own. */
    a.groups = data ? s->bytes / data : 1;
    if (a.groups > s->blocks || a.groups == 0)
        a.groups = s->blocks;
    a.iters = data >= step ? (uint32_t)(data / step) : 1u;
    if (s->balanced) {
        /* Each warp's slice of its block's share (whole rounds: experiment.c). */
        uint64_t slice = data / (s->threads / 32);
        a.balanced = 1;
        a.ticket_reads = slice >= MTC_TICKET_BYTES ? 1u : (uint32_t)(MTC_TICKET_BYTES / slice);
    }
    size_t smem = shared ? (size_t)(s->op == MT_STREAM_COPY ? 2 * data : data) : 0;
    if (s->op == MT_STREAM_CHASE) {
        a.region_words = s->bytes / 4 / ((uint64_t)s->blocks * s->threads);
        a.stride_words = c->stride / 4;
        /* The chains add the loaded words to their index: zero them. */
        CK(cudaMemsetAsync((void *)(uintptr_t)base, 0, (size_t)s->bytes, im->stream));
    } else if (!shared && s->op != MT_STREAM_WRITE) {
        /* Defined data to read (its value is never used). */
        CK(cudaMemsetAsync((void *)(uintptr_t)base, 0, (size_t)s->bytes, im->stream));
    }
    if (c->path == MT_PATH_TEXTURE) {
        if ((rc = texture_over(im, base, s->bytes, s->vector_bytes, &tex, ei)) != MT_OK)
            goto out;
        have_tex = 1;
        a.tex = (uint64_t)tex;
    }
    {
        unsigned long long init[MTC_STREAM_OUT_WORDS] = {0, ~0ull, 0, 0, 0};
        unsigned long long got[MTC_STREAM_OUT_WORDS];
        a.out = (uint64_t)(uintptr_t)im->d.samples;
        CK(cudaMemcpyAsync(im->d.samples, init, sizeof init, cudaMemcpyHostToDevice, im->stream));
        CK(mtk_launch_stream(&a, s->blocks, s->threads, smem, im->stream));
        CK(cudaStreamSynchronize(im->stream));
        CK(cudaMemcpy(got, im->d.samples, sizeof got, cudaMemcpyDeviceToHost));
        im->stats.launches++;
        out->cycles[0] = malloc(2 * sizeof *out->cycles[0]);
        if (!out->cycles[0]) {
            rc = mt_fail(ei, MT_ERR_NOMEM, "out of memory for a stream result");
            goto out;
        }
        unsigned long long ns = got[2] > got[1] ? got[2] - got[1] : 0;
        /* Saturated when too long for a sample (backend.h). */
        out->cycles[0][0] = got[0] > UINT32_MAX ? UINT32_MAX : (uint32_t)got[0];
        out->cycles[0][1] = ns > UINT32_MAX ? UINT32_MAX : (uint32_t)ns;
        out->n[0] = 2;
    }
out:
    if (have_tex) {
        cudaError_t de = cudaDestroyTextureObject(tex);
        if (de != cudaSuccess && rc == MT_OK)
            rc = mtc_cuda_err(ei, de, "cudaDestroyTextureObject", __FILE__, __LINE__);
    }
    if (rc != MT_OK)
        mt_result_free(out);
    return rc;
}

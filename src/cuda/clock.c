/* MT_KIND_CLOCK on the GPU (backend.h): the SM clock in effect, from a
 * short spin of one thread timed by %clock64 against %globaltimer.  The
 * kernel uses the first word of the claim table and the first three words
 * of the sample buffer, both idle between probe launches. */
#include <stdlib.h>
#include <string.h>

#include "cuda_impl.h"

/* A block may not land on the wanted SM (another context holds it): try
 * this many launches before giving up, as launch groups do. */
#define MTC_CLOCK_TRIES MTC_MAX_PLACEMENT_TRIES

mt_err mtc_run_clock(cuda_impl *im, const mt_experiment *e, mt_result *out, mt_errinfo *ei)
{
    mt_err rc = MT_OK;
    uint32_t got[3] = {0, 0, 0};
    memset(out, 0, sizeof *out);
    out->sm_ran = -1;
    for (int t = 0; t < MTC_CLOCK_TRIES && !got[1]; t++) {
        CK(cudaMemsetAsync(im->d.claim, 0, sizeof(uint32_t), im->stream));
        CK(cudaMemsetAsync(im->d.samples, 0, sizeof got, im->stream));
        CK(mtk_launch_clock(e->u.clock.ns, e->sm, e->sm >= 0 ? (unsigned)im->nsm : 1u, im->d.claim,
                            im->d.samples, im->stream));
        CK(cudaStreamSynchronize(im->stream));
        CK(cudaMemcpy(got, im->d.samples, sizeof got, cudaMemcpyDeviceToHost));
        im->stats.launches++;
    }
    if (!got[1])
        return mt_fail(ei, MT_ERR_DEVICE, "clock experiment: no block reached SM %d in %d launches",
                       e->sm, MTC_CLOCK_TRIES);
    out->cycles[0] = malloc(2 * sizeof *out->cycles[0]);
    if (!out->cycles[0])
        return mt_fail(ei, MT_ERR_NOMEM, "out of memory for a clock experiment");
    out->cycles[0][0] = got[0];
    out->cycles[0][1] = got[1];
    out->n[0] = 2;
    out->sm_ran = (int)got[2];
out:
    return rc;
}

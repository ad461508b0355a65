/* Emptying the L2 between timed runs, so that every timed run starts as
 * cold as an Nsight Compute replay with --cache-control all. */
#ifndef MTV_FLUSH_H
#define MTV_FLUSH_H

#include "harness.h"

struct mtv_flush {
    mtv_buffers mem;
    uint32_t *write_buf, *read_buf, *sink;
    size_t words;
};
/* Two buffers of twice the L2 each (throws mtv_error). */
void mtv_flush_init(mtv_flush *f, const mtv_device *d);
/* Enqueues the flush on s: writes one buffer (evicting the case's lines,
 * its dirty ones written back now, untimed), then reads the other, so the
 * L2 is left holding clean lines of neither the case nor its outputs, as
 * after ncu's invalidation: the timed kernel pays no write-back for it. */
void mtv_flush_enqueue(mtv_flush *f, cudaStream_t s);
void mtv_flush_free(mtv_flush *f);

#endif

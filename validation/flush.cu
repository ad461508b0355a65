/* The L2 flush between timed runs (flush.h). */
#include "flush.h"

/* Reads every word; the sum goes to one word only when it has a value no
 * fill produces (never), which the compiler cannot know, so the loads stay. */
static __global__ void flush_read(const uint32_t *buf, size_t words, uint32_t *sink)
{
    uint32_t acc = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < words;
         i += (size_t)gridDim.x * blockDim.x)
        acc += buf[i];
    if (acc == 0xfffffffbu)
        *sink = acc;
}

/* The read's shape: enough warps on every SM of any current GPU to run at
 * its DRAM bandwidth (the flush is untimed, only its end state matters). */
#define FLUSH_BLOCKS 2048
#define FLUSH_THREADS 512

void mtv_flush_init(mtv_flush *f, const mtv_device *d)
{
    f->mem.n = 0;
    f->words = 2 * d->l2_bytes / sizeof(uint32_t);
    f->write_buf = (uint32_t *)mtv_alloc(&f->mem, f->words * sizeof(uint32_t));
    f->read_buf = (uint32_t *)mtv_alloc(&f->mem, f->words * sizeof(uint32_t));
    f->sink = (uint32_t *)mtv_alloc(&f->mem, sizeof(uint32_t));
    MTV_CHECK(cudaMemset(f->read_buf, 0, f->words * sizeof(uint32_t)));
}

void mtv_flush_enqueue(mtv_flush *f, cudaStream_t s)
{
    MTV_CHECK(cudaMemsetAsync(f->write_buf, 1, f->words * sizeof(uint32_t), s));
    flush_read<<<FLUSH_BLOCKS, FLUSH_THREADS, 0, s>>>(f->read_buf, f->words, f->sink);
    MTV_CHECK_LAUNCH();
}

void mtv_flush_free(mtv_flush *f)
{
    mtv_free_all(&f->mem);
}

/* A tiny fake backend for the recording tests: deterministic samples
 * derived from the experiment's parameters AND a per-backend call counter,
 * so two runs of one experiment give different samples (which lets the
 * tests see that identical experiments are replayed in recorded order).
 * It runs chases and sequences (one sample per measured load either way);
 * fake_open_caps announces other capabilities too, for the recorder's
 * pass-through, though it runs every kind the same way. */
#ifndef MT_TEST_REPLAY_FAKE_H
#define MT_TEST_REPLAY_FAKE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"

typedef struct {
    mt_backend_ops ops;  /* per instance, so tests can choose the caps */
    unsigned long runs;  /* experiments run so far */
    int fail_next_batch; /* 1: the next run_batch fails with MT_ERR_DEVICE */
    int destroyed;       /* set through a pointer the test keeps */
    int *destroyed_flag;
} fake_impl;

static inline void fake_device(mt_device_info *d)
{
    memset(d, 0, sizeof *d);
    snprintf(d->name, sizeof d->name, "Fake GPU \"quoted\", with comma");
    snprintf(d->backend, sizeof d->backend, "cuda"); /* pretends to be a real GPU */
    d->cc_major = 9;
    d->sm_count = 4;
    d->clock_khz = 1500000;
    d->global_mem_bytes = 1ull << 34;
    d->l2_bytes = 4u << 20;
    d->smem_per_sm = 100u << 10;
    d->carveout_percent = -1;
    d->warp_size = 32;
    for (int p = 0; p < MT_NUM_PATHS; p++)
        d->path_limit_bytes[p] = 1ull << 28;
    d->max_fine_loads = 2048;
    d->max_threads_per_experiment = 64;
    d->concurrent_experiments = 4;
    d->max_sequence = 4096;
    snprintf(d->driver_version, sizeof d->driver_version, "12.4");
}

static mt_err fake_get_info(mt_backend *b, mt_device_info *out, mt_errinfo *ei)
{
    (void)b;
    (void)ei;
    fake_device(out);
    return MT_OK;
}

static uint32_t fake_sample(const mt_experiment *e, int c, uint32_t k, unsigned long run)
{
    uint64_t h = e->chain[c].footprint * 31 + e->chain[c].stride * 7 + e->loads + (uint64_t)c;
    if (e->kind == MT_KIND_SEQUENCE && e->u.seq.n)
        h += e->u.seq.index[(e->u.seq.untimed + k) % e->u.seq.n] * 1000003ull;
    h = (h + k) * 6364136223846793005ull + run * 1442695040888963407ull;
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ull;
    return 20 + (uint32_t)((h >> 33) % 400);
}

static mt_err fake_run_batch(mt_backend *b, const mt_experiment *exps, size_t n, mt_result *out,
                             mt_errinfo *ei)
{
    fake_impl *f = b->impl;
    if (f->fail_next_batch) {
        f->fail_next_batch = 0;
        return mt_fail(ei, MT_ERR_DEVICE, "fake: kernel failed");
    }
    mt_device_info dev;
    fake_device(&dev);
    for (size_t i = 0; i < n; i++) {
        mt_err e = mt_experiment_check(&exps[i], &dev, ei);
        if (e) {
            for (size_t k = 0; k < i; k++)
                mt_result_free(&out[k]);
            return e;
        }
        unsigned long run = f->runs++;
        out[i].sm_ran = exps[i].sm >= 0 ? exps[i].sm : (int)(run % 4);
        for (int c = 0; c < exps[i].n_chains; c++) {
            uint32_t cnt = exps[i].mode == MT_MODE_FINE ? exps[i].loads : 1;
            out[i].cycles[c] = malloc(cnt * sizeof(uint32_t));
            if (!out[i].cycles[c]) {
                for (size_t k = 0; k <= i; k++)
                    mt_result_free(&out[k]);
                return mt_fail(ei, MT_ERR_NOMEM, "fake: out of memory");
            }
            out[i].n[c] = cnt;
            for (uint32_t k = 0; k < cnt; k++)
                out[i].cycles[c][k] = exps[i].mode == MT_MODE_FINE
                                          ? fake_sample(&exps[i], c, k, run)
                                          : 100 * exps[i].loads + fake_sample(&exps[i], c, 0, run);
        }
    }
    return MT_OK;
}

static void fake_destroy(mt_backend *b)
{
    fake_impl *f = b->impl;
    if (f->destroyed_flag)
        *f->destroyed_flag = 1;
    free(f);
    free(b);
}

static inline mt_backend *fake_open_caps(int *destroyed_flag, unsigned caps)
{
    mt_backend *b = calloc(1, sizeof *b);
    fake_impl *f = calloc(1, sizeof *f);
    if (!b || !f) {
        free(b);
        free(f);
        return NULL;
    }
    f->destroyed_flag = destroyed_flag;
    f->ops = (mt_backend_ops){.api_version = MT_BACKEND_API_VERSION,
                              .name = "fake",
                              .caps = caps,
                              .get_info = fake_get_info,
                              .run_batch = fake_run_batch,
                              .destroy = fake_destroy};
    b->ops = &f->ops;
    b->impl = f;
    return b;
}

static inline mt_backend *fake_open(int *destroyed_flag)
{
    return fake_open_caps(destroyed_flag, MT_CAP_CHASE | MT_CAP_SEQUENCE);
}

static inline void fake_fail_next(mt_backend *b) { ((fake_impl *)b->impl)->fail_next_batch = 1; }

/* One-chain chase with one warm-up lap (scope from the path). */
static inline mt_experiment fx_exp(mt_path p, uint64_t footprint, uint32_t stride, uint32_t loads,
                                   mt_mode mode)
{
    return mt_exp_chase(p, footprint, stride, 1, loads, mode);
}

/* A sequence over chain[0] = (p, footprint, stride): n entries of index,
 * the first `untimed` not timed. */
static inline mt_experiment fx_seq(mt_path p, uint64_t footprint, uint32_t stride,
                                   const uint32_t *index, uint32_t n, uint32_t untimed,
                                   mt_mode mode)
{
    mt_experiment e = mt_exp_chase(p, footprint, stride, 0, n - untimed, mode);
    e.kind = MT_KIND_SEQUENCE;
    e.u.seq.index = index;
    e.u.seq.n = n;
    e.u.seq.untimed = untimed;
    return e;
}

#endif

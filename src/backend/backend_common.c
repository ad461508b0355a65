/* Backend-independent helpers of backend.h. */
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "chain.h"
#include "../core/rng.h"

static const char *const path_names[MT_PATH_COUNT] = {
    "ca", "cg", "nc", "tex", "const", "shared", "none",
};

const char *mt_path_name(mt_path p)
{
    return (p >= 0 && p < MT_PATH_COUNT) ? path_names[p] : "?";
}

int mt_path_from_name(const char *s, mt_path *out)
{
    for (int i = 0; i < MT_PATH_COUNT; i++)
        if (strcmp(s, path_names[i]) == 0) {
            *out = (mt_path)i;
            return 0;
        }
    return -1;
}

void mt_result_free(mt_result *r)
{
    if (!r)
        return;
    for (int i = 0; i < MT_MAX_CHAINS; i++) {
        free(r->cycles[i]);
        r->cycles[i] = NULL;
        r->n[i] = 0;
    }
}

mt_err mt_experiment_check(const mt_experiment *e, const mt_device_info *dev,
                           mt_errinfo *ei)
{
    if (e->n_chains < 1 || e->n_chains > MT_MAX_CHAINS)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "experiment has %d chains", e->n_chains);
    if (e->loads == 0)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "experiment measures no loads");
    if (e->mode == MT_MODE_FINE && dev->max_fine_loads && e->loads > dev->max_fine_loads)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "%u fine-grained loads exceed the backend limit %u",
                       e->loads, dev->max_fine_loads);
    if (e->sm >= dev->sm_count)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "SM %d does not exist (%d SMs)", e->sm, dev->sm_count);
    for (int i = 0; i < e->n_chains; i++) {
        const mt_chain *c = &e->chain[i];
        if (c->path < 0 || c->path >= MT_PATH_COUNT)
            return mt_fail(ei, MT_ERR_INVALID_ARG, "chain %d has an unknown path", i);
        if (c->stride < 4 || c->stride % 4 || c->offset % 4)
            return mt_fail(ei, MT_ERR_INVALID_ARG, "chain %d: stride %u / offset not a multiple of 4",
                           i, c->stride);
        if (c->footprint < c->stride)
            return mt_fail(ei, MT_ERR_INVALID_ARG, "chain %d: footprint below one stride", i);
        uint64_t lim = dev->path_limit_bytes[c->path];
        if (c->path != MT_PATH_NONE && lim && c->offset + c->footprint > lim)
            return mt_fail(ei, MT_ERR_INVALID_ARG,
                           "chain %d: %llu bytes exceed the %s path limit of %llu bytes", i,
                           (unsigned long long)(c->offset + c->footprint), mt_path_name(c->path),
                           (unsigned long long)lim);
        if (dev->max_threads_per_experiment && c->thread >= dev->max_threads_per_experiment)
            return mt_fail(ei, MT_ERR_INVALID_ARG, "chain %d: thread %d out of range", i, c->thread);
    }
    return MT_OK;
}

mt_err mt_backend_info(mt_backend *b, mt_device_info *out, mt_errinfo *ei)
{
    memset(out, 0, sizeof *out);
    return b->ops->get_info(b, out, ei);
}

mt_err mt_backend_run(mt_backend *b, const mt_experiment *exps, size_t n,
                      mt_result *out, mt_errinfo *ei)
{
    memset(out, 0, n * sizeof *out);
    return b->ops->run_batch(b, exps, n, out, ei);
}

void mt_backend_destroy(mt_backend *b)
{
    if (b)
        b->ops->destroy(b);
}

uint64_t mt_hash_mix(uint64_t h, uint64_t v)
{
    mt_rng r = {.s = h ^ (v * 0xD6E8FEB86659FD93ull)};
    return mt_rng_next(&r);
}

uint64_t mt_experiment_hash(uint64_t h0, const mt_experiment *e)
{
    uint64_t h = mt_hash_mix(h0, (uint64_t)e->n_chains);
    h = mt_hash_mix(h, (uint64_t)e->order);
    h = mt_hash_mix(h, e->order_seed);
    h = mt_hash_mix(h, e->warmup_laps);
    h = mt_hash_mix(h, e->loads);
    h = mt_hash_mix(h, (uint64_t)e->mode);
    h = mt_hash_mix(h, (uint64_t)(int64_t)e->sm);
    h = mt_hash_mix(h, (uint64_t)e->exclusive);
    for (int i = 0; i < e->n_chains && i < MT_MAX_CHAINS; i++) {
        const mt_chain *c = &e->chain[i];
        h = mt_hash_mix(h, (uint64_t)(int64_t)c->thread);
        h = mt_hash_mix(h, (uint64_t)c->path);
        h = mt_hash_mix(h, c->footprint);
        h = mt_hash_mix(h, c->stride);
        h = mt_hash_mix(h, c->offset);
    }
    return h;
}

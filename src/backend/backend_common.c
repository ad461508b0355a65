/* Backend-independent helpers of backend.h: names of paths and kinds,
 * results, and the wrappers every caller goes through (mt_backend_run is
 * where the interface version and the kind capabilities are enforced).
 * Experiments themselves (builder, checks, hash) are in experiment.c, the
 * name -> constructor registry in backend_registry.c. */
#include <stdlib.h>
#include <string.h>

#include "backend.h"

static const char *const path_names[MT_PATH_COUNT] = {
    "ca", "cg", "nc", "tex", "const", "shared", "none",
};

static const char *const kind_names[MT_KIND_COUNT] = {
    "chase", "sequence", "stream", "banks", "cluster", "clock", "icache", "access", "link", "evict",
};

const char *mt_path_name(mt_path p)
{
    return (p >= 0 && p < MT_PATH_COUNT) ? path_names[p] : "?";
}

int mt_path_from_name(const char *s, mt_path *out)
{
    for (int i = 0; s && i < MT_PATH_COUNT; i++)
        if (strcmp(s, path_names[i]) == 0) {
            *out = (mt_path)i;
            return 0;
        }
    return -1;
}

const char *mt_kind_name(mt_exp_kind k)
{
    return ((int)k >= 0 && k < MT_KIND_COUNT) ? kind_names[k] : "?";
}

int mt_kind_from_name(const char *s, mt_exp_kind *out)
{
    for (int i = 0; s && i < MT_KIND_COUNT; i++)
        if (strcmp(s, kind_names[i]) == 0) {
            *out = (mt_exp_kind)i;
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

mt_err mt_backend_info(mt_backend *b, mt_device_info *out, mt_errinfo *ei)
{
    memset(out, 0, sizeof *out);
    return b->ops->get_info(b, out, ei);
}

int mt_backend_supports(const mt_backend *b, mt_exp_kind k)
{
    if (!b || !b->ops || b->ops->api_version != MT_BACKEND_API_VERSION)
        return 0;
    if ((int)k < 0 || k >= MT_KIND_COUNT)
        return 0;
    return (b->ops->caps & (1u << k)) != 0;
}

mt_err mt_backend_run(mt_backend *b, const mt_experiment *exps, size_t n,
                      mt_result *out, mt_errinfo *ei)
{
    if (n && out)
        memset(out, 0, n * sizeof *out);
    const char *name = b->ops->name ? b->ops->name : "?";
    if (b->ops->api_version != MT_BACKEND_API_VERSION)
        return mt_fail(ei, MT_ERR_UNSUPPORTED,
                       "backend %s implements interface version %u, this build needs version %d",
                       name, b->ops->api_version, MT_BACKEND_API_VERSION);
    for (size_t i = 0; exps && i < n; i++) {
        mt_exp_kind k = exps[i].kind;
        if ((int)k < 0 || k >= MT_KIND_COUNT)
            return mt_fail(ei, MT_ERR_UNSUPPORTED, "experiment %zu: unknown experiment kind %d",
                           i, (int)k);
        if (!mt_backend_supports(b, k))
            return mt_fail(ei, MT_ERR_UNSUPPORTED,
                           "experiment %zu: the %s backend does not run %s experiments", i, name,
                           mt_kind_name(k));
        if (exps[i].together && !(b->ops->caps & MT_CAP_TOGETHER))
            return mt_fail(ei, MT_ERR_UNSUPPORTED,
                           "experiment %zu: the %s backend cannot run experiments together on "
                           "chosen SMs",
                           i, name);
        if (exps[i].set_carveout && !(b->ops->caps & MT_CAP_CARVEOUT))
            return mt_fail(ei, MT_ERR_UNSUPPORTED,
                           "experiment %zu: the %s backend cannot change the shared-memory carveout",
                           i, name);
    }
    return b->ops->run_batch(b, exps, n, out, ei);
}

void mt_backend_destroy(mt_backend *b)
{
    if (b)
        b->ops->destroy(b);
}

uint32_t mt_carveout_smem_of(const uint32_t *options, int n, uint32_t smem_per_sm, int percent)
{
    if (n <= 0)
        return 0;
    if (percent < 0)
        percent = 0;
    if (percent > 100)
        percent = 100;
    uint64_t want = (uint64_t)percent * smem_per_sm / 100;
    for (int i = 0; i < n; i++)
        if (options[i] >= want)
            return options[i];
    return options[n - 1];
}

uint32_t mt_carveout_smem(const mt_device_info *d, int percent)
{
    return mt_carveout_smem_of(d->carveout_smem_options, d->n_carveouts, d->smem_per_sm, percent);
}

int mt_carveout_percent(const mt_device_info *d, uint32_t smem)
{
    for (int p = 0; p <= 100 && d->n_carveouts > 0; p++)
        if (mt_carveout_smem(d, p) == smem)
            return p;
    return -1;
}

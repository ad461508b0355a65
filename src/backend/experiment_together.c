/* Together groups (experiment_together.h, backend.h). */
#include "experiment_together.h"

mt_err mt_check_together(const mt_experiment *e, mt_errinfo *ei)
{
    if (!e->together)
        return MT_OK;
    if (e->together < 0)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "together group %d is negative", e->together);
    if (e->kind != MT_KIND_CHASE || e->n_chains != 1 || e->chain[0].path != MT_PATH_GLOBAL_CG)
        return mt_fail(ei, MT_ERR_INVALID_ARG,
                       "a together group's member is a chase of one cg chain");
    if (e->mode != MT_MODE_FINE || e->sm < 0 || e->scope != MT_SCOPE_GPU)
        return mt_fail(ei, MT_ERR_INVALID_ARG,
                       "a together group's member is measured fine, on a planned SM, at GPU "
                       "scope");
    return MT_OK;
}

uint64_t mt_hash_together(uint64_t h, const mt_experiment *e)
{
    if (!e->together)
        return h;
    h = mt_hash_mix(h, 0x746f676574686572ull); /* "together" */
    return mt_hash_mix(h, (uint64_t)e->together);
}

mt_err mt_batch_check_together(const mt_experiment *exps, size_t n, const mt_device_info *dev,
                               mt_errinfo *ei)
{
    for (size_t i = 0; i < n; i++) {
        if (!exps[i].together)
            continue;
        if (exps[i].sm >= dev->sm_count)
            return mt_fail(ei, MT_ERR_INVALID_ARG, "experiment %zu: SM %d does not exist (%d SMs)",
                           i, exps[i].sm, dev->sm_count);
        for (size_t k = 0; k < i; k++)
            if (exps[k].together == exps[i].together && exps[k].sm == exps[i].sm)
                return mt_fail(ei, MT_ERR_INVALID_ARG,
                               "experiments %zu and %zu of together group %d both run on SM %d",
                               k, i, exps[i].together, exps[i].sm);
    }
    return MT_OK;
}

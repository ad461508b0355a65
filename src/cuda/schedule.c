/* Launch formation of the cuda backend (see schedule.h). */
#include <string.h>

#include "../backend/chain.h"
#include "limits.h"
#include "schedule.h"

/* mt_experiment_check has checked the sequence's shape and indices; what
 * is left is the cuda backend's own limit (also when it is 0, which the
 * generic check reads as "no limit"). */
static mt_err validate_sequence(const mt_experiment *e, size_t i, const mt_device_info *dev,
                                mt_errinfo *ei)
{
    if (e->u.seq.n > dev->max_sequence)
        return mt_fail(ei, MT_ERR_INVALID_ARG,
                       "experiment %zu: %u sequence entries exceed the shared-memory list of %u",
                       i, e->u.seq.n, dev->max_sequence);
    /* The int32 deltas of the list (kernel_abi.h) address word indices
     * below 2^30 only: sparse chains beyond the global path cap are for
     * chases. */
    if (mtc_class_span(e, MTC_BUF_GLOBAL) > MTC_GLOBAL_LIMIT_CAP)
        return mt_fail(ei, MT_ERR_INVALID_ARG,
                       "experiment %zu: a sequence's chain ends beyond %llu GiB", i,
                       MTC_GLOBAL_LIMIT_CAP >> 30);
    return MT_OK;
}

/* Banks experiments run in a launch of their own on whichever SMs the
 * blocks land (shared memory is per block), with the default carveout. */
static mt_err validate_banks(const mt_experiment *e, size_t i, const mt_device_info *dev,
                             mt_errinfo *ei)
{
    mt_err rc = mt_experiment_check(e, dev, ei);
    if (rc != MT_OK)
        return rc;
    if (e->sm >= 0 || e->set_carveout)
        return mt_fail(ei, MT_ERR_UNSUPPORTED,
                       "experiment %zu: %s experiments run on any SM at the default carveout",
                       i, mt_kind_name(e->kind));
    if (e->loads > MTK_FINE_MAX)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "experiment %zu: %u fine loads exceed %u", i,
                       e->loads, MTK_FINE_MAX);
    return MT_OK;
}

mt_err mtc_validate(const mt_experiment *e, size_t i, const mt_device_info *dev, mt_errinfo *ei)
{
    if (e->kind == MT_KIND_CLOCK || e->kind == MT_KIND_STREAM || e->kind == MT_KIND_CLUSTER ||
        e->kind == MT_KIND_ICACHE || e->kind == MT_KIND_LINK ||
        e->kind == MT_KIND_EVICT)
        return mt_experiment_check(e, dev, ei);
    if (e->kind == MT_KIND_BANKS || e->kind == MT_KIND_ACCESS) /* access: the same limits */
        return validate_banks(e, i, dev, ei);
    if (e->kind != MT_KIND_CHASE && e->kind != MT_KIND_SEQUENCE)
        return mt_fail(ei, MT_ERR_UNSUPPORTED,
                       "experiment %zu: %s experiments are not implemented by the cuda backend yet",
                       i, mt_kind_name(e->kind));
    mt_err rc = mt_experiment_check(e, dev, ei);
    if (rc != MT_OK)
        return rc;
    int k = mtc_kernel_of(e);
    if (e->set_carveout && (k == MTK_KERNEL_B || k == MTK_KERNEL_SEQ_B))
        return mt_fail(ei, MT_ERR_UNSUPPORTED,
                       "experiment %zu: shared-path experiments run with all of shared memory; "
                       "their carveout cannot be chosen",
                       i);
    if (e->mode == MT_MODE_FINE && e->loads > MTK_FINE_MAX)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "experiment %zu: %u fine loads exceed %u", i,
                       e->loads, MTK_FINE_MAX);
    for (int c = 0; c < e->n_chains; c++) {
        if (e->chain[c].thread < 0 || e->chain[c].thread >= dev->max_threads_per_experiment)
            return mt_fail(ei, MT_ERR_INVALID_ARG, "experiment %zu: chain %d thread %d out of range",
                           i, c, e->chain[c].thread);
        if (mt_chain_elements(&e->chain[c]) > UINT32_MAX)
            return mt_fail(ei, MT_ERR_INVALID_ARG, "experiment %zu: chain %d has too many elements",
                           i, c);
    }
    if (e->kind == MT_KIND_SEQUENCE)
        return validate_sequence(e, i, dev, ei);
    if ((rc = mtc_check_wide(e, ei)) != MT_OK)
        return rc;
    return mtc_check_overlap(e, ei);
}

/* Experiments of one launch run under one carveout preference. */
static int same_carveout(const mtc_group *g, const mt_experiment *e)
{
    return g->set_carveout == e->set_carveout &&
           (!e->set_carveout || g->carveout_percent == e->carveout_percent);
}

static void add(mtc_group *g, const mt_experiment *e, size_t i, uint64_t arena_end)
{
    g->idx[g->n++] = i;
    g->arena_used = arena_end;
    g->cold |= e->warmup_laps == 0;
    if (e->sm >= 0) {
        g->sm_taken[e->sm] = 1;
        g->n_planned++;
    }
}

/* Adds e to g if it fits (kernel, SM plan, arena, constant image). */
static mt_err try_add(const mtc_sched_limits *lim, mtc_group *g, const mt_experiment *exps, size_t i,
                      mtc_const_image *ci, mt_errinfo *ei)
{
    mt_err rc;
    const mt_experiment *e = &exps[i];
    if (g->n >= (size_t)lim->nsm || e->scope == MT_SCOPE_GPU || mtc_kernel_of(e) != g->kernel ||
        !same_carveout(g, e))
        return MT_OK;
    if (e->sm >= 0 && g->sm_taken[e->sm])
        return MT_OK;
    /* A parallel warm-up widens the launch's block to MTK_WARM_THREADS:
     * the other experiments keep the launch they had without it. */
    if (mtc_parallel_warm(e) != g->parallel_warm)
        return MT_OK;
    uint64_t base[MTC_BUF_COUNT];
    uint64_t end = mtc_place_buffers(e, g->arena_used, base);
    if (end > lim->arena_max && g->n > 0)
        return MT_OK;
    if (mtc_uses_path(e, MT_PATH_CONSTANT)) {
        int fits = 0;
        if ((rc = mtc_const_paint(ci, e, 0, &fits, ei)) != MT_OK)
            return rc;
        if (!fits)
            return MT_OK;
        if ((rc = mtc_const_paint(ci, e, 1, &fits, ei)) != MT_OK)
            return rc;
    }
    add(g, e, i, end);
    return MT_OK;
}

mt_err mtc_group_form(const mtc_sched_limits *lim, const mt_experiment *exps, const size_t *pending,
                      size_t npend, mtc_group *g, mtc_const_image *ci, mt_errinfo *ei)
{
    mt_err rc;
    const mt_experiment *first = &exps[pending[0]];
    size_t *idx = g->idx;
    memset(g, 0, sizeof *g);
    g->idx = idx;
    g->kernel = mtc_kernel_of(first);
    g->gpu_scope = first->scope == MT_SCOPE_GPU;
    g->parallel_warm = mtc_parallel_warm(first);
    g->set_carveout = first->set_carveout;
    g->carveout_percent = first->carveout_percent;
    mtc_const_image_reset(ci);
    if (g->gpu_scope && first->together) {
        /* A together group: every pending member in this launch, each on
         * its SM, their buffers one after another (disjoint data). */
        for (size_t p = 0; p < npend && g->n < (size_t)lim->nsm; p++) {
            const mt_experiment *e = &exps[pending[p]];
            uint64_t base[MTC_BUF_COUNT];
            if (e->together == first->together && mtc_kernel_of(e) == g->kernel &&
                same_carveout(g, e) && !g->sm_taken[e->sm])
                add(g, e, pending[p], mtc_place_buffers(e, g->arena_used, base));
        }
        return MT_OK;
    }
    if (g->gpu_scope) {
        uint64_t base[MTC_BUF_COUNT];
        int fits = 0;
        add(g, first, pending[0], mtc_place_buffers(first, 0, base));
        return mtc_const_paint(ci, first, 1, &fits, ei);
    }
    for (size_t p = 0; p < npend; p++)
        if ((rc = try_add(lim, g, exps, pending[p], ci, ei)) != MT_OK)
            return rc;
    return MT_OK;
}

mt_err mtc_group_retire(const mt_experiment *exps, const mtc_group *g, const int *claimed,
                        size_t *pending, size_t *npend, size_t *tries, uint64_t *requeued,
                        mt_errinfo *ei)
{
    /* A together group's members ran at once only when every one of them
     * found its SM: else all of them run again (their samples are
     * overwritten by the next launch's). */
    int all_claimed = 1;
    for (size_t k = 0; k < g->n; k++)
        all_claimed &= claimed[k] != 0;
    for (size_t k = 0; k < g->n; k++) {
        size_t i = g->idx[k];
        if (claimed[k] && (all_claimed || !exps[i].together)) {
            for (size_t p = 0; p < *npend; p++)
                if (pending[p] == i) {
                    memmove(&pending[p], &pending[p + 1], (*npend - p - 1) * sizeof *pending);
                    (*npend)--;
                    break;
                }
            continue;
        }
        (*requeued)++;
        if (++tries[i] >= MTC_MAX_PLACEMENT_TRIES)
            return mt_fail(ei, MT_ERR_DEVICE,
                           "experiment %zu (SM %d) found no block on its SM in %d launches; "
                           "is that SM available?",
                           i, exps[i].sm, MTC_MAX_PLACEMENT_TRIES);
    }
    return MT_OK;
}

double mtc_watchdog_s(double est_loads, int clock_khz, double fixed_s)
{
    if (fixed_s > 0)
        return fixed_s;
    double clock_hz = (double)clock_khz * 1e3;
    if (clock_hz <= 0)
        clock_hz = 1e9;
    return MTC_WATCHDOG_MIN_S + MTC_WATCHDOG_FACTOR * est_loads * MTC_SLOW_LOAD_CYCLES / clock_hz;
}

uint64_t mtc_deadline_cycles(double limit_s, int clock_khz)
{
    return (uint64_t)(MTC_KERNEL_DEADLINE_SHARE * limit_s * (double)clock_khz * 1e3);
}

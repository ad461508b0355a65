/* The plot data collector and its observing backend (plot_data.h). */
#include <stdlib.h>
#include <string.h>

#include "../analysis/analysis.h"
#include "plot_data.h"

mt_plot_data *mt_plot_data_new(void)
{
    return calloc(1, sizeof(mt_plot_data));
}

void mt_plot_data_free(mt_plot_data *pd)
{
    if (!pd)
        return;
    for (int p = 0; p < MT_PATH_COUNT; p++)
        free(pd->path[p].points);
    free(pd->carveout.points);
    free(pd);
}

/* Only chases whose samples are load latencies of one chain on one path:
 * a second chain (sharing tests) would put points of another cache state
 * on the same curve. */
static int plotted(const mt_experiment *e, const mt_result *r)
{
    return e->kind == MT_KIND_CHASE && e->n_chains == 1 && e->mode == MT_MODE_FINE &&
           e->chain[0].path >= 0 && e->chain[0].path < MT_PATH_COUNT &&
           e->chain[0].path != MT_PATH_NONE && r->n[0] > 0 && r->cycles[0];
}

/* The series e belongs to: its path's at the default carveout, the
 * carveout series for the L1 at a requested one, NULL for none. */
static mt_plot_series *series_of(mt_plot_data *pd, const mt_experiment *e)
{
    if (!e->set_carveout)
        return &pd->path[e->chain[0].path];
    return e->chain[0].path == MT_PATH_GLOBAL_CA ? &pd->carveout : NULL;
}

mt_err mt_plot_data_add(mt_plot_data *pd, const mt_experiment *e, const mt_result *r,
                        mt_errinfo *ei)
{
    mt_plot_series *s = plotted(e, r) ? series_of(pd, e) : NULL;
    if (!s)
        return MT_OK;
    if (s->n_points == s->cap_points) {
        size_t cap = s->cap_points ? 2 * s->cap_points : 64;
        mt_plot_point *p = realloc(s->points, cap * sizeof *p);
        if (!p)
            return mt_fail(ei, MT_ERR_NOMEM, "out of memory collecting plot data");
        s->points = p;
        s->cap_points = cap;
    }
    double *x = malloc(r->n[0] * sizeof *x);
    if (!x)
        return mt_fail(ei, MT_ERR_NOMEM, "out of memory collecting plot data");
    for (uint32_t k = 0; k < r->n[0]; k++) {
        uint32_t c = r->cycles[0][k];
        x[k] = c;
        s->hist[c < MT_PLOT_HIST_BINS ? c : MT_PLOT_HIST_BINS - 1]++;
    }
    s->n_samples += r->n[0];
    s->points[s->n_points++] = (mt_plot_point){.footprint = e->chain[0].footprint,
                                                .stride = e->chain[0].stride,
                                                .median = mt_median(x, r->n[0]),
                                                .carveout = e->set_carveout
                                                                ? e->carveout_percent
                                                                : -1};
    free(x);
    return MT_OK;
}

/* ---- the observing backend ---- */

typedef struct {
    mt_backend *inner;
    mt_plot_data *pd;
    mt_backend_ops ops; /* inner's api_version, name and caps: it runs what inner runs */
    mt_backend self;
} observer;

static mt_err observe_info(mt_backend *b, mt_device_info *out, mt_errinfo *ei)
{
    observer *o = b->impl;
    return mt_backend_info(o->inner, out, ei);
}

static mt_err observe_run(mt_backend *b, const mt_experiment *exps, size_t n, mt_result *out,
                          mt_errinfo *ei)
{
    observer *o = b->impl;
    mt_err e = mt_backend_run(o->inner, exps, n, out, ei);
    if (e != MT_OK)
        return e;
    for (size_t i = 0; i < n; i++)
        if ((e = mt_plot_data_add(o->pd, &exps[i], &out[i], ei)) != MT_OK) {
            for (size_t j = 0; j < n; j++)
                mt_result_free(&out[j]);
            return e;
        }
    return MT_OK;
}

static void observe_destroy(mt_backend *b)
{
    observer *o = b->impl;
    mt_backend_destroy(o->inner);
    free(o);
}

mt_err mt_plot_observe_wrap(mt_backend *inner, mt_plot_data *pd, mt_backend **out,
                            mt_errinfo *ei)
{
    observer *o = calloc(1, sizeof *o);
    if (!o)
        return mt_fail(ei, MT_ERR_NOMEM, "out of memory");
    o->ops = (mt_backend_ops){.api_version = inner->ops->api_version,
                              .name = inner->ops->name,
                              .caps = inner->ops->caps,
                              .get_info = observe_info,
                              .run_batch = observe_run,
                              .destroy = observe_destroy};
    o->inner = inner;
    o->pd = pd;
    o->self = (mt_backend){.ops = &o->ops, .impl = o};
    *out = &o->self;
    return MT_OK;
}

/* Re-running and degrading disturbed probes (interference_guard.h). */
#include "interference_guard.h"

#include <stdio.h>
#include <string.h>

#include "../core/phase_times.h"

/* The probes' private state that a re-run must start from again. */
typedef struct {
    mt_cache_state cs[MT_CACHE_COUNT];
    double overhead_fine, overhead_agg;
} saved_state;

static void save(const mt_probe_ctx *c, saved_state *s)
{
    memcpy(s->cs, c->cs, sizeof s->cs);
    s->overhead_fine = c->overhead_fine;
    s->overhead_agg = c->overhead_agg;
}

static void restore(mt_probe_ctx *c, const saved_state *s)
{
    memcpy(c->cs, s->cs, sizeof s->cs);
    c->overhead_fine = s->overhead_fine;
    c->overhead_agg = s->overhead_agg;
}

/* Removes the findings a probe declares, so its re-run starts clean. */
static void clear_findings(mt_probe_ctx *c, const mt_finding_decl *provides)
{
    for (const mt_finding_decl *f = provides; f && f->id; f++) {
        char key[64];
        const char *name = mt_split_finding_id(f->id, key, sizeof key);
        mt_object *o = name ? mt_topology_object(c->topo, key) : NULL;
        if (o)
            mt_object_remove(o, name);
    }
}

static bool is_bad(const mt_guard *g, const char *id)
{
    for (size_t i = 0; i < g->n_bad; i++)
        if (strcmp(g->bad[i], id) == 0)
            return true;
    return false;
}

/* The first of ids (NULL-terminated) that was degraded, or NULL. */
static const char *first_bad(const mt_guard *g, const char *const *ids)
{
    for (; ids && *ids; ids++)
        if (is_bad(g, *ids))
            return *ids;
    return NULL;
}

/* Caps the confidence of every measured or derived finding in provides and
 * notes why. */
static void cap_findings(mt_topology *t, mt_guard *g, const mt_finding_decl *provides,
                         const char *why)
{
    for (const mt_finding_decl *f = provides; f && f->id; f++) {
        char key[64];
        const char *name = mt_split_finding_id(f->id, key, sizeof key);
        mt_object *o = name ? mt_topology_object(t, key) : NULL;
        const mt_finding *cur = o ? mt_object_get(o, name) : NULL;
        /* The driver's answers (sizes, clocks) do not depend on the load. */
        if (!cur || is_bad(g, f->id) || cur->source == MT_SRC_DRIVER ||
            cur->kind == MT_FIND_NONE)
            continue;
        mt_finding nf = *cur;
        mt_finding_doubt(&nf, MT_INTERFERE_CONF_CAP, "disturbed: %s", why);
        /* Replacing in place cannot grow the object: it only fails on a
         * bad name, which the registry's tests rule out. */
        (void)mt_object_set(o, name, NULL, &nf);
        if (g->n_bad < MT_GUARD_MAX_IDS)
            snprintf(g->bad[g->n_bad++], sizeof g->bad[0], "%s", f->id);
    }
}

static void degrade(mt_probe_ctx *c, mt_guard *g, size_t i, const char *why)
{
    g->degraded[i] = true;
    cap_findings(c->topo, g, g->probe[i]->provides, why);
    mt_provenance_add_disturbed(&c->topo->prov, "probe %s: %s", g->probe[i]->name, why);
}

static mt_err watch_info(mt_backend *b, mt_device_info *out, mt_errinfo *ei)
{
    return mt_backend_info(((mt_guard_watch *)b->impl)->inner, out, ei);
}

static mt_err watch_run(mt_backend *b, const mt_experiment *e, size_t n, mt_result *out,
                        mt_errinfo *ei)
{
    mt_guard_watch *w = b->impl;
    mt_err err = mt_backend_run(w->inner, e, n, out, ei);
    mt_device_info d;
    if (err == MT_OK && mt_backend_info(w->inner, &d, NULL) == MT_OK && d.other_busy > w->busy_max)
        w->busy_max = d.other_busy;
    return err;
}

mt_err mt_guard_begin(mt_probe_ctx *c, mt_guard *g)
{
    memset(g, 0, sizeof *g);
    mt_guard_watch *w = &g->watch;
    w->inner = c->be;
    w->ops = *c->be->ops;
    w->ops.get_info = watch_info;
    w->ops.run_batch = watch_run;
    w->ops.destroy = NULL; /* never destroyed: mt_guard_end hands the real one back */
    w->base.ops = &w->ops;
    w->base.impl = w;
    c->be = &w->base;
    double t = mt_phase_now();
    mt_err err = mt_interference_begin(c, &g->it);
    mt_phase_add("guard: first reference", mt_phase_now() - t);
    return err;
}

void mt_guard_end(mt_probe_ctx *c, mt_guard *g)
{
    if (c->be == &g->watch.base)
        c->be = g->watch.inner;
}

mt_err mt_guard_run(mt_probe_ctx *c, mt_guard *g, const mt_probe_desc *d, mt_probe_run_fn run)
{
    if (!g->it.enabled || g->n >= MT_MAX_PROBES)
        return run(c, d);
    size_t i = g->n++;
    g->probe[i] = d;
    saved_state before;
    save(c, &before);
    mt_ref_verdict v = {0};
    int attempt = 0;
    for (;; attempt++) {
        g->watch.busy_max = 0;
        mt_err err = run(c, d);
        double t_ref = mt_phase_now();
        if (err == MT_OK)
            err = mt_interference_end_window(c, &g->it, &g->start[i], &g->end[i]);
        mt_phase_add("guard: reference after a probe", mt_phase_now() - t_ref);
        if (err != MT_OK)
            return err;
        v = mt_interference_judge(&g->it, &g->start[i], &g->end[i]);
        if (g->watch.busy_max > 0) { /* seen between the references */
            v.causes |= MT_DISTURB_BUSY;
            v.busy_others = v.busy_others > g->watch.busy_max ? v.busy_others : g->watch.busy_max;
        }
        if (!v.causes || attempt == MT_INTERFERE_MAX_RERUNS)
            break;
        mt_progress(c, "disturbed (another workload?): re-measuring");
        clear_findings(c, d->provides);
        restore(c, &before);
    }
    char why[MT_DISTURBED_LEN + 64];
    if (v.causes) {
        char cause[MT_DISTURBED_LEN - 64];
        mt_interference_describe(c, &v, cause, sizeof cause);
        snprintf(why, sizeof why, "%s (measured %d times)", cause, attempt + 1);
        degrade(c, g, i, why);
    } else {
        const char *dep = first_bad(g, d->requires);
        if (dep) {
            snprintf(why, sizeof why, "uses %s, which was disturbed", dep);
            degrade(c, g, i, why);
        }
    }
    return MT_OK;
}

void mt_guard_recheck(mt_probe_ctx *c, mt_guard *g)
{
    for (size_t i = 0; i < g->n; i++) {
        if (g->degraded[i])
            continue;
        mt_ref_verdict v = mt_interference_judge(&g->it, &g->start[i], &g->end[i]);
        char why[MT_DISTURBED_LEN + 64], cause[MT_DISTURBED_LEN - 64];
        const char *dep = first_bad(g, g->probe[i]->requires);
        if (v.causes) {
            mt_interference_describe(c, &v, cause, sizeof cause);
            snprintf(why, sizeof why, "%s (seen only at the end of the run)", cause);
        } else if (dep) {
            snprintf(why, sizeof why, "uses %s, which was disturbed", dep);
        } else {
            continue;
        }
        degrade(c, g, i, why);
    }
}

void mt_guard_derived(mt_probe_ctx *c, mt_guard *g, const mt_derivation_desc *d)
{
    const char *dep = first_bad(g, d->requires);
    if (!dep)
        return;
    char why[MT_DISTURBED_LEN];
    snprintf(why, sizeof why, "derived from %s, which was disturbed", dep);
    cap_findings(c->topo, g, d->provides, why);
}

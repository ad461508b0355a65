/* The probe runner: finds the probes in the registry, orders them from
 * their declared requirements, runs them, then runs the derivations. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/phase_times.h"
#include "interference_guard.h"
#include "probe_internal.h"

const mt_probe_desc *mt_probe_find(const char *name)
{
    for (const mt_probe_desc *const *p = mt_probe_registry; *p; p++)
        if (strcmp((*p)->name, name) == 0)
            return *p;
    return NULL;
}

void mt_probe_options_default(mt_probe_options *o)
{
    memset(o, 0, sizeof *o);
}

static bool in_list(const char *const *list, const char *name)
{
    for (size_t i = 0; list[i]; i++)
        if (strcmp(list[i], name) == 0)
            return true;
    return false;
}

/* Registry probes sorted by rank (stable): the order the runner prefers. */
static size_t by_rank(const mt_probe_desc **out)
{
    size_t n = 0;
    for (const mt_probe_desc *const *p = mt_probe_registry; *p && n < MT_MAX_PROBES; p++) {
        size_t i = n++;
        while (i > 0 && out[i - 1]->rank > (*p)->rank) {
            out[i] = out[i - 1];
            i--;
        }
        out[i] = *p;
    }
    return n;
}

void mt_probe_names(char *buf, size_t n)
{
    const mt_probe_desc *all[MT_MAX_PROBES];
    size_t np = by_rank(all), len = 0;
    if (n)
        buf[0] = '\0';
    for (size_t i = 0; i < np && len < n; i++)
        if (!all[i]->always && !all[i]->requested)
            len += (size_t)snprintf(buf + len, n - len, "%s%s", len ? ", " : "", all[i]->name);
}

mt_err mt_probe_parse_only(const char *list, mt_probe_options *o, mt_errinfo *ei)
{
    char buf[512], names[512];
    if (!list || !*list || strlen(list) >= sizeof buf)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "--only needs a comma-separated list of probes");
    strcpy(buf, list);
    size_t k = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        const mt_probe_desc *d = mt_probe_find(tok);
        if (!d || d->always || d->requested) { /* opt-in probes come with their option */
            mt_probe_names(names, sizeof names);
            return mt_fail(ei, MT_ERR_INVALID_ARG, "--only: unknown probe '%.60s' (known: %s)",
                           tok, names);
        }
        if (k < MT_MAX_PROBES && !in_list(o->only, d->name))
            o->only[k++] = d->name; /* the registry's string: outlives buf */
    }
    o->only[k] = NULL;
    o->only_set = true;
    return MT_OK;
}

static bool provides(const mt_probe_desc *d, const char *id)
{
    for (const mt_finding_decl *f = d->provides; f && f->id; f++)
        if (strcmp(f->id, id) == 0)
            return true;
    return false;
}

/* The probe that provides finding `id`, or NULL. */
static const mt_probe_desc *provider(const mt_probe_desc *const *all, size_t n, const char *id)
{
    for (size_t i = 0; i < n; i++)
        if (provides(all[i], id))
            return all[i];
    return NULL;
}

static size_t index_of(const mt_probe_desc *const *all, size_t n, const mt_probe_desc *d)
{
    for (size_t i = 0; i < n; i++)
        if (all[i] == d)
            return i;
    return n;
}

mt_err mt_probe_plan(const mt_probe_options *opt, const mt_probe_desc **order, size_t *n_out,
                     mt_errinfo *ei)
{
    const mt_probe_desc *all[MT_MAX_PROBES];
    size_t n = by_rank(all);
    bool want[MT_MAX_PROBES] = {false}, placed[MT_MAX_PROBES] = {false};
    for (size_t i = 0; i < n; i++)
        want[i] = all[i]->requested ? all[i]->requested(opt)
                                    : all[i]->always || !opt->only_set || in_list(opt->only, all[i]->name);
    /* Close over requirements: a wanted probe's providers are wanted. */
    for (bool grew = true; grew;) {
        grew = false;
        for (size_t i = 0; i < n; i++)
            for (const char *const *r = all[i]->requires; want[i] && r && *r; r++) {
                const mt_probe_desc *p = provider(all, n, *r);
                if (!p)
                    return mt_fail(ei, MT_ERR_INVALID_ARG,
                                   "probe %s requires %s, which no probe provides", all[i]->name, *r);
                size_t j = index_of(all, n, p);
                if (!want[j])
                    want[j] = grew = true;
            }
    }
    /* Skipped probes (not in a recording) take the probes needing them along. */
    for (bool shrank = true; shrank;) {
        shrank = false;
        for (size_t i = 0; i < n; i++) {
            if (!want[i])
                continue;
            bool drop = in_list(opt->skip, all[i]->name);
            for (const char *const *r = all[i]->requires; !drop && r && *r; r++)
                drop = !want[index_of(all, n, provider(all, n, *r))];
            if (drop)
                want[i] = false, shrank = true;
        }
    }
    /* Kahn's algorithm, always taking the lowest-ranked ready probe. */
    size_t k = 0, total = 0;
    for (size_t i = 0; i < n; i++)
        total += want[i];
    while (k < total) {
        size_t pick = n;
        for (size_t i = 0; i < n && pick == n; i++) {
            if (!want[i] || placed[i])
                continue;
            bool ready = true;
            for (const char *const *r = all[i]->requires; ready && r && *r; r++)
                ready = placed[index_of(all, n, provider(all, n, *r))];
            /* "always" probes (calibration) come before everything else. */
            for (size_t j = 0; ready && !all[i]->always && j < n; j++)
                ready = !(want[j] && !placed[j] && all[j]->always);
            if (ready)
                pick = i;
        }
        if (pick == n)
            return mt_fail(ei, MT_ERR_INVALID_ARG, "the probes' requirements form a cycle");
        placed[pick] = true;
        order[k++] = all[pick];
    }
    *n_out = k;
    return MT_OK;
}

static void note_thresholds(mt_probe_ctx *c)
{
    mt_note_threshold(c, "MT_KS_ALPHA", MT_KS_ALPHA,
                      "significance of every KS / binomial test; ~0.1 false verdicts per run");
    mt_note_threshold(c, "MT_MIN_CLASS_GAP_CYCLES", MT_MIN_CLASS_GAP_CYCLES,
                      "latency classes closer than this are one class (timer jitter is 1-2 cycles)");
    mt_note_threshold(c, "MT_HIT_MARGIN_MADS", MT_HIT_MARGIN_MADS,
                      "a miss is slower than the hit median by this many robust sigmas");
    mt_note_threshold(c, "MT_MIN_MISS_FRACTION_INCREASE", MT_MIN_MISS_FRACTION_INCREASE,
                      "sharing/slices: disturbed only if the miss share rises by this much");
    mt_note_threshold(c, "MT_MIN_MISSES_FOR_SPACING", MT_MIN_MISSES_FOR_SPACING,
                      "sector: fewest cold misses a spacing estimate needs");
    mt_note_threshold(c, "MT_MIN_SPACING_SUPPORT", MT_MIN_SPACING_SUPPORT,
                      "sector: share of miss gaps that must equal the modal gap");
    mt_note_threshold(c, "MT_LINE_RATIO_TOLERANCE", MT_LINE_RATIO_TOLERANCE,
                      "line: capacity ratio must be this close to a power of two");
    mt_note_threshold(c, "MT_CAPACITY_AGREEMENT", MT_CAPACITY_AGREEMENT,
                      "first-miss and Opt+KS capacities further apart than this -> range");
    mt_note_threshold(c, "MT_SHARING_FILL", MT_SHARING_FILL,
                      "sharing/slices chains fill this share of a cache");
}

/* Every object any registered probe declares, sorted by its `order`. */
static mt_err create_objects(mt_topology *t, mt_errinfo *ei)
{
    const mt_object_decl *decl[128];
    size_t n = 0;
    for (const mt_probe_desc *const *p = mt_probe_registry; *p; p++)
        for (const mt_object_decl *o = (*p)->objects; o && o->key && n < 128; o++) {
            size_t i = n++;
            while (i > 0 && decl[i - 1]->order > o->order) {
                decl[i] = decl[i - 1];
                i--;
            }
            decl[i] = o;
        }
    for (size_t i = 0; i < n; i++)
        if (!mt_topology_add_object(t, decl[i]->key, decl[i]->name, decl[i]->abbrev, decl[i]->type,
                                    decl[i]->flags & ~MT_OBJ_DECL_ON_DEMAND))
            return mt_fail(ei, MT_ERR_NOMEM, "out of memory creating object %s", decl[i]->key);
    return MT_OK;
}

/* Drops every on-demand object no probe measured in this run. */
static void drop_unmeasured_objects(mt_topology *t)
{
    for (const mt_probe_desc *const *p = mt_probe_registry; *p; p++)
        for (const mt_object_decl *o = (*p)->objects; o && o->key; o++) {
            const mt_object *x =
                (o->flags & MT_OBJ_DECL_ON_DEMAND) ? mt_topology_object(t, o->key) : NULL;
            if (x && !x->probed)
                mt_topology_remove_object(t, o->key);
        }
}

/* 1 when the probe declares object `key` as its own. */
static bool owns(const mt_probe_desc *d, const char *key)
{
    for (const mt_object_decl *o = d->objects; o && o->key; o++)
        if (strcmp(o->key, key) == 0)
            return true;
    return false;
}

/* A probe that ran but could not measure a finding it declares on one of
 * its own objects leaves it as "not measured" (kind none), so reports show
 * "-" instead of nothing.  Findings on other probes' objects (sharing's
 * "shared_with") stay absent: there, absence has its own meaning. */
static void declare_unmeasured(mt_probe_ctx *c, const mt_probe_desc *d)
{
    static const mt_finding none; /* kind MT_FIND_NONE */
    for (const mt_finding_decl *f = d->provides; f && f->id; f++) {
        char key[64];
        const char *name = mt_split_finding_id(f->id, key, sizeof key);
        if (!name || mt_finding_id_is_family(f->id)) /* a family has no fixed members */
            continue;
        mt_object *o = mt_topology_object(c->topo, key);
        if (o && o->probed && owns(d, key) && !mt_object_get(o, name))
            mt_set(c, key, name, &none);
    }
}

static mt_err run_one(mt_probe_ctx *c, const mt_probe_desc *d)
{
    c->desc = d;
    c->probe = d->name;
    c->experiments = 0;
    /* Every probe announces itself, so a progress display knows which one
     * runs even when it reports no step of its own. */
    mt_progress(c, "%s", d->summary);
    double t0 = mt_phase_now();
    mt_err err = d->run(c);
    if (err == MT_OK) {
        declare_unmeasured(c, d);
        if (c->set_err != MT_OK) {
            err = c->set_err;
            *c->ei = c->set_ei;
        }
    }
    mt_topology *t = c->topo;
    /* A probe re-run after a disturbance (interference_guard.c) adds to
     * its row: the timing says what the probe cost in all. */
    mt_probe_time *pt = NULL;
    for (int i = 0; i < t->n_times && !pt; i++)
        if (strcmp(t->times[i].probe, d->name) == 0)
            pt = &t->times[i];
    if (!pt && t->n_times < MT_MAX_PROBE_TIMES) {
        pt = &t->times[t->n_times++];
        snprintf(pt->probe, sizeof pt->probe, "%s", d->name);
    }
    if (mt_phase_enabled()) {
        char name[MT_PHASE_NAME_LEN];
        snprintf(name, sizeof name, "probe %s", d->name);
        mt_phase_add(name, mt_phase_now() - t0);
    }
    if (pt) {
        pt->seconds += mt_phase_now() - t0;
        pt->experiments += c->experiments;
    }
    t->total_experiments += c->experiments;
    c->desc = NULL;
    return err;
}

static bool all_present(const mt_topology *t, const char *const *req)
{
    for (; req && *req; req++) {
        char key[64];
        const char *name = mt_split_finding_id(*req, key, sizeof key);
        if (!name)
            return false;
        const mt_finding *f = mt_topology_get(t, key, name);
        if (!f || f->kind == MT_FIND_NONE)
            return false;
    }
    return true;
}

mt_err mt_probe_run_all(mt_backend *be, const mt_probe_options *opt, mt_topology *topo,
                        mt_errinfo *ei)
{
    if (topo->dev.max_fine_loads == 0)
        return mt_fail(ei, MT_ERR_INVALID_ARG,
                       "backend states no fine-grained load limit (max_fine_loads = 0)");
    const mt_probe_desc *order[MT_MAX_PROBES];
    size_t n = 0;
    mt_err err = mt_probe_plan(opt, order, &n, ei);
    if (err != MT_OK)
        return err;
    if ((err = create_objects(topo, ei)) != MT_OK)
        return err;
    mt_probe_ctx c;
    memset(&c, 0, sizeof c);
    c.be = be;
    c.opt = opt;
    c.topo = topo;
    c.ei = ei;
    c.dev = topo->dev;
    note_thresholds(&c);
    double t0 = mt_phase_now();
    /* Interference checks (issue 7): a reference measurement before the
     * first probe and after each one; disturbed probes are re-run, and
     * what stays disturbed is degraded. */
    mt_guard *g = calloc(1, sizeof *g);
    if (!g)
        return mt_fail(ei, MT_ERR_NOMEM, "out of memory for the interference checks");
    err = mt_guard_begin(&c, g);
    for (size_t i = 0; err == MT_OK && i < n; i++)
        err = mt_guard_run(&c, g, order[i], run_one);
    if (err == MT_OK)
        mt_guard_recheck(&c, g);
    double t_derive = mt_phase_now();
    for (const mt_derivation_desc *const *d = mt_derivation_registry; err == MT_OK && *d; d++)
        if (all_present(topo, (*d)->requires)) {
            err = (*d)->derive(topo, ei);
            mt_guard_derived(&c, g, *d);
        }
    mt_phase_add("derivations", mt_phase_now() - t_derive);
    mt_guard_end(&c, g);
    free(g);
    drop_unmeasured_objects(topo);
    topo->total_seconds = mt_phase_now() - t0;
    return err;
}

/* Running experiments and building findings: the plumbing every probe uses. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../backend/chain.h"
#include "../core/phase_times.h"
#include "../core/text.h"
#include "probe_internal.h"

void mt_progress(mt_probe_ctx *c, const char *fmt, ...)
{
    if (!c->opt || !c->opt->progress)
        return;
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    c->opt->progress(c->opt->progress_user, c->probe ? c->probe : "", buf);
}

mt_err mt_run(mt_probe_ctx *c, const mt_experiment *e, size_t n, mt_result *r)
{
    /* Every batch of every probe passes here: the one place a stop request
     * (SIGINT/SIGTERM) is honoured, between batches. */
    int sig = c->opt && c->opt->stop ? (int)*c->opt->stop : 0;
    if (sig)
        return mt_fail(c->ei, MT_ERR_INTERRUPTED, "stopped by %s after %u experiments (in probe %s)",
                       mt_signal_name(sig), c->topo->total_experiments + c->experiments,
                       c->probe ? c->probe : "the run");
    double t = mt_phase_now();
    mt_err err = mt_backend_run(c->be, e, n, r, c->ei);
    if (mt_phase_enabled()) {
        char name[MT_PHASE_NAME_LEN];
        snprintf(name, sizeof name, "backend in %s", c->probe ? c->probe : "(runner)");
        mt_phase_add(name, mt_phase_now() - t);
    }
    if (err == MT_OK)
        c->experiments += (unsigned)n;
    return err;
}

void mt_results_free(mt_result *r, size_t n)
{
    for (size_t i = 0; i < n; i++)
        mt_result_free(&r[i]);
}

uint32_t mt_fine_loads(const mt_probe_ctx *c, uint64_t footprint, uint32_t stride, double laps)
{
    double want = ceil((double)(footprint / stride) * laps);
    uint32_t cap = c->dev.max_fine_loads; /* > 0: checked by the runner */
    if (want < 1)
        want = 1;
    return want > cap ? cap : (uint32_t)want;
}

double *mt_fine_samples(const mt_probe_ctx *c, const mt_result *r, int chain, size_t *n)
{
    *n = r->n[chain];
    double *x = malloc((*n ? *n : 1) * sizeof *x);
    if (!x)
        return NULL;
    for (size_t k = 0; k < *n; k++)
        x[k] = (double)r->cycles[chain][k] - c->overhead_fine;
    return x;
}

void mt_count_misses(const mt_probe_ctx *c, const mt_result *r, double thr, mt_miss_count *m)
{
    for (size_t k = 0; k < r->n[0]; k++)
        m->missed += (double)r->cycles[0][k] - c->overhead_fine > thr;
    m->timed += r->n[0];
}

mt_err mt_run_fine(mt_probe_ctx *c, const mt_experiment *e, double **x, size_t *n)
{
    mt_result r;
    mt_err err = mt_run(c, e, 1, &r);
    if (err != MT_OK)
        return err;
    *x = mt_fine_samples(c, &r, 0, n);
    mt_result_free(&r);
    return *x ? MT_OK : mt_fail(c->ei, MT_ERR_NOMEM, "out of memory reading samples");
}

double mt_agg_latency(const mt_probe_ctx *c, const mt_experiment *e, const mt_result *r)
{
    if (r->n[0] < 1 || e->loads == 0)
        return NAN;
    return (double)r->cycles[0][0] / (double)e->loads - c->overhead_agg;
}

double mt_mad(const double *x, size_t n)
{
    double med = mt_median(x, n);
    double *dev = malloc((n ? n : 1) * sizeof *dev);
    if (!dev)
        return NAN;
    for (size_t i = 0; i < n; i++)
        dev[i] = fabs(x[i] - med);
    double mad = mt_median(dev, n);
    free(dev);
    return mad;
}

double mt_hit_threshold(const double *ref, size_t n)
{
    double margin = MT_HIT_MARGIN_MADS * 1.4826 * mt_mad(ref, n);
    if (!(margin >= MT_MIN_CLASS_GAP_CYCLES)) /* also out of memory (NAN) */
        margin = MT_MIN_CLASS_GAP_CYCLES;
    return mt_median(ref, n) + margin;
}

size_t mt_drop_slowest_percent(double *x, size_t n)
{
    mt_sort_doubles(x, n);
    size_t keep = n - n / 100;
    return keep ? keep : n;
}

mt_err mt_split_robust(const double *x, size_t n, mt_split *out)
{
    double *t = malloc((n ? n : 1) * sizeof *t);
    if (!t)
        return MT_ERR_NOMEM;
    memcpy(t, x, n * sizeof *t);
    size_t keep = mt_drop_slowest_percent(t, n);
    mt_err err = mt_split_two_classes(t, keep, out);
    free(t);
    if (err != MT_OK)
        return err;
    size_t hi = 0;
    for (size_t i = 0; i < n; i++)
        hi += x[i] > out->threshold;
    out->high_fraction = n ? (double)hi / (double)n : 0;
    return MT_OK;
}

static mt_finding finding_base(mt_finding_kind kind, const char *unit, mt_source src,
                               const char *method, double conf, const char *fmt, va_list ap)
{
    mt_finding f;
    memset(&f, 0, sizeof f);
    f.kind = kind;
    f.source = src;
    snprintf(f.unit, sizeof f.unit, "%s", unit ? unit : "");
    snprintf(f.method, sizeof f.method, "%s", method ? method : "");
    f.confidence = conf < 0 ? 0 : conf > 1 ? 1 : conf;
    if (fmt)
        vsnprintf(f.note, sizeof f.note, fmt, ap);
    return f;
}

mt_finding mt_find_value(double v, const char *unit, mt_source src, const char *method,
                         double conf, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    mt_finding f = finding_base(MT_FIND_VALUE, unit, src, method, conf, fmt, ap);
    va_end(ap);
    f.value = v;
    f.lo = f.hi = v;
    return f;
}

mt_finding mt_find_bound(double lo, const char *unit, const char *method, double conf,
                         const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    mt_finding f = finding_base(MT_FIND_LOWER_BOUND, unit, MT_SRC_MEASURED, method, conf, fmt, ap);
    va_end(ap);
    f.lo = lo;
    return f;
}

mt_finding mt_find_range(double lo, double hi, const char *unit, const char *method,
                         double conf, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    mt_finding f = finding_base(MT_FIND_RANGE, unit, MT_SRC_MEASURED, method, conf, fmt, ap);
    va_end(ap);
    f.lo = lo;
    f.hi = hi;
    return f;
}

mt_finding mt_find_absent(const char *method, double conf, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    mt_finding f = finding_base(MT_FIND_ABSENT, "", MT_SRC_MEASURED, method, conf, fmt, ap);
    va_end(ap);
    return f;
}

void mt_note_threshold(mt_probe_ctx *c, const char *name, double value, const char *why)
{
    /* The list holds every threshold of the built-in probes with room to
     * spare (MT_MAX_THRESHOLDS); one beyond it is dropped, not fatal. */
    (void)mt_topology_note_threshold(c->topo, name, value, why);
}

static const char *const cache_keys[MT_CACHE_COUNT] = {
    "l1d", "texture", "readonly", "const_l1", "const_l15", "shared", "l2", "dram",
};
static const char *const cache_names[MT_CACHE_COUNT] = {
    "L1 Data", "Texture", "Read-Only", "Constant L1", "Constant L1.5",
    "Shared Memory", "L2", "DRAM",
};

const char *mt_cache_key(mt_cache_id id)
{
    return (id >= 0 && id < MT_CACHE_COUNT) ? cache_keys[id] : "?";
}

const char *mt_cache_name(mt_cache_id id)
{
    return (id >= 0 && id < MT_CACHE_COUNT) ? cache_names[id] : "?";
}

const char *mt_split_finding_id(const char *id, char *key, size_t n)
{
    const char *dot = strchr(id, '.');
    if (!dot || (size_t)(dot - id) >= n)
        return NULL;
    memcpy(key, id, (size_t)(dot - id));
    key[dot - id] = '\0';
    return dot + 1;
}

/* The declaration of "key.name" among the running probe's provides. */
bool mt_finding_id_is_family(const char *id)
{
    size_t n = strlen(id);
    return n > 0 && id[n - 1] == '*';
}

/* The declaration of "key.name" among the running probe's provides: an
 * exact id, or a family ("key.prefix*") whose prefix name starts with and
 * does not end at (*rest: what the probe added, else NULL). */
static const mt_finding_decl *declared(const mt_probe_ctx *c, const char *key, const char *name,
                                       const char **rest)
{
    *rest = NULL;
    if (!c->desc || !c->desc->provides)
        return NULL;
    for (const mt_finding_decl *d = c->desc->provides; d->id; d++) {
        char k[64];
        const char *n = mt_split_finding_id(d->id, k, sizeof k);
        if (!n || strcmp(k, key) != 0)
            continue;
        if (!mt_finding_id_is_family(d->id)) {
            if (strcmp(n, name) == 0)
                return d;
            continue;
        }
        size_t plen = strlen(n) - 1;
        if (strncmp(n, name, plen) == 0 && name[plen]) {
            *rest = name + plen;
            return d;
        }
    }
    return NULL;
}

void mt_set(mt_probe_ctx *c, const char *key, const char *name, const mt_finding *f)
{
    if (c->set_err != MT_OK)
        return;
    const char *rest;
    const mt_finding_decl *d = declared(c, key, name, &rest);
    if (!d) {
        c->set_err = mt_fail(&c->set_ei, MT_ERR_INVALID_ARG,
                             "probe %s set %s.%s, which its descriptor does not declare",
                             c->desc ? c->desc->name : "?", key, name);
        return;
    }
    /* A family member's label is the family's, then what the probe added. */
    char label[MT_LABEL_LEN];
    snprintf(label, sizeof label, "%s%s%s", d->label, rest ? " " : "", rest ? rest : "");
    mt_object *o = mt_topology_object(c->topo, key);
    mt_err err = o ? mt_object_set(o, name, label, f)
                   : mt_fail(&c->set_ei, MT_ERR_INVALID_ARG, "no object %s", key);
    if (err != MT_OK) {
        c->set_err = err;
        if (err == MT_ERR_NOMEM)
            mt_fail(&c->set_ei, err, "out of memory storing %s.%s", key, name);
    }
}

const mt_finding *mt_get(const mt_probe_ctx *c, const char *key, const char *name)
{
    static const mt_finding none; /* kind MT_FIND_NONE */
    const mt_finding *f = mt_topology_get(c->topo, key, name);
    return f ? f : &none;
}

uint64_t mt_partition_bytes(const mt_finding *ps)
{
    double b = ps->kind == MT_FIND_VALUE ? ps->value : ps->kind == MT_FIND_RANGE ? ps->lo : 0;
    return b > 0 ? (uint64_t)b : 0;
}

void mt_mark_probed(mt_probe_ctx *c, const char *key)
{
    mt_object *o = mt_topology_object(c->topo, key);
    if (o)
        o->probed = true;
}

void mt_finding_note_first(mt_finding *f, const char *fmt, ...)
{
    char old[sizeof f->note];
    memcpy(old, f->note, sizeof old);
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(f->note, sizeof f->note, fmt, ap);
    va_end(ap);
    if (n >= 0 && (size_t)n < sizeof f->note && old[0])
        n += snprintf(f->note + n, sizeof f->note - (size_t)n, "; %s", old);
    if (n >= (int)sizeof f->note) /* cut: say so rather than end mid-word */
        snprintf(f->note + sizeof f->note - 4, 4, "...");
}

void mt_note_spacing_halved(mt_finding *f, const mt_spacing *sp)
{
    if (sp->halved)
        mt_finding_append_note(f, "the gap halved %u time%s: the loads half a gap after those "
                                  "misses are a slower class too (misses under the threshold)",
                               sp->halved, sp->halved > 1 ? "s" : "");
}

/* The sim backend: a simulated GPU described by a spec (presets/NAME.spec or
 * a user file).  get_info reports what the spec declares; run_batch runs
 * each experiment on the cache model (engine.c), one at a time with cold
 * caches, so an experiment's scope changes nothing here.  Kinds: the chase,
 * the explicit sequence, the clock and, with a [throughput] section,
 * streams (stream_model.c), with a [cluster] section cluster experiments
 * (cluster_model.c), with [icache] sections icache experiments
 * (icache_model.c) and with [link N] / [host_link] sections link
 * experiments (link_model.c). */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "../backend/backend.h"
#include "cluster_model.h"
#include "engine.h"
#include "icache_model.h"
#include "link_model.h"
#include "sim.h"
#include "spec.h"
#include "stream_model.h"

typedef struct {
    mt_sim_spec spec;
    mt_device_info info;
    mt_sim_engine *eng;
    int batches; /* run so far, for the fail_after_batches test hook */
    mt_backend_ops ops; /* one of the tables below, with the spec's optional kinds */
} sim_impl;

static mt_err sim_get_info(mt_backend *b, mt_device_info *out, mt_errinfo *ei)
{
    (void)ei;
    sim_impl *s = b->impl;
    *out = s->info;
    /* As NVML's utilization sample would: the [tenant]'s processes are
     * busy when it was active in the latest batch. */
    int last = s->batches > 0 ? s->batches - 1 : 0;
    out->other_busy = mt_sim_tenant_active(&s->spec.tenant, last) ? s->spec.tenant.n_pids : 0;
    return MT_OK;
}

/* Experiment i of a together group: the whole group runs at its first
 * member (the results of all of them), the later members are then done. */
static mt_err run_group(sim_impl *s, const mt_experiment *exps, size_t n, size_t i,
                        mt_result *out, mt_errinfo *ei)
{
    size_t member[MT_SIM_MAX_TOGETHER];
    int m = 0;
    for (size_t k = 0; k < n; k++) {
        if (exps[k].together != exps[i].together)
            continue;
        if (k < i)
            return MT_OK; /* run with its group's first member */
        if (m == MT_SIM_MAX_TOGETHER)
            return mt_fail(ei, MT_ERR_UNSUPPORTED,
                           "together group %d has more than %d experiments", exps[i].together,
                           MT_SIM_MAX_TOGETHER);
        member[m++] = k;
    }
    return mt_sim_engine_run_together(s->eng, exps, member, m, out, ei);
}

static mt_err sim_run_batch(mt_backend *b, const mt_experiment *exps, size_t n, mt_result *out,
                            mt_errinfo *ei)
{
    sim_impl *s = b->impl;
    if (n && (!exps || !out))
        return mt_fail(ei, MT_ERR_INVALID_ARG, "run_batch: NULL experiments or results");
    /* Check everything first so a bad experiment late in the batch does not
     * waste the simulation of the ones before it. */
    for (size_t i = 0; i < n; i++) {
        mt_errinfo sub;
        mt_err err = mt_experiment_check(&exps[i], &s->info, &sub);
        if (err)
            return mt_fail(ei, err, "experiment %zu: %s", i, sub.msg);
    }
    mt_err cerr = mt_batch_check_together(exps, n, &s->info, ei);
    if (cerr)
        return cerr;
    memset(out, 0, n * sizeof *out); /* the cleanup below frees any of them */
    /* Test hook: a simulated device fault, so the handling of a GPU failure
     * mid-run (partial reports, exit code) can be tested without a GPU. */
    if (s->spec.fail_after_batches > 0 && s->batches >= s->spec.fail_after_batches)
        return mt_fail(ei, MT_ERR_DEVICE,
                       "simulated device fault after %d batches (fail_after_batches in %s)",
                       s->batches, s->spec.source[0] ? s->spec.source : "the spec");
    /* The [tenant] follows the batch counter (docs/spec-format.md). */
    mt_sim_engine_set_tenant(s->eng, mt_sim_tenant_active(&s->spec.tenant, s->batches));
    s->batches++;
    for (size_t i = 0; i < n; i++) {
        mt_errinfo sub;
        mt_err err;
        if (exps[i].kind == MT_KIND_STREAM) {
            mt_rng rng = {.s = mt_sim_experiment_seed(s->spec.seed, &exps[i])};
            err = mt_sim_stream_run(&s->spec, &exps[i], &rng, &out[i], &sub);
        } else if (exps[i].kind == MT_KIND_CLUSTER) {
            mt_rng rng = {.s = mt_sim_experiment_seed(s->spec.seed, &exps[i])};
            err = mt_sim_cluster_run(&s->spec, &exps[i], &rng, &out[i], &sub);
        } else if (exps[i].kind == MT_KIND_ICACHE) {
            mt_rng rng = {.s = mt_sim_experiment_seed(s->spec.seed, &exps[i])};
            memset(&out[i], 0, sizeof out[i]);
            err = mt_sim_icache_run(&s->spec, &exps[i], &rng, &out[i], &sub);
            if (err)
                mt_result_free(&out[i]);
        } else if (exps[i].kind == MT_KIND_LINK) {
            mt_rng rng = {.s = mt_sim_experiment_seed(s->spec.seed, &exps[i])};
            memset(&out[i], 0, sizeof out[i]);
            err = mt_sim_link_run(&s->spec, &exps[i], &rng, &out[i], &sub);
            if (err)
                mt_result_free(&out[i]);
        } else if (exps[i].together) {
            err = run_group(s, exps, n, i, out, &sub);
        } else {
            err = mt_sim_engine_run(s->eng, &exps[i], &out[i], &sub);
        }
        if (err) {
            /* Every result so far: a together group fills members after i. */
            for (size_t k = 0; k < n; k++)
                if (k != i)
                    mt_result_free(&out[k]);
            return mt_fail(ei, err, "experiment %zu: %s", i, sub.msg);
        }
    }
    /* Test hook: a signal arriving while a batch runs (its results are
     * still returned), so interruption is testable deterministically. */
    if (s->spec.signal_after_batches > 0 && s->batches == s->spec.signal_after_batches)
        raise(s->spec.signal_number);
    return MT_OK;
}

static void sim_destroy(mt_backend *b)
{
    sim_impl *s = b->impl;
    if (s)
        mt_sim_engine_free(s->eng);
    free(s);
    free(b);
}

static const mt_backend_ops sim_ops = {
    .api_version = MT_BACKEND_API_VERSION,
    .name = "sim",
    .caps = MT_CAP_CHASE | MT_CAP_SEQUENCE | MT_CAP_CLOCK | MT_CAP_BANKS | MT_CAP_ACCESS | MT_CAP_EVICT |
            MT_CAP_CARVEOUT | MT_CAP_TOGETHER,
    .get_info = sim_get_info,
    .run_batch = sim_run_batch,
    .destroy = sim_destroy,
};
/* A spec with a [throughput] section also streams (balanced reads
 * included: the model's SMs are all served alike, so handing the repeats
 * out on demand takes the time a static split takes, stream_model.c). */
static const mt_backend_ops sim_ops_stream = {
    .api_version = MT_BACKEND_API_VERSION,
    .name = "sim",
    .caps = MT_CAP_CHASE | MT_CAP_SEQUENCE | MT_CAP_CLOCK | MT_CAP_CARVEOUT | MT_CAP_STREAM |
            MT_CAP_STREAM_CHASE | MT_CAP_STREAM_SHARED_DATA | MT_CAP_STREAM_BALANCED | MT_CAP_BANKS |
            MT_CAP_ACCESS | MT_CAP_EVICT | MT_CAP_TOGETHER,
    .get_info = sim_get_info,
    .run_batch = sim_run_batch,
    .destroy = sim_destroy,
};

mt_err mt_backend_sim_from_spec(const mt_sim_spec *spec, mt_backend **out, mt_errinfo *ei)
{
    *out = NULL;
    mt_backend *b = calloc(1, sizeof *b);
    sim_impl *s = calloc(1, sizeof *s);
    if (!b || !s) {
        free(b);
        free(s);
        return mt_fail(ei, MT_ERR_NOMEM, "out of memory for the sim backend");
    }
    s->spec = *spec;
    mt_sim_spec_device_info(&s->spec, &s->info);
    mt_err err = mt_sim_engine_new(&s->spec, &s->eng, ei);
    if (err) {
        free(b);
        free(s);
        return err;
    }
    s->ops = s->spec.tp.present ? sim_ops_stream : sim_ops;
    /* A spec with a [cluster] section also runs cluster experiments. */
    if (s->spec.cluster.present)
        s->ops.caps |= MT_CAP_CLUSTER;
    /* Spec with [icache] sections also runs icache experiments. */
    if (s->spec.n_icaches > 0)
        s->ops.caps |= MT_CAP_ICACHE;
    /* ... and one with [link N] or [host_link] sections link experiments. */
    if (mt_sim_has_links(&s->spec))
        s->ops.caps |= MT_CAP_LINK;
    b->ops = &s->ops;
    b->impl = s;
    *out = b;
    return MT_OK;
}

mt_err mt_backend_sim_open(const char *preset_or_file, int has_seed, uint64_t seed_override,
                           mt_backend **out, mt_errinfo *ei)
{
    *out = NULL;
    mt_sim_spec *spec = malloc(sizeof *spec);
    if (!spec)
        return mt_fail(ei, MT_ERR_NOMEM, "out of memory for a sim spec");
    mt_err err = mt_sim_spec_load(preset_or_file, spec, ei);
    if (!err) {
        if (has_seed)
            spec->seed = seed_override;
        err = mt_backend_sim_from_spec(spec, out, ei);
    }
    free(spec);
    return err;
}

mt_err mt_backend_sim_open_text(const char *text, const char *fname, mt_backend **out,
                                mt_errinfo *ei)
{
    *out = NULL;
    mt_sim_spec *spec = malloc(sizeof *spec);
    if (!spec)
        return mt_fail(ei, MT_ERR_NOMEM, "out of memory for a sim spec");
    mt_err err = mt_sim_spec_parse(text, fname, spec, ei);
    if (!err)
        err = mt_backend_sim_from_spec(spec, out, ei);
    free(spec);
    return err;
}

static mt_err sim_registry_open(const mt_backend_args *a, mt_backend **out, mt_errinfo *ei)
{
    *out = NULL;
    if (!a->target || !a->target[0])
        return mt_fail(ei, MT_ERR_INVALID_ARG, "the sim backend needs a preset name or a spec file");
    return mt_backend_sim_open(a->target, a->has_seed, a->seed, out, ei);
}

/* The registry entry (backend.h; collected by tools/gen_registry.sh). */
const mt_backend_entry mt_backend_entry_sim = { "sim", "a simulated GPU from a preset or a spec file (docs/spec-format.md)", sim_registry_open, NULL };

const mt_sim_spec *mt_backend_sim_spec(const mt_backend *b)
{
    /* A sim backend's table is its own copy (sim_impl.ops): known by its
     * run_batch. */
    if (!b || !b->ops || b->ops->run_batch != sim_run_batch)
        return NULL;
    return &((const sim_impl *)b->impl)->spec;
}

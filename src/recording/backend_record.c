/* The record wrapper: forwards everything to an inner backend and keeps a
 * copy of every experiment and result, written to a directory by
 * mt_record_flush (format in recording.h) so the run can be replayed.
 * --record and --raw both use it: the manifest it writes is what makes a
 * raw directory replayable too. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "../core/text.h"
#include "../report/atomic_dir.h"
#include "../report/atomic_file.h"
#include "../topology/device_json.h"
#include "csv_write.h"
#include "recording.h"

typedef struct {
    mt_backend_ops ops;   /* the inner backend's api_version and caps */
    mt_backend *inner;
    char *dir;
    mt_device_info dev;
    int have_dev;
    mt_experiment *exps;
    mt_result *res;
    unsigned *batch;
    size_t n, cap;
    unsigned n_batches;   /* run_batch calls so far, failed ones included */
    int dirty;            /* something to write since the last flush */
    char tool_version[32];
    char command_line[512];
    char time_utc[32];
    /* mt_record_set_probes: the list, and why it cannot be written (a
     * name too long, too many names), reported by the next flush. */
    int have_probes;
    size_t n_probes;
    char probes[MT_RECORDING_MAX_PROBES][MT_RECORDING_PROBE_NAME];
    char probes_error[200];
    char interrupted[16]; /* the signal's name when the run was interrupted */
} record_impl;

static void rec_destroy(mt_backend *b);

static record_impl *impl_of(const mt_backend *b)
{
    return (b && b->ops && b->ops->destroy == rec_destroy) ? (record_impl *)b->impl : NULL;
}

static mt_err rec_get_info(mt_backend *b, mt_device_info *out, mt_errinfo *ei)
{
    record_impl *r = b->impl;
    mt_err e = mt_backend_info(r->inner, out, ei);
    if (!e) {
        r->dev = *out;
        r->have_dev = 1;
    }
    return e;
}

static mt_err grow(record_impl *r, size_t need, mt_errinfo *ei)
{
    if (need <= r->cap)
        return MT_OK;
    size_t cap = r->cap ? r->cap : 64;
    while (cap < need)
        cap *= 2;
    mt_experiment *x = realloc(r->exps, cap * sizeof *x);
    if (x)
        r->exps = x;
    mt_result *y = x ? realloc(r->res, cap * sizeof *y) : NULL;
    if (y)
        r->res = y;
    unsigned *z = y ? realloc(r->batch, cap * sizeof *z) : NULL;
    if (z)
        r->batch = z;
    if (!z)
        return mt_fail(ei, MT_ERR_NOMEM, "record: out of memory keeping %zu experiments", need);
    r->cap = cap;
    return MT_OK;
}

/* Deep copy of one result's samples for the experiment's chains. */
static mt_err copy_result(const mt_experiment *x, const mt_result *src, mt_result *dst,
                          mt_errinfo *ei)
{
    memset(dst, 0, sizeof *dst);
    dst->sm_ran = src->sm_ran;
    for (int c = 0; c < x->n_chains && c < MT_MAX_CHAINS; c++) {
        dst->n[c] = src->n[c];
        if (!src->n[c])
            continue;
        dst->cycles[c] = malloc(src->n[c] * sizeof(uint32_t));
        if (!dst->cycles[c]) {
            mt_result_free(dst);
            return mt_fail(ei, MT_ERR_NOMEM, "record: out of memory copying %u samples",
                           src->n[c]);
        }
        memcpy(dst->cycles[c], src->cycles[c], src->n[c] * sizeof(uint32_t));
    }
    return MT_OK;
}

/* Frees what a kept experiment owns (a sequence's index copy). */
static void exp_release(mt_experiment *x)
{
    if (mt_kind_has_index_list(x->kind)) {
        free((void *)x->u.seq.index);
        x->u.seq.index = NULL;
    }
}

/* A canonical copy of an experiment that owns its sequence indices.  The
 * union is cleared beyond the kind's own member and unused chain slots are
 * zeroed (they may hold anything in the caller's copy). */
static mt_err copy_experiment(const mt_experiment *src, mt_experiment *dst, mt_errinfo *ei)
{
    *dst = *src;
    memset(&dst->u, 0, sizeof dst->u);
    for (int c = src->n_chains; c < MT_MAX_CHAINS; c++)
        if (c >= 0)
            memset(&dst->chain[c], 0, sizeof dst->chain[c]);
    if (src->kind == MT_KIND_CLOCK)
        dst->u.clock = src->u.clock;
    if (src->kind == MT_KIND_STREAM)
        dst->u.stream = src->u.stream;
    if (src->kind == MT_KIND_BANKS || src->kind == MT_KIND_ACCESS) /* both an mt_banks */
        dst->u.banks = src->u.banks;
    if (src->kind == MT_KIND_CLUSTER)
        dst->u.cluster = src->u.cluster;
    if (src->kind == MT_KIND_ICACHE)
        dst->u.icache = src->u.icache;
    if (src->kind == MT_KIND_LINK)
        dst->u.link = src->u.link;
    if (!mt_kind_has_index_list(src->kind))
        return MT_OK;
    dst->u.seq = src->u.seq;
    dst->u.seq.index = NULL;
    if (src->u.seq.n == 0)
        return MT_OK;
    uint32_t *idx = malloc((size_t)src->u.seq.n * sizeof *idx);
    if (!idx)
        return mt_fail(ei, MT_ERR_NOMEM, "record: out of memory copying a %u-entry sequence",
                       src->u.seq.n);
    memcpy(idx, src->u.seq.index, (size_t)src->u.seq.n * sizeof *idx);
    dst->u.seq.index = idx;
    return MT_OK;
}

static mt_err rec_run_batch(mt_backend *b, const mt_experiment *exps, size_t n, mt_result *out,
                            mt_errinfo *ei)
{
    record_impl *r = b->impl;
    /* Refuse what could not be written before measuring it: a recording
     * must hold everything the run measured. */
    for (size_t i = 0; i < n; i++)
        if (!mt_recording_stores_kind(exps[i].kind))
            return mt_fail(ei, MT_ERR_UNSUPPORTED,
                           "record: experiment %zu of the batch is of kind %s, which recording "
                           "format %d cannot store",
                           i, mt_kind_name(exps[i].kind), MT_RECORD_FORMAT_VERSION);
    unsigned batch = r->n_batches++;
    r->dirty = 1;
    mt_err e = mt_backend_run(r->inner, exps, n, out, ei);
    if (e)
        return e; /* nothing of a failed batch is kept: it produced no results */
    e = grow(r, r->n + n, ei);
    size_t i = 0;
    for (; !e && i < n; i++) {
        mt_experiment *x = &r->exps[r->n + i];
        r->batch[r->n + i] = batch;
        e = copy_experiment(&exps[i], x, ei);
        if (!e) {
            e = copy_result(x, &out[i], &r->res[r->n + i], ei);
            if (e)
                exp_release(x);
        }
    }
    if (e) {
        /* Keep the recording consistent: drop this batch's partial copies,
         * and the caller's results, as a failed batch leaves nothing. */
        for (size_t k = 0; k + 1 < i; k++) {
            exp_release(&r->exps[r->n + k]);
            mt_result_free(&r->res[r->n + k]);
        }
        for (size_t k = 0; k < n; k++)
            mt_result_free(&out[k]);
        return e;
    }
    r->n += n;
    return MT_OK;
}

/* A JSON string; bytes that are not valid UTF-8 (a command line may hold
 * anything) become '?'. */
static json_t *text(const char *s)
{
    json_t *v = json_string(s);
    if (v)
        return v;
    char *copy = strdup(s);
    if (!copy)
        return NULL;
    for (char *p = copy; *p; p++)
        if ((unsigned char)*p >= 0x80)
            *p = '?';
    v = json_string(copy);
    free(copy);
    return v;
}

static json_t *manifest_json(const record_impl *r, size_t n_samples)
{
    json_t *m = json_object();
    json_t *dev = mt_device_to_json(&r->dev);
    json_t *prov = json_object();
    int bad = !m || !dev || !prov;
    bad = bad || json_object_set_new(m, "format", json_string(MT_RECORD_FORMAT));
    bad = bad || json_object_set_new(m, "format_version", json_integer(MT_RECORD_FORMAT_VERSION));
    if (!bad && r->tool_version[0])
        bad = json_object_set_new(prov, "tool_version", text(r->tool_version));
    if (!bad && r->command_line[0])
        bad = json_object_set_new(prov, "command_line", text(r->command_line));
    if (!bad && r->time_utc[0])
        bad = json_object_set_new(prov, "time_utc", text(r->time_utc));
    if (!bad) {
        bad = json_object_set_new(m, "provenance", prov);
        prov = NULL;
    }
    if (!bad) {
        bad = json_object_set_new(m, "device", dev);
        dev = NULL;
    }
    if (!bad && r->have_probes) {
        json_t *list = json_array();
        bad = !list || json_object_set_new(m, "probes", list);
        for (size_t i = 0; !bad && i < r->n_probes; i++)
            bad = json_array_append_new(list, json_string(r->probes[i]));
    }
    if (!bad && r->interrupted[0])
        bad = json_object_set_new(m, "interrupted", json_string(r->interrupted));
    bad = bad || json_object_set_new(m, "experiments", json_integer((json_int_t)r->n));
    bad = bad || json_object_set_new(m, "samples", json_integer((json_int_t)n_samples));
    bad = bad || json_object_set_new(m, "batches", json_integer(r->n_batches));
    json_decref(dev);
    json_decref(prov);
    if (bad) {
        json_decref(m);
        return NULL;
    }
    return m;
}

const char *const mt_recording_files[] = {MT_MANIFEST_JSON, MT_EXPERIMENTS_CSV, MT_SAMPLES_CSV,
                                          MT_SEQUENCES_CSV, NULL};

/* manifest.json in dir (the recording's temporary directory). */
static mt_err write_manifest(const record_impl *r, const char *dir, mt_errinfo *ei)
{
    size_t n_samples = 0;
    for (size_t i = 0; i < r->n; i++)
        for (int c = 0; c < r->exps[i].n_chains; c++)
            n_samples += r->res[i].n[c];
    json_t *m = manifest_json(r, n_samples);
    size_t plen = strlen(dir) + sizeof MT_MANIFEST_JSON + 1;
    char *path = m ? malloc(plen) : NULL;
    if (!path) {
        json_decref(m);
        return mt_fail(ei, MT_ERR_NOMEM, "%s/%s: out of memory encoding the manifest", r->dir,
                       MT_MANIFEST_JSON);
    }
    snprintf(path, plen, "%s/%s", dir, MT_MANIFEST_JSON);
    mt_atomic_file af;
    mt_err e = mt_atomic_open(&af, path, ei);
    if (!e) {
        errno = 0;
        if (json_dumpf(m, af.f, JSON_INDENT(2)) != 0 || fputc('\n', af.f) == EOF) {
            e = mt_fail(ei, MT_ERR_IO, "%s: cannot write: %s", af.path,
                        errno ? strerror(errno) : "stream error");
            mt_atomic_abort(&af);
        } else {
            e = mt_atomic_commit(&af, ei);
        }
    }
    json_decref(m);
    free(path);
    return e;
}

mt_err mt_record_flush(mt_backend *rec, mt_errinfo *ei)
{
    record_impl *r = impl_of(rec);
    if (!r)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "mt_record_flush: not a record backend");
    if (r->probes_error[0])
        return mt_fail(ei, MT_ERR_INVALID_ARG, "%s/%s: %s", r->dir, MT_MANIFEST_JSON,
                       r->probes_error);
    if (!r->have_dev) {
        mt_device_info d;
        mt_err e = rec_get_info(rec, &d, ei);
        if (e)
            return e;
    }
    /* The whole recording is written into a temporary sibling directory
     * and renamed into place (atomic_dir.h): a failed or killed flush
     * leaves the previous state (nothing, or the previous recording). */
    char *parent = mt_parent_dir(r->dir), *tmp = NULL;
    mt_err e = parent ? mt_mkdir_p(parent, ei) : mt_fail(ei, MT_ERR_NOMEM, "record: out of memory");
    free(parent);
    if (!e)
        e = mt_dir_check_replaceable(r->dir, mt_recording_files, ei);
    if (!e)
        e = mt_dir_tmp_create(r->dir, &tmp, ei);
    if (!e)
        e = mt_raw_csv_write(tmp, r->exps, r->res, r->n, r->batch, ei);
    if (!e)
        e = write_manifest(r, tmp, ei);
    if (!e)
        e = mt_dir_install(tmp, r->dir, mt_recording_files, ei);
    if (e && tmp)
        mt_dir_remove(tmp);
    free(tmp);
    if (!e)
        r->dirty = 0;
    return e;
}

static void rec_destroy(mt_backend *b)
{
    record_impl *r = b->impl;
    if (r->dirty) {
        /* Best effort: destroy cannot report; callers wanting the error
         * call mt_record_flush first. */
        mt_errinfo ignored;
        (void)mt_record_flush(b, &ignored);
    }
    for (size_t i = 0; i < r->n; i++) {
        exp_release(&r->exps[i]);
        mt_result_free(&r->res[i]);
    }
    free(r->exps);
    free(r->res);
    free(r->batch);
    free(r->dir);
    mt_backend_destroy(r->inner);
    free(r);
    free(b);
}

mt_err mt_backend_record_wrap(mt_backend *inner, const char *dir, mt_backend **out,
                              mt_errinfo *ei)
{
    *out = NULL;
    /* On failure the caller keeps inner (and destroys it as usual). */
    if (!inner || !dir || !dir[0])
        return mt_fail(ei, MT_ERR_INVALID_ARG, "record: no inner backend or no directory");
    mt_backend *b = calloc(1, sizeof *b);
    record_impl *r = calloc(1, sizeof *r);
    char *d = strdup(dir);
    if (!b || !r || !d) {
        free(b);
        free(r);
        free(d);
        return mt_fail(ei, MT_ERR_NOMEM, "record: out of memory");
    }
    /* Fail now, not at the end of a long run, when DIR is in the way (a
     * file, or a directory holding files that are not a recording's).
     * Nothing is created before the flush. */
    mt_err e = mt_dir_check_replaceable(d, mt_recording_files, ei);
    if (e) {
        free(b);
        free(r);
        free(d);
        return e;
    }
    /* The wrapper runs what the inner backend runs: same interface version
     * and capabilities (run_batch refuses kinds the format cannot store). */
    r->ops = (mt_backend_ops){
        .api_version = inner->ops->api_version,
        .name = "record",
        .caps = inner->ops->caps,
        .get_info = rec_get_info,
        .run_batch = rec_run_batch,
        .destroy = rec_destroy,
    };
    r->inner = inner;
    r->dir = d;
    r->dirty = 1; /* even a run with no batch leaves a (device-only) recording */
    b->ops = &r->ops;
    b->impl = r;
    *out = b;
    return MT_OK;
}

void mt_record_set_provenance(mt_backend *rec, const char *tool_version,
                              const char *command_line, const char *time_utc)
{
    record_impl *r = impl_of(rec);
    if (!r)
        return;
    if (tool_version)
        snprintf(r->tool_version, sizeof r->tool_version, "%s", tool_version);
    if (command_line)
        snprintf(r->command_line, sizeof r->command_line, "%s", command_line);
    if (time_utc)
        snprintf(r->time_utc, sizeof r->time_utc, "%s", time_utc);
    r->dirty = 1;
}

void mt_record_discard(mt_backend *rec)
{
    record_impl *r = impl_of(rec);
    if (!r)
        return;
    for (size_t i = 0; i < r->n; i++) {
        exp_release(&r->exps[i]);
        mt_result_free(&r->res[i]);
    }
    r->n = 0;
    r->dirty = 0;
}

void mt_record_set_probes(mt_backend *rec, const char *const *names, size_t n)
{
    record_impl *r = impl_of(rec);
    if (!r)
        return;
    r->have_probes = 1;
    r->n_probes = 0;
    r->probes_error[0] = '\0';
    r->dirty = 1;
    if (n > MT_RECORDING_MAX_PROBES) {
        snprintf(r->probes_error, sizeof r->probes_error,
                 "%zu probes, more than a recording lists (%d)", n, MT_RECORDING_MAX_PROBES);
    } else {
        for (size_t i = 0; i < n && !r->probes_error[0]; i++) {
            const char *s = names && names[i] ? names[i] : "";
            size_t len = strlen(s);
            int ok = len > 0 && len < MT_RECORDING_PROBE_NAME;
            for (size_t k = 0; ok && k < len; k++)
                ok = s[k] > ' ' && s[k] < 0x7f;
            if (!ok)
                snprintf(r->probes_error, sizeof r->probes_error,
                         "probe name \"%.40s\" is not 1-%d printable ASCII characters", s,
                         MT_RECORDING_PROBE_NAME - 1);
            else
                memcpy(r->probes[r->n_probes++], s, len + 1);
        }
    }
    /* --record over --raw: the inner recording lists the same probes. */
    mt_record_set_probes(r->inner, names, n);
}

size_t mt_record_count(const mt_backend *rec)
{
    const record_impl *r = impl_of(rec);
    return r ? r->n : 0;
}

void mt_record_set_interrupted(mt_backend *rec, int sig)
{
    record_impl *r = impl_of(rec);
    if (!r)
        return;
    snprintf(r->interrupted, sizeof r->interrupted, "%s", mt_signal_name(sig));
    r->dirty = 1;
    mt_record_set_interrupted(r->inner, sig); /* --record over --raw */
}

/* The replay backend: answers experiments from a directory written by the
 * record wrapper (format in record.h), so a GPU run can be re-analysed
 * anywhere.  Everything is validated on open; a request is answered by the
 * first not-yet-used recorded experiment with exactly the same parameters
 * (so repeats of one experiment are served in recorded order). */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "../report/device_json.h"
#include "../report/raw_csv.h"
#include "csv_read.h"
#include "record.h"

#define NO_INDEX SIZE_MAX

typedef struct {
    mt_device_info dev;
    mt_recording_info info;
    mt_experiment *exps;
    mt_result *res;
    size_t n, cap;
    unsigned char *used;
    /* Hash index: head[bucket] -> first experiment, next[i] -> following
     * experiment in the same bucket, ascending (recorded) order. */
    size_t *head, *next;
    size_t n_buckets;
} replay_impl;

static const mt_backend_ops replay_ops;

/* ---------- experiment identity ---------- */

static int exp_equal(const mt_experiment *a, const mt_experiment *b)
{
    if (a->n_chains != b->n_chains || a->order != b->order || a->order_seed != b->order_seed ||
        a->warmup_laps != b->warmup_laps || a->loads != b->loads || a->mode != b->mode ||
        a->sm != b->sm || a->exclusive != b->exclusive)
        return 0;
    for (int c = 0; c < a->n_chains && c < MT_MAX_CHAINS; c++) {
        const mt_chain *x = &a->chain[c], *y = &b->chain[c];
        if (x->thread != y->thread || x->path != y->path || x->footprint != y->footprint ||
            x->stride != y->stride || x->offset != y->offset)
            return 0;
    }
    return 1;
}

static uint64_t exp_hash(const mt_experiment *e)
{
    return mt_experiment_hash(0, e);
}

/* "n_chains=1 [thread=0 path=ca footprint=4096 stride=64 offset=0] ..." */
static void describe(const mt_experiment *e, char *buf, size_t n)
{
    size_t len = 0;
#define PUT(...)                                                                                  \
    do {                                                                                          \
        int w_ = snprintf(buf + len, len < n ? n - len : 0, __VA_ARGS__);                         \
        if (w_ > 0)                                                                               \
            len += (size_t)w_;                                                                    \
    } while (0)
    PUT("n_chains=%d", e->n_chains);
    for (int c = 0; c < e->n_chains && c < MT_MAX_CHAINS; c++)
        PUT(" [thread=%d path=%s footprint=%llu stride=%u offset=%llu]", e->chain[c].thread,
            mt_path_name(e->chain[c].path), (unsigned long long)e->chain[c].footprint,
            e->chain[c].stride, (unsigned long long)e->chain[c].offset);
    PUT(" order=%s seed=%u warmup_laps=%u loads=%u mode=%s sm=%d exclusive=%d",
        mt_order_name(e->order), e->order_seed, e->warmup_laps, e->loads, mt_mode_name(e->mode),
        e->sm, e->exclusive);
#undef PUT
}

/* ---------- loading ---------- */

static char *join(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s/%s", dir, name);
    return p;
}

static mt_err json_count(const json_t *m, const char *key, const char *path, size_t *out,
                         mt_errinfo *ei)
{
    const json_t *v = json_object_get(m, key);
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        return mt_fail(ei, MT_ERR_REPLAY, "%s: \"%s\" missing or not a count", path, key);
    *out = (size_t)json_integer_value(v);
    return MT_OK;
}

static mt_err json_opt_str(const json_t *obj, const char *key, char *dst, size_t size,
                           const char *path, mt_errinfo *ei)
{
    const json_t *v = json_object_get(obj, key);
    if (!v)
        return MT_OK;
    if (!json_is_string(v) || json_string_length(v) >= size)
        return mt_fail(ei, MT_ERR_REPLAY, "%s: provenance \"%s\" is not a string of < %zu bytes",
                       path, key, size);
    memcpy(dst, json_string_value(v), json_string_length(v) + 1);
    return MT_OK;
}

static mt_err load_manifest(replay_impl *r, const char *dir, size_t *n_exps, size_t *n_samples,
                            mt_errinfo *ei)
{
    char *path = join(dir, MT_MANIFEST_JSON);
    if (!path)
        return mt_fail(ei, MT_ERR_NOMEM, "replay: out of memory");
    mt_err e = MT_OK;
    json_t *m = NULL;
    FILE *f = fopen(path, "r");
    if (!f) {
        e = mt_fail(ei, MT_ERR_REPLAY, "%s: cannot open: %s", path, strerror(errno));
        goto out;
    }
    json_error_t je;
    m = json_loadf(f, JSON_REJECT_DUPLICATES, &je);
    fclose(f);
    if (!m) {
        e = mt_fail(ei, MT_ERR_REPLAY, "%s:%d: not valid JSON: %s", path, je.line, je.text);
        goto out;
    }
    const json_t *fmt = json_object_get(m, "format");
    if (!json_is_string(fmt) || strcmp(json_string_value(fmt), MT_RECORD_FORMAT) != 0) {
        e = mt_fail(ei, MT_ERR_REPLAY, "%s: \"format\" is not \"%s\"", path, MT_RECORD_FORMAT);
        goto out;
    }
    const json_t *ver = json_object_get(m, "format_version");
    if (!json_is_integer(ver) || json_integer_value(ver) != MT_RECORD_FORMAT_VERSION) {
        e = mt_fail(ei, MT_ERR_REPLAY, "%s: unsupported format_version (this memtopo reads %d)",
                    path, MT_RECORD_FORMAT_VERSION);
        goto out;
    }
    char ctx[300];
    snprintf(ctx, sizeof ctx, "%s: device", path);
    if (mt_device_from_json(json_object_get(m, "device"), &r->dev, ctx, ei) != MT_OK) {
        e = MT_ERR_REPLAY; /* the message from the device reader stands */
        goto out;
    }
    const json_t *prov = json_object_get(m, "provenance");
    if (prov && !json_is_object(prov)) {
        e = mt_fail(ei, MT_ERR_REPLAY, "%s: \"provenance\" is not an object", path);
        goto out;
    }
    if (prov) {
        e = json_opt_str(prov, "tool_version", r->info.tool_version, sizeof r->info.tool_version,
                         path, ei);
        if (!e)
            e = json_opt_str(prov, "command_line", r->info.command_line,
                             sizeof r->info.command_line, path, ei);
        if (!e)
            e = json_opt_str(prov, "time_utc", r->info.time_utc, sizeof r->info.time_utc, path,
                             ei);
        if (e)
            goto out;
    }
    size_t batches;
    e = json_count(m, "experiments", path, n_exps, ei);
    if (!e)
        e = json_count(m, "samples", path, n_samples, ei);
    if (!e)
        e = json_count(m, "batches", path, &batches, ei);
    if (!e && batches > UINT_MAX)
        e = mt_fail(ei, MT_ERR_REPLAY, "%s: \"batches\" out of range", path);
    if (!e)
        r->info.n_batches = (unsigned)batches;
out:
    json_decref(m);
    free(path);
    return e;
}

static mt_err grow(replay_impl *r, mt_errinfo *ei)
{
    if (r->n < r->cap)
        return MT_OK;
    size_t cap = r->cap ? 2 * r->cap : 256;
    mt_experiment *x = realloc(r->exps, cap * sizeof *x);
    if (x)
        r->exps = x;
    mt_result *y = x ? realloc(r->res, cap * sizeof *y) : NULL;
    if (!y)
        return mt_fail(ei, MT_ERR_NOMEM, "replay: out of memory for %zu experiments", cap);
    r->res = y;
    memset(r->res + r->cap, 0, (cap - r->cap) * sizeof *y);
    r->cap = cap;
    return MT_OK;
}

/* Experiment columns of experiments.csv (MT_EXPERIMENTS_CSV_HEADER). */
enum {
    C_ID, C_BATCH, C_NCHAINS, C_CHAIN, C_THREAD, C_PATH, C_FOOTPRINT, C_STRIDE, C_OFFSET, C_ORDER,
    C_SEED, C_WARMUP, C_LOADS, C_MODE, C_SM, C_EXCLUSIVE, C_SMRAN, C_COUNT
};

/* Parses one row into x (experiment fields and chain `*chain`). */
static mt_err parse_row(const mt_csv *c, uint64_t *id, int64_t *batch, int *chain,
                        mt_experiment *x, int *sm_ran, mt_errinfo *ei)
{
    mt_err e = mt_csv_expect_fields(c, C_COUNT, ei);
    int64_t v, nch, ch;
    uint64_t u;
    if (!e)
        e = mt_csv_u64(c, C_ID, "id", id, ei);
    if (!e)
        e = mt_csv_int(c, C_BATCH, "batch", 0, UINT32_MAX, batch, ei);
    if (!e)
        e = mt_csv_int(c, C_NCHAINS, "n_chains", 1, MT_MAX_CHAINS, &nch, ei);
    if (!e)
        e = mt_csv_int(c, C_CHAIN, "chain", 0, nch - 1, &ch, ei);
    if (e)
        return e;
    x->n_chains = (int)nch;
    *chain = (int)ch;
    mt_chain *k = &x->chain[ch];
    if ((e = mt_csv_int(c, C_THREAD, "thread", 0, INT_MAX, &v, ei)))
        return e;
    k->thread = (int)v;
    mt_path p;
    if (mt_path_from_name(c->field[C_PATH], &p) != 0)
        return mt_csv_fail(c, ei, "unknown path \"%s\" (ca, cg, nc, tex, const, shared, none)",
                           c->field[C_PATH]);
    k->path = p;
    if ((e = mt_csv_u64(c, C_FOOTPRINT, "footprint", &u, ei)))
        return e;
    k->footprint = u;
    if ((e = mt_csv_int(c, C_STRIDE, "stride", 0, UINT32_MAX, &v, ei)))
        return e;
    k->stride = (uint32_t)v;
    if ((e = mt_csv_u64(c, C_OFFSET, "offset", &u, ei)))
        return e;
    k->offset = u;
    mt_order o;
    if (mt_order_from_name(c->field[C_ORDER], &o) != 0)
        return mt_csv_fail(c, ei, "unknown order \"%s\" (sequential, random)", c->field[C_ORDER]);
    x->order = o;
    if ((e = mt_csv_int(c, C_SEED, "order_seed", 0, UINT32_MAX, &v, ei)))
        return e;
    x->order_seed = (uint32_t)v;
    if ((e = mt_csv_int(c, C_WARMUP, "warmup_laps", 0, UINT32_MAX, &v, ei)))
        return e;
    x->warmup_laps = (uint32_t)v;
    if ((e = mt_csv_int(c, C_LOADS, "loads", 0, UINT32_MAX, &v, ei)))
        return e;
    x->loads = (uint32_t)v;
    mt_mode m;
    if (mt_mode_from_name(c->field[C_MODE], &m) != 0)
        return mt_csv_fail(c, ei, "unknown mode \"%s\" (fine, aggregate)", c->field[C_MODE]);
    x->mode = m;
    if ((e = mt_csv_int(c, C_SM, "sm", -1, INT_MAX, &v, ei)))
        return e;
    x->sm = (int)v;
    if ((e = mt_csv_int(c, C_EXCLUSIVE, "exclusive", 0, 1, &v, ei)))
        return e;
    x->exclusive = (int)v;
    if ((e = mt_csv_int(c, C_SMRAN, "sm_ran", -1, INT_MAX, &v, ei)))
        return e;
    *sm_ran = (int)v;
    return MT_OK;
}

static mt_err load_experiments(replay_impl *r, const char *path, mt_errinfo *ei)
{
    mt_csv c;
    mt_err e = mt_csv_open(&c, path, ei);
    if (e)
        return e;
    e = mt_csv_expect_header(&c, MT_EXPERIMENTS_CSV_HEADER, ei);
    int next_chain = 0;    /* chain expected in the next row of experiment r->n */
    int64_t first_batch = 0; /* batch of the experiment in progress */
    int first_sm_ran = -1;
    mt_experiment cur;
    memset(&cur, 0, sizeof cur);
    while (!e) {
        int got = mt_csv_next(&c, &e, ei);
        if (got <= 0)
            break;
        uint64_t id = 0;
        int64_t batch = 0;
        int chain = 0, sm_ran = -1;
        mt_experiment x;
        memset(&x, 0, sizeof x);
        if ((e = parse_row(&c, &id, &batch, &chain, &x, &sm_ran, ei)))
            break;
        if (id != r->n || chain != next_chain) {
            e = mt_csv_fail(&c, ei, "experiment %llu chain %d out of sequence (expected "
                            "experiment %zu chain %d)", (unsigned long long)id, chain, r->n,
                            next_chain);
            break;
        }
        if (chain == 0) {
            cur = x;
            first_batch = batch;
            first_sm_ran = sm_ran;
        } else {
            /* Experiment-level columns repeat on every chain row and must agree. */
            mt_experiment y = cur;
            y.chain[chain] = x.chain[chain];
            x.chain[0] = cur.chain[0];
            if (!exp_equal(&x, &y) || batch != first_batch || sm_ran != first_sm_ran) {
                e = mt_csv_fail(&c, ei, "experiment %zu: chain %d row disagrees with chain 0 on "
                                "an experiment-level column", r->n, chain);
                break;
            }
            cur.chain[chain] = x.chain[chain];
        }
        if (chain + 1 < cur.n_chains) {
            next_chain = chain + 1;
            continue;
        }
        /* Experiment complete: it must be one a backend would accept. */
        mt_errinfo why;
        if (mt_experiment_check(&cur, &r->dev, &why) != MT_OK) {
            e = mt_csv_fail(&c, ei, "experiment %zu invalid for the recorded device: %s", r->n,
                            why.msg);
            break;
        }
        if ((e = grow(r, ei)))
            break;
        r->exps[r->n] = cur;
        r->res[r->n].sm_ran = first_sm_ran;
        r->n++;
        next_chain = 0;
    }
    if (!e && next_chain != 0)
        e = mt_csv_fail(&c, ei, "file ends inside experiment %zu (chain %d missing)", r->n,
                        next_chain);
    mt_csv_close(&c);
    return e;
}

static uint32_t expected_samples(const mt_experiment *x)
{
    return x->mode == MT_MODE_FINE ? x->loads : 1;
}

static mt_err load_samples(replay_impl *r, const char *path, mt_errinfo *ei)
{
    mt_csv c;
    mt_err e = mt_csv_open(&c, path, ei);
    if (e)
        return e;
    e = mt_csv_expect_header(&c, MT_SAMPLES_CSV_HEADER, ei);
    size_t ex = 0;   /* cursor: experiment, chain, samples read for it */
    int ch = 0;
    uint32_t k = 0, cap = 0;
    while (!e) {
        int got = mt_csv_next(&c, &e, ei);
        if (got <= 0)
            break;
        uint64_t re, ri;
        int64_t rc, cy;
        if ((e = mt_csv_expect_fields(&c, 4, ei)) || (e = mt_csv_u64(&c, 0, "experiment", &re, ei)) ||
            (e = mt_csv_int(&c, 1, "chain", 0, MT_MAX_CHAINS - 1, &rc, ei)) ||
            (e = mt_csv_u64(&c, 2, "index", &ri, ei)) ||
            (e = mt_csv_int(&c, 3, "cycles", 0, UINT32_MAX, &cy, ei)))
            break;
        if (ex < r->n && k == expected_samples(&r->exps[ex])) { /* (ex, ch) complete */
            k = cap = 0;
            if (++ch == r->exps[ex].n_chains) {
                ch = 0;
                ex++;
            }
        }
        if (ex >= r->n) {
            e = mt_csv_fail(&c, ei, "sample of experiment %llu chain %d beyond the %zu "
                            "experiments (and their sample counts) in %s",
                            (unsigned long long)re, (int)rc, r->n, MT_EXPERIMENTS_CSV);
            break;
        }
        const mt_experiment *x = &r->exps[ex];
        if (re != ex || rc != ch) {
            if (k > 0)
                e = mt_csv_fail(&c, ei, "sample count mismatch: experiment %zu chain %d has %u "
                                "samples, expected %u (%s mode, loads=%u)", ex, ch, k,
                                expected_samples(x), mt_mode_name(x->mode), x->loads);
            else
                e = mt_csv_fail(&c, ei, "expected a sample of experiment %zu chain %d, found "
                                "experiment %llu chain %d", ex, ch, (unsigned long long)re,
                                (int)rc);
            break;
        }
        if (ri != k) {
            e = mt_csv_fail(&c, ei, "experiment %zu chain %d: index %llu, expected %u", ex, ch,
                            (unsigned long long)ri, k);
            break;
        }
        mt_result *res = &r->res[ex];
        if (k == cap) { /* grow by doubling: a garbled `loads` cannot force a huge allocation */
            uint32_t want = expected_samples(x);
            uint32_t ncap = cap ? (cap > want / 2 ? want : 2 * cap) : (want < 1024 ? want : 1024);
            uint32_t *p = realloc(res->cycles[ch], (size_t)ncap * sizeof *p);
            if (!p) {
                e = mt_fail(ei, MT_ERR_NOMEM, "replay: out of memory reading %s", path);
                break;
            }
            res->cycles[ch] = p;
            cap = ncap;
        }
        res->cycles[ch][k++] = (uint32_t)cy;
        res->n[ch] = k;
    }
    if (!e && r->n > 0) {
        /* Move past a completed (experiment, chain), as the loop does lazily. */
        if (k == expected_samples(&r->exps[ex]) &&
            !(ex == r->n - 1 && ch == r->exps[ex].n_chains - 1)) {
            k = 0;
            if (++ch == r->exps[ex].n_chains) {
                ch = 0;
                ex++;
            }
        }
        const mt_experiment *x = &r->exps[ex];
        if (k != expected_samples(x)) {
            c.line++; /* point past the last line: the end of the file */
            e = mt_csv_fail(&c, ei, "sample count mismatch: experiment %zu chain %d has %u "
                            "samples, expected %u (%s mode, loads=%u); the file ends there",
                            ex, ch, k, expected_samples(x), mt_mode_name(x->mode), x->loads);
        }
    }
    mt_csv_close(&c);
    return e;
}

static mt_err build_index(replay_impl *r, mt_errinfo *ei)
{
    size_t nb = 64;
    while (nb < 2 * r->n)
        nb *= 2;
    r->n_buckets = nb;
    r->head = malloc(nb * sizeof *r->head);
    r->next = malloc((r->n ? r->n : 1) * sizeof *r->next);
    r->used = calloc(r->n ? r->n : 1, 1);
    if (!r->head || !r->next || !r->used)
        return mt_fail(ei, MT_ERR_NOMEM, "replay: out of memory indexing %zu experiments", r->n);
    for (size_t b = 0; b < nb; b++)
        r->head[b] = NO_INDEX;
    /* Push in reverse so each bucket lists experiments in recorded order. */
    for (size_t i = r->n; i-- > 0;) {
        size_t b = (size_t)(exp_hash(&r->exps[i]) & (nb - 1));
        r->next[i] = r->head[b];
        r->head[b] = i;
    }
    return MT_OK;
}

static void impl_free(replay_impl *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->cap; i++)
        mt_result_free(&r->res[i]);
    free(r->exps);
    free(r->res);
    free(r->used);
    free(r->head);
    free(r->next);
    free(r);
}

/* ---------- backend ops ---------- */

static mt_err rp_get_info(mt_backend *b, mt_device_info *out, mt_errinfo *ei)
{
    (void)ei;
    *out = ((replay_impl *)b->impl)->dev;
    return MT_OK;
}

/* Index of the first unused recorded experiment equal to e, or NO_INDEX;
 * *n_equal counts all recorded ones with those parameters. */
static size_t lookup(const replay_impl *r, const mt_experiment *e, size_t *n_equal)
{
    size_t found = NO_INDEX;
    *n_equal = 0;
    for (size_t i = r->head[exp_hash(e) & (r->n_buckets - 1)]; i != NO_INDEX; i = r->next[i])
        if (exp_equal(&r->exps[i], e)) {
            ++*n_equal;
            if (found == NO_INDEX && !r->used[i])
                found = i;
        }
    return found;
}

static mt_err rp_run_batch(mt_backend *b, const mt_experiment *exps, size_t n, mt_result *out,
                           mt_errinfo *ei)
{
    replay_impl *r = b->impl;
    /* Same argument checks as a live backend, so a replay fails alike. */
    for (size_t i = 0; i < n; i++) {
        mt_err e = mt_experiment_check(&exps[i], &r->dev, ei);
        if (e)
            return e;
    }
    size_t *idx = malloc((n ? n : 1) * sizeof *idx);
    if (!idx)
        return mt_fail(ei, MT_ERR_NOMEM, "replay: out of memory");
    mt_err e = MT_OK;
    size_t i = 0;
    for (; i < n; i++) {
        size_t n_equal;
        idx[i] = lookup(r, &exps[i], &n_equal);
        if (idx[i] == NO_INDEX) {
            char d[320];
            describe(&exps[i], d, sizeof d);
            if (n_equal)
                e = mt_fail(ei, MT_ERR_REPLAY,
                            "replay of %s: experiment %zu of the batch (%s) was recorded only "
                            "%zu time(s), all already used",
                            r->info.dir, i, d, n_equal);
            else
                e = mt_fail(ei, MT_ERR_REPLAY,
                            "replay of %s: experiment %zu of the batch (%s) was not recorded",
                            r->info.dir, i, d);
            break;
        }
        r->used[idx[i]] = 1;
    }
    for (size_t k = 0; !e && k < n; k++) {
        const mt_result *src = &r->res[idx[k]];
        out[k].sm_ran = src->sm_ran;
        for (int c = 0; c < exps[k].n_chains && !e; c++) {
            out[k].n[c] = src->n[c];
            out[k].cycles[c] = malloc((size_t)src->n[c] * sizeof(uint32_t));
            if (!out[k].cycles[c])
                e = mt_fail(ei, MT_ERR_NOMEM, "replay: out of memory for %u samples", src->n[c]);
            else
                memcpy(out[k].cycles[c], src->cycles[c], (size_t)src->n[c] * sizeof(uint32_t));
        }
    }
    if (e) {
        /* A failed batch consumes nothing and leaves nothing to free. */
        for (size_t k = 0; k < i && k < n; k++)
            r->used[idx[k]] = 0;
        for (size_t k = 0; k < n; k++)
            mt_result_free(&out[k]);
    }
    free(idx);
    return e;
}

static void rp_destroy(mt_backend *b)
{
    impl_free(b->impl);
    free(b);
}

static const mt_backend_ops replay_ops = {
    .name = "replay",
    .get_info = rp_get_info,
    .run_batch = rp_run_batch,
    .destroy = rp_destroy,
};

mt_err mt_backend_replay_open(const char *dir, mt_backend **out, mt_errinfo *ei)
{
    *out = NULL;
    if (!dir || !dir[0])
        return mt_fail(ei, MT_ERR_INVALID_ARG, "replay: no directory given");
    replay_impl *r = calloc(1, sizeof *r);
    if (!r)
        return mt_fail(ei, MT_ERR_NOMEM, "replay: out of memory");
    snprintf(r->info.dir, sizeof r->info.dir, "%s", dir);
    size_t n_exps = 0, n_samples = 0;
    char *pe = join(dir, MT_EXPERIMENTS_CSV), *ps = join(dir, MT_SAMPLES_CSV);
    mt_err e = (!pe || !ps) ? mt_fail(ei, MT_ERR_NOMEM, "replay: out of memory") : MT_OK;
    if (!e)
        e = load_manifest(r, dir, &n_exps, &n_samples, ei);
    if (!e)
        e = load_experiments(r, pe, ei);
    if (!e && r->n != n_exps)
        e = mt_fail(ei, MT_ERR_REPLAY, "%s: %zu experiments, but %s/%s says %zu", pe, r->n, dir,
                    MT_MANIFEST_JSON, n_exps);
    if (!e)
        e = load_samples(r, ps, ei);
    if (!e) {
        size_t total = 0;
        for (size_t i = 0; i < r->n; i++)
            for (int c = 0; c < r->exps[i].n_chains; c++)
                total += r->res[i].n[c];
        if (total != n_samples)
            e = mt_fail(ei, MT_ERR_REPLAY, "%s: %zu samples, but %s/%s says %zu", ps, total, dir,
                        MT_MANIFEST_JSON, n_samples);
        r->info.n_samples = total;
    }
    if (!e)
        e = build_index(r, ei);
    free(pe);
    free(ps);
    if (e) {
        impl_free(r);
        return e;
    }
    r->info.n_experiments = r->n;
    snprintf(r->info.backend, sizeof r->info.backend, "%s", r->dev.backend);
    mt_backend *b = calloc(1, sizeof *b);
    if (!b) {
        impl_free(r);
        return mt_fail(ei, MT_ERR_NOMEM, "replay: out of memory");
    }
    b->ops = &replay_ops;
    b->impl = r;
    *out = b;
    return MT_OK;
}

mt_err mt_replay_recording_info(const mt_backend *replay, mt_recording_info *out,
                                mt_errinfo *ei)
{
    if (!replay || replay->ops != &replay_ops)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "not a replay backend");
    *out = ((const replay_impl *)replay->impl)->info;
    return MT_OK;
}

/* Writes experiments.csv, sequences.csv and samples.csv (format in
 * csv_write.h). */
#include "csv_write.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../report/atomic_file.h"
#include "banks_params.h"

int mt_recording_stores_kind(mt_exp_kind k)
{
    return k == MT_KIND_CHASE || k == MT_KIND_SEQUENCE || k == MT_KIND_CLOCK ||
           k == MT_KIND_STREAM || k == MT_KIND_BANKS || k == MT_KIND_CLUSTER ||
           k == MT_KIND_ICACHE || k == MT_KIND_ACCESS || k == MT_KIND_LINK ||
           k == MT_KIND_EVICT;
}

const char *mt_order_name(mt_order o)
{
    return o == MT_ORDER_SEQUENTIAL ? "sequential" : o == MT_ORDER_RANDOM ? "random" : "?";
}

const char *mt_mode_name(mt_mode m)
{
    return m == MT_MODE_FINE ? "fine" : m == MT_MODE_AGGREGATE ? "aggregate" : "?";
}

const char *mt_scope_name(mt_scope s)
{
    return s == MT_SCOPE_SM ? "sm" : s == MT_SCOPE_GPU ? "gpu" : "?";
}

int mt_order_from_name(const char *s, mt_order *out)
{
    if (strcmp(s, "sequential") == 0)
        *out = MT_ORDER_SEQUENTIAL;
    else if (strcmp(s, "random") == 0)
        *out = MT_ORDER_RANDOM;
    else
        return -1;
    return 0;
}

int mt_mode_from_name(const char *s, mt_mode *out)
{
    if (strcmp(s, "fine") == 0)
        *out = MT_MODE_FINE;
    else if (strcmp(s, "aggregate") == 0)
        *out = MT_MODE_AGGREGATE;
    else
        return -1;
    return 0;
}

int mt_scope_from_name(const char *s, mt_scope *out)
{
    if (strcmp(s, "sm") == 0)
        *out = MT_SCOPE_SM;
    else if (strcmp(s, "gpu") == 0)
        *out = MT_SCOPE_GPU;
    else
        return -1;
    return 0;
}

/* "DIR/name", malloc'ed. */
static char *join(const char *dir, const char *name)
{
    size_t a = strlen(dir), b = strlen(name);
    char *p = malloc(a + b + 2);
    if (p) {
        memcpy(p, dir, a);
        p[a] = '/';
        memcpy(p + a + 1, name, b + 1);
    }
    return p;
}

/* Refuses what the format cannot store, before anything is written. */
static mt_err check_storable(const char *dir, const mt_experiment *exps, const mt_result *res,
                             size_t n, mt_errinfo *ei)
{
    for (size_t i = 0; i < n; i++) {
        const mt_experiment *x = &exps[i];
        if (x->n_chains < 1 || x->n_chains > MT_MAX_CHAINS)
            return mt_fail(ei, MT_ERR_INVALID_ARG, "%s/%s: experiment %zu has %d chains", dir,
                           MT_EXPERIMENTS_CSV, i, x->n_chains);
        if (!mt_recording_stores_kind(x->kind))
            return mt_fail(ei, MT_ERR_INVALID_ARG,
                           "%s/%s: experiment %zu is of kind %s, which recordings cannot store",
                           dir, MT_EXPERIMENTS_CSV, i, mt_kind_name(x->kind));
        if (mt_kind_has_index_list(x->kind) && x->u.seq.n && !x->u.seq.index)
            return mt_fail(ei, MT_ERR_INVALID_ARG,
                           "%s/%s: sequence experiment %zu has %u entries but no index list", dir,
                           MT_SEQUENCES_CSV, i, x->u.seq.n);
        for (int c = 0; c < x->n_chains; c++)
            if (res[i].n[c] && !res[i].cycles[c])
                return mt_fail(ei, MT_ERR_INVALID_ARG,
                               "%s/%s: experiment %zu chain %d claims %u samples but has none",
                               dir, MT_SAMPLES_CSV, i, c, res[i].n[c]);
    }
    return MT_OK;
}

static void write_experiments(FILE *f, const mt_experiment *exps, const mt_result *res, size_t n,
                              const unsigned *batch_ids)
{
    fprintf(f, "%s\n", MT_EXPERIMENTS_CSV_HEADER);
    for (size_t i = 0; i < n; i++) {
        const mt_experiment *x = &exps[i];
        char params[MT_BANKS_PARAMS_MAX + 128] = "";
        if (mt_kind_has_index_list(x->kind)) /* evict: since 2.9 */
            snprintf(params, sizeof params, "n=%" PRIu32 " untimed=%" PRIu32, x->u.seq.n,
                     x->u.seq.untimed);
        else if (x->kind == MT_KIND_CLOCK)
            snprintf(params, sizeof params, "ns=%" PRIu32, x->u.clock.ns);
        else if (x->kind == MT_KIND_ICACHE)
            snprintf(params, sizeof params, "code_bytes=%" PRIu32, x->u.icache.code_bytes);
        else if (x->kind == MT_KIND_STREAM) /* bytes and repeats: the chain's span and loads */
            snprintf(params, sizeof params,
                     "op=%d blocks=%" PRIu32 " threads=%" PRIu32 " vec=%" PRIu32
                     " in_flight=%" PRIu32,
                     (int)x->u.stream.op, x->u.stream.blocks, x->u.stream.threads,
                     x->u.stream.vector_bytes, x->u.stream.in_flight);
        else if (x->kind == MT_KIND_BANKS || x->kind == MT_KIND_ACCESS) /* access: 2.5 */
            mt_banks_params_format(&x->u.banks, params, sizeof params);
        else if (x->kind == MT_KIND_CLUSTER) /* since backend 2.3 */
            snprintf(params, sizeof params,
                     "op=%d size=%" PRIu32 " target=%" PRIu32 " threads=%" PRIu32
                     " blocks=%" PRIu32 " bytes=%" PRIu64 " repeats=%" PRIu32,
                     (int)x->u.cluster.op, x->u.cluster.cluster_size, x->u.cluster.target_rank,
                     x->u.cluster.threads, x->u.cluster.blocks, x->u.cluster.bytes,
                     x->u.cluster.repeats);
        else if (x->kind == MT_KIND_LINK) /* since backend 2.8; host=1: peer is the host */
            snprintf(params, sizeof params,
                     "op=%d host=%d peer=%d bytes=%" PRIu64 " repeats=%" PRIu32,
                     (int)x->u.link.op, x->u.link.peer == MT_LINK_HOST,
                     x->u.link.peer == MT_LINK_HOST ? 0 : (int)x->u.link.peer, x->u.link.bytes,
                     x->u.link.repeats);
        if (x->set_carveout) /* since backend 2.1; absent = the default carveout */
            snprintf(params + strlen(params), sizeof params - strlen(params), "%scarveout=%d",
                     params[0] ? " " : "", x->carveout_percent);
        if (x->kind == MT_KIND_STREAM && x->u.stream.balanced) /* since 2.11; absent = 0 */
            snprintf(params + strlen(params), sizeof params - strlen(params), " balanced=%" PRIu32,
                     x->u.stream.balanced);
        if (x->together) /* since backend 2.10; absent = run alone */
            snprintf(params + strlen(params), sizeof params - strlen(params), "%stogether=%d",
                     params[0] ? " " : "", x->together);
        for (int c = 0; c < x->n_chains; c++) {
            const mt_chain *ch = &x->chain[c];
            fprintf(f, "%zu,%u,%d,%d,%d,%s,%" PRIu64 ",%" PRIu32 ",%" PRIu64 ",%s,%" PRIu32
                       ",%" PRIu32 ",%" PRIu32 ",%s,%d,%s,%d,%s,%s\n",
                    i, batch_ids ? batch_ids[i] : 0u, x->n_chains, c, ch->thread,
                    mt_path_name(ch->path), ch->footprint, ch->stride, ch->offset,
                    mt_order_name(x->order), x->order_seed, x->warmup_laps, x->loads,
                    mt_mode_name(x->mode), x->sm, mt_scope_name(x->scope), res[i].sm_ran,
                    mt_kind_name(x->kind), params);
        }
    }
}

static void write_sequences(FILE *f, const mt_experiment *exps, size_t n)
{
    fprintf(f, "%s\n", MT_SEQUENCES_CSV_HEADER);
    for (size_t i = 0; i < n; i++)
        if (mt_kind_has_index_list(exps[i].kind))
            for (uint32_t k = 0; k < exps[i].u.seq.n; k++)
                fprintf(f, "%zu,%" PRIu32 ",%" PRIu32 "\n", i, k, exps[i].u.seq.index[k]);
}

static void write_samples(FILE *f, const mt_experiment *exps, const mt_result *res, size_t n)
{
    fprintf(f, "%s\n", MT_SAMPLES_CSV_HEADER);
    for (size_t i = 0; i < n; i++)
        for (int c = 0; c < exps[i].n_chains && c < MT_MAX_CHAINS; c++)
            for (uint32_t k = 0; k < res[i].n[c]; k++)
                fprintf(f, "%zu,%d,%" PRIu32 ",%" PRIu32 "\n", i, c, k, res[i].cycles[c][k]);
}

enum { F_EXPERIMENTS, F_SEQUENCES, F_SAMPLES, F_COUNT };

mt_err mt_raw_csv_write(const char *dir, const mt_experiment *exps, const mt_result *res,
                        size_t n, const unsigned *batch_ids, mt_errinfo *ei)
{
    if (!dir || (n && (!exps || !res)))
        return mt_fail(ei, MT_ERR_INVALID_ARG, "raw CSV: no directory or no data");
    mt_err e = check_storable(dir, exps, res, n, ei);
    if (!e)
        e = mt_mkdir_p(dir, ei);
    if (e)
        return e;
    static const char *const names[F_COUNT] = {MT_EXPERIMENTS_CSV, MT_SEQUENCES_CSV,
                                               MT_SAMPLES_CSV};
    mt_atomic_file af[F_COUNT];
    int opened = 0;
    for (; !e && opened < F_COUNT; opened++) {
        char *path = join(dir, names[opened]);
        if (!path) {
            e = mt_fail(ei, MT_ERR_NOMEM, "%s: out of memory", dir);
            break;
        }
        e = mt_atomic_open(&af[opened], path, ei);
        free(path);
        if (e)
            break;
    }
    if (!e) {
        write_experiments(af[F_EXPERIMENTS].f, exps, res, n, batch_ids);
        write_sequences(af[F_SEQUENCES].f, exps, n);
        write_samples(af[F_SAMPLES].f, exps, res, n);
        /* Everything must be on disk before the first rename, so that a
         * full disk replaces none of the files. */
        for (int i = 0; !e && i < F_COUNT; i++) {
            errno = 0;
            if (fflush(af[i].f) != 0 || ferror(af[i].f))
                e = mt_fail(ei, MT_ERR_IO, "%s: write failed: %s", af[i].path,
                            errno ? strerror(errno) : "stream error");
        }
    }
    if (e) {
        for (int i = 0; i < opened; i++)
            mt_atomic_abort(&af[i]);
        return e;
    }
    int i = 0;
    for (; !e && i < F_COUNT; i++)
        e = mt_atomic_commit(&af[i], ei);
    for (; i < F_COUNT; i++) /* after a failed rename: drop the rest */
        mt_atomic_abort(&af[i]);
    return e;
}

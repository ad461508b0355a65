/* Writes experiments.csv and samples.csv (format in raw_csv.h). */
#include "raw_csv.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"

const char *mt_order_name(mt_order o)
{
    return o == MT_ORDER_SEQUENTIAL ? "sequential" : o == MT_ORDER_RANDOM ? "random" : "?";
}

const char *mt_mode_name(mt_mode m)
{
    return m == MT_MODE_FINE ? "fine" : m == MT_MODE_AGGREGATE ? "aggregate" : "?";
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

static mt_err write_experiments(const char *path, const mt_experiment *exps, const mt_result *res,
                                size_t n, const unsigned *batch_ids, mt_errinfo *ei)
{
    mt_atomic_file af;
    mt_err e = mt_atomic_open(&af, path, ei);
    if (e)
        return e;
    fprintf(af.f, "%s\n", MT_EXPERIMENTS_CSV_HEADER);
    for (size_t i = 0; i < n; i++) {
        const mt_experiment *x = &exps[i];
        if (x->n_chains < 1 || x->n_chains > MT_MAX_CHAINS) {
            mt_atomic_abort(&af);
            return mt_fail(ei, MT_ERR_INVALID_ARG, "%s: experiment %zu has %d chains", path, i,
                           x->n_chains);
        }
        for (int c = 0; c < x->n_chains; c++) {
            const mt_chain *ch = &x->chain[c];
            fprintf(af.f, "%zu,%u,%d,%d,%d,%s,%" PRIu64 ",%" PRIu32 ",%" PRIu64 ",%s,%" PRIu32
                          ",%" PRIu32 ",%" PRIu32 ",%s,%d,%d,%d\n",
                    i, batch_ids ? batch_ids[i] : 0u, x->n_chains, c, ch->thread,
                    mt_path_name(ch->path), ch->footprint, ch->stride, ch->offset,
                    mt_order_name(x->order), x->order_seed, x->warmup_laps, x->loads,
                    mt_mode_name(x->mode), x->sm, x->exclusive, res[i].sm_ran);
        }
    }
    return mt_atomic_commit(&af, ei);
}

static mt_err write_samples(const char *path, const mt_experiment *exps, const mt_result *res,
                            size_t n, mt_errinfo *ei)
{
    mt_atomic_file af;
    mt_err e = mt_atomic_open(&af, path, ei);
    if (e)
        return e;
    fprintf(af.f, "%s\n", MT_SAMPLES_CSV_HEADER);
    for (size_t i = 0; i < n; i++) {
        for (int c = 0; c < exps[i].n_chains && c < MT_MAX_CHAINS; c++) {
            const uint32_t *cy = res[i].cycles[c];
            if (res[i].n[c] && !cy) {
                mt_atomic_abort(&af);
                return mt_fail(ei, MT_ERR_INVALID_ARG,
                               "%s: experiment %zu chain %d claims %u samples but has none", path,
                               i, c, res[i].n[c]);
            }
            for (uint32_t k = 0; k < res[i].n[c]; k++)
                fprintf(af.f, "%zu,%d,%" PRIu32 ",%" PRIu32 "\n", i, c, k, cy[k]);
        }
    }
    return mt_atomic_commit(&af, ei);
}

mt_err mt_raw_csv_write(const char *dir, const mt_experiment *exps, const mt_result *res,
                        size_t n, const unsigned *batch_ids, mt_errinfo *ei)
{
    if (!dir || (n && (!exps || !res)))
        return mt_fail(ei, MT_ERR_INVALID_ARG, "raw CSV: no directory or no data");
    mt_err e = mt_mkdir_p(dir, ei);
    if (e)
        return e;
    char *pe = join(dir, MT_EXPERIMENTS_CSV);
    char *ps = join(dir, MT_SAMPLES_CSV);
    if (!pe || !ps)
        e = mt_fail(ei, MT_ERR_NOMEM, "%s: out of memory", dir);
    if (!e)
        e = write_experiments(pe, exps, res, n, batch_ids, ei);
    if (!e)
        e = write_samples(ps, exps, res, n, ei);
    free(pe);
    free(ps);
    return e;
}

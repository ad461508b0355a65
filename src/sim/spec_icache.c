/* The [icache NAME] sections of a sim spec: the levels of instruction
 * caching (docs/spec-format.md, "Instruction caches"; issue 10 part 5).
 * Each level is read on its own, then the levels are checked against each
 * other once the whole spec is known. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../backend/backend.h"
#include "spec_internal.h"

const char *const mt_sp_icache_keys[] = {"size", "latency", "noise", NULL};

mt_err mt_sp_read_icache(pctx *c, const section *s, mt_sim_icache_spec *q)
{
    mt_err err;
    memset(q, 0, sizeof *q);
    snprintf(q->name, sizeof q->name, "%s", s->name);
    q->line_no = s->line;
    if ((err = mt_sp_size(c, s, "size", 1, MT_ICACHE_MIN_BYTES, MT_SIM_MAX_CACHE_BYTES, &q->size,
                          NULL)) ||
        (err = mt_sp_double(c, s, "latency", 1, MT_SIM_MIN_ICACHE_LATENCY,
                            MT_SIM_MAX_ICACHE_LATENCY, &q->latency, NULL)) ||
        (err = mt_sp_double(c, s, "noise", 0, 0, MT_SIM_MAX_ICACHE_LATENCY, &q->noise, NULL)))
        return err;
    /* The same bound as every other level's noise: a step between levels
     * stays many standard errors above it. */
    if (q->noise > MT_SIM_NOISE_PER_LATENCY * q->latency)
        return mt_sp_err(c, mt_sp_find(s, "noise")->line,
                         "noise = %g is above latency / %g = %g cycles per instruction", q->noise,
                         1 / MT_SIM_NOISE_PER_LATENCY, MT_SIM_NOISE_PER_LATENCY * q->latency);
    return MT_OK;
}

/* Line of key in the section of icache level q (its header when absent). */
static int icache_key_line(const pctx *c, const mt_sim_icache_spec *q, const char *key)
{
    for (int i = 0; i < c->n_sec; i++)
        if (c->sec[i].kind == SEC_ICACHE && c->sec[i].line == q->line_no) {
            const kv *k = mt_sp_find(&c->sec[i], key);
            return k ? k->line : q->line_no;
        }
    return q->line_no;
}

mt_err mt_sp_check_icaches(pctx *c, const mt_sim_spec *o)
{
    for (int i = 1; i < o->n_icaches; i++) {
        const mt_sim_icache_spec *q = &o->icache[i], *up = &o->icache[i - 1];
        /* A level less than twice the one before could fall within one
         * doubling of the icache probe's sweep together with it. */
        if (q->size < (uint64_t)MT_SIM_ICACHE_SIZE_RATIO * up->size)
            return mt_sp_err(c, icache_key_line(c, q, "size"),
                             "[icache %s]: size %llu B is below %u x [icache %s]'s %llu B",
                             q->name, (unsigned long long)q->size, MT_SIM_ICACHE_SIZE_RATIO,
                             up->name, (unsigned long long)up->size);
        /* A level no slower than the one before could not be told apart
         * from it: the probe sees a level by the step in cycles per
         * instruction. */
        if (q->latency < up->latency + MT_SIM_MIN_ICACHE_STEP)
            return mt_sp_err(c, icache_key_line(c, q, "latency"),
                             "[icache %s]: latency %g is less than %g cycles per instruction "
                             "above [icache %s]'s %g",
                             q->name, q->latency, MT_SIM_MIN_ICACHE_STEP, up->name, up->latency);
    }
    /* Code no level holds has nowhere to come from: the last level stands
     * for the L2 (or whatever serves the instruction caches' misses). */
    if (o->n_icaches > 0) {
        const mt_sim_icache_spec *last = &o->icache[o->n_icaches - 1];
        if (last->size < MT_ICACHE_MAX_BYTES)
            return mt_sp_err(c, icache_key_line(c, last, "size"),
                             "[icache %s]: the last level's size %llu B is below %u B, the "
                             "largest block of code an experiment runs (the last level stands "
                             "for the L2)",
                             last->name, (unsigned long long)last->size, MT_ICACHE_MAX_BYTES);
    }
    return MT_OK;
}

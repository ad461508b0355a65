/* The [tenant] section of a sim spec: another workload on the simulated
 * GPU (docs/spec-format.md, "The interfering tenant"), and when it is
 * active.  Issue 7: memtopo must notice such a tenant and say so; the sim
 * makes that testable without a GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec_internal.h"

const char *const mt_sp_tenant_keys[] = {
    "start_batch", "stop_batch", "period",      "active",      "l2_latency", "dram_latency",
    "jitter",      "evict_every", "evict_lines", "pids",        NULL};

/* "pids = 4242 4243": at most MT_SIM_MAX_TENANT_PIDS positive integers. */
static mt_err read_pids(pctx *c, const section *s, mt_sim_tenant_spec *t)
{
    const kv *k = mt_sp_find(s, "pids");
    if (!k)
        return MT_OK;
    char buf[MT_SP_MAX_VALUE];
    snprintf(buf, sizeof buf, "%s", k->val);
    char *save = NULL;
    for (char *tok = strtok_r(buf, " ,\t", &save); tok; tok = strtok_r(NULL, " ,\t", &save)) {
        char *end;
        long v = strtol(tok, &end, 10);
        if (*end || v < 1 || v > 4194304) /* Linux's largest pid_max */
            return mt_sp_err(c, k->line, "pids: '%s' is not a process id (1..4194304)", tok);
        if (t->n_pids >= MT_SIM_MAX_TENANT_PIDS)
            return mt_sp_err(c, k->line, "pids: more than %d", MT_SIM_MAX_TENANT_PIDS);
        t->pids[t->n_pids++] = (int)v;
    }
    return MT_OK;
}

mt_err mt_sp_read_tenant(pctx *c, const section *s, mt_sim_tenant_spec *t)
{
    memset(t, 0, sizeof *t);
    t->present = 1;
    mt_err err;
    int has_period = 0, has_active = 0, has_lines = 0, has_every = 0;
    if ((err = mt_sp_int(c, s, "start_batch", 0, 0, 1 << 30, &t->start_batch, NULL)) ||
        (err = mt_sp_int(c, s, "stop_batch", 0, 0, 1 << 30, &t->stop_batch, NULL)) ||
        (err = mt_sp_int(c, s, "period", 0, 1, 1 << 30, &t->period, &has_period)) ||
        (err = mt_sp_int(c, s, "active", 0, 1, 1 << 30, &t->active_batches, &has_active)) ||
        (err = mt_sp_double(c, s, "l2_latency", 0, 0, MT_SIM_MAX_LATENCY, &t->l2_latency, NULL)) ||
        (err = mt_sp_double(c, s, "dram_latency", 0, 0, MT_SIM_MAX_LATENCY, &t->dram_latency,
                            NULL)) ||
        (err = mt_sp_double(c, s, "jitter", 0, 0, MT_SIM_MAX_LATENCY, &t->jitter, NULL)) ||
        (err = mt_sp_u32(c, s, "evict_every", 0, 1, 1u << 30, &t->evict_every, &has_every)) ||
        (err = mt_sp_u32(c, s, "evict_lines", 0, 1, MT_SIM_MAX_LINES, &t->evict_lines,
                         &has_lines)) ||
        (err = read_pids(c, s, t)))
        return err;
    if (t->stop_batch && t->stop_batch <= t->start_batch)
        return mt_sp_err(c, mt_sp_find(s, "stop_batch")->line,
                         "stop_batch must be after start_batch (or 0: never leaves)");
    if (has_period != has_active)
        return mt_sp_err(c, s->line, "[tenant]: period and active go together");
    if (has_period && t->active_batches > t->period)
        return mt_sp_err(c, mt_sp_find(s, "active")->line, "active exceeds period");
    if (has_every != has_lines)
        return mt_sp_err(c, s->line, "[tenant]: evict_every and evict_lines go together");
    return MT_OK;
}

int mt_sim_tenant_active(const mt_sim_tenant_spec *t, int batch)
{
    if (!t->present || batch < t->start_batch || (t->stop_batch && batch >= t->stop_batch))
        return 0;
    return t->period == 0 || (batch - t->start_batch) % t->period < t->active_batches;
}

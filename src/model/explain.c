/* What the prediction says in words: the limiting resource, and the
 * assumptions it rests on (inputs that were defaults, kernel facts the
 * profile did not have). */
#include <stdio.h>
#include <string.h>

#include "model_internal.h"

static const char *const why[MT_CPI_COUNT] = {
    "instruction issue: the schedulers are busy every cycle",
    "ALU dependences: warps wait on arithmetic results and too few warps hide it",
    "L1/shared-memory latency that the resident warps do not hide",
    "L2 latency (near partition) that the resident warps do not hide",
    "L2 latency (far partition) that the resident warps do not hide",
    "DRAM latency that the resident warps do not hide",
    "miss slots: more misses than the SM keeps in flight (measured MLP)",
    "L1/shared-memory bandwidth",
    "L2 bandwidth",
    "DRAM bandwidth",
    "shared-memory bank conflicts",
    "barriers: warps wait for the rest of their block",
    "the last wave: SMs idle while a partial wave finishes",
};

void mt_model_limit_sentence(mt_model_result *r)
{
    int top = 0;
    for (int c = 1; c < MT_CPI_COUNT; c++)
        if (r->stack[c] > r->stack[top])
            top = c;
    double share = r->cycles > 0 ? 100 * r->stack[top] / r->cycles : 0;
    snprintf(r->limit, sizeof r->limit, "Limited by %s (%.0f%% of the cycles).", why[top], share);
}

void mt_model_assumptions(const mt_model_machine *m, const mt_model_kernel *k,
                          const mt_model_options *o, mt_model_result *r)
{
    mt_model_note(r, "one representative warp: the launch's average warp (no clustering)");
    mt_model_note(r, "scheduler policy %s", o->sched == MT_SCHED_RR ? "round-robin" : "greedy-then-oldest");
    mt_model_note(r, "the blocks of a wave start together and finish together");
    for (int i = 0; i < MT_MI_COUNT; i++)
        if (m->in[i].set && m->in[i].assumed)
            mt_model_note(r, "%s = %g %s assumed (%s)", mt_model_input_key(i), m->in[i].value,
                          mt_model_input_unit(i), m->in[i].source);
    if (!k->has_dep)
        mt_model_note(r, "no ALU dependence distances (no SASS page): none assumed to stall");
    if (k->inst_fp64 > 0 || k->inst_sfu > 0)
        mt_model_note(r, "FP64 and SFU instructions issue in %g and %g cycles", MODEL_ISSUE_FP64_COST,
                      MODEL_ISSUE_SFU_COST);
    if (k->carveout_smem <= 0 && k->smem_per_block > 0)
        mt_model_note(r, "carveout unknown: all of the SM's shared memory available");
}

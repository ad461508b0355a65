/* memtopo model's outputs: the text report (inputs with their sources,
 * one block per kernel, base and what-if side by side) and the JSON
 * document (schema/model.schema.json). */
#include <stdio.h>
#include <string.h>

#include "../core/version.h"
#include "cli_model.h"

static void stack_rows(FILE *f, const mt_model_result *b, const mt_model_result *w)
{
    for (int c = 0; c < MT_CPI_COUNT; c++) {
        fprintf(f, "    %-16s %14.0f %5.1f%%", mt_cpi_name(c), b->stack[c],
                b->cycles > 0 ? 100 * b->stack[c] / b->cycles : 0);
        if (w)
            fprintf(f, "   %14.0f %5.1f%%", w->stack[c], w->cycles > 0 ? 100 * w->stack[c] / w->cycles : 0);
        fputc('\n', f);
    }
}

static void inputs_text(FILE *f, const char *title, const mt_model_machine *m)
{
    fprintf(f, "%s: %s\n", title, m->gpu);
    for (int i = 0; i < MT_MI_COUNT; i++) {
        if (!m->in[i].set)
            continue;
        fprintf(f, "  %-28s %14.6g %-9s %s%s\n", mt_model_input_key(i), m->in[i].value,
                mt_model_input_unit(i), m->in[i].source, m->in[i].assumed ? " (assumed)" : "");
    }
}

void mt_cli_model_text(FILE *f, const mt_cli_model_run *run)
{
    fprintf(f, "memtopo %s model (GPUMech interval analysis + contention, docs/model.md)\n",
            MEMTOPO_VERSION);
    inputs_text(f, "Machine", &run->machine);
    if (run->has_what_if)
        inputs_text(f, "What-if machine", &run->what_if_machine);
    for (size_t i = 0; i < run->n; i++) {
        const mt_cli_model_pred *p = &run->preds[i];
        const mt_model_kernel *k = &p->kernel;
        const mt_model_result *b = &p->base, *w = run->has_what_if ? &p->what_if : NULL;
        fprintf(f, "\nKernel %s (%s)\n", k->name, k->source);
        fprintf(f, "  launch %.0f blocks x %.0f threads, %.0f registers/thread, %.0f B shared/block\n",
                k->grid_blocks, k->block_threads, k->regs_per_thread, k->smem_per_block);
        fprintf(f, "  per warp: %.1f instructions, %.2f global loads (%.2f sectors each, L1 hit %.1f%%, "
                   "L2 hit %.1f%%), %.2f stores, %.2f shared loads, %.2f barriers\n",
                k->inst, k->ld_global, k->ld_sectors, 100 * k->l1_hit, 100 * k->l2_hit, k->st_global,
                k->ld_shared, k->barriers);
        fprintf(f, "  %-16s %21s", "", "base");
        if (w)
            fprintf(f, "   %21s", "what-if");
        fputc('\n', f);
        fprintf(f, "    %-16s %14.0f cycles", "predicted", b->cycles);
        if (w)
            fprintf(f, "   %14.0f cycles", w->cycles);
        fprintf(f, "\n    %-16s %14.3f us    ", "time", b->seconds * 1e6);
        if (w)
            fprintf(f, "   %14.3f us    ", w->seconds * 1e6);
        fprintf(f, "\n    %-16s %14.0f MHz   ", "clock", b->clock_mhz);
        if (w)
            fprintf(f, "   %14.0f MHz   ", w->clock_mhz);
        char lim[24];
        snprintf(lim, sizeof lim, "(%s)", b->occupancy_limit);
        fprintf(f, "\n    %-16s %14.0f %-6s", "blocks/SM", b->blocks_per_sm, lim);
        if (w) {
            snprintf(lim, sizeof lim, "(%s)", w->occupancy_limit);
            fprintf(f, "   %14.0f %-6s", w->blocks_per_sm, lim);
        }
        fprintf(f, "\n    %-16s %14.2f       ", "waves", b->waves);
        if (w)
            fprintf(f, "   %14.2f       ", w->waves);
        fprintf(f, "\n    %-16s %14.1f cycles", "load latency", b->load_latency);
        if (w)
            fprintf(f, "   %14.1f cycles", w->load_latency);
        fprintf(f, "\n  CPI stack (cycles, share of the total)\n");
        stack_rows(f, b, w);
        fprintf(f, "  %s\n", b->limit);
        if (w)
            fprintf(f, "  What-if: %s (%+.1f%% time)\n", w->limit,
                    b->seconds > 0 ? 100 * (w->seconds / b->seconds - 1) : 0);
        fprintf(f, "  Assumptions:\n");
        for (int a = 0; a < b->n_notes; a++)
            fprintf(f, "    - %s\n", b->notes[a]);
        if (p->retargeted)
            fprintf(f, "    - hit rates rescaled from the profiling GPU's cache sizes (miss ratio x "
                       "(old/new size)^0.5)\n");
    }
}

static json_t *inputs_json(const mt_model_machine *m)
{
    json_t *a = json_array();
    for (int i = 0; i < MT_MI_COUNT; i++) {
        if (!m->in[i].set)
            continue;
        json_array_append_new(a, json_pack("{s:s, s:f, s:s, s:s, s:b}", "key", mt_model_input_key(i),
                                           "value", m->in[i].value, "unit", mt_model_input_unit(i),
                                           "source", m->in[i].source, "assumed", m->in[i].assumed));
    }
    return a;
}

static json_t *result_json(const mt_model_result *r)
{
    json_t *stack = json_object(), *notes = json_array();
    for (int c = 0; c < MT_CPI_COUNT; c++)
        json_object_set_new(stack, mt_cpi_key(c), json_real(r->stack[c]));
    for (int a = 0; a < r->n_notes; a++)
        json_array_append_new(notes, json_string(r->notes[a]));
    return json_pack("{s:f, s:f, s:f, s:f, s:f, s:s, s:f, s:f, s:f, s:o, s:s, s:o}", "cycles",
                     r->cycles, "seconds", r->seconds, "clock_mhz", r->clock_mhz, "blocks_per_sm",
                     r->blocks_per_sm, "warps_per_sm", r->warps_per_sm, "occupancy_limit",
                     r->occupancy_limit, "waves", r->waves, "l1_bytes", r->l1_bytes,
                     "load_latency", r->load_latency, "stack", stack, "limit", r->limit,
                     "assumptions", notes);
}

json_t *mt_cli_model_json(const mt_cli_model_run *run)
{
    json_t *preds = json_array(), *whatifs = json_array();
    for (int i = 0; i < run->n_what_if; i++)
        json_array_append_new(whatifs, json_string(run->what_if[i]));
    for (size_t i = 0; i < run->n; i++) {
        const mt_cli_model_pred *p = &run->preds[i];
        json_t *o = json_pack("{s:s, s:s, s:o, s:b}", "kernel", p->kernel.name, "source",
                              p->kernel.source, "base", result_json(&p->base), "retargeted",
                              p->retargeted);
        if (run->has_what_if)
            json_object_set_new(o, "what_if", result_json(&p->what_if));
        json_array_append_new(preds, o);
    }
    json_t *doc = json_pack("{s:s, s:s, s:s, s:s, s:{s:s, s:o}, s:o, s:o}", "schema", "memtopo-model",
                            "schema_version", MT_MODEL_SCHEMA_VERSION, "tool", "memtopo " MEMTOPO_VERSION,
                            "scheduler", run->sched == MT_SCHED_RR ? "rr" : "gto", "machine", "gpu",
                            run->machine.gpu, "inputs", inputs_json(&run->machine), "what_if", whatifs,
                            "predictions", preds);
    if (doc && run->has_what_if)
        json_object_set_new(doc, "what_if_machine",
                            json_pack("{s:s, s:o}", "gpu", run->what_if_machine.gpu, "inputs",
                                      inputs_json(&run->what_if_machine)));
    return doc;
}

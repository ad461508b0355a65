/* Several GPUs of this node in one run (--device 0,2, or --sim given more
 * than once): each GPU is measured on a thread of its own with a backend
 * (a CUDA context) of its own, so the wall time for N GPUs is close to the
 * time for one; then every GPU's report and the node summary, the
 * comparison of memtopo compare (src/fleet), are printed, and --json
 * writes the node report (the fleet report's format). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../fleet/fleet.h"
#include "../report/json_file.h"
#include "../report/output_check.h"
#include "../report/report.h"
#include "cli.h"
#include "node_gate.h"

typedef struct {
    mt_cli one;                   /* the options, naming this GPU alone */
    volatile sig_atomic_t *stop;
    mt_topology *topo;            /* the result, or NULL */
    mt_err err;
    mt_errinfo ei;
    bool started;                 /* its thread runs (join it) */
    mt_node_gate_member gate;     /* its turn at the links between GPUs */
} node_job;

static void *measure_job(void *arg)
{
    node_job *j = arg;
    j->err = mt_cli_measure(&j->one, j->stop, &j->topo, &j->ei);
    mt_node_gate_member_done(&j->gate); /* the others need not wait for it */
    return NULL;
}

/* The options for GPU i of the node alone: its links (the host's and
 * those to the node's other GPUs, named by device ordinal or by position
 * in the --sim list) are measured unless --no-links. */
static void job_options(const mt_cli *o, int i, mt_cli *one)
{
    *one = *o;
    one->n_sims = 0;
    one->n_devices = 0;
    if (o->n_sims > 1)
        one->sim = o->sims[i];
    else
        one->device = o->devices[i];
    int n = o->n_sims > 1 ? o->n_sims : o->n_devices;
    one->probes.links = !o->no_links;
    one->probes.n_link_peers = 0;
    for (int j = 0; j < n && !o->no_links; j++)
        if (j != i && (o->n_sims > 1 || o->devices[j] <= MT_LINK_MAX_PEER))
            one->probes.link_peers[one->probes.n_link_peers++] =
                o->n_sims > 1 ? j : o->devices[j];
}

/* Prints each GPU's report, then the summary; writes --json. */
static int report_node(const mt_cli *o, mt_fleet *fl)
{
    mt_fleet_cmp *c = NULL;
    mt_errinfo ei = {{0}};
    bool json_out = o->json && strcmp(o->json, "-") == 0;
    size_t n_slow = mt_fleet_slow_links(fl);
    mt_err e = mt_fleet_compare_node_members(fl, &c, &ei);
    if (e == MT_OK && o->json) {
        json_t *doc = NULL;
        e = mt_fleet_build_json(fl, c, &doc, &ei);
        if (e == MT_OK)
            e = mt_json_write_doc(doc, o->json, "node report", &ei);
        json_decref(doc);
    }
    for (size_t i = 0; e == MT_OK && !json_out && i < fl->n; i++) {
        printf("==== #%zu %s\n", i, fl->members[i].name);
        if (fl->members[i].report)
            e = mt_report_text(fl->members[i].report, stdout, &ei);
        else
            printf("failed: %s\n", fl->members[i].error);
        printf("\n");
    }
    if (e == MT_OK && !json_out) {
        e = mt_fleet_text(fl, c, stdout, &ei);
        if (e == MT_OK)
            e = mt_fleet_links_text(fl, stdout, &ei);
    }
    int code = e != MT_OK ? mt_exit_code(e)
               : (c->n_flagged_reports || c->n_failed || n_slow) ? MT_EXIT_DIFFERS
                                                       : 0;
    if (e != MT_OK)
        mt_cli_error_line(ei.msg);
    mt_fleet_cmp_free(c);
    return code;
}

int mt_cli_node(const mt_cli *o)
{
    volatile sig_atomic_t *stop = mt_cli_signals_install();
    mt_errinfo ei = {{0}};
    mt_err e = MT_OK;
    if (o->json && strcmp(o->json, "-") != 0)
        e = mt_output_check("--json", o->json, MT_OUTPUT_FILE, NULL, &ei);
    if (e != MT_OK) {
        mt_cli_error_line(ei.msg);
        return mt_exit_code(e);
    }
    int n = o->n_sims > 1 ? o->n_sims : o->n_devices;
    node_job *jobs = calloc((size_t)n, sizeof *jobs);
    pthread_t *threads = calloc((size_t)n, sizeof *threads);
    mt_fleet fl = {calloc((size_t)n, sizeof *fl.members), (size_t)n};
    if (!jobs || !threads || !fl.members) {
        free(jobs);
        free(threads);
        free(fl.members);
        mt_cli_error_line("out of memory");
        return mt_exit_code(MT_ERR_NOMEM);
    }
    /* The links between GPUs are measured after every GPU's own probes,
     * one at a time (node_gate.h); the GPUs' probes and host links run
     * side by side. */
    mt_node_gate gate;
    if (mt_node_gate_init(&gate, n) != 0) {
        free(jobs);
        free(threads);
        free(fl.members);
        mt_cli_error_line("cannot create the node's link lock");
        return mt_exit_code(MT_ERR_NOMEM);
    }
    for (int i = 0; i < n; i++) {
        job_options(o, i, &jobs[i].one);
        mt_node_gate_member_init(&jobs[i].gate, &gate);
        jobs[i].one.probes.link_gate = &jobs[i].gate.gate;
        jobs[i].stop = stop;
        /* A thread that cannot be started measures nothing: its GPU is
         * reported as failed, the others go on. */
        jobs[i].started = pthread_create(&threads[i], NULL, measure_job, &jobs[i]) == 0;
        if (!jobs[i].started) {
            jobs[i].err = mt_fail(&jobs[i].ei, MT_ERR_NOMEM, "cannot start a thread");
            mt_node_gate_member_done(&jobs[i].gate);
        }
    }
    for (int i = 0; i < n; i++)
        if (jobs[i].started)
            pthread_join(threads[i], NULL);
    mt_node_gate_destroy(&gate);
    for (int i = 0; i < n; i++) {
        mt_fleet_member *m = &fl.members[i];
        if (o->n_sims > 1)
            snprintf(m->name, sizeof m->name, "sim %.240s", jobs[i].one.sim);
        else
            snprintf(m->name, sizeof m->name, "device %d", jobs[i].one.device);
        m->report = jobs[i].topo;
        if (jobs[i].err != MT_OK)
            snprintf(m->error, sizeof m->error, "%s", jobs[i].ei.msg);
    }
    /* Not one GPU measured: as a single run that failed (one line each). */
    int measured = 0;
    for (int i = 0; i < n; i++)
        measured += jobs[i].topo != NULL;
    int code = 0;
    if (measured == 0)
        for (int i = n - 1; i >= 0; i--) {
            mt_cli_error_line(fl.members[i].error);
            code = mt_exit_code(jobs[i].err);
        }
    else
        code = report_node(o, &fl);
    if (*stop && !code)
        code = 128 + (int)*stop;
    mt_fleet_free_members(&fl);
    free(jobs);
    free(threads);
    return code;
}

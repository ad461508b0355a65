/* memtopo's main program: open a backend, run the probes, write reports.
 * The only place (with main.c) that prints to the terminal or exits. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../core/version.h"
#include "../recording/recording.h"
#include "../report/report.h"
#include "../sim/presets.h"
#include "cli.h"

static void progress_cb(void *user, const char *probe, const char *what)
{
    (void)user;
    fprintf(stderr, "memtopo: [%s] %s\n", probe, what);
}

static void iso_time(char *buf, size_t n)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* The backend by name from the registry (the composition root picks it). */
static mt_err open_backend(const mt_cli *o, mt_backend **be, mt_errinfo *ei)
{
    mt_backend_args a = {.target = NULL, .device = o->device, .has_seed = o->has_seed,
                         .seed = o->seed};
    if (o->replay) {
        a.target = o->replay;
        return mt_backend_open("replay", &a, be, ei);
    }
    if (o->sim) {
        a.target = o->sim;
        return mt_backend_open("sim", &a, be, ei);
    }
    return mt_backend_open("cuda", &a, be, ei);
}

/* Prints an error as one line, with the CLI's hint for its code. */
static void print_error(const mt_cli *o, mt_err e, const char *msg)
{
    const char *hint = mt_cli_hint(e, o);
    fprintf(stderr, "memtopo: %s%s%s\n", msg, hint ? "; " : "", hint ? hint : "");
}

/* On replay, the probes the recording does not hold are skipped; the ones
 * the user asked for are named in the report (prov.probes_missing). */
static void skip_unrecorded(const mt_recording_info *ri, mt_probe_options *popt,
                            mt_provenance *prov)
{
    size_t k = 0;
    for (const mt_probe_desc *const *p = mt_probe_registry; *p && k < MT_MAX_PROBES; p++)
        if (!mt_recording_has_probe(ri, (*p)->name))
            popt->skip[k++] = (*p)->name;
    if (k == 0)
        return;
    popt->skip[k] = NULL;
    /* Which of the requested probes that leaves out. */
    mt_probe_options want = *popt;
    want.skip[0] = NULL;
    const mt_probe_desc *planned[MT_MAX_PROBES];
    size_t n = 0, len = 0;
    if (mt_probe_plan(&want, planned, &n, NULL) != MT_OK)
        return;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < k; j++)
            if (strcmp(planned[i]->name, popt->skip[j]) == 0 && len < sizeof prov->probes_missing)
                len += (size_t)snprintf(prov->probes_missing + len,
                                        sizeof prov->probes_missing - len, "%s%s",
                                        len ? "," : "", planned[i]->name);
}

/* Tells a recorder which probes produced it (the plan of this run). */
static void record_probes(mt_backend *rec, const mt_probe_options *popt)
{
    const mt_probe_desc *planned[MT_MAX_PROBES];
    const char *names[MT_MAX_PROBES];
    size_t n = 0;
    if (!rec || mt_probe_plan(popt, planned, &n, NULL) != MT_OK)
        return;
    for (size_t i = 0; i < n; i++)
        names[i] = planned[i]->name;
    mt_record_set_probes(rec, names, n);
}

/* Errors that mean the input was bad: nothing is written for them. */
static int is_input_error(mt_err e)
{
    return e == MT_ERR_INVALID_ARG || e == MT_ERR_SPEC_PARSE || e == MT_ERR_REPLAY;
}

int mt_cli_main(int argc, char **argv)
{
    mt_cli o;
    mt_errinfo ei = {{0}};
    mt_err err = mt_cli_parse(argc, argv, &o, &ei);
    if (err != MT_OK) {
        print_error(&o, err, ei.msg);
        return mt_exit_code(err);
    }
    if (o.help) {
        mt_cli_usage(stdout);
        return 0;
    }
    if (o.version) {
        printf("memtopo %s\n", MEMTOPO_VERSION);
        return 0;
    }
    if (o.list_presets) {
        for (const mt_preset *p = mt_presets; p->name; p++)
            printf("%s\n", p->name);
        return 0;
    }

    mt_backend *be = NULL, *rec = NULL, *raw = NULL;
    if ((err = open_backend(&o, &be, &ei)) != MT_OK)
        goto fail_early;
    char when[32];
    iso_time(when, sizeof when);
    if (o.raw) {
        if ((err = mt_backend_record_wrap(be, o.raw, &raw, &ei)) != MT_OK)
            goto fail_early;
        be = raw;
    }
    if (o.record) {
        if ((err = mt_backend_record_wrap(be, o.record, &rec, &ei)) != MT_OK)
            goto fail_early;
        mt_record_set_provenance(rec, MEMTOPO_VERSION, o.command_line, when);
        be = rec;
    }

    mt_topology *topo = mt_topology_new();
    if (!topo) {
        err = mt_fail(&ei, MT_ERR_NOMEM, "out of memory");
        goto fail_early;
    }
    if ((err = mt_backend_info(be, &topo->dev, &ei)) != MT_OK) {
        mt_topology_free(topo);
        goto fail_early;
    }
    snprintf(topo->prov.tool_version, sizeof topo->prov.tool_version, "%s", MEMTOPO_VERSION);
    snprintf(topo->prov.command_line, sizeof topo->prov.command_line, "%s", o.command_line);
    snprintf(topo->prov.time_utc, sizeof topo->prov.time_utc, "%s", when);
    snprintf(topo->prov.source, sizeof topo->prov.source, "%s",
             o.replay ? "replay" : topo->dev.backend);
    if (o.replay) {
        mt_recording_info ri;
        if (mt_replay_recording_info(be, &ri, &ei) == MT_OK && ri.time_utc[0])
            snprintf(topo->prov.replay_of, sizeof topo->prov.replay_of, "%s (recorded %s)",
                     o.replay, ri.time_utc);
        else
            snprintf(topo->prov.replay_of, sizeof topo->prov.replay_of, "%s", o.replay);
    }

    mt_probe_options popt = o.probes;
    if (o.replay) {
        mt_recording_info ri;
        if (mt_replay_recording_info(be, &ri, &ei) == MT_OK)
            skip_unrecorded(&ri, &popt, &topo->prov);
        if (topo->prov.probes_missing[0] && !o.quiet)
            fprintf(stderr, "memtopo: the recording holds no data for: %s (skipped)\n",
                    topo->prov.probes_missing);
    }
    record_probes(rec, &popt);
    record_probes(raw, &popt);
    if (!o.quiet && isatty(STDERR_FILENO))
        popt.progress = progress_cb;
    mt_err run_err = mt_probe_run_all(be, &popt, topo, &ei);
    mt_errinfo run_ei = ei;
    if (run_err != MT_OK && is_input_error(run_err)) {
        /* Bad replay data or options found mid-run: write nothing. */
        print_error(&o, run_err, run_ei.msg);
        if (rec)
            mt_record_discard(rec);
        if (raw)
            mt_record_discard(raw);
        mt_backend_destroy(be);
        mt_topology_free(topo);
        return mt_exit_code(run_err);
    }
    if (run_err != MT_OK) {
        /* prov.error is shorter than a full message: keep its head. */
        snprintf(topo->prov.error, sizeof topo->prov.error, "%.40s: %.320s", mt_strerror(run_err),
                 run_ei.msg);
    }

    int code = run_err == MT_OK ? 0 : mt_exit_code(run_err);
    mt_errinfo out_ei = {{0}};
    if (o.json && (err = mt_report_json(topo, o.json, &out_ei)) != MT_OK) {
        fprintf(stderr, "memtopo: %s\n", out_ei.msg);
        if (!code)
            code = mt_exit_code(err);
    }
    if (o.csv && (err = mt_report_csv(topo, o.csv, &out_ei)) != MT_OK) {
        fprintf(stderr, "memtopo: %s\n", out_ei.msg);
        if (!code)
            code = mt_exit_code(err);
    }
    bool stdout_taken = (o.json && strcmp(o.json, "-") == 0) || (o.csv && strcmp(o.csv, "-") == 0);
    if (!stdout_taken) {
        if ((err = mt_report_text(topo, stdout, &out_ei)) != MT_OK && !code)
            code = mt_exit_code(err);
    }
    if (rec && (err = mt_record_flush(rec, &out_ei)) != MT_OK) {
        fprintf(stderr, "memtopo: %s\n", out_ei.msg);
        if (!code)
            code = mt_exit_code(err);
    }
    if (raw && (err = mt_record_flush(raw, &out_ei)) != MT_OK) {
        fprintf(stderr, "memtopo: %s\n", out_ei.msg);
        if (!code)
            code = mt_exit_code(err);
    }
    mt_backend_destroy(be);
    if (topo->prov.n_disturbed > 0) {
        /* Issue 7: a degraded report is written in full, but never passes
         * for a clean one: one line here, and its own exit code. */
        fprintf(stderr, "memtopo: warning: the GPU was disturbed, report degraded: %s%s\n",
                topo->prov.disturbed[0],
                topo->prov.n_disturbed > 1 ? " (and more: see the report)" : "");
        if (!code)
            code = MT_EXIT_DEGRADED;
    }
    if (run_err != MT_OK)
        fprintf(stderr, "memtopo: %s%s\n", run_ei.msg,
                (o.json || o.csv || o.record || o.raw) ? " (what was measured before this was written)"
                                                       : "");
    mt_topology_free(topo);
    return code;

fail_early:
    print_error(&o, err, ei.msg);
    mt_backend_destroy(be);
    return mt_exit_code(err);
}

/* memtopo's main program: open a backend, run the probes, write reports.
 * The only place (with main.c) that prints to the terminal or exits. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../core/version.h"
#include "../replay/record.h"
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

static mt_err open_backend(const mt_cli *o, mt_backend **be, mt_errinfo *ei)
{
    if (o->replay)
        return mt_backend_replay_open(o->replay, be, ei);
    if (o->sim)
        return mt_backend_sim_open(o->sim, o->has_seed, o->seed, be, ei);
    mt_err err = mt_backend_cuda_open(o->device, be, ei);
    if (err == MT_ERR_NO_DEVICE || err == MT_ERR_NOT_BUILT) {
        /* Say what to do instead, on the same single line. */
        size_t len = strlen(ei->msg);
        snprintf(ei->msg + len, sizeof ei->msg - len, "%s",
                 strstr(ei->msg, "--sim") ? "" : "; to try memtopo without a GPU use --sim h100");
    }
    return err;
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
        fprintf(stderr, "memtopo: %s\n", ei.msg);
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

    mt_topology *topo = calloc(1, sizeof *topo);
    if (!topo) {
        err = mt_fail(&ei, MT_ERR_NOMEM, "out of memory");
        goto fail_early;
    }
    if ((err = mt_backend_info(be, &topo->dev, &ei)) != MT_OK) {
        free(topo);
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
    if (!o.quiet && isatty(STDERR_FILENO))
        popt.progress = progress_cb;
    mt_err run_err = mt_probe_run_all(be, &popt, topo, &ei);
    mt_errinfo run_ei = ei;
    if (run_err != MT_OK && is_input_error(run_err)) {
        /* Bad replay data or options found mid-run: write nothing. */
        fprintf(stderr, "memtopo: %s\n", run_ei.msg);
        if (rec)
            mt_record_discard(rec);
        if (raw)
            mt_record_discard(raw);
        mt_backend_destroy(be);
        free(topo);
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
    if (!o.json || strcmp(o.json, "-") != 0) {
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
    if (run_err != MT_OK)
        fprintf(stderr, "memtopo: %s%s\n", run_ei.msg,
                (o.json || o.record || o.raw) ? " (what was measured before this was written)" : "");
    free(topo);
    return code;

fail_early:
    fprintf(stderr, "memtopo: %s\n", ei.msg);
    mt_backend_destroy(be);
    return mt_exit_code(err);
}

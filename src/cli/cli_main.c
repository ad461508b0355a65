/* memtopo's main program: open a backend, run the probes, write reports.
 * The only place (with main.c) that prints to the terminal or exits. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../core/phase_times.h"
#include "../core/text.h"
#include "../core/version.h"
#include "../recording/recording.h"
#include "../report/output_check.h"
#include "../report/report.h"
#include "../sim/presets.h"
#include "cli.h"
#include "cli_model.h"

/* Every line memtopo prints on stderr: "memtopo: " and the text with its
 * control characters escaped, so a message stays one line whatever input it
 * quotes (library messages are already escaped by mt_fail; escaping again
 * changes nothing). */
static void print_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void print_line(const char *fmt, ...)
{
    char raw[1024], line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    fprintf(stderr, "memtopo: %s\n", mt_escape_line(raw, line, sizeof line));
}

void mt_cli_error_line(const char *msg)
{
    print_line("%s", msg);
}

void mt_cli_iso_time(char *buf, size_t n)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* The backend by name from the registry (the composition root picks it). */
mt_err mt_cli_open_backend(const mt_cli *o, mt_backend **be, mt_errinfo *ei)
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

void mt_cli_fill_provenance(mt_topology *topo, const mt_cli *o, const char *when)
{
    snprintf(topo->prov.tool_version, sizeof topo->prov.tool_version, "%s", MEMTOPO_VERSION);
    snprintf(topo->prov.command_line, sizeof topo->prov.command_line, "%s", o->command_line);
    snprintf(topo->prov.time_utc, sizeof topo->prov.time_utc, "%s", when);
    snprintf(topo->prov.source, sizeof topo->prov.source, "%s",
             o->replay ? "replay" : topo->dev.backend);
}

/* Prints an error as one line, with the CLI's hint for its code. */
static void print_error(const mt_cli *o, mt_err e, const char *msg)
{
    const char *hint = mt_cli_hint(e, o);
    print_line("%s%s%s", msg, hint ? "; " : "", hint ? hint : "");
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

/* A closed standard stream (memtopo started with 1>&- or 2>&-) would hand
 * its number to the next file opened, and the report or an error message
 * would land in an output file.  Such a slot gets /dev/null opened
 * read-only: the number stays taken, and every write to it fails (EBADF),
 * so a closed stdout is reported as a write error like any other. */
static void reserve_std_streams(void)
{
    for (int fd = 1; fd <= 2; fd++)
        if (fcntl(fd, F_GETFD) == -1 && errno == EBADF) {
            int null = open("/dev/null", O_RDONLY);
            if (null >= 0 && null != fd) {
                dup2(null, fd);
                close(null);
            }
        }
}

/* Before any measuring: every output path can be written, so a long run
 * never ends in "cannot write" (exit 2, nothing created). */
static mt_err check_outputs(const mt_cli *o, mt_errinfo *ei)
{
    mt_err e = MT_OK;
    if (!e && o->json && strcmp(o->json, "-") != 0)
        e = mt_output_check("--json", o->json, MT_OUTPUT_FILE, NULL, ei);
    if (!e && o->csv && strcmp(o->csv, "-") != 0)
        e = mt_output_check("--csv", o->csv, MT_OUTPUT_FILE, NULL, ei);
    if (!e && o->raw)
        e = mt_output_check("--raw", o->raw, MT_OUTPUT_DIR, mt_recording_files, ei);
    if (!e && o->record)
        e = mt_output_check("--record", o->record, MT_OUTPUT_DIR, mt_recording_files, ei);
    if (!e)
        e = mt_cli_check_plot_outputs(o, ei);
    return e;
}

/* Drops what the recorders hold so that destroying them writes nothing. */
static void discard_recordings(mt_backend *rec, mt_backend *raw)
{
    mt_record_discard(rec);
    mt_record_discard(raw);
}

/* The signal a replayed recording says stopped its run (0 when none). */
static int recorded_signal(mt_backend *replay)
{
    mt_recording_info ri;
    mt_errinfo ignored;
    if (mt_replay_recording_info(replay, &ri, &ignored) != MT_OK || !ri.interrupted[0])
        return 0;
    return strcmp(ri.interrupted, "SIGTERM") == 0 ? SIGTERM : SIGINT;
}

/* Keeps the first non-zero exit code; prints the failure of one output. */
static void output_failed(int *code, mt_err e, const char *msg)
{
    print_line("%s", msg);
    if (!*code)
        *code = mt_exit_code(e);
}

/* Writes every output: files first (recordings, JSON, CSV), standard output
 * last, so a reader of stdout that goes away (memtopo | head) cannot cost
 * a file.  Returns the exit code given the run's. */
static int write_outputs(const mt_cli *o, mt_topology *topo, mt_backend *rec, mt_backend *raw,
                         const mt_plot_data *plots, int code)
{
    mt_errinfo ei = {{0}};
    mt_err e;
    if (rec && (e = mt_record_flush(rec, &ei)) != MT_OK)
        output_failed(&code, e, ei.msg);
    if (raw && (e = mt_record_flush(raw, &ei)) != MT_OK)
        output_failed(&code, e, ei.msg);
    bool json_out = o->json && strcmp(o->json, "-") == 0;
    bool csv_out = o->csv && strcmp(o->csv, "-") == 0;
    if (o->json && !json_out && (e = mt_report_json(topo, o->json, &ei)) != MT_OK)
        output_failed(&code, e, ei.msg);
    if (o->csv && !csv_out && (e = mt_report_csv(topo, o->csv, &ei)) != MT_OK)
        output_failed(&code, e, ei.msg);
    if (plots && (e = mt_cli_write_plots(o, topo, plots, &ei)) != MT_OK)
        output_failed(&code, e, ei.msg);
    if (json_out)
        e = mt_report_json(topo, "-", &ei);
    else if (csv_out)
        e = mt_report_csv(topo, "-", &ei);
    else
        e = mt_report_text(topo, stdout, &ei);
    if (e != MT_OK)
        output_failed(&code, e, ei.msg);
    return code;
}

/* Measures (or replays) and writes the outputs; returns the exit code. */
static int run(const mt_cli *o)
{
    /* From the start: a signal that comes before the first batch still
     * ends the run cleanly (at its first batch), never by the default
     * action that would keep nothing. */
    volatile sig_atomic_t *stop = mt_cli_signals_install();
    mt_errinfo ei = {{0}};
    mt_err err = check_outputs(o, &ei);
    if (err != MT_OK) {
        print_error(o, err, ei.msg);
        return mt_exit_code(err);
    }
    mt_backend *be = NULL, *rec = NULL, *raw = NULL;
    mt_topology *topo = NULL;
    mt_plot_data *plots = NULL;
    mt_backend *observer = NULL; /* owns be once set: destroyed instead of it */
    double t = mt_phase_now();
    if ((err = mt_cli_open_backend(o, &be, &ei)) != MT_OK)
        goto fail_early;
    mt_phase_add("cli: open the backend", mt_phase_now() - t);
    char when[32];
    mt_cli_iso_time(when, sizeof when);
    /* Nothing is created on disk before the flush at the end. */
    if (o->raw) {
        if ((err = mt_backend_record_wrap(be, o->raw, &raw, &ei)) != MT_OK)
            goto fail_early;
        be = raw;
    }
    if (o->record) {
        if ((err = mt_backend_record_wrap(be, o->record, &rec, &ei)) != MT_OK)
            goto fail_early;
        mt_record_set_provenance(rec, MEMTOPO_VERSION, o->command_line, when);
        be = rec;
    }

    topo = mt_topology_new();
    if (!topo) {
        err = mt_fail(&ei, MT_ERR_NOMEM, "out of memory");
        goto fail_early;
    }
    if ((err = mt_backend_info(be, &topo->dev, &ei)) != MT_OK)
        goto fail_early;
    mt_cli_fill_provenance(topo, o, when);
    if (o->replay) {
        mt_recording_info ri;
        if (mt_replay_recording_info(be, &ri, &ei) == MT_OK && ri.time_utc[0])
            snprintf(topo->prov.replay_of, sizeof topo->prov.replay_of, "%s (recorded %s)",
                     o->replay, ri.time_utc);
        else
            snprintf(topo->prov.replay_of, sizeof topo->prov.replay_of, "%s", o->replay);
    }

    mt_probe_options popt = o->probes;
    /* --carveout names carveouts of this device: known only now. */
    if ((err = mt_cli_apply_carveout(&o->carveout, &topo->dev, &popt, &ei)) != MT_OK)
        goto fail_early;
    if (o->replay) {
        mt_recording_info ri;
        if (mt_replay_recording_info(be, &ri, &ei) == MT_OK)
            skip_unrecorded(&ri, &popt, &topo->prov);
        if (topo->prov.probes_missing[0] && !o->quiet)
            print_line("the recording holds no data for: %s (skipped)", topo->prov.probes_missing);
    }
    record_probes(rec, &popt);
    record_probes(raw, &popt);
    mt_cli_progress progress;
    mt_cli_progress_init(&progress, &popt);
    if (!o->quiet && isatty(STDERR_FILENO)) {
        popt.progress = mt_cli_progress_cb;
        popt.progress_user = &progress;
    }
    popt.stop = stop;
    /* --plot/--html: the plot collector watches every batch, outermost, so
     * it sees what a replay answers as well as what a GPU measures. */
    if (o->plot || o->html) {
        if (!(plots = mt_plot_data_new())) {
            err = mt_fail(&ei, MT_ERR_NOMEM, "out of memory");
            goto fail_early;
        }
        if ((err = mt_plot_observe_wrap(be, plots, &observer, &ei)) != MT_OK)
            goto fail_early;
    }
    t = mt_phase_now();
    mt_err run_err = mt_probe_run_all(observer ? observer : be, &popt, topo, &ei);
    mt_phase_add("cli: the probes", mt_phase_now() - t);
    mt_cli_progress_end(&progress);
    mt_errinfo run_ei = ei;
    if (run_err != MT_OK && is_input_error(run_err)) {
        /* Bad replay data or options found mid-run: write nothing. */
        err = run_err;
        goto fail_early;
    }
    int code = run_err == MT_OK ? 0 : mt_exit_code(run_err);
    if (run_err == MT_ERR_INTERRUPTED) {
        /* 128 + the signal, as a shell reports a process it killed; a
         * replay ends as the run it replays did. */
        int sig = *popt.stop ? (int)*popt.stop : recorded_signal(be);
        if (sig)
            code = 128 + sig;
        topo->prov.interrupted = true;
        mt_record_set_interrupted(rec, sig ? sig : SIGINT);
        mt_record_set_interrupted(raw, sig ? sig : SIGINT);
    }
    if (run_err != MT_OK) {
        /* prov.error is shorter than a full message: keep its head. */
        snprintf(topo->prov.error, sizeof topo->prov.error, "%.40s: %.320s", mt_strerror(run_err),
                 run_ei.msg);
    }
    t = mt_phase_now();
    code = write_outputs(o, topo, rec, raw, plots, code);
    mt_phase_add("cli: write the outputs", mt_phase_now() - t);
    t = mt_phase_now();
    mt_backend_destroy(observer ? observer : be);
    mt_phase_add("cli: destroy the backend", mt_phase_now() - t);
    mt_plot_data_free(plots);
    if (topo->prov.n_disturbed > 0) {
        /* Issue 7: a degraded report is written in full, but never passes
         * for a clean one: one line here, and its own exit code. */
        print_line("warning: the GPU was disturbed, report degraded: %s%s",
                   topo->prov.disturbed[0],
                   topo->prov.n_disturbed > 1 ? " (and more: see the report)" : "");
        if (!code)
            code = MT_EXIT_DEGRADED;
    }
    if (run_err != MT_OK)
        print_line("%s%s", run_ei.msg,
                   (o->json || o->csv || o->record || o->raw) ? " (what was measured before this was written)"
                                                              : "");
    mt_topology_free(topo);
    return code;

fail_early:
    print_error(o, err, ei.msg);
    discard_recordings(rec, raw);
    mt_backend_destroy(observer ? observer : be);
    mt_plot_data_free(plots);
    mt_topology_free(topo);
    return mt_exit_code(err);
}

int mt_cli_main(int argc, char **argv)
{
    reserve_std_streams();
    mt_cli_phase_begin();
    if (argc >= 2 && strcmp(argv[1], "compare") == 0)
        return mt_cli_compare(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "model") == 0)
        return mt_cli_model(argc - 1, argv + 1);
    mt_cli o;
    mt_errinfo ei = {{0}};
    int code;
    mt_err err = mt_cli_parse(argc, argv, &o, &ei);
    if (err != MT_OK) {
        print_error(&o, err, ei.msg);
        return mt_exit_code(err);
    }
    if (o.help) {
        mt_cli_usage(stdout);
        code = 0;
    } else if (o.version) {
        printf("memtopo %s\n", MEMTOPO_VERSION);
        code = 0;
    } else if (o.list_presets) {
        for (const mt_preset *p = mt_presets; p->name; p++)
            printf("%s\n", p->name);
        code = 0;
    } else if (o.fleet) {
        code = mt_cli_fleet(&o);
    } else if (o.device_all) {
        /* Every GPU of the node, however many: the node report even for
         * one, so what a script reads does not depend on the machine. */
        err = mt_cli_resolve_all_devices(&o, &ei);
        if (err != MT_OK) {
            print_error(&o, err, ei.msg);
            code = mt_exit_code(err);
        } else {
            code = mt_cli_node(&o);
        }
    } else if (o.n_devices > 1 || o.n_sims > 1) {
        code = mt_cli_node(&o);
    } else {
        code = run(&o);
    }
    /* Whatever went to stdout must have arrived: a full disk or a closed
     * stdout is an output error (exit 5) like a file that cannot be
     * written, reported once. */
    errno = 0;
    bool failed_before = ferror(stdout);
    if ((fflush(stdout) != 0 || ferror(stdout)) && !failed_before) {
        print_line("cannot write to standard output: %s", errno ? strerror(errno) : "stream error");
        if (!code)
            code = mt_exit_code(MT_ERR_IO);
    }
    mt_cli_phase_print();
    return code;
}

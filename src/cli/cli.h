/* Command-line parsing (getopt_long).  Parsing is separate from running so
 * tests can check every option error without running probes. */
#ifndef MT_CLI_H
#define MT_CLI_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "../core/error.h"
#include "../probes/probe.h"
#include "../report/plot_data.h"

/* --carveout VALUE as given (cli_carveout.c): which carveouts it means
 * depends on the device, known only once the backend is open. */
typedef enum {
    MT_CLI_CARVEOUT_NONE = 0, /* no --carveout: the carveout probe does not run */
    MT_CLI_CARVEOUT_KIB,      /* value KiB of shared memory: one the device lists */
    MT_CLI_CARVEOUT_PERCENT,  /* value percent: a preference the device rounds up */
    MT_CLI_CARVEOUT_ALL,      /* every carveout the device lists, and the fit */
} mt_cli_carveout_kind;

typedef struct {
    mt_cli_carveout_kind kind;
    uint32_t value;
} mt_cli_carveout;

/* GPUs one run measures at most (--device LIST, --sim given again): more
 * than the 8 of the largest nodes built so far. */
#define MT_CLI_MAX_NODE_GPUS 16

typedef struct {
    int device;            /* --device N (default 0); a list's first */
    bool device_given;
    int devices[MT_CLI_MAX_NODE_GPUS]; /* --device 0,2: every GPU of the list */
    int n_devices;
    bool device_all;       /* --device all: devices[] is filled by mt_cli_resolve_all_devices */
    const char *sims[MT_CLI_MAX_NODE_GPUS]; /* --sim A --sim B: one simulated GPU each */
    int n_sims;
    const char *sim;       /* --sim PRESET|FILE */
    const char *replay;    /* --replay DIR */
    const char *record;    /* --record DIR */
    const char *raw;       /* --raw DIR */
    const char *json;      /* --json FILE|- */
    const char *csv;       /* --csv FILE|- */
    const char *plot;      /* --plot DIR */
    const char *html;      /* --html FILE */
    const char *fleet;     /* --fleet FILE: an MPI fleet run (cli_fleet.c) */
    const char *sim_per_rank; /* --sim-per-rank DIR: rank R simulates DIR's R-th *.spec */
    bool has_seed;
    uint64_t seed;
    bool quiet;
    bool no_links;         /* --no-links: a node run without the links probe */
    bool help, version, list_presets;
    mt_probe_options probes;
    mt_cli_carveout carveout; /* --carveout */
    char command_line[512];
} mt_cli;

/* Parses argv.  On error returns MT_ERR_INVALID_ARG with a one-line message. */
mt_err mt_cli_parse(int argc, char **argv, mt_cli *out, mt_errinfo *ei);

/* --carveout's syntax: "100" or "100KiB" (KiB of shared memory), "40%"
 * (a preference 0..100), or "all".  MT_ERR_INVALID_ARG otherwise. */
mt_err mt_cli_parse_carveout(const char *arg, mt_cli_carveout *out, mt_errinfo *ei);
/* The carveouts req means on device d, into o (carveout_smem, n_carveouts,
 * carveout_sweep).  MT_ERR_INVALID_ARG, naming the device's carveouts, for
 * a size the device does not list or a device that lists none. */
mt_err mt_cli_apply_carveout(const mt_cli_carveout *req, const mt_device_info *d,
                             mt_probe_options *o, mt_errinfo *ei);

/* --plot and --html (cli_plot.c): before measuring, gnuplot is found and
 * both paths can be written (MT_ERR_INVALID_ARG otherwise); after it, the
 * plots of pd are drawn into --plot DIR and the page written to --html
 * FILE, each whole or not at all. */
mt_err mt_cli_check_plot_outputs(const mt_cli *o, mt_errinfo *ei);
mt_err mt_cli_write_plots(const mt_cli *o, const mt_topology *t, const mt_plot_data *pd,
                          mt_errinfo *ei);

/* The progress line on a terminal's stderr (cli_progress.c). */
typedef struct {
    const char *names[MT_MAX_PROBES]; /* the run's plan, in order */
    size_t n;
    size_t current; /* 1 + the plan index of the running probe; 0 before the first */
    double t0;      /* when the run started (CLOCK_MONOTONIC, s) */
    bool shown;     /* a line is on the terminal */
} mt_cli_progress;
void mt_cli_progress_init(mt_cli_progress *p, const mt_probe_options *o);
/* An mt_progress_fn; user is the mt_cli_progress. */
void mt_cli_progress_cb(void *user, const char *probe, const char *what);
/* Clears the line (before anything else is printed on stderr). */
void mt_cli_progress_end(mt_cli_progress *p);

/* Writes the --help text. */
void mt_cli_usage(FILE *f);

/* A one-clause suggestion for an error, or NULL (cli_hints.c). */
const char *mt_cli_hint(mt_err e, const mt_cli *o);

/* Installs the SIGINT/SIGTERM handlers (cli_signals.c); returns the flag
 * they set to the signal's number, for mt_probe_options.stop. */
volatile sig_atomic_t *mt_cli_signals_install(void);

/* Runs the tool as main() would; returns the process exit code. */
int mt_cli_main(int argc, char **argv);

/* Exit code of a run whose report was written in full but is degraded:
 * the interference checks found measurements disturbed by another workload
 * or a clock change even after re-running them (README, "Exit codes"). */
#define MT_EXIT_DEGRADED 6
/* Exit code of `memtopo compare` (and of a fleet run) that found a member
 * differing beyond the tolerances, or (fleet) a rank that failed: every
 * output was written, so not an error code; distinct from 0 so CI can
 * check a report against a known-good one by the status alone. */
#define MT_EXIT_DIFFERS 7

/* --fleet (cli_fleet.c): the options that make sense with it (the
 * per-run outputs do not: rank 0 writes the fleet report). */
mt_err mt_cli_check_fleet_options(const mt_cli *o, mt_errinfo *ei);
/* Runs one rank of a fleet; returns its exit code (rank 0: 0 same, 7
 * differs or a rank failed; other ranks 0 once their result is sent). */
int mt_cli_fleet(const mt_cli *o);
/* The current UTC time, ISO 8601 ("2026-11-23T11:06:41Z"). */
void mt_cli_iso_time(char *buf, size_t n);
/* Measures the one GPU o names into *out (cli_measure.c): the backend, the
 * device description, the provenance and every planned probe; no output
 * is written; *out is NULL on failure.  Fleet ranks and the GPUs of a
 * node run it, each on its own thread and backend. */
mt_err mt_cli_measure(const mt_cli *o, volatile sig_atomic_t *stop, mt_topology **out,
                      mt_errinfo *ei);
/* Several GPUs of this node (--device 0,2 or --sim given more than once;
 * cli_node.c): each measured on a thread of its own, one report each and
 * the node summary; returns the exit code (7 when one differs). */
int mt_cli_node(const mt_cli *o);
/* --device all (cli_devices.c): every GPU the cuda backend counts, into
 * o->devices (MT_ERR_NO_DEVICE when there is none; MT_ERR_NOT_BUILT
 * without the backend; MT_ERR_INVALID_ARG beyond MT_CLI_MAX_NODE_GPUS). */
mt_err mt_cli_resolve_all_devices(mt_cli *o, mt_errinfo *ei);
/* The backend o names (--replay, --sim, else CUDA device o->device). */
mt_err mt_cli_open_backend(const mt_cli *o, mt_backend **be, mt_errinfo *ei);
/* The provenance every run fills in: version, command line, time, source. */
void mt_cli_fill_provenance(mt_topology *topo, const mt_cli *o, const char *when);

/* The files of dir whose names end in suffix, in name order, as
 * "dir/name" (cli_listdir.c); none is MT_ERR_INVALID_ARG.  Free the list
 * with mt_cli_free_list. */
mt_err mt_cli_list_dir(const char *dir, const char *suffix, char ***paths, size_t *n,
                       mt_errinfo *ei);
void mt_cli_free_list(char **paths, size_t n);

/* memtopo compare (cli_compare.c): argv[0] is "compare". */
int mt_cli_compare(int argc, char **argv);
/* Prints msg as one "memtopo: ..." line on stderr (control characters
 * escaped). */
void mt_cli_error_line(const char *msg);

/* MT_PHASE_TIMES=1 (cli_phase.c): turns the developer timers on at the
 * start of main, and prints their table on stderr at its end. */
void mt_cli_phase_begin(void);
void mt_cli_phase_print(void);

#endif

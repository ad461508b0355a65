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

typedef struct {
    int device;            /* --device N (default 0) */
    bool device_given;
    const char *sim;       /* --sim PRESET|FILE */
    const char *replay;    /* --replay DIR */
    const char *record;    /* --record DIR */
    const char *raw;       /* --raw DIR */
    const char *json;      /* --json FILE|- */
    const char *csv;       /* --csv FILE|- */
    bool has_seed;
    uint64_t seed;
    bool quiet;
    bool help, version, list_presets;
    mt_probe_options probes;
    char command_line[512];
} mt_cli;

/* Parses argv.  On error returns MT_ERR_INVALID_ARG with a one-line message. */
mt_err mt_cli_parse(int argc, char **argv, mt_cli *out, mt_errinfo *ei);

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

#endif

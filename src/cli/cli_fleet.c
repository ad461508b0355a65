/* memtopo --fleet FILE under mpirun or srun: every rank measures its GPU
 * (or the simulated one it is given), rank 0 gathers the reports and
 * writes one fleet report, compared with the same test as memtopo compare
 * (src/fleet).  A rank that fails sends its error instead, and the others'
 * reports are kept.  The transport is fleet_comm.h (MPI in an MPI build). */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "../core/text.h"
#include "../fleet/fleet.h"
#include "../fleet/fleet_comm.h"
#include "../report/json_file.h"
#include "../report/output_check.h"
#include "../topology/topology_json.h"
#include "cli.h"

mt_err mt_cli_check_fleet_options(const mt_cli *o, mt_errinfo *ei)
{
    if (o->sim_per_rank && !o->fleet)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "--sim-per-rank only applies to --fleet");
    if (!o->fleet)
        return MT_OK;
    if (!*o->fleet)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "--fleet needs a file name");
    if (o->json || o->csv || o->raw || o->record || o->plot || o->html)
        return mt_fail(ei, MT_ERR_INVALID_ARG,
                       "--fleet writes one fleet report: --json, --csv, --raw, --record, "
                       "--plot and --html are for single runs");
    return MT_OK;
}

/* What this rank measures: --sim-per-rank's spec for it, or as for a single
 * run, except that the CUDA device is the rank's index on its node unless
 * --device names one. */
static mt_err rank_source(const mt_cli *o, const mt_fleet_comm *c, mt_cli *one, char *spec,
                          size_t spec_size, mt_errinfo *ei)
{
    *one = *o;
    if (o->sim_per_rank) {
        char **paths;
        size_t n;
        mt_err e = mt_cli_list_dir(o->sim_per_rank, ".spec", &paths, &n, ei);
        if (e != MT_OK) {
            char why[sizeof ei->msg];
            snprintf(why, sizeof why, "%s", ei->msg); /* mt_fail writes ei->msg */
            return mt_fail(ei, e, "--sim-per-rank: %.480s", why);
        }
        if ((size_t)c->rank >= n) {
            mt_cli_free_list(paths, n);
            return mt_fail(ei, MT_ERR_INVALID_ARG,
                           "--sim-per-rank: no spec for rank %d (%s has %zu *.spec files)",
                           c->rank, o->sim_per_rank, n);
        }
        snprintf(spec, spec_size, "%s", paths[c->rank]);
        mt_cli_free_list(paths, n);
        one->sim = spec;
    } else if (!o->sim && !o->replay && !o->device_given) {
        one->device = c->local_rank;
    }
    return MT_OK;
}

/* This rank's message to rank 0: {"host", "target", "error", "report"}. */
static char *rank_message(const mt_fleet_comm *c, const mt_cli *one, const mt_topology *topo,
                          const char *error)
{
    char target[300];
    if (one->sim)
        snprintf(target, sizeof target, "sim %.280s", one->sim);
    else if (one->sim_per_rank) /* its spec could not be picked */
        snprintf(target, sizeof target, "sim-per-rank %.280s", one->sim_per_rank);
    else if (one->replay)
        snprintf(target, sizeof target, "replay %.280s", one->replay);
    else
        snprintf(target, sizeof target, "device %d", one->device);
    json_t *rep = json_null();
    mt_errinfo ei = {{0}};
    if (topo && mt_topology_build_json(topo, &rep, &ei) != MT_OK) {
        error = ei.msg;
        rep = json_null();
    }
    json_t *msg = json_pack("{s:s, s:s, s:o, s:o}", "host", c->host, "target", target, "error",
                            topo && !error ? json_null() : json_string(error ? error : "?"),
                            "report", rep);
    char *text = msg ? json_dumps(msg, JSON_COMPACT | JSON_REAL_PRECISION(17)) : NULL;
    json_decref(msg);
    return text;
}

/* Rank 0: one member from a rank's message. */
static void read_member(int rank, const char *text, mt_fleet_member *m)
{
    memset(m, 0, sizeof *m);
    json_error_t jerr;
    json_t *msg = text ? json_loads(text, 0, &jerr) : NULL;
    const char *host = json_string_value(json_object_get(msg, "host"));
    const char *target = json_string_value(json_object_get(msg, "target"));
    snprintf(m->name, sizeof m->name, "rank %d (%s, %s)", rank, host ? host : "?",
             target ? target : "?");
    const char *error = json_string_value(json_object_get(msg, "error"));
    json_t *rep = json_object_get(msg, "report");
    mt_errinfo ei = {{0}};
    if (!msg)
        snprintf(m->error, sizeof m->error, "its message could not be read: %s", jerr.text);
    else if (error)
        snprintf(m->error, sizeof m->error, "%s", error);
    else if (mt_topology_from_json(rep, &m->report, &ei) != MT_OK)
        snprintf(m->error, sizeof m->error, "its report could not be read: %.450s", ei.msg);
    json_decref(msg);
}

/* Rank 0: the fleet from every message, compared, written; the exit code. */
static int write_fleet(const mt_cli *o, char **texts, int n)
{
    mt_fleet fl = {calloc((size_t)n, sizeof *fl.members), (size_t)n};
    mt_fleet_cmp *c = NULL;
    json_t *doc = NULL;
    mt_errinfo ei = {{0}};
    mt_err e = fl.members ? MT_OK : mt_fail(&ei, MT_ERR_NOMEM, "--fleet: out of memory");
    for (int r = 0; e == MT_OK && r < n; r++)
        read_member(r, texts[r], &fl.members[r]);
    if (e == MT_OK)
        e = mt_fleet_compare_members(&fl, &c, &ei);
    if (e == MT_OK)
        e = mt_fleet_build_json(&fl, c, &doc, &ei);
    if (e == MT_OK)
        e = mt_json_write_doc(doc, o->fleet, "fleet report", &ei);
    if (e == MT_OK)
        e = mt_fleet_text(&fl, c, stdout, &ei);
    int code = e != MT_OK                                  ? mt_exit_code(e)
               : (c->n_flagged_reports || c->n_failed) ? MT_EXIT_DIFFERS
                                                           : 0;
    if (e != MT_OK)
        mt_cli_error_line(ei.msg);
    json_decref(doc);
    mt_fleet_cmp_free(c);
    mt_fleet_free_members(&fl);
    return code;
}

int mt_cli_fleet(const mt_cli *o)
{
    volatile sig_atomic_t *stop = mt_cli_signals_install();
    mt_fleet_comm comm;
    mt_errinfo ei = {{0}};
    mt_err e = mt_fleet_comm_open(&comm, &ei);
    if (e != MT_OK) {
        mt_cli_error_line(ei.msg);
        return mt_exit_code(e);
    }
    /* Rank 0 checks its output before anything is measured; a bad path
     * still takes part in the gather (so no rank waits for it) and then
     * fails with exit 2. */
    mt_errinfo out_ei = {{0}};
    mt_err out_err = comm.rank == 0
                         ? mt_output_check("--fleet", o->fleet, MT_OUTPUT_FILE, NULL, &out_ei)
                         : MT_OK;
    mt_cli one;
    char spec[4096];
    mt_topology *topo = NULL;
    e = rank_source(o, &comm, &one, spec, sizeof spec, &ei);
    if (e == MT_OK && out_err == MT_OK)
        e = mt_cli_measure(&one, stop, &topo, &ei);
    char *mine = rank_message(&comm, &one, topo, e != MT_OK ? ei.msg : NULL);
    mt_topology_free(topo);
    char **all = NULL;
    mt_errinfo gei = {{0}};
    mt_err ge = mine ? mt_fleet_comm_gather(&comm, mine, &all, &gei)
                     : mt_fail(&gei, MT_ERR_NOMEM, "--fleet: out of memory");
    free(mine);
    int code = 0;
    if (ge != MT_OK) {
        mt_cli_error_line(gei.msg);
        code = mt_exit_code(ge);
    } else if (comm.rank == 0 && out_err != MT_OK) {
        mt_cli_error_line(out_ei.msg);
        code = mt_exit_code(out_err);
    } else if (comm.rank == 0) {
        code = write_fleet(o, all, comm.size);
    }
    if (all)
        for (int r = 0; r < comm.size; r++)
            free(all[r]);
    free(all);
    mt_fleet_comm_close(&comm);
    return code;
}

/* What the developer tools (capscan, l1profile) share: opening the
 * backend their command line names and a probe context calibrated the way
 * a report's is, so each tool keeps only its own measurement. */
#ifndef MT_TOOL_SESSION_H
#define MT_TOOL_SESSION_H

#include <string.h>

#include "probes/probe_internal.h"

typedef struct {
    mt_errinfo ei;
    mt_backend *be;
    mt_topology topo;
    mt_probe_options opt;
    mt_probe_ctx c;
} mt_tool_session;

/* Opens the simulator when argv[1..2] is "--sim SPEC", the cuda backend
 * otherwise; returns the index of the first argument left (-1: s->ei.msg
 * says why). */
static inline int mt_tool_open(mt_tool_session *s, int argc, char **argv)
{
    memset(s, 0, sizeof *s);
    mt_backend_args args = {.target = NULL, .device = 0};
    int a = 1;
    mt_err err;
    if (argc > 2 && strcmp(argv[1], "--sim") == 0) {
        args.target = argv[2];
        err = mt_backend_open("sim", &args, &s->be, &s->ei);
        a = 3;
    } else {
        err = mt_backend_open("cuda", &args, &s->be, &s->ei);
    }
    return err == MT_OK ? a : -1;
}

/* Readies s->c over the open backend and runs the calibrate probe. */
static inline mt_err mt_tool_calibrate(mt_tool_session *s)
{
    mt_probe_options_default(&s->opt);
    s->c.be = s->be;
    s->c.opt = &s->opt;
    s->c.topo = &s->topo;
    s->c.ei = &s->ei;
    mt_backend_info(s->be, &s->c.dev, &s->ei);
    const mt_probe_desc *cal = mt_probe_find("calibrate");
    s->c.desc = cal;
    if (!cal)
        return MT_ERR_INVALID_ARG;
    return cal->run(&s->c);
}

#endif

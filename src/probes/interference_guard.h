/* What the probe runner does with the interference checks (issue 7):
 * re-runs a probe whose window the reference measurements found disturbed
 * (clearing what it set first), and degrades what stays disturbed: its
 * findings' confidence is capped below 0.5 with a note naming the cause,
 * findings that were computed from them (later probes requiring them,
 * derivations) follow, and the topology's provenance lists the causes.
 * Internal to src/probes. */
#ifndef MT_PROBE_INTERFERENCE_GUARD_H
#define MT_PROBE_INTERFERENCE_GUARD_H

#include "interference.h"

#define MT_GUARD_MAX_IDS 160

/* A backend in front of the real one that asks the device, after every
 * batch, how many other processes are busy (NVML's sample: a function
 * call, no GPU work), so a neighbour that comes and goes inside a probe's
 * window is seen even when the references at its ends are clean. */
typedef struct {
    mt_backend base;
    mt_backend_ops ops;
    mt_backend *inner;
    int busy_max; /* most busy processes seen since the last reset */
} mt_guard_watch;

typedef struct {
    mt_interference it;
    mt_guard_watch watch;
    /* Every guarded probe's window, in run order, for the final re-check. */
    const mt_probe_desc *probe[MT_MAX_PROBES];
    mt_reference start[MT_MAX_PROBES], end[MT_MAX_PROBES];
    bool degraded[MT_MAX_PROBES];
    size_t n;
    /* "object.finding" ids whose confidence was capped. */
    char bad[MT_GUARD_MAX_IDS][64];
    size_t n_bad;
} mt_guard;

typedef mt_err (*mt_probe_run_fn)(mt_probe_ctx *c, const mt_probe_desc *d);

/* Puts the watch in front of c->be and takes the first reference (before
 * any probe).  c->be stays the watch until mt_guard_end. */
mt_err mt_guard_begin(mt_probe_ctx *c, mt_guard *g);
/* Gives c->be back. */
void mt_guard_end(mt_probe_ctx *c, mt_guard *g);

/* Runs probe d through run, re-running it up to MT_INTERFERE_MAX_RERUNS
 * times while its window is disturbed; degrades it if it stays so, or if
 * it requires a finding that was degraded. */
mt_err mt_guard_run(mt_probe_ctx *c, mt_guard *g, const mt_probe_desc *d, mt_probe_run_fn run);

/* After the last probe: judges every window again against the least
 * disturbed reference of the whole run (a neighbour present from the start
 * made the early references look normal until it left). */
void mt_guard_recheck(mt_probe_ctx *c, mt_guard *g);

/* After a derivation ran: caps what it provides when it required a
 * degraded finding. */
void mt_guard_derived(mt_probe_ctx *c, mt_guard *g, const mt_derivation_desc *d);

#endif

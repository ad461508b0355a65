/* Interference checks of the probe runner (issue 7): a cheap reference
 * measurement before the first probe and after every probe, judged by
 * analysis/interference.h; the runner re-runs a probe whose window was
 * disturbed and degrades what stays disturbed.  Internal to src/probes. */
#ifndef MT_PROBE_INTERFERENCE_H
#define MT_PROBE_INTERFERENCE_H

#include <stdbool.h>
#include <stddef.h>

#include "../analysis/interference.h"
#include "probe_internal.h"

/* Loads per reference chase: a few hundred, so one repeat (two chases)
 * costs a few milliseconds on a GPU while the interquartile mean of 256
 * loads moves by < 1% of the latency under the noisiest allowed spec. */
#define MT_REF_LOADS 256u
/* Re-runs of a probe whose window was disturbed, before its findings are
 * degraded: a neighbour that comes and goes (a monitoring agent, another
 * short job) is usually gone two probe-lengths later; a long memory-bound
 * job is not, and more attempts would only make the run longer. */
#define MT_INTERFERE_MAX_RERUNS 2
/* Confidence cap of a finding measured in a disturbed window: below 0.5,
 * so "confidence >= 0.5" always means "not known to be disturbed". */
#define MT_INTERFERE_CONF_CAP 0.4

typedef struct {
    bool enabled;          /* false: the backend cannot run the reference (old recording) */
    unsigned repeats;      /* references taken: the next one's order seed */
    mt_reference first;    /* the first reference (its clock is the clock baseline) */
    mt_reference least;    /* element-wise least disturbed reference so far */
    mt_reference last;     /* the latest reference: the start of the next window */
} mt_interference;

/* Takes the first reference.  A backend that cannot answer it (a replayed
 * recording made before these checks: MT_ERR_REPLAY; a backend without the
 * cg path: MT_ERR_UNSUPPORTED) disables the checks; other errors are
 * returned. */
mt_err mt_interference_begin(mt_probe_ctx *c, mt_interference *it);

/* Takes a reference at the end of a window; *start receives the window's
 * first reference and *end this one (it->least and it->last are updated). */
mt_err mt_interference_end_window(mt_probe_ctx *c, mt_interference *it, mt_reference *start,
                                  mt_reference *end);

/* Judges the window [start, end] against it->least (the worse end decides);
 * causes 0 = clean. */
mt_ref_verdict mt_interference_judge(const mt_interference *it, const mt_reference *start,
                                     const mt_reference *end);

/* One line naming the cause: "reference L2 latency 567 cycles vs 270 at
 * its least disturbed: another workload on the GPU (2 other processes:
 * 4242 python, ...)". */
void mt_interference_describe(const mt_probe_ctx *c, const mt_ref_verdict *v, char *buf,
                              size_t n);

#endif

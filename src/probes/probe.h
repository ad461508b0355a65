/* Probes: backend-independent code that plans pointer-chase experiments,
 * runs them in batches through an mt_backend, and turns the samples into
 * findings of an mt_topology.  No CUDA, no printing: progress goes through a
 * callback the CLI provides. */
#ifndef MT_PROBE_H
#define MT_PROBE_H

#include <stdbool.h>

#include "../backend/backend.h"
#include "../report/topology.h"

typedef enum {
    MT_PROBE_SHARED = 0,
    MT_PROBE_L1D,
    MT_PROBE_TEXTURE,
    MT_PROBE_READONLY,
    MT_PROBE_CONSTANT,
    MT_PROBE_L2,
    MT_PROBE_DRAM,
    MT_PROBE_SHARING, /* L1/texture/read-only sharing and slices per SM */
    MT_PROBE_COUNT
} mt_probe_id;

typedef void (*mt_progress_fn)(void *user, const char *probe, const char *what);

typedef struct {
    bool enabled[MT_PROBE_COUNT]; /* all true by default */
    mt_progress_fn progress;      /* may be NULL */
    void *progress_user;
} mt_probe_options;

const char *mt_probe_name(mt_probe_id id);          /* "shared", "l1d", ... */
int mt_probe_from_name(const char *s, mt_probe_id *out);
void mt_probe_options_default(mt_probe_options *o);

/* Parses a comma-separated --only list ("l1d,l2"); on error fills ei with the
 * offending name and the valid names. */
mt_err mt_probe_parse_only(const char *list, mt_probe_options *o, mt_errinfo *ei);

/* Runs the enabled probes (plus what they depend on) and fills topo.  topo's
 * dev and prov must be set by the caller; on failure topo holds whatever was
 * measured before the failure, so the caller can still write it out. */
mt_err mt_probe_run_all(mt_backend *be, const mt_probe_options *opt, mt_topology *topo,
                        mt_errinfo *ei);

#endif

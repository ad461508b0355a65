/* Entry points of the sim backend besides its registry entry
 * (mt_backend_entry_sim, name "sim", in backend_sim.c): opening a preset or
 * a spec file directly, building a backend from an already parsed (possibly
 * edited) spec, and reading back the spec a sim backend runs, so tests can
 * compare what the probes found with the ground truth. */
#ifndef MT_SIM_SIM_H
#define MT_SIM_SIM_H

#include "../backend/backend.h"
#include "spec.h"

/* A preset name (presets/NAME.spec, embedded) or a spec file; has_seed
 * replaces the spec's noise seed with seed_override.  What the registry
 * entry's open calls with its mt_backend_args (target, has_seed, seed). */
mt_err mt_backend_sim_open(const char *preset_or_file, int has_seed, uint64_t seed_override,
                           mt_backend **out, mt_errinfo *ei);

/* The backend copies *spec. */
mt_err mt_backend_sim_from_spec(const mt_sim_spec *spec, mt_backend **out, mt_errinfo *ei);

/* Spec text in memory (fname only names it in messages). */
mt_err mt_backend_sim_open_text(const char *text, const char *fname, mt_backend **out,
                                mt_errinfo *ei);

/* The spec of a sim backend; NULL if b is not one. */
const mt_sim_spec *mt_backend_sim_spec(const mt_backend *b);

#endif

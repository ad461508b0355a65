/* The simulator's link model (docs/spec-format.md, "Links"): what a link
 * experiment (MT_KIND_LINK) returns on a spec with [link N] or [host_link]
 * sections.  Pure functions of the spec; the sim backend runs link
 * experiments with them and the end-to-end truth (tests/e2e_truth_link.c)
 * reads the links from the same spec. */
#ifndef MT_SIM_LINK_MODEL_H
#define MT_SIM_LINK_MODEL_H

#include "../backend/backend.h"
#include "../core/rng.h"
#include "spec.h"

/* The spec's link to peer (MT_LINK_HOST: the host link), or NULL when the
 * spec does not describe it. */
const mt_sim_link_spec *mt_sim_link_of(const mt_sim_spec *s, int32_t peer);
/* 1 when the spec describes any link (the backend then announces MT_CAP_LINK). */
int mt_sim_has_links(const mt_sim_spec *s);

/* Runs one link experiment (checked) into out.  A query of a link the
 * spec does not describe answers "no link" (type none, no peer access,
 * everything else not available); a measurement over it fails with
 * MT_ERR_UNSUPPORTED, as would one needing peer access it does not have. */
mt_err mt_sim_link_run(const mt_sim_spec *s, const mt_experiment *e, mt_rng *rng, mt_result *out,
                       mt_errinfo *ei);

#endif

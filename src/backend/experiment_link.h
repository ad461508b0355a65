/* Link experiments (MT_KIND_LINK, backend.h): the shape check and the
 * parameter hash that mt_experiment_check and mt_experiment_hash run for
 * them.  Not for use outside src/backend/. */
#ifndef MT_EXPERIMENT_LINK_H
#define MT_EXPERIMENT_LINK_H

#include "backend.h"

/* The fixed shape of each op (backend.h); the chase's chain is then
 * checked like any chain. */
mt_err mt_check_link(const mt_experiment *e, mt_errinfo *ei);
/* h with every parameter of e->u.link mixed in. */
uint64_t mt_hash_link(uint64_t h, const mt_experiment *e);

#endif

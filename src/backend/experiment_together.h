/* Together groups (backend.h, mt_experiment.together): the shape check
 * and the hash that mt_experiment_check and mt_experiment_hash run for a
 * member.  Not for use outside src/backend/. */
#ifndef MT_EXPERIMENT_TOGETHER_H
#define MT_EXPERIMENT_TOGETHER_H

#include "backend.h"

/* A member's shape (a chase of one cg chain, fine mode, a planned SM, GPU
 * scope); MT_OK for an experiment of no group. */
mt_err mt_check_together(const mt_experiment *e, mt_errinfo *ei);
/* h with the group mixed in; h itself for no group, so every hash from
 * before 2.10 stays what it was. */
uint64_t mt_hash_together(uint64_t h, const mt_experiment *e);

#endif

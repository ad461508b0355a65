/* The simulator's instruction-cache model (docs/spec-format.md,
 * "Instruction caches"): what an icache experiment (MT_KIND_ICACHE) costs
 * on a spec with [icache NAME] sections.  Pure functions of the spec; the
 * sim backend runs icache experiments with them and the end-to-end truth
 * (tests/e2e_truth_icache.c) reads the levels from the same spec. */
#ifndef MT_SIM_ICACHE_MODEL_H
#define MT_SIM_ICACHE_MODEL_H

#include <stdint.h>

#include "../backend/backend.h"
#include "../core/rng.h"
#include "spec.h"

/* Index of the level that serves a warm block of code_bytes: the first
 * that holds all of it (fully associative LRU: a lap of a block larger
 * than a level evicts every line of it before it comes round again), or
 * -1 when no level does (a spec without [icache] sections). */
int mt_sim_icache_level(const mt_sim_spec *s, uint64_t code_bytes);

/* Runs one icache experiment (checked) into out: `loads` samples of one
 * lap each (instructions x the serving level's latency, its noise per
 * instruction, the fine timer overhead and timer outliers).
 * MT_ERR_UNSUPPORTED without [icache] sections. */
mt_err mt_sim_icache_run(const mt_sim_spec *s, const mt_experiment *e, mt_rng *rng,
                         mt_result *out, mt_errinfo *ei);

#endif

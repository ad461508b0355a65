/* The simulated memory hierarchy: runs one experiment (backend.h) against
 * the caches a spec describes and produces its cycle samples. */
#ifndef MT_SIM_ENGINE_H
#define MT_SIM_ENGINE_H

#include "../backend/backend.h"
#include "spec.h"

/* Work guards: an experiment simulating more loads than this (warm-up laps
 * included) is refused with MT_ERR_UNSUPPORTED rather than running for
 * minutes (2^28 loads is about 10 s); a random-order chain needs a 4-byte
 * successor per element, so those are capped at 2^27 elements (512 MB). */
#define MT_SIM_MAX_WORK (1ull << 28)
#define MT_SIM_MAX_RANDOM_ELEMENTS (1ull << 27)

/* Address-space tag of constant memory: ca/cg/nc/tex share the global
 * space (addresses below 2^48); constant data is a different space, so it
 * never aliases global data in the shared L2. */
#define MT_SIM_CONST_SPACE (1ull << 48)

/* Address-space tag of the [tenant]'s own data: it never aliases ours. */
#define MT_SIM_TENANT_SPACE (1ull << 49)

/* Most members of one together group the simulator runs (backend.h,
 * mt_experiment.together): the TLB probe pairs two SMs. */
#define MT_SIM_MAX_TOGETHER 8

typedef struct mt_sim_engine mt_sim_engine;

mt_err mt_sim_engine_new(const mt_sim_spec *spec, mt_sim_engine **out, mt_errinfo *ei);
void mt_sim_engine_free(mt_sim_engine *eng);

/* Runs one experiment that already passed mt_experiment_check: all caches
 * start empty, the 2-chain protocol of backend.h is followed (a chase) or
 * the index list is loaded in order (a sequence: untimed entries change
 * the caches only, timed ones are sampled as chase loads are), and the RNG
 * is seeded from the spec's seed and the experiment's own parameters, so
 * results depend neither on batch order nor on earlier batches.  Other
 * kinds: MT_ERR_UNSUPPORTED.  On failure *out holds nothing to free. */
mt_err mt_sim_engine_run(mt_sim_engine *eng, const mt_experiment *e, mt_result *out,
                         mt_errinfo *ei);

/* Runs the m members of one together group (backend.h; each passed
 * mt_experiment_check): exps[member[k]] into out[member[k]].  All caches
 * and TLBs start empty once; then the members take turns, one load each
 * (warm-up laps first, then the measured loads), as their SMs would run at
 * once, each through the TLB instances of its SM's group; a member with
 * more loads goes on alone.  Each member's noise comes from its own RNG
 * (seeded as mt_sim_engine_run's).  On failure out holds nothing to free. */
mt_err mt_sim_engine_run_together(mt_sim_engine *eng, const mt_experiment *exps,
                                  const size_t *member, int m, mt_result *out, mt_errinfo *ei);

/* Whether the spec's [tenant] disturbs the experiments run from now on
 * (the backend decides per batch: mt_sim_tenant_active).  While it does,
 * loads served by the L2 or DRAM get its added latency and it streams its
 * own lines through the L2 (docs/spec-format.md). */
void mt_sim_engine_set_tenant(mt_sim_engine *eng, int active);

/* The spec's logical path (mt_sim_lpath) of a backend path; -1 for the
 * shared and none paths. */
int mt_sim_lpath_of(mt_path p);
/* Index in s->cache of the first cache a load of path p meets (the lowest
 * level serving it, else the L2), -1 for a path without caches: where a
 * warm access experiment's pattern is served. */
int mt_sim_access_cache(const mt_sim_spec *s, mt_path p);

/* Seed of an experiment's RNG (exposed for tests). */
uint64_t mt_sim_experiment_seed(uint64_t spec_seed, const mt_experiment *e);

#endif

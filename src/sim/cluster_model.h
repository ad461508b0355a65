/* The simulator's model of thread-block clusters and bulk copies
 * (docs/spec-format.md, "Clusters and TMA"): what MT_KIND_CLUSTER
 * experiments cost on a spec with a [cluster] section.  The end-to-end
 * truth (tests/e2e_truth_cluster.c) takes its answers from the same spec
 * figures. */
#ifndef MT_SIM_CLUSTER_MODEL_H
#define MT_SIM_CLUSTER_MODEL_H

#include "../backend/backend.h"
#include "../core/rng.h"
#include "spec.h"

/* Cycles of one copy of `bytes` (op bulk_copy or plain_copy) with one copy
 * in flight: the copy's fixed latency plus its bytes at the copy rate. */
double mt_sim_cluster_copy_cycles(const mt_sim_cluster_spec *k, mt_cluster_op op, uint64_t bytes);

/* Runs one checked cluster experiment (spec with [cluster]):
 *  - chase: every load costs [shared]'s latency (target 0, the block's own
 *    shared memory) or remote_latency (another block's), with that one's
 *    noise, as a chase's aggregate sample;
 *  - stream: each block reads bytes x repeats at link_bw;
 *  - copies: repeats x mt_sim_cluster_copy_cycles;
 * streams and copies add MT_SIM_STREAM_START_CYCLES and the stream
 * model's relative noise, and give (cycles, ns) as streams do. */
mt_err mt_sim_cluster_run(const mt_sim_spec *s, const mt_experiment *e, mt_rng *rng,
                          mt_result *out, mt_errinfo *ei);

#endif

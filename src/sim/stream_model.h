/* The simulator's throughput model (docs/spec-format.md, "Throughput"):
 * what a stream experiment (MT_KIND_STREAM) costs on a spec with a
 * [throughput] section.  Pure functions of the spec; the sim backend runs
 * streams with them and the end-to-end truth (tests/e2e_truth.c) takes
 * its expected bandwidths and MLP from them. */
#ifndef MT_SIM_STREAM_MODEL_H
#define MT_SIM_STREAM_MODEL_H

#include <stdint.h>

#include "../backend/backend.h"
#include "../core/rng.h"
#include "spec.h"

/* Cycles every stream launch costs besides its streaming (launch, ramp
 * up, the first access's latency comes on top): the probe's difference of
 * two repeat counts removes them, as it must on a GPU. */
#define MT_SIM_STREAM_START_CYCLES 2000.0
/* Relative run-to-run spread (Gaussian sd) of the streaming time: small
 * enough for the MLP to come out within one of a few hundred, as a
 * median of repeated runs on a quiet GPU does. */
#define MT_SIM_STREAM_NOISE 0.0001

#define MT_SIM_LEVEL_SHARED (-1)
#define MT_SIM_LEVEL_DRAM (-2)

typedef struct {
    int level;                  /* cache index, MT_SIM_LEVEL_SHARED or MT_SIM_LEVEL_DRAM */
    double read_sm, write_sm;   /* B/clk per SM */
    double read_gpu, write_gpu; /* B/clk whole GPU; 0 = none */
    double latency;             /* cycles of one load served there (L2: mean over partitions) */
    int behind_l1;              /* L2 or DRAM: each request holds a miss slot (mshr) */
} mt_sim_stream_level;

/* The level `level` (as above) seen through path p (its latency). */
void mt_sim_stream_level_at(const mt_sim_spec *s, int level, mt_path p, mt_sim_stream_level *out);
/* The level that serves a stream on path p whose data is bytes_per_sm on
 * the busiest SM and total_bytes on the GPU, active_sms SMs streaming: the
 * closest per-SM cache on the path holding bytes_per_sm (slices x size at
 * the default carveout), else the L2 when total_bytes fits the partition
 * an SM sees (the whole L2 when every SM streams), else DRAM. */
void mt_sim_stream_level_for(const mt_sim_spec *s, mt_path p, uint64_t bytes_per_sm,
                             uint64_t total_bytes, int active_sms, mt_sim_stream_level *out);
/* Bytes per cycle per SM of reads (write = 0) or writes (1) with
 * inflight_bytes per SM issued before any is used and active_sms SMs
 * streaming: min(per-SM figure, Little's law (in flight / latency, reads
 * only, capped at mshr x the L2 sector behind the L1), GPU figure /
 * active_sms). */
double mt_sim_stream_rate(const mt_sim_spec *s, const mt_sim_stream_level *l, int write,
                          double inflight_bytes, int active_sms);
/* Copy: reads and writes take turns on the level, so bytes (read +
 * written) per cycle are 2 / (1/read + 1/write). */
double mt_sim_copy_rate(double read_rate, double write_rate);
/* Loads per cycle per SM of `chases` independent chases per SM: min(chases,
 * mshr) / latency, capped by the level's figures at one L2 sector each. */
double mt_sim_chase_rate(const mt_sim_spec *s, const mt_sim_stream_level *l, double chases,
                         int active_sms);

/* The best B/clk/SM a stream can reach at a level with every SM busy:
 * the rate at the most bytes in flight a launch allows (max_threads_per_sm
 * threads x 16 B x MT_STREAM_MAX_IN_FLIGHT).  op read, write or copy. */
double mt_sim_stream_ceiling(const mt_sim_spec *s, int level, mt_path p, mt_stream_op op);
/* Requests one SM keeps in flight at the level with `chases` chases
 * (Little's law: rate x latency), the saturation the MLP probe finds. */
double mt_sim_mlp(const mt_sim_spec *s, int level, double chases);

/* Requests the whole GPU keeps in flight at the level with `chases`
 * chases on every SM: sm_count x rate per SM (the GPU-wide figure shared by
 * all SMs) x latency, the figure the per-GPU MLP sweep finds. */
double mt_sim_mlp_gpu(const mt_sim_spec *s, int level, double chases);

/* Runs one checked stream experiment (spec with [throughput]). */
mt_err mt_sim_stream_run(const mt_sim_spec *s, const mt_experiment *e, mt_rng *rng,
                         mt_result *out, mt_errinfo *ei);

#endif

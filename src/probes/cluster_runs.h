/* Timing of cluster streams and copies (MT_KIND_CLUSTER, backend.h), shared
 * by the opt-in probes dsm and tma. */
#ifndef MT_CLUSTER_RUNS_H
#define MT_CLUSTER_RUNS_H

#include "probe_internal.h"

/* Cycles per repeat of n cluster streams or copies: each e[i] (built with
 * some repeats R) runs at R and at 2R in one batch, and out[i] =
 * (cycles at 2R - cycles at R) / R, the slowest block's cycles, so the
 * launch's fixed cost and the first, cold repeat cancel; NAN where the
 * difference is not positive or a sample saturated. */
mt_err mt_cluster_per_repeat(mt_probe_ctx *c, const mt_experiment *e, size_t n, double *out);

/* Why this device or backend runs no cluster experiments ("" when it
 * does): a compute capability before 9.0 (Hopper), a backend without
 * MT_KIND_CLUSTER, or (need_clusters) a device that states no clusters
 * (max_cluster_size: every GPU of 9.0 and later has them, so a 0 there is
 * a recording from before backend 2.3, which holds no such experiments). */
void mt_cluster_unsupported_reason(const mt_probe_ctx *c, int need_clusters, char *buf,
                                   size_t cap);

#endif

/* Timing of cluster streams and copies (cluster_runs.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cluster_runs.h"

mt_err mt_cluster_per_repeat(mt_probe_ctx *c, const mt_experiment *e, size_t n, double *out)
{
    mt_experiment *x = calloc(2 * n, sizeof *x);
    mt_result *r = calloc(2 * n, sizeof *r);
    if (!x || !r) {
        free(x);
        free(r);
        return mt_fail(c->ei, MT_ERR_NOMEM, "out of memory for %zu cluster experiments", 2 * n);
    }
    for (size_t i = 0; i < n; i++) {
        x[2 * i] = x[2 * i + 1] = e[i];
        x[2 * i + 1].u.cluster.repeats = 2 * e[i].u.cluster.repeats;
        x[2 * i + 1].loads = 2 * e[i].loads;
    }
    mt_err err = mt_run(c, x, 2 * n, r);
    if (err == MT_OK) {
        for (size_t i = 0; i < n; i++) {
            uint32_t a = r[2 * i].cycles[0][0], b = r[2 * i + 1].cycles[0][0];
            double R = e[i].u.cluster.repeats;
            out[i] = a == UINT32_MAX || b == UINT32_MAX || b <= a ? NAN : (b - (double)a) / R;
        }
        mt_results_free(r, 2 * n);
    }
    free(x);
    free(r);
    return err;
}

void mt_cluster_unsupported_reason(const mt_probe_ctx *c, int need_clusters, char *buf,
                                   size_t cap)
{
    buf[0] = '\0';
    if (c->dev.cc_major < 9)
        snprintf(buf, cap, "compute capability %d.%d: clusters and the bulk copy engine (TMA) "
                           "came with 9.0 (Hopper)",
                 c->dev.cc_major, c->dev.cc_minor);
    else if (!mt_backend_supports(c->be, MT_KIND_CLUSTER))
        snprintf(buf, cap, "the %s backend runs no cluster experiments (a recording without "
                           "them, or a simulated device without a [cluster] section)",
                 c->dev.backend);
    else if (need_clusters && c->dev.max_cluster_size < 2)
        snprintf(buf, cap, "the device states no thread-block clusters (max_cluster_size %d: "
                           "a recording made before backend 2.3 does not say)",
                 c->dev.max_cluster_size);
}

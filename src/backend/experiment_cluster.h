/* Cluster experiments (MT_KIND_CLUSTER, backend.h): the shape check that
 * mt_experiment_check runs for them.  Not for use outside src/backend/. */
#ifndef MT_EXPERIMENT_CLUSTER_H
#define MT_EXPERIMENT_CLUSTER_H

#include "backend.h"

/* The whole check of a cluster experiment (it replaces the generic chain
 * checks where its limits differ: per block for shared memory). */
mt_err mt_check_cluster(const mt_experiment *e, const mt_device_info *dev, mt_errinfo *ei);

#endif

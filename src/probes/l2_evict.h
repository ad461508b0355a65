/* The L2's exact ways (and sets, where the partition's lines are known)
 * from an eviction set found over a whole partition with MT_KIND_EVICT
 * experiments (docs/method.md, "L2 eviction sets beyond 2 MiB"): what the
 * stride search and the in-span hash recovery of l2_geom leave open for a
 * hashed partition above GEOMETRY_HASH_SPAN_BYTES. */
#ifndef MT_L2_EVICT_H
#define MT_L2_EVICT_H

#include "geometry.h"

/* Runs when the backend has MT_KIND_EVICT, the partition one SM sees is
 * over GEOMETRY_HASH_SPAN_BYTES and l2.ways is not a value.  Replaces
 * l2.ways (and l2.sets) with exact values when the eviction set passes its
 * checks; otherwise leaves them as they are with a note saying why.
 * partition_bytes: the trusted l2.partition_size, 0 when the L2 is one
 * partition (or none was seen). */
mt_err mt_l2_evict_measure(mt_probe_ctx *c, const mt_geometry_target *t,
                           double partition_bytes);

#endif

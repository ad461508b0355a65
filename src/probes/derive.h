/* Helpers of the derivation steps (derive_*.c): pure functions over the
 * topology that compute findings from other findings. */
#ifndef MT_DERIVE_H
#define MT_DERIVE_H

#include <stdio.h>

#include "../analysis/thresholds.h"
#include "confidence.h"
#include "probe.h"

/* Stores a derived finding on an existing object (created by the runner
 * from the probes' declarations); MT_ERR_INVALID_ARG if it does not exist. */
static inline mt_err mt_derive_set(mt_topology *t, const char *key, const char *name,
                                   const char *label, const mt_finding *f, mt_errinfo *ei)
{
    mt_object *o = mt_topology_object(t, key);
    if (!o)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "derivation: no object %s", key);
    mt_err err = mt_object_set(o, name, label, f);
    return err == MT_OK ? MT_OK : mt_fail(ei, err, "derivation: cannot store %s.%s", key, name);
}

/* A VALUE finding with source "derived". */
static inline mt_finding mt_derived_value(double v, const char *unit, const char *method,
                                          double conf)
{
    mt_finding f = {0};
    f.kind = MT_FIND_VALUE;
    f.source = MT_SRC_DERIVED;
    f.value = f.lo = f.hi = v;
    snprintf(f.unit, sizeof f.unit, "%s", unit);
    snprintf(f.method, sizeof f.method, "%s", method);
    f.confidence = conf < 0 ? 0 : conf > 1 ? 1 : conf;
    return f;
}

#endif

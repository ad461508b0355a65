/* mt_device_info <-> JSON object, shared by the JSON report (device block)
 * and the record/replay manifest, so both spell every field the same way.
 * Field names carry their unit where they have one (clock_khz,
 * smem_per_sm_bytes, ...). */
#ifndef MT_DEVICE_JSON_H
#define MT_DEVICE_JSON_H

#include <jansson.h>

#include "../backend/device.h"
#include "../core/error.h"

/* New reference, or NULL when out of memory. */
json_t *mt_device_to_json(const mt_device_info *d);

/* Strict: every field must be present with the right type and range
 * (except concurrent_experiments and max_sequence, added later: absent
 * reads as 0, so recordings made before them still load); unknown keys are
 * refused.  Errors are MT_ERR_JSON with a message that
 * starts with ctx (e.g. "DIR/manifest.json: device"). */
mt_err mt_device_from_json(const json_t *obj, mt_device_info *d, const char *ctx,
                           mt_errinfo *ei);

#endif

/* Table-driven conversion of mt_device_info to and from JSON: one table
 * lists every field once, so writer and reader cannot drift apart. */
#include "device_json.h"

#include <limits.h>
#include <stddef.h>
#include <string.h>

#include "../backend/backend.h"

typedef enum { F_STR, F_INT, F_U32, F_U64 } field_type;

typedef struct {
    const char *key;
    field_type type;
    size_t off;
    size_t size;  /* F_STR: buffer size */
    int optional; /* added after recordings were made: absent reads as 0,
                     or as -1 ("unknown") with OPT_UNKNOWN (F_INT only) */
} field;
#define OPT_UNKNOWN 2

#define FS(k, m) {k, F_STR, offsetof(mt_device_info, m), sizeof(((mt_device_info *)0)->m), 0}
#define FI(k, m) {k, F_INT, offsetof(mt_device_info, m), 0, 0}
#define FU(k, m) {k, F_U32, offsetof(mt_device_info, m), 0, 0}
#define FL(k, m) {k, F_U64, offsetof(mt_device_info, m), 0, 0}
/* Optional on reading (written always). */
#define FIO(k, m) {k, F_INT, offsetof(mt_device_info, m), 0, 1}
#define FUO(k, m) {k, F_U32, offsetof(mt_device_info, m), 0, 1}
#define FLO(k, m) {k, F_U64, offsetof(mt_device_info, m), 0, 1}
#define FSO(k, m) {k, F_STR, offsetof(mt_device_info, m), sizeof(((mt_device_info *)0)->m), 1}

static const field fields[] = {
    FS("name", name),
    FS("backend", backend),
    FI("ordinal", ordinal),
    FI("cc_major", cc_major),
    FI("cc_minor", cc_minor),
    FI("sm_count", sm_count),
    FI("clock_khz", clock_khz),
    FI("mem_clock_khz", mem_clock_khz),
    FI("bus_width_bits", bus_width_bits),
    FL("global_mem_bytes", global_mem_bytes),
    FL("l2_bytes", l2_bytes),
    FL("persisting_l2_max_bytes", persisting_l2_max_bytes),
    FU("smem_per_block_bytes", smem_per_block),
    FU("smem_per_block_optin_bytes", smem_per_block_optin),
    FU("smem_per_sm_bytes", smem_per_sm),
    FU("const_mem_bytes", const_mem_bytes),
    FI("max_threads_per_block", max_threads_per_block),
    FI("max_threads_per_sm", max_threads_per_sm),
    FI("warp_size", warp_size),
    FI("regs_per_sm", regs_per_sm),
    FI("carveout_percent", carveout_percent),
    FU("carveout_smem_bytes", carveout_smem_bytes),
    FS("driver_version", driver_version),
    FS("runtime_version", runtime_version),
    FU("max_fine_loads", max_fine_loads),
    FI("max_threads_per_experiment", max_threads_per_experiment),
    /* Since the backend interface v2; the H100 fixture's manifest predates them. */
    FIO("concurrent_experiments", concurrent_experiments),
    FUO("max_sequence", max_sequence),
    /* Since the interference checks (issue 7); older recordings and reports
     * lack them: the count then reads as -1 (unknown). */
    {"other_processes", F_INT, offsetof(mt_device_info, other_processes), 0, OPT_UNKNOWN},
    FSO("other_process_list", other_process_list),
    {"other_busy", F_INT, offsetof(mt_device_info, other_busy), 0, OPT_UNKNOWN},
    /* Since the TLB probe (issue 9): absent reads as 0 (the path limits hold). */
    FLO("sparse_limit_bytes", sparse_limit_bytes),
    /* Since backend 2.3 (clusters): absent reads as 0 (no clusters). */
    FIO("max_cluster_size", max_cluster_size),
    FIO("max_cluster_size_portable", max_cluster_size_portable),
};
#define N_FIELDS (sizeof fields / sizeof fields[0])
#define PATH_LIMITS_KEY "path_limit_bytes"
/* Since backend 2.1, only when the device lists carveouts (so reports and
 * recordings of devices without them are unchanged): the shared memory per
 * SM of each carveout an experiment may request, ascending. */
#define CARVEOUTS_KEY "carveout_smem_options_bytes"

json_t *mt_device_to_json(const mt_device_info *d)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    const char *base = (const char *)d;
    int bad = 0;
    for (size_t i = 0; i < N_FIELDS && !bad; i++) {
        const field *f = &fields[i];
        json_t *v = NULL;
        switch (f->type) {
        case F_STR: {
            /* Bounded: a buffer without its terminator must not be overrun. */
            const char *s = base + f->off;
            v = json_stringn(s, strnlen(s, f->size));
            break;
        }
        case F_INT: v = json_integer(*(const int *)(base + f->off)); break;
        case F_U32: v = json_integer(*(const uint32_t *)(base + f->off)); break;
        case F_U64: v = json_integer((json_int_t)*(const uint64_t *)(base + f->off)); break;
        }
        bad = !v || json_object_set_new(o, f->key, v) != 0;
    }
    json_t *lim = bad ? NULL : json_object();
    bad = bad || !lim;
    for (int p = 0; p < MT_PATH_COUNT && !bad; p++)
        bad = json_object_set_new(lim, mt_path_name((mt_path)p),
                                  json_integer((json_int_t)d->path_limit_bytes[p])) != 0;
    if (bad || json_object_set_new(o, PATH_LIMITS_KEY, lim) != 0) {
        json_decref(o);
        return NULL;
    }
    if (d->n_carveouts > 0) {
        json_t *arr = json_array();
        bad = !arr;
        for (int i = 0; i < d->n_carveouts && i < MT_MAX_CARVEOUTS && !bad; i++)
            bad = json_array_append_new(arr, json_integer(d->carveout_smem_options[i])) != 0;
        if (bad || json_object_set_new(o, CARVEOUTS_KEY, arr) != 0) {
            json_decref(o);
            return NULL;
        }
    }
    return o;
}

static mt_err get_int(const json_t *v, long long lo, long long hi, long long *out, const char *ctx,
                      const char *key, mt_errinfo *ei)
{
    if (!json_is_integer(v))
        return mt_fail(ei, MT_ERR_JSON, "%s: \"%s\" is not an integer", ctx, key);
    long long x = json_integer_value(v);
    if (x < lo || x > hi)
        return mt_fail(ei, MT_ERR_JSON, "%s: \"%s\" = %lld is out of range", ctx, key, x);
    *out = x;
    return MT_OK;
}

mt_err mt_device_from_json(const json_t *obj, mt_device_info *d, const char *ctx,
                           mt_errinfo *ei)
{
    if (!json_is_object(obj))
        return mt_fail(ei, MT_ERR_JSON, "%s: not a JSON object", ctx);
    memset(d, 0, sizeof *d);
    char *base = (char *)d;
    for (size_t i = 0; i < N_FIELDS; i++) {
        const field *f = &fields[i];
        const json_t *v = json_object_get(obj, f->key);
        if (!v && f->optional) {
            if (f->optional == OPT_UNKNOWN)
                *(int *)(base + f->off) = -1; /* not asked then: unknown, not "none" */
            continue; /* else stays 0 */
        }
        if (!v)
            return mt_fail(ei, MT_ERR_JSON, "%s: missing \"%s\"", ctx, f->key);
        long long x = 0;
        mt_err e = MT_OK;
        switch (f->type) {
        case F_STR:
            if (!json_is_string(v))
                return mt_fail(ei, MT_ERR_JSON, "%s: \"%s\" is not a string", ctx, f->key);
            if (json_string_length(v) >= f->size)
                return mt_fail(ei, MT_ERR_JSON, "%s: \"%s\" is longer than %zu characters", ctx,
                               f->key, f->size - 1);
            memcpy(base + f->off, json_string_value(v), json_string_length(v) + 1);
            break;
        case F_INT:
            e = get_int(v, -2147483647LL - 1, 2147483647LL, &x, ctx, f->key, ei);
            if (!e)
                *(int *)(base + f->off) = (int)x;
            break;
        case F_U32:
            e = get_int(v, 0, 4294967295LL, &x, ctx, f->key, ei);
            if (!e)
                *(uint32_t *)(base + f->off) = (uint32_t)x;
            break;
        case F_U64:
            e = get_int(v, 0, LLONG_MAX, &x, ctx, f->key, ei);
            if (!e)
                *(uint64_t *)(base + f->off) = (uint64_t)x;
            break;
        }
        if (e)
            return e;
    }
    const json_t *lim = json_object_get(obj, PATH_LIMITS_KEY);
    if (!json_is_object(lim))
        return mt_fail(ei, MT_ERR_JSON, "%s: missing or non-object \"%s\"", ctx, PATH_LIMITS_KEY);
    for (int p = 0; p < MT_PATH_COUNT; p++) {
        const char *k = mt_path_name((mt_path)p);
        const json_t *v = json_object_get(lim, k);
        long long x;
        if (!v)
            return mt_fail(ei, MT_ERR_JSON, "%s: \"%s\" lacks path \"%s\"", ctx, PATH_LIMITS_KEY,
                           k);
        mt_err e = get_int(v, 0, LLONG_MAX, &x, ctx, k, ei);
        if (e)
            return e;
        d->path_limit_bytes[p] = (uint64_t)x;
    }
    if (json_object_size(lim) != MT_PATH_COUNT)
        return mt_fail(ei, MT_ERR_JSON, "%s: \"%s\" has unknown paths", ctx, PATH_LIMITS_KEY);
    const json_t *car = json_object_get(obj, CARVEOUTS_KEY);
    if (car) {
        size_t n = json_is_array(car) ? json_array_size(car) : 0;
        if (n < 1 || n > MT_MAX_CARVEOUTS)
            return mt_fail(ei, MT_ERR_JSON, "%s: \"%s\" is not an array of 1 to %d sizes", ctx,
                           CARVEOUTS_KEY, MT_MAX_CARVEOUTS);
        for (size_t i = 0; i < n; i++) {
            long long x;
            mt_err e = get_int(json_array_get(car, i), 0, 4294967295LL, &x, ctx, CARVEOUTS_KEY, ei);
            if (e)
                return e;
            if (i && (uint32_t)x <= d->carveout_smem_options[i - 1])
                return mt_fail(ei, MT_ERR_JSON, "%s: \"%s\" is not ascending", ctx, CARVEOUTS_KEY);
            d->carveout_smem_options[i] = (uint32_t)x;
        }
        d->n_carveouts = (int)n;
    }
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)obj, key, v) {
        int known = strcmp(key, PATH_LIMITS_KEY) == 0 || strcmp(key, CARVEOUTS_KEY) == 0;
        for (size_t i = 0; i < N_FIELDS && !known; i++)
            known = strcmp(key, fields[i].key) == 0;
        if (!known)
            return mt_fail(ei, MT_ERR_JSON, "%s: unknown key \"%s\"", ctx, key);
    }
    return MT_OK;
}

/* The in-memory topology: everything a run found, with units, method and
 * confidence.  Reports (text, JSON) only render this struct. */
#ifndef MT_TOPOLOGY_H
#define MT_TOPOLOGY_H

#include <stdbool.h>
#include <stdint.h>

#include "../core/device.h"

typedef enum {
    MT_CACHE_L1D = 0,  /* L1 data cache (global loads, ld.global.ca) */
    MT_CACHE_TEX,      /* texture cache */
    MT_CACHE_RO,       /* read-only data cache (ld.global.nc) */
    MT_CACHE_CONST_L1, /* constant L1 */
    MT_CACHE_CONST_L15,/* constant L1.5 */
    MT_CACHE_SHARED,   /* shared memory */
    MT_CACHE_L2,
    MT_CACHE_DRAM,
    MT_CACHE_COUNT
} mt_cache_id;

typedef enum {
    MT_FIND_NONE = 0,   /* not measured (probe skipped, or not applicable) */
    MT_FIND_VALUE,      /* value */
    MT_FIND_LOWER_BOUND,/* > lo : the measurement hit a limit */
    MT_FIND_RANGE,      /* within [lo, hi] */
    MT_FIND_ABSENT      /* measured and found not to exist (e.g. L1 does not cache global loads) */
} mt_finding_kind;

typedef enum {
    MT_SRC_MEASURED = 0,
    MT_SRC_DRIVER,      /* a driver/device attribute query (or the sim spec's equivalent) */
    MT_SRC_DERIVED      /* computed from other findings */
} mt_source;

typedef struct {
    mt_finding_kind kind;
    mt_source source;
    double value;       /* VALUE */
    double lo, hi;      /* LOWER_BOUND uses lo; RANGE uses both */
    char unit[16];      /* "B", "cycles", "count" */
    char method[64];    /* short id, e.g. "pchase-fine+opt+ks" (see docs/method.md) */
    double confidence;  /* 0..1, see docs/method.md for how each is computed */
    char note[256];     /* thresholds used, caveats */
} mt_finding;

typedef struct {
    bool probed;        /* the probe for this cache ran */
    mt_finding size;
    mt_finding line;
    mt_finding sector;
    mt_finding latency;     /* hit latency */
    mt_finding miss_penalty;/* extra cycles of a miss served by the next level */
    mt_finding per_sm;      /* instances (slices) per SM */
    uint32_t shared_with;   /* bitmask of (1u << mt_cache_id) sharing one physical cache */
    bool sharing_tested;
} mt_cache_report;

#define MT_MAX_THRESHOLDS 24
typedef struct {
    char name[48];
    double value;
    char why[160];
} mt_threshold;

#define MT_MAX_PROBE_TIMES 16
typedef struct {
    char probe[24];
    double seconds;
    unsigned experiments;
} mt_probe_time;

typedef struct {
    char tool_version[32];
    char command_line[512];
    char time_utc[32];       /* ISO 8601 */
    char source[16];         /* "cuda", "sim", "replay" */
    char replay_of[256];     /* directory when replayed */
    char error[384];         /* non-empty when the run stopped early: what failed */
} mt_provenance;

typedef struct {
    mt_device_info dev;
    mt_provenance prov;
    mt_cache_report cache[MT_CACHE_COUNT];
    mt_finding l1_caches_global;    /* VALUE 1/0: global loads cached in L1 */
    mt_finding timer_overhead_fine; /* cycles added per fine-grained sample */
    mt_finding timer_overhead_agg;  /* cycles of loop overhead per aggregate load */
    mt_finding l2_partition_size;   /* measured */
    mt_finding l2_far_latency;      /* L2 hit latency of the far partition */
    mt_threshold thresholds[MT_MAX_THRESHOLDS];
    int n_thresholds;
    mt_probe_time times[MT_MAX_PROBE_TIMES];
    int n_times;
    double total_seconds;
    unsigned total_experiments;
} mt_topology;

const char *mt_cache_name(mt_cache_id id);  /* "L1D", "Texture", ... */
const char *mt_cache_key(mt_cache_id id);   /* "l1d", "texture", ... (JSON keys, --only names) */

#endif

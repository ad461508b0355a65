/* The topology model: what a run found, as data.
 *
 * A topology is the device (as the driver describes it), the run's
 * provenance, and a list of OBJECTS (caches, memories, later TLBs, links and
 * GPUs), each holding a list of NAMED FINDINGS.  A finding is a value, a
 * lower bound, a range, "absent", a category (text) or a set of other
 * objects, with its unit, source, method, confidence and a note.  Renderers
 * (src/report) and the JSON writer/reader (topology_json.h) walk this list,
 * so a probe that adds a finding needs no change anywhere else.
 *
 * Pure data: no I/O here (the JSON reader/writer is in topology_json.c), no
 * printing, no globals.  Every function that can fail returns an mt_err. */
#ifndef MT_TOPOLOGY_H
#define MT_TOPOLOGY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../backend/device.h"
#include "../core/error.h"

typedef enum {
    MT_FIND_NONE = 0,   /* declared but not measured (a probe could not tell) */
    MT_FIND_VALUE,      /* value */
    MT_FIND_LOWER_BOUND,/* > lo : the measurement hit a limit */
    MT_FIND_RANGE,      /* within [lo, hi] */
    MT_FIND_ABSENT,     /* measured and found not to exist (e.g. L1 does not cache global loads) */
    MT_FIND_TEXT,       /* a category: text ("LRU", "xor of bits 7,12") */
    MT_FIND_SET         /* a set of objects: text holds their keys, comma-separated ("texture,readonly") */
} mt_finding_kind;

typedef enum {
    MT_SRC_MEASURED = 0,
    MT_SRC_DRIVER,      /* a driver/device attribute query (or the sim spec's equivalent) */
    MT_SRC_DERIVED      /* computed from other findings by a derivation step */
} mt_source;

typedef struct {
    mt_finding_kind kind;
    mt_source source;
    double value;       /* VALUE */
    double lo, hi;      /* LOWER_BOUND uses lo; RANGE uses both */
    char text[192];     /* TEXT, SET */
    char unit[16];      /* "B", "cycles", "count", "bool", "" */
    char method[64];    /* short id, e.g. "pchase-fine+opt+ks" (see docs/method.md) */
    double confidence;  /* 0..1, see docs/method.md for how each is computed */
    char note[256];     /* thresholds used, caveats */
} mt_finding;

#define MT_NAME_LEN 32
#define MT_LABEL_LEN 64

typedef struct {
    char name[MT_NAME_LEN];   /* machine key: "size", "partition_size" (JSON key, digests) */
    char label[MT_LABEL_LEN]; /* human label: "size", "partition size (measured)" */
    mt_finding f;
} mt_named_finding;

typedef enum {
    MT_OBJ_GPU = 0, /* the GPU itself: timer and loop overheads, later clocks */
    MT_OBJ_CACHE,
    MT_OBJ_MEMORY,  /* shared memory, DRAM */
    MT_OBJ_TLB,
    MT_OBJ_LINK,
    MT_OBJ_TYPE_COUNT
} mt_object_type;

/* Object flags. */
#define MT_OBJ_IN_TABLE  (1u << 0) /* a row of the text report's cache table */
#define MT_OBJ_SHAREABLE (1u << 1) /* may share one physical cache with other objects:
                                      with no "shared_with" finding the table shows "?" */

typedef struct {
    char key[24];       /* "l1d", "l2", "gpu" (JSON key, --only names where a probe matches) */
    char name[32];      /* "L1 Data" */
    char abbrev[8];     /* "L1D": for "shared with" cells */
    mt_object_type type;
    unsigned flags;
    bool probed;        /* a probe measured this object in this run */
    mt_named_finding *findings; /* in the order they were first set */
    size_t n_findings, cap_findings;
} mt_object;

/* Thresholds one report lists: a full H100 run notes about 70 (128 since
 * schema 2.3.0, when the L1 profile probe added 14; 256 since 2.4.0: a run
 * with every opt-in probe notes more than 128). */
#define MT_MAX_THRESHOLDS 256
typedef struct {
    char name[48];
    double value;
    char why[160];
} mt_threshold;

#define MT_MAX_PROBE_TIMES 48
typedef struct {
    char probe[24];
    double seconds;
    unsigned experiments;
} mt_probe_time;

/* Causes one report lists: one per default probe (13 since the L1 profile
 * probe; 8 before schema 2.3.0), the last line counting any beyond. */
#define MT_MAX_DISTURBED 16
#define MT_DISTURBED_LEN 240
typedef struct {
    char tool_version[32];
    char command_line[512];
    char time_utc[32];       /* ISO 8601 */
    char source[16];         /* "cuda", "sim", "replay" */
    char replay_of[256];     /* directory when replayed */
    char error[384];         /* non-empty when the run stopped early: what failed */
    char probes_missing[256];/* requested probes a replayed recording lacks, comma-separated */
    bool interrupted;        /* a signal stopped the run (error says which): results are partial */
    /* Why this report is degraded (issue 7): one line per cause, e.g. a
     * probe whose reference measurements stayed disturbed after re-running
     * it; its findings carry confidence < 0.5.  n_disturbed == 0: the
     * reference measurements saw nothing (or were not taken: replay of a
     * recording made without them). */
    char disturbed[MT_MAX_DISTURBED][MT_DISTURBED_LEN];
    int n_disturbed;
} mt_provenance;

/* Adds a cause to prov.disturbed (beyond MT_MAX_DISTURBED the last line
 * says how many more there were). */
void mt_provenance_add_disturbed(mt_provenance *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

typedef struct {
    mt_device_info dev;
    mt_provenance prov;
    mt_object *objects;      /* in the order they were added (the report's order) */
    size_t n_objects, cap_objects;
    mt_threshold thresholds[MT_MAX_THRESHOLDS];
    int n_thresholds;
    mt_probe_time times[MT_MAX_PROBE_TIMES];
    int n_times;
    double total_seconds;
    unsigned total_experiments;
} mt_topology;

/* A zeroed topology with no objects; NULL when out of memory. */
mt_topology *mt_topology_new(void);
/* NULL-safe. */
void mt_topology_free(mt_topology *t);

/* The object with this key, created (with these name, abbrev, type and
 * flags) if it does not exist yet; an existing object keeps its own.
 * NULL only when out of memory or the key is empty, too long or has a
 * character other than a letter, a digit, '_', '.' or '-' (keys are JSON
 * keys, CSV cells and members of comma-separated sets).
 * Objects live in one growing array: a returned pointer is valid until the
 * next object is added (look it up again with mt_topology_object). */
mt_object *mt_topology_add_object(mt_topology *t, const char *key, const char *name,
                                  const char *abbrev, mt_object_type type, unsigned flags);
/* The object with this key, or NULL. */
mt_object *mt_topology_object(const mt_topology *t, const char *key);
/* Removes the object with this key and its findings (no-op when absent);
 * the others keep their order.  Pointers to objects are invalidated. */
void mt_topology_remove_object(mt_topology *t, const char *key);

/* Sets (adds, or replaces in place keeping its position) finding `name` of
 * o.  label NULL keeps an existing label (or uses the name).  MT_ERR_NOMEM,
 * or MT_ERR_INVALID_ARG for an empty or too long name (same characters as
 * object keys) or a too long label.  Pointers from mt_object_get on o are
 * valid until the next finding is added to or removed from o. */
mt_err mt_object_set(mt_object *o, const char *name, const char *label, const mt_finding *f);
/* The finding, or NULL when the object has none of that name. */
const mt_finding *mt_object_get(const mt_object *o, const char *name);
/* Removes a finding (no-op when absent). */
void mt_object_remove(mt_object *o, const char *name);
/* Shorthand: finding `name` of object `key`, NULL when either is missing. */
const mt_finding *mt_topology_get(const mt_topology *t, const char *key, const char *name);
/* 1 when f is a SET finding listing object key `key`, else 0. */
int mt_finding_set_has(const mt_finding *f, const char *key);
/* The finding's value when it is a VALUE, else `otherwise`. */
double mt_finding_value_or(const mt_finding *f, double otherwise);
/* Appends a printf-style reason to f's note ("; " between it and what the
 * note already says; cut at the note's size). */
void mt_finding_append_note(mt_finding *f, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* A finding another test contradicts: its confidence falls to at most
 * `cap` (never rises) and the note says why (mt_finding_append_note). */
void mt_finding_doubt(mt_finding *f, double cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Latencies in time: the measured SM clock in effect (finding gpu.sm_clock,
 * MHz, probes/probe_clock.c) turns cycles into nanoseconds.  ns per cycle,
 * or 0 when the topology has no measured clock. */
double mt_topology_ns_per_cycle(const mt_topology *t);
/* 1 when f is a number (value, bound or range) in cycles and t has a clock,
 * so renderers show it in ns as well. */
int mt_finding_has_ns(const mt_topology *t, const mt_finding *f);

/* Adds a threshold (once per name; later calls with the same name are
 * ignored; beyond MT_MAX_THRESHOLDS MT_ERR_INVALID_ARG). */
mt_err mt_topology_note_threshold(mt_topology *t, const char *name, double value,
                                  const char *why);

/* Names of enum values as the JSON report spells them, and back. */
const char *mt_source_name(mt_source s);               /* "measured", "driver", "derived" */
int mt_source_from_name(const char *s, mt_source *out);/* 0 ok, -1 unknown */
const char *mt_finding_kind_name(mt_finding_kind k);   /* "none", "value", "lower_bound",
                                                          "range", "absent", "text", "set" */
int mt_finding_kind_from_name(const char *s, mt_finding_kind *out);
const char *mt_object_type_name(mt_object_type t);     /* "gpu", "cache", "memory", "tlb", "link" */
int mt_object_type_from_name(const char *s, mt_object_type *out);

#endif

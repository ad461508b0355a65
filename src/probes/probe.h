/* Probes: backend-independent code that plans experiments, runs them in
 * batches through an mt_backend, and turns the samples into findings of an
 * mt_topology.  No CUDA, no printing: progress goes through a callback the
 * CLI provides.
 *
 * Each probe is one file that defines a descriptor at file scope,
 *     const mt_probe_desc mt_probe_<name> = { ... };
 * (the line must start at column 0: the build collects these into
 * mt_probe_registry, tools/gen_registry.sh).  The descriptor says which
 * objects the probe reports on, which findings it provides and which
 * findings of other probes it requires; the runner orders the probes from
 * these declarations and enables what an enabled probe requires.  A probe
 * may only set findings it declares.
 *
 * Findings computed from other probes' findings (not from samples) are
 * DERIVATIONS: pure functions over the topology, declared the same way
 * (const mt_derivation_desc mt_derive_<name> = { ... };), run after the
 * probes whenever what they require is present, and tagged source
 * "derived". */
#ifndef MT_PROBE_H
#define MT_PROBE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "../backend/backend.h"
#include "../topology/topology.h"

typedef struct mt_probe_ctx mt_probe_ctx;
typedef struct mt_probe_options mt_probe_options;

/* A node run's turn-taking for the links between its GPUs (the CLI's
 * node_gate.c; NULL for one GPU).  The links probe calls enter(ctx) before
 * it measures a link to another GPU and leave(ctx) after: enter returns
 * once no GPU of the node still runs its other probes and no other link
 * between GPUs is being measured.  One NVLink carries GPU 0's reads from
 * GPU 1 and GPU 1's writes to GPU 0 the same way, so two ends measured
 * at once share it (the H200s' 516 GB/s over a 450 GB/s link). */
typedef struct {
    void *ctx;
    void (*enter)(void *ctx);
    void (*leave)(void *ctx);
} mt_link_gate;

/* An object a probe reports on (created in every run, so that the report
 * shows every row even when the probe did not run), unless its flags hold
 * MT_OBJ_DECL_ON_DEMAND: then it is kept only where its probe measured it
 * (the links: a report lists the links it measured, not seventeen empty
 * ones).  That bit belongs to the declaration; the object never has it. */
#define MT_OBJ_DECL_ON_DEMAND (1u << 31)
typedef struct {
    const char *key, *name, *abbrev;
    mt_object_type type;
    unsigned flags; /* MT_OBJ_*, and MT_OBJ_DECL_ON_DEMAND */
    int order;      /* position in the report (objects of all probes sorted by it) */
} mt_object_decl;

/* A finding a probe or derivation may set: "object.finding" and its label.
 * An id ending in '*' declares a FAMILY of findings whose names the probe
 * completes at run time (one per carveout it was asked for: the set is not
 * known before the device is): "l1d.size_at_carveout_*" lets it set
 * "l1d.size_at_carveout_100KiB", labelled "<label> 100KiB".  Families
 * cannot be required (their members are not known in advance). */
typedef struct {
    const char *id;    /* "l2.partition_size" */
    const char *label; /* "partition size (measured)" */
} mt_finding_decl;

typedef struct {
    const char *name;    /* --only name, timing row */
    const char *summary; /* one line for --help, README and docs (tested) */
    /* Runs before every other probe whenever any probe runs (calibration);
     * not listed by --only. */
    bool always;
    /* Order among probes free to run (no requirement between them):
     * smaller first.  Keeps the report's and the GPU's order stable. */
    int rank;
    const mt_object_decl *objects;   /* terminated by {NULL} */
    const mt_finding_decl *provides; /* terminated by {NULL} */
    const char *const *requires;     /* "object.finding" ids, NULL-terminated; may be NULL */
    mt_err (*run)(mt_probe_ctx *c);
    /* NULL: part of the default run and selectable with --only.  Otherwise
     * the probe is OPT-IN: it runs (with what it requires) exactly when
     * this says its own option asked for it (e.g. --carveout), is never
     * selected by --only and is not listed among the --only names. */
    bool (*requested)(const mt_probe_options *o);
} mt_probe_desc;

typedef struct {
    const char *name;
    const char *summary;
    const mt_finding_decl *provides; /* terminated by {NULL} */
    const char *const *requires;     /* all must be present (kind != NONE) to run */
    /* Pure: reads and writes only t (through mt_object_set / mt_topology_get). */
    mt_err (*derive)(mt_topology *t, mt_errinfo *ei);
} mt_derivation_desc;

/* Generated registries, NULL-terminated, in file-name order. */
extern const mt_probe_desc *const mt_probe_registry[];
extern const mt_derivation_desc *const mt_derivation_registry[];

#define MT_MAX_PROBES 48

const mt_probe_desc *mt_probe_find(const char *name);

typedef void (*mt_progress_fn)(void *user, const char *probe, const char *what);

/* The most carveouts one run measures the L1 at (--carveout all: every
 * carveout the device lists). */
#define MT_PROBE_MAX_CARVEOUTS MT_MAX_CARVEOUTS

typedef struct mt_probe_options {
    /* Names of the probes to run (NULL-terminated list of registry names);
     * NULL = every probe.  What they require is added by the runner. */
    const char *only[MT_MAX_PROBES + 1];
    bool only_set;
    /* Probes that must not run (e.g. a recording does not hold them). */
    const char *skip[MT_MAX_PROBES + 1];
    mt_progress_fn progress; /* may be NULL */
    void *progress_user;
    /* Stop request (may be NULL): when *stop is non-zero, the next batch a
     * probe asks for is not run and the run ends with MT_ERR_INTERRUPTED,
     * keeping what was measured.  The CLI's SIGINT/SIGTERM handlers store
     * the signal's number here; checked between batches, so a batch that
     * has started finishes first. */
    volatile sig_atomic_t *stop;
    /* --carveout (the opt-in carveout probe, probe_carveout.c): the shared
     * memory per SM, in bytes, of each carveout to measure the L1 data
     * cache at, ascending and each one the device lists
     * (mt_device_info.carveout_smem_options); n_carveouts == 0: not asked.
     * carveout_sweep: every carveout the device lists was asked for
     * (--carveout all), so the probe also fits the size against them. */
    uint32_t carveout_smem[MT_PROBE_MAX_CARVEOUTS];
    int n_carveouts;
    bool carveout_sweep;
    /* --geometry: run the geometry probes (probe_geometry.c: L1 data ways,
     * sets, set index and masks; probe_cache_geometry.c: the other
     * first-level caches) and the policy probe even when --only leaves them
     * out; the default run has them anyway (mt_geometry_requested).  Also
     * the only switch of the opt-in L2 geometry (probe_l2_geometry.c). */
    bool geometry;
    /* --bandwidth: run the opt-in bandwidth probe (probe_bandwidth.c:
     * read/write/copy bandwidth of every level, loads in flight per SM). */
    bool bandwidth;
    /* --tlb: run the opt-in TLB probe (probe_tlb.c). */
    bool tlb;
    /* --matrix: run the opt-in latency matrix (probe_matrix.c; it runs the
     * TLB probe too, whose levels it needs). */
    bool matrix;
    /* --cluster: run the opt-in probes of Hopper's clusters and bulk copy
     * engine (probe_dsm.c, probe_tma.c). */
    bool cluster;
    /* --icache: run the opt-in instruction-cache probe (probe_icache.c). */
    bool icache;
    /* --access: run the opt-in global access granularity probe
     * (probe_access.c). */
    bool access;
    /* --links, and every node run: run the opt-in links probe
     * (probe_links.c) over the host link and the links to link_peers
     * (the node's other GPUs: CUDA device ordinals, or positions in the
     * --sim list). */
    bool links;
    int link_peers[MT_LINK_MAX_PEER + 1];
    int n_link_peers;
    const mt_link_gate *link_gate; /* a node run's: links to GPUs one at a time */
} mt_probe_options;

void mt_probe_options_default(mt_probe_options *o);

/* Parses a comma-separated --only list ("l1d,l2") against the registry; on
 * error fills ei with the offending name and the valid names. */
mt_err mt_probe_parse_only(const char *list, mt_probe_options *o, mt_errinfo *ei);

/* "shared, l1d, texture, ..." : the selectable probe names in run order. */
void mt_probe_names(char *buf, size_t n);

/* The probes that will run for these options, in run order (requirements
 * first).  Returns how many; MT_ERR_INVALID_ARG if a requirement has no
 * provider or the requirements form a cycle (a registry bug, tested). */
mt_err mt_probe_plan(const mt_probe_options *opt, const mt_probe_desc **order, size_t *n,
                     mt_errinfo *ei);

/* Creates every registered object in t (registry order), runs the planned
 * probes and then the derivations, and fills t.  t's dev and prov must be
 * set by the caller; on failure t holds whatever was measured before it, so
 * the caller can still write it out. */
mt_err mt_probe_run_all(mt_backend *be, const mt_probe_options *opt, mt_topology *t,
                        mt_errinfo *ei);

#endif

/* Links (issue 11 part 2): this GPU's link to the host and to every other
 * GPU of the node (docs/method.md, "Links").  For each link: what the
 * driver and NVML say of it (peer access, type, NVLink count and version
 * or PCIe generation and width, the driver's performance rank, native
 * atomics), the nominal bandwidth per direction those imply (computed,
 * not measured), the latency of one load over it (a pointer chase from
 * one SM over the peer's memory, or over pinned mapped host memory) and
 * the bandwidth of SM-driven reads and writes and of copy-engine copies.
 *
 * Opt-in (--links): a single GPU's default run stays as it was; a node run
 * (--device all, --device LIST, --sim A --sim B) turns it on, naming the
 * other GPUs as peers.
 *
 * Bandwidth: every byte moved counts once (a copy of B bytes moves B, not
 * 2B); GB/s is 1e9 B/s.  Each op runs LINK_BW_SMALL and LINK_BW_LARGE
 * bytes, LINK_BW_REPEATS times, LINK_BW_TRIALS trials each; the rate is
 * the slope between the two sizes' median times, so what a transfer costs
 * regardless of its size (a launch, a copy's start) cancels. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latency_precision.h"
#include "probe_internal.h"

/* Transfer sizes: 64 MiB is 1.1 ms at PCIe Gen5's 63 GB/s (far above a
 * launch's microseconds) and 0.1 ms at 900 GB/s; 16 MiB a quarter of it,
 * so the slope spans 48 MiB. */
#define LINK_BW_SMALL (16ull << 20)
#define LINK_BW_LARGE (64ull << 20)
#define LINK_BW_REPEATS 2u
/* Trials per size: the median of 3 ignores one disturbed trial. */
#define LINK_BW_TRIALS 3
/* The large transfer must take at least this many times the small one's
 * time, or the slope is mostly noise (at most 4x with pure bandwidth;
 * below 1.5x the fixed cost dwarfs the bytes): then the rate is reported
 * at confidence LINK_CONF_DOUBT. */
#define LINK_BW_MIN_TIME_RATIO 1.5
/* The chase: 256 loads over 512 KiB in 2 KiB steps (within one 2 MiB
 * page of the driver's large pages, so no TLB miss adds to the link). */
#define LINK_CHASE_FOOTPRINT (512u << 10)
#define LINK_CHASE_STRIDE 2048u
#define LINK_CHASE_LOADS 256u
/* Coverage of a link latency's interval: a node run states one latency
 * per link, and noisy links (PCIe: a spread of ~100 cycles on the H100)
 * give a range, which at 95% would miss the truth once in twenty links;
 * at 99.9% once in a thousand links, which the randomized specs still met
 * (unseen seed 1111: 2.6 standard errors off, just outside); at 99.999%
 * once in 100000, for an interval 1.34 times as wide. */
#define LINK_LATENCY_CI_LEVEL 0.99999
/* Confidence of a latency (median of 256 loads) and of a rate that
 * passed the time-ratio test; of a rate that did not. */
#define LINK_CONF 0.9
#define LINK_CONF_DOUBT 0.3

/* Nominal bandwidth per direction (GB/s): one NVLink of generations 1..5
 * and one PCIe lane of generations 1..6 after line coding (8b/10b for
 * Gen1-2, 128b/130b for Gen3-5, FLIT 242/256 for Gen6).  NVLink per link
 * and direction, from NVIDIA's product pages and architecture papers:
 * NVLink 1 (P100) 20 GB/s; NVLink 2 (V100: 6 links, 300 GB/s both ways)
 * 25; NVLink 3 (A100: 12 links, 600 GB/s) 25; NVLink 4 (H100/H200: 18
 * links, 900 GB/s both ways, /work/shared/reference/h100-public-facts.md)
 * 25; NVLink 5 (B200: 18 links, 1.8 TB/s) 50.  NVLink 6 has no per-link
 * figure here yet: its nominal stays unknown rather than guessed. */
static const double nvlink_gbps[6] = {0, 20.0, 25.0, 25.0, 25.0, 50.0};
static const double pcie_lane_gbps[7] = {0, 0.25, 0.5, 0.985, 1.969, 3.938, 7.563};
/* A link carries at most its signalling rate less the protocol's
 * overhead, so a measured rate above the nominal one is impossible:
 * something else moved the bytes or shared the timing (on the two H200s,
 * both ends of one NVLink measured at once gave 516 GB/s against a
 * nominal 450).  Above this share of the nominal a rate is doubted
 * (confidence LINK_CONF_DOUBT) with a note; 1.0: no slack, as no link
 * reaches its nominal rate (the H200s' NVLink gave 82-90% of it, PCIe
 * Gen5 81-88%), so the slope's noise cannot push a true rate over it. */
#define LINK_BW_NOMINAL_MAX_SHARE 1.0

#define LINK_KEYS (MT_LINK_MAX_PEER + 2) /* the host, then GPUs 0..MT_LINK_MAX_PEER */

static void link_key(int32_t peer, char *key, size_t n)
{
    if (peer == MT_LINK_HOST)
        snprintf(key, n, "link_host");
    else
        snprintf(key, n, "link_gpu%d", (int)peer);
}

static const char *yes_no(uint32_t v)
{
    return v ? "yes" : "no";
}

static bool available(uint32_t v)
{
    return v != MT_LINK_NOT_AVAILABLE;
}

static void set_count(mt_probe_ctx *c, const char *key, const char *name, uint32_t v,
                      const char *what)
{
    mt_finding f = available(v)
                       ? mt_find_value(v, "count", MT_SRC_DRIVER, "driver-query", 1.0, "%s", what)
                       : (mt_finding){.kind = MT_FIND_NONE, .source = MT_SRC_DRIVER};
    if (!available(v))
        snprintf(f.note, sizeof f.note, "not available: %s (no NVML, or the driver does not say)",
                 what);
    mt_set(c, key, name, &f);
}

static void set_text(mt_probe_ctx *c, const char *key, const char *name, const char *text,
                     const char *note)
{
    mt_finding f = {.kind = MT_FIND_TEXT, .source = MT_SRC_DRIVER, .confidence = 1.0};
    snprintf(f.text, sizeof f.text, "%s", text);
    snprintf(f.method, sizeof f.method, "driver-query");
    snprintf(f.note, sizeof f.note, "%s", note);
    mt_set(c, key, name, &f);
}

/* A finding that does not apply to this link (an NVLink has no PCIe
 * generation; the host link no peer access or performance rank): "n/a",
 * so reports and comparisons do not list it as not measured (and "absent"
 * would read as "no"). */
static void set_not_applicable(mt_probe_ctx *c, const char *key, const char *name,
                               const char *why)
{
    char note[128];
    snprintf(note, sizeof note, "does not apply: %s", why);
    set_text(c, key, name, "n/a", note);
}

/* The query's findings; *nominal = the nominal GB/s per direction (0
 * when the driver's answers do not give it). */
static void report_query(mt_probe_ctx *c, const char *key, int32_t peer, const uint32_t *q,
                         double *nominal)
{
    char type[64] = "none";
    *nominal = 0;
    if (!available(q[MT_LINK_F_TYPE])) {
        snprintf(type, sizeof type, "unknown");
    } else if (q[MT_LINK_F_TYPE] == MT_LINK_TYPE_NVLINK) {
        uint32_t n = q[MT_LINK_F_NVLINKS], v = q[MT_LINK_F_NVLINK_VERSION];
        snprintf(type, sizeof type, "NVLink");
        if (available(v))
            snprintf(type + strlen(type), sizeof type - strlen(type), " %u", v);
        if (available(n))
            snprintf(type + strlen(type), sizeof type - strlen(type), " x%u", n);
        if (available(n) && available(v) && v >= 1 && v < sizeof nvlink_gbps / sizeof nvlink_gbps[0])
            *nominal = n * nvlink_gbps[v];
    } else if (q[MT_LINK_F_TYPE] == MT_LINK_TYPE_PCIE) {
        uint32_t g = q[MT_LINK_F_PCIE_GEN], w = q[MT_LINK_F_PCIE_WIDTH];
        snprintf(type, sizeof type, "PCIe");
        if (available(g))
            snprintf(type + strlen(type), sizeof type - strlen(type), " Gen%u", g);
        if (available(w))
            snprintf(type + strlen(type), sizeof type - strlen(type), " x%u", w);
        if (available(g) && available(w) && g >= 1 && g <= 6)
            *nominal = w * pcie_lane_gbps[g];
    }
    set_text(c, key, "type", type,
             q[MT_LINK_F_TYPE] == MT_LINK_TYPE_NONE ? "the driver reports no link to this peer"
             : !available(q[MT_LINK_F_TYPE])
                 ? "not available: NVML is missing, so NVLink and PCIe cannot be told apart"
                 : "as the driver and NVML report it");
    if (q[MT_LINK_F_TYPE] == MT_LINK_TYPE_NONE)
        return;
    if (peer != MT_LINK_HOST)
        set_text(c, key, "peer_access", yes_no(q[MT_LINK_F_PEER_ACCESS]),
                 "cudaDeviceCanAccessPeer: this GPU's SMs may load the peer's memory");
    else
        for (int i = 0; i < 3; i++)
            set_not_applicable(c, key, (const char *[]){"peer_access", "perf_rank",
                                                        "native_atomics"}[i],
                               "the host link (host memory is pinned and mapped)");
    if (q[MT_LINK_F_TYPE] == MT_LINK_TYPE_NVLINK) {
        set_count(c, key, "nvlinks", q[MT_LINK_F_NVLINKS], "active NVLinks to the peer (NVML)");
        set_count(c, key, "nvlink_version", q[MT_LINK_F_NVLINK_VERSION], "NVLink version (NVML)");
        set_not_applicable(c, key, "pcie_gen", "an NVLink");
        set_not_applicable(c, key, "pcie_width", "an NVLink");
    } else if (q[MT_LINK_F_TYPE] == MT_LINK_TYPE_PCIE) {
        set_not_applicable(c, key, "nvlinks", "a PCIe link");
        set_not_applicable(c, key, "nvlink_version", "a PCIe link");
        set_count(c, key, "pcie_gen", q[MT_LINK_F_PCIE_GEN],
                  "this GPU's current PCIe generation (NVML)");
        set_count(c, key, "pcie_width", q[MT_LINK_F_PCIE_WIDTH],
                  "this GPU's current PCIe lanes (NVML)");
    }
    if (peer != MT_LINK_HOST) {
        set_count(c, key, "perf_rank", q[MT_LINK_F_PERF_RANK],
                  "cudaDevP2PAttrPerformanceRank (0 is the best the driver knows)");
        if (available(q[MT_LINK_F_ATOMICS]))
            set_text(c, key, "native_atomics", yes_no(q[MT_LINK_F_ATOMICS]),
                     "cudaDevP2PAttrNativeAtomicSupported");
    }
    if (*nominal > 0) {
        mt_finding f = mt_find_value(
            *nominal, "GB/s", MT_SRC_DERIVED, "nominal-from-driver", 1.0,
            "computed, not measured: %s per direction (NVLink 1: 20 GB/s per link, 2-4: 25, 5: "
            "50; PCIe per lane after line coding: Gen1 0.25, Gen2 0.5, Gen3 0.985, Gen4 1.969, "
            "Gen5 3.938, Gen6 7.563 GB/s)",
            type);
        mt_set(c, key, "nominal_bandwidth", &f);
    }
}

static mt_err measure_latency(mt_probe_ctx *c, const char *key, int32_t peer)
{
    uint32_t loads = LINK_CHASE_LOADS;
    if (c->dev.max_fine_loads && loads > c->dev.max_fine_loads)
        loads = c->dev.max_fine_loads;
    mt_experiment e = mt_exp_link_chase(peer, LINK_CHASE_FOOTPRINT, LINK_CHASE_STRIDE, 1, loads);
    double *x = NULL;
    size_t n = 0;
    mt_err err = mt_run_fine(c, &e, &x, &n);
    if (err != MT_OK)
        return err;
    mt_median_interval ci;
    err = mt_median_ci(x, n, LINK_LATENCY_CI_LEVEL, &ci);
    free(x);
    if (err != MT_OK)
        return mt_fail(c->ei, err, "links: no interval for %zu latency samples", n);
    mt_finding f = mt_find_value(ci.median, "cycles", MT_SRC_MEASURED, "link-pchase", LINK_CONF,
                                 "median of %zu dependent loads over %s memory (%u B stride, one "
                                 "warm lap; loads no cache of this GPU keeps)",
                                 n, peer == MT_LINK_HOST ? "pinned mapped host" : "the peer's",
                                 LINK_CHASE_STRIDE);
    /* A noisy link's median may be off by more than a couple of cycles:
     * then the interval it is known to. */
    mt_finding_set_precision(&f, &ci);
    mt_set(c, key, "latency", &f);
    return MT_OK;
}

/* Median time (ns) of the trials r[0..LINK_BW_TRIALS-1]. */
static double median_ns(const mt_result *r)
{
    double t[LINK_BW_TRIALS];
    for (int i = 0; i < LINK_BW_TRIALS; i++)
        t[i] = r[i].n[0] ? (double)r[i].cycles[0][0] : NAN;
    return mt_median(t, LINK_BW_TRIALS);
}

static const char *const bw_name[MT_LINK_OP_COUNT] = {
    [MT_LINK_SM_READ] = "read_bandwidth", [MT_LINK_SM_WRITE] = "write_bandwidth",
    [MT_LINK_COPY_IN] = "copy_in_bandwidth", [MT_LINK_COPY_OUT] = "copy_out_bandwidth"};

static mt_err measure_bandwidth(mt_probe_ctx *c, const char *key, int32_t peer, mt_link_op op,
                                double nominal)
{
    mt_experiment e[2 * LINK_BW_TRIALS];
    mt_result r[2 * LINK_BW_TRIALS];
    for (int i = 0; i < LINK_BW_TRIALS; i++) {
        e[i] = mt_exp_link_bandwidth(op, peer, LINK_BW_SMALL, LINK_BW_REPEATS);
        e[LINK_BW_TRIALS + i] = mt_exp_link_bandwidth(op, peer, LINK_BW_LARGE, LINK_BW_REPEATS);
    }
    mt_err err = mt_run(c, e, 2 * LINK_BW_TRIALS, r);
    if (err != MT_OK)
        return err;
    double t_small = median_ns(r), t_large = median_ns(r + LINK_BW_TRIALS);
    mt_results_free(r, 2 * LINK_BW_TRIALS);
    double bytes = (double)(LINK_BW_LARGE - LINK_BW_SMALL) * LINK_BW_REPEATS;
    bool clear = t_large >= LINK_BW_MIN_TIME_RATIO * t_small && t_large > t_small;
    double gbps = t_large > t_small ? bytes / (t_large - t_small) : NAN;
    const char *how = op == MT_LINK_SM_READ    ? "every SM reading over the link"
                      : op == MT_LINK_SM_WRITE ? "every SM writing over the link"
                      : op == MT_LINK_COPY_IN  ? "copy engine, to this GPU"
                                               : "copy engine, from this GPU";
    mt_finding f;
    if (!isfinite(gbps)) {
        f = (mt_finding){.kind = MT_FIND_NONE, .source = MT_SRC_MEASURED};
        snprintf(f.note, sizeof f.note,
                 "%s: %.0f ns for %llu B was not above %.0f ns for %llu B", how, t_large,
                 (unsigned long long)LINK_BW_LARGE, t_small, (unsigned long long)LINK_BW_SMALL);
    } else {
        f = mt_find_value(gbps, "GB/s", MT_SRC_MEASURED, "link-bw-slope",
                          clear ? LINK_CONF : LINK_CONF_DOUBT,
                          "%s; each byte moved counts once, GB/s = 1e9 B/s; slope of the median "
                          "of %d trials between %llu and %llu MiB x %u (%.0f, %.0f ns)",
                          how, LINK_BW_TRIALS, (unsigned long long)(LINK_BW_SMALL >> 20),
                          (unsigned long long)(LINK_BW_LARGE >> 20), LINK_BW_REPEATS, t_small,
                          t_large);
        if (nominal > 0)
            mt_finding_append_note(&f, "%.0f%% of the nominal %.1f GB/s", 100 * gbps / nominal,
                                   nominal);
        if (nominal > 0 && gbps > LINK_BW_NOMINAL_MAX_SHARE * nominal)
            mt_finding_doubt(&f, LINK_CONF_DOUBT,
                             "above the link's nominal rate, which no link exceeds: another "
                             "transfer shared the link or the timing");
        if (!clear)
            mt_finding_append_note(&f,
                                   "the large transfer took less than %.1fx the small one's "
                                   "time: the rate is mostly noise",
                                   LINK_BW_MIN_TIME_RATIO);
    }
    mt_set(c, key, bw_name[op], &f);
    return MT_OK;
}

static mt_err measure_link(mt_probe_ctx *c, int32_t peer)
{
    char key[24];
    link_key(peer, key, sizeof key);
    mt_mark_probed(c, key);
    mt_experiment q = mt_exp_link_query(peer);
    mt_result r;
    mt_err err = mt_run(c, &q, 1, &r);
    if (err != MT_OK)
        return err;
    uint32_t fields[MT_LINK_QUERY_FIELDS];
    for (int i = 0; i < MT_LINK_QUERY_FIELDS; i++)
        fields[i] = (uint32_t)i < r.n[0] ? r.cycles[0][i] : MT_LINK_NOT_AVAILABLE;
    mt_result_free(&r);
    double nominal;
    report_query(c, key, peer, fields, &nominal);
    if (fields[MT_LINK_F_TYPE] == MT_LINK_TYPE_NONE)
        return MT_OK; /* nothing to measure over */
    /* SM loads and stores need peer access (host memory is always
     * mapped); copies do not: the driver stages them through the host. */
    bool sm_access = peer == MT_LINK_HOST || fields[MT_LINK_F_PEER_ACCESS] == 1;
    mt_progress(c, "links: %s", key);
    if (sm_access) {
        if ((err = measure_latency(c, key, peer)) != MT_OK ||
            (err = measure_bandwidth(c, key, peer, MT_LINK_SM_READ, nominal)) != MT_OK ||
            (err = measure_bandwidth(c, key, peer, MT_LINK_SM_WRITE, nominal)) != MT_OK)
            return err;
    }
    if ((err = measure_bandwidth(c, key, peer, MT_LINK_COPY_IN, nominal)) != MT_OK ||
        (err = measure_bandwidth(c, key, peer, MT_LINK_COPY_OUT, nominal)) != MT_OK)
        return err;
    return MT_OK;
}

static mt_err links(mt_probe_ctx *c)
{
    mt_note_latency_precision(c);
    mt_note_threshold(c, "LINK_LATENCY_CI_LEVEL", LINK_LATENCY_CI_LEVEL,
                      "link latency: coverage of the median's interval (a range when it reaches "
                      "beyond 2 cycles)");
    mt_note_threshold(c, "LINK_BW_MIN_TIME_RATIO", LINK_BW_MIN_TIME_RATIO,
                      "link bandwidth: the large transfer's time over the small one's below "
                      "this -> confidence 0.3");
    mt_note_threshold(c, "LINK_BW_NOMINAL_MAX_SHARE", LINK_BW_NOMINAL_MAX_SHARE,
                      "link bandwidth: above this share of the nominal rate (impossible) -> "
                      "confidence 0.3");
    if (!mt_backend_supports(c->be, MT_KIND_LINK)) {
        /* Not an error: a recording or a spec without links. */
        mt_mark_probed(c, "link_host");
        mt_finding f = {.kind = MT_FIND_NONE, .source = MT_SRC_DRIVER};
        snprintf(f.note, sizeof f.note, "not available: this backend runs no link experiments");
        mt_set(c, "link_host", "type", &f);
        return MT_OK;
    }
    /* The host link first, alongside the other GPUs' probes and host
     * links: each GPU reaches the host over a PCIe x16 link of its own
     * (the two H200s' host links, measured side by side, agreed within
     * 0.5% in every run and matched the H100's measured alone; their
     * NVLink, measured from both ends at once, did not).  Then each link
     * to another GPU alone: see mt_link_gate. */
    mt_err err = measure_link(c, MT_LINK_HOST);
    const mt_link_gate *g = c->opt->link_gate;
    for (int i = 0; err == MT_OK && i < c->opt->n_link_peers; i++) {
        if (g)
            g->enter(g->ctx);
        err = measure_link(c, c->opt->link_peers[i]);
        if (g)
            g->leave(g->ctx);
    }
    return err;
}

static bool links_requested(const mt_probe_options *o)
{
    return o->links;
}

#define LINK_OBJ(k, n, order) {k, n, "LNK", MT_OBJ_LINK, MT_OBJ_DECL_ON_DEMAND, order}
static const mt_object_decl objects[] = {
    LINK_OBJ("link_host", "Link to the host", 200),
    LINK_OBJ("link_gpu0", "Link to GPU 0", 201),   LINK_OBJ("link_gpu1", "Link to GPU 1", 202),
    LINK_OBJ("link_gpu2", "Link to GPU 2", 203),   LINK_OBJ("link_gpu3", "Link to GPU 3", 204),
    LINK_OBJ("link_gpu4", "Link to GPU 4", 205),   LINK_OBJ("link_gpu5", "Link to GPU 5", 206),
    LINK_OBJ("link_gpu6", "Link to GPU 6", 207),   LINK_OBJ("link_gpu7", "Link to GPU 7", 208),
    LINK_OBJ("link_gpu8", "Link to GPU 8", 209),   LINK_OBJ("link_gpu9", "Link to GPU 9", 210),
    LINK_OBJ("link_gpu10", "Link to GPU 10", 211), LINK_OBJ("link_gpu11", "Link to GPU 11", 212),
    LINK_OBJ("link_gpu12", "Link to GPU 12", 213), LINK_OBJ("link_gpu13", "Link to GPU 13", 214),
    LINK_OBJ("link_gpu14", "Link to GPU 14", 215), LINK_OBJ("link_gpu15", "Link to GPU 15", 216),
    {NULL}};
_Static_assert(sizeof objects / sizeof objects[0] == LINK_KEYS + 1, "one object per link");

#define LINK_FINDINGS(k)                                                                          \
    {k ".type", "link type"}, {k ".peer_access", "peer access"}, {k ".nvlinks", "NVLinks"},      \
        {k ".nvlink_version", "NVLink version"}, {k ".pcie_gen", "PCIe generation"},              \
        {k ".pcie_width", "PCIe lanes"}, {k ".perf_rank", "driver performance rank"},             \
        {k ".native_atomics", "native atomics"},                                                  \
        {k ".nominal_bandwidth", "nominal bandwidth per direction (computed)"},                  \
        {k ".latency", "load latency over the link"},                                             \
        {k ".read_bandwidth", "SM read bandwidth"}, {k ".write_bandwidth", "SM write bandwidth"}, \
        {k ".copy_in_bandwidth", "copy bandwidth to this GPU"},                                   \
        {k ".copy_out_bandwidth", "copy bandwidth from this GPU"}
static const mt_finding_decl provides[] = {
    LINK_FINDINGS("link_host"),  LINK_FINDINGS("link_gpu0"),  LINK_FINDINGS("link_gpu1"),
    LINK_FINDINGS("link_gpu2"),  LINK_FINDINGS("link_gpu3"),  LINK_FINDINGS("link_gpu4"),
    LINK_FINDINGS("link_gpu5"),  LINK_FINDINGS("link_gpu6"),  LINK_FINDINGS("link_gpu7"),
    LINK_FINDINGS("link_gpu8"),  LINK_FINDINGS("link_gpu9"),  LINK_FINDINGS("link_gpu10"),
    LINK_FINDINGS("link_gpu11"), LINK_FINDINGS("link_gpu12"), LINK_FINDINGS("link_gpu13"),
    LINK_FINDINGS("link_gpu14"), LINK_FINDINGS("link_gpu15"), {NULL}};

const mt_probe_desc mt_probe_links = {
    .name = "links",
    .summary = "links to the host and the node's other GPUs (opt-in --links; on in node runs): "
               "type, peer access, latency, bandwidth",
    .rank = 99, .objects = objects, .provides = provides, .run = links,
    .requested = links_requested,
};

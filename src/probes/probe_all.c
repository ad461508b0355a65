/* Orchestration: which probes run, in which order, and their timing. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "probe_internal.h"

static const char *const probe_names[MT_PROBE_COUNT] = {
    "shared", "l1d", "texture", "readonly", "constant", "l2", "dram", "sharing",
};

const char *mt_probe_name(mt_probe_id id)
{
    return (id >= 0 && id < MT_PROBE_COUNT) ? probe_names[id] : "?";
}

int mt_probe_from_name(const char *s, mt_probe_id *out)
{
    for (int i = 0; i < MT_PROBE_COUNT; i++)
        if (strcmp(s, probe_names[i]) == 0) {
            *out = (mt_probe_id)i;
            return 0;
        }
    return -1;
}

void mt_probe_options_default(mt_probe_options *o)
{
    memset(o, 0, sizeof *o);
    for (int i = 0; i < MT_PROBE_COUNT; i++)
        o->enabled[i] = true;
}

mt_err mt_probe_parse_only(const char *list, mt_probe_options *o, mt_errinfo *ei)
{
    bool en[MT_PROBE_COUNT] = {false};
    char buf[256];
    if (!list || !*list || strlen(list) >= sizeof buf)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "--only needs a comma-separated list of probes");
    strcpy(buf, list);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        mt_probe_id id;
        if (mt_probe_from_name(tok, &id) != 0)
            return mt_fail(ei, MT_ERR_INVALID_ARG,
                           "--only: unknown probe '%s' (known: shared, l1d, texture, readonly, "
                           "constant, l2, dram, sharing)", tok);
        en[id] = true;
    }
    memcpy(o->enabled, en, sizeof en);
    return MT_OK;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void note_thresholds(mt_probe_ctx *c)
{
    mt_note_threshold(c, "MT_KS_ALPHA", MT_KS_ALPHA,
                      "significance of every KS / binomial test; ~0.1 false verdicts per run");
    mt_note_threshold(c, "MT_MIN_CLASS_GAP_CYCLES", MT_MIN_CLASS_GAP_CYCLES,
                      "latency classes closer than this are one class (timer jitter is 1-2 cycles)");
    mt_note_threshold(c, "MT_HIT_MARGIN_MADS", MT_HIT_MARGIN_MADS,
                      "a miss is slower than the hit median by this many robust sigmas");
    mt_note_threshold(c, "MT_MIN_MISS_FRACTION_INCREASE", MT_MIN_MISS_FRACTION_INCREASE,
                      "sharing/slices: disturbed only if the miss share rises by this much");
    mt_note_threshold(c, "MT_MIN_MISSES_FOR_SPACING", MT_MIN_MISSES_FOR_SPACING,
                      "sector: fewest cold misses a spacing estimate needs");
    mt_note_threshold(c, "MT_MIN_SPACING_SUPPORT", MT_MIN_SPACING_SUPPORT,
                      "sector: share of miss gaps that must equal the modal gap");
    mt_note_threshold(c, "MT_LINE_RATIO_TOLERANCE", MT_LINE_RATIO_TOLERANCE,
                      "line: capacity ratio must be this close to a power of two");
    mt_note_threshold(c, "MT_CAPACITY_AGREEMENT", MT_CAPACITY_AGREEMENT,
                      "first-miss and Opt+KS capacities further apart than this -> range");
    mt_note_threshold(c, "MT_SHARING_FILL", MT_SHARING_FILL,
                      "sharing/slices chains fill this share of a cache");
}

typedef mt_err (*probe_fn)(mt_probe_ctx *);
static mt_err run_l1d(mt_probe_ctx *c) { return mt_probe_l1_level(c, MT_CACHE_L1D); }
static mt_err run_tex(mt_probe_ctx *c) { return mt_probe_l1_level(c, MT_CACHE_TEX); }
static mt_err run_ro(mt_probe_ctx *c) { return mt_probe_l1_level(c, MT_CACHE_RO); }

static mt_err timed(mt_probe_ctx *c, const char *name, probe_fn fn)
{
    c->probe = name;
    c->experiments = 0;
    double t0 = now_s();
    mt_err err = fn(c);
    mt_topology *t = c->topo;
    if (t->n_times < MT_MAX_PROBE_TIMES) {
        mt_probe_time *pt = &t->times[t->n_times++];
        snprintf(pt->probe, sizeof pt->probe, "%s", name);
        pt->seconds = now_s() - t0;
        pt->experiments = c->experiments;
    }
    t->total_experiments += c->experiments;
    return err;
}

mt_err mt_probe_run_all(mt_backend *be, const mt_probe_options *opt, mt_topology *topo,
                        mt_errinfo *ei)
{
    mt_probe_ctx c;
    memset(&c, 0, sizeof c);
    c.be = be;
    c.opt = opt;
    c.topo = topo;
    c.ei = ei;
    c.dev = topo->dev;
    bool en[MT_PROBE_COUNT];
    memcpy(en, opt->enabled, sizeof en);
    if (en[MT_PROBE_SHARING]) /* sharing needs the sizes and sectors of these */
        en[MT_PROBE_L1D] = en[MT_PROBE_TEXTURE] = en[MT_PROBE_READONLY] = true;
    note_thresholds(&c);
    double t0 = now_s();
    mt_err err = timed(&c, "calibrate", mt_probe_calibrate);
    static const struct {
        mt_probe_id id;
        probe_fn fn;
    } order[] = {
        {MT_PROBE_SHARED, mt_probe_shared}, {MT_PROBE_L1D, run_l1d},
        {MT_PROBE_TEXTURE, run_tex},        {MT_PROBE_READONLY, run_ro},
        {MT_PROBE_CONSTANT, mt_probe_constant}, {MT_PROBE_L2, mt_probe_l2},
        {MT_PROBE_DRAM, mt_probe_dram},     {MT_PROBE_SHARING, mt_probe_sharing},
    };
    for (size_t i = 0; err == MT_OK && i < sizeof order / sizeof *order; i++)
        if (en[order[i].id])
            err = timed(&c, mt_probe_name(order[i].id), order[i].fn);
    if (err == MT_OK)
        mt_check_const_l15_is_l2(&c);
    topo->total_seconds = now_s() - t0;
    return err;
}

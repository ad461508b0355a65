/* The reference measurement of the interference checks (interference.h). */
#include "interference.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* L2 reference: up to 256 elements, one per 128 B line, one warm-up lap,
 * then MT_REF_LOADS loads in a random order (no prefetcher helps) through
 * ld.global.cg (no L1).  32 KiB fits one partition of every real GPU's L2;
 * a small simulated L2 in many partitions (64 KiB in 4, 192 KiB in 8) does
 * not hold it, and a reference that half misses varies with the hit share:
 * so at most REF_L2_SHARE of the driver's L2 (the chain then wraps, 256
 * loads over fewer lines).  DRAM reference: 256 elements 4 KiB apart (1 MiB: one large page,
 * so no TLB misses; every element its own line), cold.  Both run on SM 0
 * so the L2's near/far partition mix is the same in every repeat, and the
 * order seed changes per repeat so repeats are independent samples. */
#define REF_L2_STRIDE 128u
#define REF_L2_SHARE (1.0 / 32) /* 1/4 of a partition of an L2 in 8 */
#define REF_DRAM_STRIDE 4096u

static mt_experiment ref_experiment(uint64_t footprint, uint32_t stride, uint32_t warm,
                                    unsigned repeat)
{
    mt_experiment e = mt_exp_chase(MT_PATH_GLOBAL_CG, footprint, stride, warm, MT_REF_LOADS,
                                   MT_MODE_FINE);
    e.order = MT_ORDER_RANDOM;
    e.order_seed = 0x7265665u + repeat; /* "ref" + repeat */
    e.sm = 0;
    return e;
}

/* Interquartile mean of a result's raw cycles (timer overhead included:
 * repeats are compared with each other, and the first one is taken before
 * the calibration probe has measured the overhead). */
static mt_err raw_iqm(const mt_result *r, double *out)
{
    size_t n = r->n[0];
    double *x = malloc((n ? n : 1) * sizeof *x);
    if (!x)
        return MT_ERR_NOMEM;
    for (size_t k = 0; k < n; k++)
        x[k] = (double)r->cycles[0][k];
    *out = mt_interquartile_mean(x, n);
    free(x);
    return MT_OK;
}

/* The SM clock in effect at each reference: a clock experiment of this many
 * ns (backend.h, MT_KIND_CLOCK; 0.1 ms keeps the edge-timed count within
 * 0.1% of the clock) when the backend runs them; otherwise 0 (unknown), and
 * a clock change cannot be a cause. */
#define REF_CLOCK_NS 100000u

/* The backend's device information, asked again at every reference: other
 * processes busy on the GPU (NVML's utilization sample). */
static void ask_device(mt_probe_ctx *c, mt_reference *out)
{
    mt_device_info d;
    mt_errinfo ei;
    out->busy_others = -1;
    if (mt_backend_info(c->be, &d, &ei) != MT_OK)
        return;
    out->busy_others = d.other_busy;
    if (d.other_processes >= 0) { /* the latest list, for the messages */
        c->dev.other_processes = d.other_processes;
        c->dev.other_busy = d.other_busy;
        memcpy(c->dev.other_process_list, d.other_process_list, sizeof d.other_process_list);
    }
}

static mt_err measure(mt_probe_ctx *c, mt_interference *it, mt_reference *out)
{
    uint64_t l2_fp = (uint64_t)MT_REF_LOADS * REF_L2_STRIDE;
    if (c->dev.l2_bytes && l2_fp > REF_L2_SHARE * (double)c->dev.l2_bytes)
        l2_fp = mt_round_down((uint64_t)(REF_L2_SHARE * (double)c->dev.l2_bytes), REF_L2_STRIDE);
    if (l2_fp < REF_L2_STRIDE)
        l2_fp = REF_L2_STRIDE;
    mt_experiment e[3] = {ref_experiment(l2_fp, REF_L2_STRIDE, 1, it->repeats),
                          ref_experiment((uint64_t)MT_REF_LOADS * REF_DRAM_STRIDE, REF_DRAM_STRIDE,
                                         0, it->repeats),
                          mt_exp_clock(REF_CLOCK_NS, 0)};
    const size_t n = mt_backend_supports(c->be, MT_KIND_CLOCK) ? 3 : 2;
    mt_result r[3];
    memset(r, 0, sizeof r);
    mt_err err = mt_backend_run(c->be, e, n, r, c->ei);
    if (err != MT_OK)
        return err;
    it->repeats++;
    c->topo->total_experiments += (unsigned)n;
    ask_device(c, out);
    out->clock_mhz = n == 3 && r[2].n[0] == 2 && r[2].cycles[0][1]
                         ? 1e3 * r[2].cycles[0][0] / r[2].cycles[0][1]
                         : 0;
    if ((err = raw_iqm(&r[0], &out->l2)) == MT_OK)
        err = raw_iqm(&r[1], &out->dram);
    mt_results_free(r, n);
    if (err != MT_OK)
        return mt_fail(c->ei, err, "out of memory for the reference measurement");
    return MT_OK;
}

mt_err mt_interference_begin(mt_probe_ctx *c, mt_interference *it)
{
    memset(it, 0, sizeof *it);
    mt_err err = measure(c, it, &it->first);
    if (err == MT_ERR_REPLAY || err == MT_ERR_UNSUPPORTED) {
        c->ei->msg[0] = '\0';
        return MT_OK; /* nothing to compare with: checks off */
    }
    if (err != MT_OK)
        return err;
    it->enabled = true;
    it->least = it->last = it->first;
    mt_note_threshold(c, "MT_INTERFERE_RISE", MT_INTERFERE_RISE,
                      "reference latency this much above its least disturbed repeat: disturbed");
    mt_note_threshold(c, "MT_INTERFERE_MIN_RISE_CYCLES", MT_INTERFERE_MIN_RISE_CYCLES,
                      "... and at least this many cycles above it");
    mt_note_threshold(c, "MT_INTERFERE_CLOCK_CHANGE", MT_INTERFERE_CLOCK_CHANGE,
                      "SM clock change between references that disturbs a window");
    mt_note_threshold(c, "MT_INTERFERE_MAX_RERUNS", MT_INTERFERE_MAX_RERUNS,
                      "re-runs of a disturbed probe before its findings are degraded");
    mt_note_threshold(c, "MT_INTERFERE_CONF_CAP", MT_INTERFERE_CONF_CAP,
                      "confidence cap of findings measured while disturbed");
    return MT_OK;
}

mt_err mt_interference_end_window(mt_probe_ctx *c, mt_interference *it, mt_reference *start,
                                  mt_reference *end)
{
    mt_err err = measure(c, it, end);
    if (err != MT_OK)
        return err;
    *start = it->last;
    it->last = *end;
    it->least = mt_reference_least(&it->least, end);
    return MT_OK;
}

mt_ref_verdict mt_interference_judge(const mt_interference *it, const mt_reference *start,
                                     const mt_reference *end)
{
    mt_ref_verdict a, b;
    /* The clock baseline is the first reference's clock (least keeps it). */
    mt_reference_compare(&it->least, start, &a);
    mt_reference_compare(&it->least, end, &b);
    /* Report the worse end; causes are the union. */
    mt_ref_verdict v = (b.l2 - b.l2_base >= a.l2 - a.l2_base || isnan(a.l2)) ? b : a;
    if ((a.causes | b.causes) & MT_DISTURB_DRAM && !(v.causes & MT_DISTURB_DRAM)) {
        const mt_ref_verdict *d = (a.causes & MT_DISTURB_DRAM) ? &a : &b;
        v.dram = d->dram;
        v.dram_base = d->dram_base;
    }
    if (a.busy_others > v.busy_others)
        v.busy_others = a.busy_others;
    if ((a.causes | b.causes) & MT_DISTURB_CLOCK && !(v.causes & MT_DISTURB_CLOCK)) {
        const mt_ref_verdict *d = (a.causes & MT_DISTURB_CLOCK) ? &a : &b;
        v.clock_mhz = d->clock_mhz;
    }
    v.causes = a.causes | b.causes;
    return v;
}

void mt_interference_describe(const mt_probe_ctx *c, const mt_ref_verdict *v, char *buf,
                              size_t n)
{
    double ov = c->overhead_fine; /* known once calibration ran: shown without it */
    size_t len = 0;
    buf[0] = '\0';
    if (v->causes & MT_DISTURB_L2)
        len += (size_t)snprintf(buf + len, n - len, "reference L2 latency %.0f cycles vs %.0f",
                                v->l2 - ov, v->l2_base - ov);
    if ((v->causes & MT_DISTURB_DRAM) && len < n)
        len += (size_t)snprintf(buf + len, n - len, "%sreference DRAM latency %.0f cycles vs %.0f",
                                len ? ", " : "", v->dram - ov, v->dram_base - ov);
    if ((v->causes & (MT_DISTURB_L2 | MT_DISTURB_DRAM)) && len < n)
        len += (size_t)snprintf(buf + len, n - len, " at its least disturbed: another workload on "
                                                    "the GPU");
    if ((v->causes & MT_DISTURB_BUSY) && len < n)
        len += (size_t)snprintf(buf + len, n - len, "%sthe driver saw %d other process%s using "
                                                    "the GPU",
                                len ? "; " : "", v->busy_others, v->busy_others == 1 ? "" : "es");
    if ((v->causes & MT_DISTURB_CLOCK) && len < n)
        len += (size_t)snprintf(buf + len, n - len, "%sSM clock %.0f MHz vs %.0f at the start",
                                len ? "; " : "", v->clock_mhz, v->clock_base_mhz);
    const mt_device_info *d = &c->dev;
    if (d->other_processes > 0 && len < n)
        snprintf(buf + len, n - len, " (%d other process%s on this GPU: %s)", d->other_processes,
                 d->other_processes == 1 ? "" : "es", d->other_process_list);
}

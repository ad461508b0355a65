/* What-if: a changed finding or option, and a kernel profiled on one GPU
 * predicted on another. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model_internal.h"

/* Parses VALUE: a number, "Nx" (times the current value) or "N%" (a share). */
static int parse_value(const char *s, double current, double *out, int *pct)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || !isfinite(v) || v < 0)
        return -1;
    *pct = 0;
    if (strcmp(end, "x") == 0)
        v *= current;
    else if (strcmp(end, "%") == 0) {
        v /= 100;
        *pct = 1;
    } else if (*end)
        return -1;
    *out = v;
    return 0;
}

mt_err mt_model_what_if(const char *kv, mt_model_machine *m, mt_model_options *o, mt_errinfo *ei)
{
    const char *eq = strchr(kv, '=');
    if (!eq || eq == kv)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "model: --what-if wants KEY=VALUE, got \"%s\"", kv);
    char key[64];
    snprintf(key, sizeof key, "%.*s", (int)(eq - kv), kv);
    double v;
    int pct;
    if (strcmp(key, "occupancy") == 0) {
        if (parse_value(eq + 1, 1, &v, &pct) || v <= 0 || v > 1)
            return mt_fail(ei, MT_ERR_INVALID_ARG, "model: occupancy wants a share in (0, 100%%], got \"%s\"", eq + 1);
        o->occupancy = v;
        return MT_OK;
    }
    if (strcmp(key, "clock") == 0) {
        double now = o->clock_mhz > 0 ? o->clock_mhz : m->in[MT_MI_CLOCK_MHZ].value;
        if (parse_value(eq + 1, now, &v, &pct) || pct || v <= 0)
            return mt_fail(ei, MT_ERR_INVALID_ARG, "model: clock wants MHz, got \"%s\"", eq + 1);
        o->clock_mhz = v;
        return MT_OK;
    }
    /* GB/s of a level also answer to their bw_ name's gbps_ spelling and
     * to l2.gbps_read (the whole-L2 read is what the model uses). */
    if (strcmp(key, "l2.gbps_read") == 0)
        snprintf(key, sizeof key, "l2.gbps_read_whole");
    for (int i = 0; i < MT_MI_COUNT; i++) {
        if (strcmp(mt_model_input_key(i), key) != 0)
            continue;
        if (parse_value(eq + 1, m->in[i].value, &v, &pct) || pct || v <= 0)
            return mt_fail(ei, MT_ERR_INVALID_ARG, "model: --what-if %s wants a positive number or Nx, got \"%s\"",
                           key, eq + 1);
        m->in[i].value = v;
        m->in[i].set = 1;
        snprintf(m->in[i].source, sizeof m->in[i].source, "what-if %.48s", kv);
        if (i == MT_MI_L1_SIZE)
            m->n_carveouts = 0; /* the per-carveout sizes no longer apply */
        return MT_OK;
    }
    return mt_fail(ei, MT_ERR_INVALID_ARG,
                   "model: unknown --what-if key \"%s\" (an input such as l2.size, l1d.latency, "
                   "dram.gbps_read, or occupancy, clock)",
                   key);
}

/* Hit rate of a cache of size `to` given the rate `h` at size `from`: the
 * miss ratio falls with the square root of the size (the "sqrt(2) rule"
 * of Hartstein et al.'s power law, exponent 0.5), a rate of 0 or 1 stays
 * (a streaming kernel does not start hitting; a fitting one keeps fitting
 * in a larger cache). */
#define MODEL_MISS_POWER 0.5
static double rescale(double h, double from, double to)
{
    if (!(from > 0) || !(to > 0) || fabs(from - to) < 1 || h <= 0 || h >= 1)
        return h;
    double miss = (1 - h) * pow(from / to, MODEL_MISS_POWER);
    return miss >= 1 ? 0 : 1 - miss;
}

int mt_model_retarget(mt_model_kernel *k, const mt_model_machine *from, const mt_model_machine *to)
{
    int changed = 0;
    double h1 = rescale(k->l1_hit, mt_model_l1_at_carveout(from, k->carveout_smem),
                        mt_model_l1_at_carveout(to, k->carveout_smem));
    double h2 = rescale(k->l2_hit, from->in[MT_MI_L2_SIZE].value, to->in[MT_MI_L2_SIZE].value);
    if (h1 != k->l1_hit) {
        k->l1_hit = h1;
        changed++;
    }
    if (h2 != k->l2_hit) {
        /* DRAM traffic the profile counted follows the L2's miss rate. */
        double old_miss = 1 - k->l2_hit, new_miss = 1 - h2;
        if (old_miss > 0) {
            if (k->dram_read_bytes > 0)
                k->dram_read_bytes *= new_miss / old_miss;
            if (k->dram_write_bytes > 0)
                k->dram_write_bytes *= new_miss / old_miss;
        }
        k->l2_hit = h2;
        changed++;
    }
    return changed;
}

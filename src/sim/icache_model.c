/* The instruction-cache model (icache_model.h). */
#include <math.h>
#include <stdlib.h>

#include "icache_model.h"

int mt_sim_icache_level(const mt_sim_spec *s, uint64_t code_bytes)
{
    for (int i = 0; i < s->n_icaches; i++)
        if (code_bytes <= s->icache[i].size)
            return i;
    return -1;
}

static uint32_t lap_cycles(double x)
{
    if (!(x >= 1.0)) /* also catches NaN */
        return 1;
    return x >= 4294967295.0 ? UINT32_MAX : (uint32_t)llround(x);
}

mt_err mt_sim_icache_run(const mt_sim_spec *s, const mt_experiment *e, mt_rng *rng,
                         mt_result *out, mt_errinfo *ei)
{
    int d = mt_sim_icache_level(s, e->u.icache.code_bytes);
    if (d < 0)
        return mt_fail(ei, MT_ERR_UNSUPPORTED, "the spec has no [icache] level holding %u B of code",
                       e->u.icache.code_bytes);
    const mt_sim_icache_spec *q = &s->icache[d];
    out->cycles[0] = malloc((size_t)e->loads * sizeof *out->cycles[0]);
    if (!out->cycles[0])
        return mt_fail(ei, MT_ERR_NOMEM, "out of memory for %u samples", e->loads);
    out->n[0] = e->loads;
    double instructions = (double)e->u.icache.code_bytes / MT_ICACHE_INSTRUCTION_BYTES;
    for (uint32_t k = 0; k < e->loads; k++) {
        /* Each instruction's cost varies independently: the lap's spread
         * grows with the square root of its length. */
        double x = instructions * q->latency + s->timer_overhead;
        if (q->noise > 0)
            x += q->noise * sqrt(instructions) * mt_rng_gauss(rng);
        if (s->outlier_rate > 0 && mt_rng_uniform(rng) < s->outlier_rate)
            x += s->outlier_cycles * (0.5 + mt_rng_uniform(rng));
        out->cycles[0][k] = lap_cycles(x);
    }
    out->sm_ran = e->sm >= 0 ? e->sm : 0;
    return MT_OK;
}

/* One warp's global load (access_model.h). */
#include "access_model.h"

uint32_t mt_sim_access_units(const mt_banks *x, uint32_t unit)
{
    uint64_t seen[32];
    uint32_t n = 0;
    for (uint32_t t = 0; t < x->n_threads && t < 32; t++) {
        uint64_t u = (uint64_t)x->word_index[t] * 4 / (unit ? unit : 1);
        int dup = 0;
        for (uint32_t i = 0; i < n && !dup; i++)
            dup = seen[i] == u;
        if (!dup)
            seen[n++] = u;
    }
    return n;
}

uint32_t mt_sim_access_passes(const mt_sim_access_spec *a, int cg, const mt_sim_bank_spec *b,
                              const mt_banks *x, uint32_t line)
{
    return a->bank_passes[cg ? 1 : 0] ? mt_sim_bank_wavefronts(b, x)
                                      : mt_sim_access_units(x, line);
}

double mt_sim_access_extra(const mt_sim_access_spec *a, int cg, const mt_sim_bank_spec *b,
                           const mt_banks *x, uint32_t sector, uint32_t line)
{
    uint32_t s = mt_sim_access_units(x, sector), l = mt_sim_access_passes(a, cg, b, x, line);
    int p = cg ? 1 : 0;
    uint32_t k = a->tag_group[p] ? a->tag_group[p] : 1;
    uint32_t groups = (mt_sim_access_units(x, line) + k - 1) / k;
    return a->sector_cycles[p] * (s ? s - 1 : 0) + a->line_cycles[p] * (l ? l - 1 : 0) +
           a->tag_cycles[p] * (groups ? groups - 1 : 0) +
           (x->n_threads < MT_SIM_ACCESS_WARP ? a->partial_cycles[p] : 0);
}

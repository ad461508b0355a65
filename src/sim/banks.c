/* Shared-memory bank model (banks.h, docs/spec-format.md). */
#include "banks.h"

uint32_t mt_sim_bank_phase_threads(const mt_sim_bank_spec *b, uint32_t word_bytes)
{
    uint32_t row = b->count * b->width;
    uint32_t t = word_bytes ? row / word_bytes : 32;
    return t < 1 ? 1 : t > 32 ? 32 : t;
}

/* Most distinct bank words one bank delivers for threads [t0, t1). */
static uint32_t phase_degree(const mt_sim_bank_spec *b, const mt_banks *x, uint32_t t0,
                             uint32_t t1)
{
    /* A thread's word covers word_bytes / width consecutive bank words
     * (one when the word is narrower than a bank). */
    uint32_t per = x->word_bytes > b->width ? x->word_bytes / b->width : 1;
    uint64_t seen[32 * 4]; /* bank words of this phase: at most 32 threads x 4 */
    uint32_t n_seen = 0, degree = 0;
    uint32_t load[64] = {0}; /* passes per bank (count <= 64) */
    for (uint32_t t = t0; t < t1; t++) {
        uint64_t first = (uint64_t)x->word_index[t] * x->word_bytes / b->width;
        for (uint32_t k = 0; k < per; k++) {
            uint64_t w = first + k;
            int dup = 0;
            for (uint32_t i = 0; b->broadcast && i < n_seen && !dup; i++)
                dup = seen[i] == w;
            if (dup)
                continue;
            seen[n_seen++] = w;
            uint32_t bank = (uint32_t)(w % b->count);
            if (++load[bank] > degree)
                degree = load[bank];
        }
    }
    return degree;
}

uint32_t mt_sim_bank_wavefronts(const mt_sim_bank_spec *b, const mt_banks *x)
{
    uint32_t n = x->n_threads > 32 ? 32 : x->n_threads;
    uint32_t p = mt_sim_bank_phase_threads(b, x->word_bytes), total = 0;
    for (uint32_t t0 = 0; t0 < n; t0 += p)
        total += phase_degree(b, x, t0, t0 + p < n ? t0 + p : n);
    return total ? total : 1;
}

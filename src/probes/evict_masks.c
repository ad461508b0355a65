/* Set-index XOR masks from one eviction set (evict_masks.h, which
 * describes the method). */
#include "evict_masks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../analysis/gf2.h"
#include "../core/rng.h"

typedef struct {
    uint64_t target;
    const uint64_t *e;
    uint32_t w, bits;
    uint64_t max_tests;
    mt_evict_target_oracle oracle;
    void *ctx;
    mt_line_interval *iv; /* room for w + 2 intervals */
    uint64_t *base;       /* room for w + 1 block starts */
    mt_evict_masks *out;
} masks_ctx;

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Appends [first, first + count) to the list, merged with the last
 * interval where they touch. */
static void append(mt_line_list *l, uint64_t first, uint64_t count)
{
    if (!count)
        return;
    mt_line_interval *last = l->n ? &l->iv[l->n - 1] : NULL;
    if (last && (uint64_t)last->first + last->count == first)
        last->count += (uint32_t)count;
    else
        l->iv[l->n++] = (mt_line_interval){(uint32_t)first, (uint32_t)count};
    l->lines += count;
}

/* Does "E XOR v, to blocks of 2^j" (without the target) evict the target?
 * *asked false when the budget is spent or the pool is beyond 32-bit
 * counts (why set). */
static mt_err ask(masks_ctx *m, uint64_t v, uint32_t j, bool *evicts, bool *asked)
{
    *asked = false;
    if (m->max_tests && m->out->tests >= m->max_tests) {
        snprintf(m->out->why, sizeof m->out->why, "the budget of %llu tests was spent",
                 (unsigned long long)m->max_tests);
        return MT_OK;
    }
    uint64_t block = 1ull << j;
    if (((uint64_t)m->w + 1) * block > UINT32_MAX / 2) {
        snprintf(m->out->why, sizeof m->out->why, "a pool of %u blocks of 2^%u lines is beyond "
                 "the tests' 32-bit line counts", m->w, j);
        return MT_OK;
    }
    /* The W + 1 lines of the set, the target among them: a copy that
     * holds the target itself (v XOR u = the target XOR a member) still
     * brings W others. */
    for (uint32_t i = 0; i <= m->w; i++)
        m->base[i] = ((i < m->w ? m->e[i] : m->target) ^ v) & ~(block - 1);
    qsort(m->base, m->w + 1, sizeof *m->base, cmp_u64);
    mt_line_list l = {.iv = m->iv, .cap = m->w + 2};
    for (uint32_t i = 0; i <= m->w; i++) {
        if (i && m->base[i] == m->base[i - 1])
            continue; /* blocks are aligned: equal or disjoint */
        uint64_t lo = m->base[i], hi = lo + block;
        if (m->target >= lo && m->target < hi) {
            append(&l, lo, m->target - lo); /* the target is loaded only as the target */
            append(&l, m->target + 1, hi - m->target - 1);
        } else {
            append(&l, lo, block);
        }
    }
    m->out->tests++;
    *asked = true;
    return m->oracle(m->ctx, m->target, &l, evicts);
}

/* A kernel vector of highest bit b, or *independent when bit b's column
 * is new.  pivots[0..np): the pivots below b, ascending. */
static mt_err kernel_vector(masks_ctx *m, uint32_t b, const uint32_t *pivots, uint32_t np,
                            uint64_t *f, bool *independent, bool *asked)
{
    bool evicts = false;
    uint32_t top = np ? pivots[np - 1] + 1 : 0;
    *f = 1ull << b;
    mt_err err = ask(m, *f, top, &evicts, asked);
    if (err != MT_OK || !*asked)
        return err;
    *independent = !evicts;
    for (uint32_t i = np; i-- > 0 && !*independent;) {
        if ((err = ask(m, *f, pivots[i], &evicts, asked)) != MT_OK || !*asked)
            return err;
        if (!evicts)
            *f ^= 1ull << pivots[i];
    }
    return MT_OK;
}

/* A random vector below 2^bits: in the kernel (a random nonzero
 * combination of its basis) or outside it (labelled nonzero by the masks). */
static bool draw(mt_rng *rng, const uint64_t *kernel, uint32_t nk, const mt_evict_masks *o,
                 bool in_kernel, uint64_t *v)
{
    uint64_t all = o->bits >= 64 ? ~0ull : (1ull << o->bits) - 1;
    for (int tries = 0; tries < 64; tries++) {
        uint64_t x = 0;
        if (in_kernel) {
            for (uint32_t k = 0; k < nk; k++)
                if (mt_rng_next(rng) & 1)
                    x ^= kernel[k];
        } else {
            x = mt_rng_next(rng) & all;
        }
        bool zero_label = mt_gf2_apply(o->masks, o->rank, x) == 0;
        if (x && zero_label == in_kernel) {
            *v = x;
            return true;
        }
    }
    return false;
}

static mt_err predict(masks_ctx *m, const uint64_t *kernel, uint32_t nk, uint32_t n_each,
                      uint64_t seed)
{
    mt_evict_masks *o = m->out;
    mt_rng rng = {.s = seed};
    for (uint32_t i = 0; i < 2 * n_each; i++) {
        bool conflict = i % 2 == 0;
        uint64_t v;
        if (!draw(&rng, kernel, nk, o, conflict, &v))
            continue; /* no such vector (an empty kernel, or every vector in it) */
        bool evicts = false, asked = false;
        mt_err err = ask(m, v, 0, &evicts, &asked);
        if (err != MT_OK)
            return err;
        if (!asked)
            return MT_OK;
        o->predictions++;
        if (evicts != conflict) {
            snprintf(o->why, sizeof o->why, "a prediction failed: lines XOR 0x%llx %s the "
                     "target's set but %s it (the index is not linear over these bits)",
                     (unsigned long long)v, conflict ? "stay in" : "leave",
                     evicts ? "evicted" : "did not evict");
            return MT_OK;
        }
    }
    o->verified = o->predictions > 0;
    if (!o->verified)
        snprintf(o->why, sizeof o->why, "no prediction could be drawn");
    return MT_OK;
}

mt_err mt_evict_masks_measure(uint64_t target, const uint64_t *set_lines, uint32_t ways,
                              uint32_t bits, uint64_t max_tests, uint32_t predictions,
                              uint64_t seed, mt_evict_target_oracle oracle, void *ctx,
                              mt_evict_masks *out)
{
    memset(out, 0, sizeof *out);
    out->bits = bits;
    if (bits == 0 || bits > MT_EVICT_MASKS_MAX_BITS || ways == 0) {
        snprintf(out->why, sizeof out->why, "no line bits to test");
        return MT_OK;
    }
    masks_ctx m = {.target = target, .e = set_lines, .w = ways, .bits = bits,
                   .max_tests = max_tests, .oracle = oracle, .ctx = ctx, .out = out};
    m.iv = malloc(((size_t)ways + 2) * sizeof *m.iv);
    m.base = malloc(((size_t)ways + 1) * sizeof *m.base);
    mt_err err = MT_OK;
    if (!m.iv || !m.base) {
        err = MT_ERR_NOMEM;
        goto done;
    }
    uint32_t pivots[MT_EVICT_MASKS_MAX_BITS], np = 0, nk = 0;
    uint64_t kernel[MT_EVICT_MASKS_MAX_BITS];
    for (uint32_t b = 0; b < bits; b++) {
        uint64_t f = 0;
        bool independent = false, asked = false;
        if ((err = kernel_vector(&m, b, pivots, np, &f, &independent, &asked)) != MT_OK ||
            !asked)
            goto done;
        if (independent)
            pivots[np++] = b;
        else
            kernel[nk++] = f;
    }
    /* The masks: the vectors orthogonal to the kernel (its basis has one
     * vector per bit that is no pivot, each its own highest bit, so it is
     * independent), in reduced row echelon form. */
    uint64_t k_rref[MT_EVICT_MASKS_MAX_BITS];
    memcpy(k_rref, kernel, nk * sizeof *kernel);
    size_t kr = mt_gf2_rref(k_rref, nk);
    out->rank = (uint32_t)mt_gf2_null_basis(k_rref, kr, bits, out->masks);
    out->rank = (uint32_t)mt_gf2_rref(out->masks, out->rank);
    err = predict(&m, kernel, nk, predictions, seed);
done:
    free(m.iv);
    free(m.base);
    return err;
}

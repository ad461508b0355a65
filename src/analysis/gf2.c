/* Linear algebra over GF(2) on 64-bit rows (gf2.h). */
#include "gf2.h"

#include <string.h>

size_t mt_gf2_rref(uint64_t *rows, size_t n)
{
    size_t rank = 0;
    for (unsigned col = 0; col < 64 && rank < n; col++) {
        uint64_t bit = 1ull << col;
        size_t at = rank;
        while (at < n && !(rows[at] & bit))
            at++;
        if (at == n)
            continue;
        uint64_t pivot = rows[at];
        rows[at] = rows[rank];
        rows[rank] = pivot;
        for (size_t i = 0; i < n; i++)
            if (i != rank && (rows[i] & bit))
                rows[i] ^= pivot;
        rank++;
    }
    return rank;
}

size_t mt_gf2_rank(const uint64_t *rows, size_t n)
{
    uint64_t copy[64];
    if (n > 64)
        n = 64;
    memcpy(copy, rows, n * sizeof *rows);
    return mt_gf2_rref(copy, n);
}

bool mt_gf2_same_span(const uint64_t *a, size_t na, const uint64_t *b, size_t nb)
{
    uint64_t x[64], y[64];
    if (na > 64 || nb > 64)
        return false;
    memcpy(x, a, na * sizeof *a);
    memcpy(y, b, nb * sizeof *b);
    size_t ra = mt_gf2_rref(x, na), rb = mt_gf2_rref(y, nb);
    /* The reduced form is unique: equal spaces give equal rows. */
    return ra == rb && memcmp(x, y, ra * sizeof *x) == 0;
}

uint64_t mt_gf2_apply(const uint64_t *rows, size_t n, uint64_t x)
{
    uint64_t label = 0;
    for (size_t i = 0; i < n; i++)
        label |= (uint64_t)__builtin_parityll(rows[i] & x) << i;
    return label;
}

uint64_t mt_gf2_pivot_vector(const uint64_t *rows, size_t r, uint64_t label)
{
    uint64_t x = 0;
    for (size_t k = 0; k < r; k++)
        if (label & (1ull << k))
            x |= rows[k] & -rows[k]; /* the pivot: the row's lowest bit */
    return x;
}

size_t mt_gf2_null_basis(const uint64_t *rows, size_t r, unsigned bits, uint64_t *out)
{
    uint64_t pivots = 0;
    for (size_t k = 0; k < r; k++)
        pivots |= rows[k] & -rows[k];
    size_t n = 0;
    for (unsigned f = 0; f < bits && f < 64; f++) {
        uint64_t bit = 1ull << f;
        if (pivots & bit)
            continue;
        /* e_f plus the pivot of every row holding bit f: each row then
         * sees bit f twice (its own and its pivot's), parity 0.  A row's
         * pivot is its lowest bit, below f, so f stays the highest. */
        uint64_t v = bit;
        for (size_t k = 0; k < r; k++)
            if (rows[k] & bit)
                v |= rows[k] & -rows[k];
        out[n++] = v;
    }
    return n;
}

/* Per-set capacity map (setmap.h). */
#include <stdio.h>
#include <string.h>

#include "setmap.h"
#include "gf2.h"

uint32_t mt_setmap_usable(const uint32_t *clean, uint32_t kmax, uint32_t *usable)
{
    uint32_t u = 0;
    for (uint32_t k = kmax; k >= 1 && !u; k--)
        if (clean[k - 1])
            u = k;
    uint32_t gaps = 0;
    for (uint32_t k = 1; k < u; k++)
        gaps += clean[k - 1] == 0;
    *usable = u;
    return gaps;
}

bool mt_setmap_coset(const uint64_t *labels, size_t n, unsigned bits, uint64_t *eq,
                     uint32_t *n_eq, uint64_t *rhs)
{
    if (n == 0 || bits == 0 || bits > 63)
        return false;
    /* V: the span of the differences from the first label.  The n labels
     * lie in x0 + V, which has 2^dim V members: they fill it exactly when
     * n is that many (they are distinct). */
    uint64_t span[64];
    size_t dim = 0;
    for (size_t i = 1; i < n; i++) {
        uint64_t rows[65];
        memcpy(rows, span, dim * sizeof *rows);
        rows[dim] = labels[i] ^ labels[0];
        if (mt_gf2_rank(rows, dim + 1) > dim) {
            span[dim] = rows[dim];
            dim++;
        }
        if (dim == bits)
            break;
    }
    if ((uint64_t)n != 1ull << dim)
        return false;
    mt_gf2_rref(span, dim);
    /* The equations: the vectors orthogonal to V (parity(e AND v) = 0 for
     * every v in V), which is the null basis of V's rows. */
    uint64_t null[64];
    size_t ne = mt_gf2_null_basis(span, dim, bits, null);
    mt_gf2_rref(null, ne);
    *rhs = 0;
    for (size_t i = 0; i < ne; i++) {
        eq[i] = null[i];
        *rhs |= (uint64_t)__builtin_parityll(labels[0] & null[i]) << i;
    }
    *n_eq = (uint32_t)ne;
    return true;
}

void mt_setmap_coset_text(const uint64_t *eq, uint32_t n_eq, uint64_t rhs, char *buf, size_t cap)
{
    size_t at = 0;
    buf[0] = '\0';
    if (n_eq == 0) {
        snprintf(buf, cap, "all sets");
        return;
    }
    for (uint32_t i = 0; i < n_eq && at < cap; i++) {
        const char *sep = i ? " " : "";
        for (unsigned b = 0; b < 64 && at < cap; b++)
            if (eq[i] >> b & 1) {
                at += (size_t)snprintf(buf + at, cap - at, "%sb%u", sep, b);
                sep = "^";
            }
        if (at < cap)
            at += (size_t)snprintf(buf + at, cap - at, "=%u", (unsigned)(rhs >> i & 1));
    }
}

bool mt_setmap_consecutive(const uint64_t *labels, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (labels[i] != labels[0] + i)
            return false;
    return n > 0;
}

/* Lines of one cache set from the geometry findings (set_lines.h).
 *
 * Modulo over S sets: the lines of set t are t, t + S, t + 2S, ...
 * XOR index: set(x) = M x over GF(2), M the masks (rows in reduced row
 * echelon form, geometry_hash.c).  Lines x and x XOR d share a set exactly
 * when M d = 0, so a set is one line of it XOR the null space of M; the
 * line of label t built from pivot bits has label t (gf2.h), and the null
 * space vectors, in increasing order of their highest bit, keep the first
 * lines of each set as low as the index allows (a short chain). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "set_lines.h"
#include "confidence.h"
#include "../analysis/gf2.h"

/* Line numbers are 32-bit element indices (mt_sequence). */
#define SET_LINES_MAX_KNOWN (1ull << 32)

static uint64_t min_u64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

static void weakest_of(mt_set_index *ix, const mt_finding *f, const char *name)
{
    if (f->confidence < ix->confidence) {
        ix->confidence = f->confidence;
        ix->weakest = name;
    }
}

/* "0x3601 0xc02 ..." (mt_hash_masks_text) into ix->masks; false unless it
 * is exactly log2(sets) independent masks below 2^bits. */
static bool parse_masks(const char *text, mt_set_index *ix)
{
    uint32_t n = 0;
    const char *at = text;
    while (*at) {
        char *end;
        unsigned long long m = strtoull(at, &end, 16);
        if (end == at || n == MT_HASH_MAX_BITS || !m || (ix->bits < 64 && m >> ix->bits))
            return false;
        ix->masks[n++] = m;
        at = end;
        while (*at == ' ')
            at++;
    }
    if (n == 0 || n >= 64 || ix->sets != 1ull << n)
        return false;
    ix->rank = (uint32_t)mt_gf2_rref(ix->masks, n);
    return ix->rank == n;
}

bool mt_set_index_of(const mt_probe_ctx *c, const char *key, mt_path path, mt_set_index *ix,
                     char *why, size_t cap)
{
    const mt_finding *fw = mt_get(c, key, "ways"), *fs = mt_get(c, key, "sets");
    const mt_finding *fi = mt_get(c, key, "index"), *fl = mt_get(c, key, "line");
    memset(ix, 0, sizeof *ix);
    bool modulo = fi->kind == MT_FIND_TEXT && strncmp(fi->text, "modulo", 6) == 0;
    bool xor_index = fi->kind == MT_FIND_TEXT && strcmp(fi->text, "xor") == 0;
    if ((!modulo && !xor_index) || fw->kind != MT_FIND_VALUE || fs->kind != MT_FIND_VALUE ||
        fl->kind != MT_FIND_VALUE || fw->value < 1 || fs->value < 1 || fl->value < 1) {
        snprintf(why, cap, "needs ways and sets under a modulo or a recovered XOR index "
                 "(geometry: %.60s)", fi->kind == MT_FIND_TEXT ? fi->text : "not measured");
        return false;
    }
    /* A geometry below the trusted level may have put the lines in
     * different sets: the tests would then time something else. */
    if (fi->confidence < MT_CONF_TRUSTED) {
        snprintf(why, cap, "the %s index (%s) is below the trusted confidence (%.2f)", key,
                 fi->text, fi->confidence);
        return false;
    }
    ix->ways = (uint32_t)fw->value;
    ix->sets = (uint64_t)fs->value;
    ix->line = (uint32_t)fl->value;
    ix->xor_index = xor_index;
    ix->confidence = 1.0;
    weakest_of(ix, fw, "ways");
    weakest_of(ix, fs, "sets");
    weakest_of(ix, fi, "index");
    uint64_t limit = c->dev.path_limit_bytes[path];
    uint64_t path_lines = limit ? limit / ix->line : SET_LINES_MAX_KNOWN;
    if (modulo) {
        /* "modulo (line-address bits 0-B)" vouches for lines below 2^(B+1)
         * only (probe_geometry.c); plain "modulo" for every line the path
         * reaches. */
        int top;
        ix->lines_known = path_lines;
        if (sscanf(fi->text, "modulo (line-address bits 0-%d)", &top) == 1 && top >= 0 &&
            top < 62)
            ix->lines_known = min_u64(path_lines, (uint64_t)2 << top);
        ix->lines_known = min_u64(ix->lines_known, SET_LINES_MAX_KNOWN);
        return true;
    }
    const mt_finding *fm = mt_get(c, key, "index_masks");
    if (fm->kind != MT_FIND_TEXT) {
        snprintf(why, cap, "the %s XOR masks are not in the report (%.80s)", key, fm->note);
        return false;
    }
    weakest_of(ix, fm, "index_masks");
    /* The same line bits the recovery tested (geometry_hash.c): the masks
     * say nothing about higher ones. */
    ix->bits = mt_geometry_hash_bits(ix->line, limit);
    ix->lines_known = min_u64(1ull << ix->bits, SET_LINES_MAX_KNOWN);
    if (!parse_masks(fm->text, ix)) {
        snprintf(why, cap, "the %s XOR masks \"%.60s\" are not %llu independent masks over "
                 "line bits 0-%u", key, fm->text, (unsigned long long)ix->sets, ix->bits - 1);
        return false;
    }
    return true;
}

bool mt_set_lines(const mt_set_index *ix, uint64_t label, uint32_t n, uint32_t *lines)
{
    if (n == 0 || label >= ix->sets)
        return n == 0;
    if (!ix->xor_index) {
        if (label + (uint64_t)(n - 1) * ix->sets >= ix->lines_known)
            return false;
        for (uint32_t k = 0; k < n; k++)
            lines[k] = (uint32_t)(label + (uint64_t)k * ix->sets);
        return true;
    }
    uint64_t basis[64];
    size_t nb = mt_gf2_null_basis(ix->masks, ix->rank, ix->bits, basis);
    if (nb < 32 && (uint64_t)n > 1ull << nb)
        return false; /* the set has fewer than n lines below 2^bits */
    uint64_t base = mt_gf2_pivot_vector(ix->masks, ix->rank, label);
    for (uint32_t k = 0; k < n; k++) {
        uint64_t x = base;
        for (size_t j = 0; j < nb && j < 32; j++)
            if (k & (1u << j))
                x ^= basis[j];
        lines[k] = (uint32_t)x;
    }
    return true;
}

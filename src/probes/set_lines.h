/* Lines of one cache set, from the geometry probes' findings (ways, sets,
 * index and, for an XOR index, index_masks): the one place that turns a
 * measured set index into the lines it puts together, for a modulo and a
 * recovered XOR index alike (the per-set tests of probe_policy.c). */
#ifndef MT_SET_LINES_H
#define MT_SET_LINES_H

#include "geometry_hash.h"

typedef struct {
    uint32_t ways;
    uint64_t sets;        /* modulo: the set count; xor: 2^rank */
    uint32_t line;        /* bytes: line numbers count in these */
    bool xor_index;       /* false: set = line mod sets */
    uint64_t masks[MT_HASH_MAX_BITS]; /* xor: set bit k = parity(line AND masks[k]), rref */
    uint32_t rank;
    /* The index is known for lines 0 .. lines_known - 1 only: the bits the
     * strides decided (modulo), the bits the hash recovery tested (xor),
     * and the path's buffer. */
    uint64_t lines_known;
    uint32_t bits;        /* xor: lines_known = 2^bits */
    /* The least confidence among the findings it rests on, and which. */
    double confidence;
    const char *weakest;
} mt_set_index;

/* The set index of cache `key` (reached through `path`) as its geometry
 * findings give it; false, with a one-line reason in why, where they give
 * none to build sets from (not measured, not modulo and no XOR masks
 * recovered, masks that do not fit the report, an index below the trusted
 * confidence). */
bool mt_set_index_of(const mt_probe_ctx *c, const char *key, mt_path path, mt_set_index *ix,
                     char *why, size_t cap);

/* lines[0..n): n distinct line numbers of the set labelled `label`
 * (label < ix->sets), all below ix->lines_known and as low as the index
 * allows (modulo: label + k sets; xor: the line of that label made of
 * pivot bits, XORed with the combinations of the first null-space
 * vectors).  False when the set has fewer than n lines there. */
bool mt_set_lines(const mt_set_index *ix, uint64_t label, uint32_t n, uint32_t *lines);

#endif

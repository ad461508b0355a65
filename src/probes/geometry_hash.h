/* Set-index hash recovery: exact ways, sets and the XOR masks of a cache
 * whose set index is a linear function of the line-address bits over
 * GF(2) (issue 8, parts 1-2).  See geometry_hash.c for the method. */
#ifndef MT_GEOMETRY_HASH_H
#define MT_GEOMETRY_HASH_H

#include "geometry_fit.h"

/* Verification lists of each kind (must conflict, must fit): a wrong
 * partition has to agree with 2 x 4 random predictions, each of which a
 * partition that differs in one index bit (or more) gets wrong with chance
 * at least 1/2 (the conflict lists) or 1 - 2^-W ... (the fit lists):
 * at most 2^-4 for the conflicts alone. */
#define GEOMETRY_HASH_VERIFY_LISTS 4u
/* A modulo claim is also checked on the lines furthest apart in this many
 * residue classes (every class of a cache with at most this many sets):
 * spread evenly, they meet a fold of tag bits wherever it moves classes
 * (geometry_hash.c, spread_lists); 64 lists of W + 1 lines cost a few
 * sequence experiments of one batch. */
#define GEOMETRY_SPREAD_CLASSES 64u
/* Line bits tested span at most 2 MiB of addresses: the cuda backend
 * aligns its big buffers to 2 MiB, so below that a line number XORs into
 * the buffer's address without a carry (the model's linearity holds), and
 * no list's chain is longer than 2 MiB (each experiment builds its own).
 * Higher address bits are not tested; the masks are the index restricted
 * to the bits below (bits_tested says which). */
#define GEOMETRY_HASH_SPAN_BYTES (2u << 20)
/* Most set-index bits recovered (2^20 sets is far beyond any cache). */
#define MT_HASH_MAX_BITS 20

typedef struct {
    mt_fit_target target; /* the cache: load path, line, hit threshold, outlier rate */
    uint64_t limit_bytes; /* the path's buffer limit (and GEOMETRY_HASH_SPAN_BYTES) bound the
                             line bits tested */
    double size_low;      /* low end of the cache's measured size (bytes): a recovery
                             whose ways x sets x line fall short of half of it missed
                             index bits beyond those tested */
    /* A start that overflows: the elements 0 .. cap of the chain `stride`
     * lines apart (cap + 1 of them) do not fit, while the first cap do
     * (the stride-conflict search's bracket). */
    uint64_t stride, cap;
} mt_hash_request;

typedef struct {
    bool recovered;        /* ways, rank and masks measured and verified by prediction */
    uint32_t ways;         /* > 0 once the eviction set was found */
    uint32_t rank;         /* set-index bits: 2^rank sets */
    uint64_t masks[MT_HASH_MAX_BITS]; /* rows in reduced row echelon form (gf2.h) */
    uint32_t bits_tested;  /* line-address bits 0 .. bits_tested-1 */
    uint32_t predictions;  /* verification lists, all as predicted when recovered */
    size_t experiments;    /* experiments run */
    char why[200];         /* what stopped it, when not recovered */
    /* Not recovered: the eviction set confirmed by counted decisions
     * (geometry_hash.c, confirm_members): ways stays > 0 only then, less
     * the `dropped` lines the group tests took in that do not belong;
     * ways_why says why not where ways was set to 0. */
    bool confirmed;
    uint32_t dropped;
    char ways_why[160];
} mt_hash_result;

/* The line bits the recovery tests for a cache with this line size behind
 * a path with this buffer limit (0: none): 0 .. bits-1. */
uint32_t mt_geometry_hash_bits(uint32_t line, uint64_t limit_bytes);

/* Runs the recovery; out->recovered says whether it succeeded.  Errors are
 * the backend's (or out of memory); an index that is not linear, a
 * decision the timer does not allow or a list beyond the backend's limits
 * is a result with recovered false and why set, not an error. */
mt_err mt_geometry_hash(mt_probe_ctx *c, const mt_hash_request *q, mt_hash_result *out);

/* The prediction check of step 4 for a modulo index (sets, ways): random
 * lines that modulo puts in one set must conflict, lines spread over
 * several sets within the ways must fit; then, for up to
 * GEOMETRY_SPREAD_CLASSES residue classes, a class's lowest line and its W
 * highest must conflict too.  *wrong: lists decided against
 * the prediction (any refutes modulo); *lists: lists decided (0 when the
 * backend runs no sequences or the limits leave them open). */
mt_err mt_geometry_verify_modulo(mt_probe_ctx *c, const mt_fit_target *t, uint64_t limit_bytes,
                                 uint64_t sets, uint32_t ways, uint32_t *wrong, uint32_t *lists);

/* "0x41 0x82 ..." : the masks as text (the l1d.index_masks finding). */
void mt_hash_masks_text(const mt_hash_result *h, char *buf, size_t len);

#endif

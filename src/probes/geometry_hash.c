/* Set-index hash recovery (issue 8, parts 1-2): exact ways, sets and the
 * XOR masks of a cache whose set index is linear over GF(2) in the
 * line-address bits, verified by prediction.
 *
 * Model.  Line x (a line number in the path's buffer) goes to set H x,
 * H an n x B matrix over GF(2) (B line bits tested, 2^n sets, W ways).
 * Set labels are arbitrary, so only the partition is identifiable: H up
 * to an invertible change of its rows, i.e. its row space.  Every test
 * below is one list of distinct lines and one fits / does-not-fit
 * decision (geometry_fit.h: valid for LRU, FIFO, tree pseudo-LRU and
 * random alike); many are batched per launch.
 *
 * 1. Eviction set.  The caller hands a start that just overflows: the
 *    first cap + 1 elements P of a chain `stride` lines apart do not fit,
 *    the first cap do.  So one set s0 holds exactly W + 1 lines of P and
 *    every other set at most W: P without line x fits exactly when x is in
 *    s0.  Group testing finds those W + 1 members M: remove chunks of
 *    sqrt(|P|) lines (a chunk whose removal makes P fit holds a member),
 *    then single lines of the flagged chunks; then M itself must not fit
 *    and M less one line must (a member lost to a false decision shows).
 *    W = |M| - 1, exact for any index and any W (powers of two or not).
 *    E = W members, x0 the last.
 * 2. Columns.  Because H is linear, t XOR E lies in the single set
 *    s0 + H t, W lines of it.  With pivots p_1 .. p_r (line bits whose
 *    columns H e_p are independent), the union over t in span(e_p) of
 *    t XOR E puts exactly W lines in each of 2^r distinct sets, and adding
 *    line y = x0 XOR e_i overflows exactly when H e_i lies in the span of
 *    the pivots' columns (the "same set" oracle, one test).  Leaving pivot
 *    k out of the union halves the sets covered: the test then overflows
 *    exactly when H e_i's coordinate k (in the pivots' basis) is 0, one
 *    index bit per test.  H e_i is in the pivots' span when one of these
 *    r half-unions overflows, or when all its coordinates are 1, which a
 *    union over the combinations whose coordinates 0 and 1 agree catches
 *    (with r <= 1: the whole span); so no list exceeds half the cache
 *    (W 2^(n-1) + 1 lines), which keeps the tests within the backend's
 *    sequences.  Each round tests every open bit against the pivots found
 *    so far (r + 1 lists each); a bit independent of them (the lowest
 *    such) becomes the next pivot.  n + 1 rounds, about B (n + 1) lists.
 * 3. Masks.  Row k of the recovered matrix is the set of bits i whose
 *    coordinate k is 1; the rows are reported in reduced row echelon form
 *    (gf2.h), the canonical representative of the row space.
 * 4. Prediction.  Lists of W + 1 random lines that the masks put in one
 *    set must not fit; lists of W random lines in each of several sets
 *    must fit.  Any other outcome (an index that is not linear: the sim's
 *    xor over a set count that is not a power of two, a carry into bits
 *    not tested, a noisy decision) and nothing is claimed beyond what the
 *    stride search bounds.
 * 5. Confirmation, where the masks were not recovered (no prediction then
 *    checks W): the group tests took a member on one "fits" decision,
 *    which a miss hidden below the hit threshold can fake (a lap without
 *    a visible miss: an 8-way texture under a random policy read as 10
 *    ways, unseen seed 2252).  M must not fit, and M less each line x is
 *    decided again over GEOMETRY_CONFIRM_LAPS laps by the count of laps
 *    that missed (geometry_fit.h): x is a member exactly when M less x
 *    fits; the members must not fit alone (when any was dropped), and W
 *    is their count less one.  Any other outcome: no W.
 * Bits at or above the buffer limit cannot be reached, and bits from
 * GEOMETRY_HASH_SPAN_BYTES up are not tested: the masks say nothing about
 * them (bits_tested).  An index that needs them to reach all its sets
 * shows as too few sets for the measured size, and is not claimed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "geometry_hash.h"
#include "../analysis/gf2.h"
#include "../core/rng.h"

/* Sets filled to exactly W lines in a "must fit" verification list. */
#define HASH_VERIFY_SETS 8u
/* Line bits: element indices are 32 bits. */
#define HASH_MAX_LINE_BITS 32u
/* Fixed seed: the same experiments every run (recordings replay them). */
#define HASH_SEED 0x6861736867656f6dull

/* A batch of lists of line numbers, decided together. */
typedef struct {
    uint32_t **lists;
    uint32_t *lens;
    mt_fit_verdict *verdict;
    size_t n, cap;
} batch;

static void batch_free(batch *b)
{
    for (size_t i = 0; i < b->n; i++)
        free(b->lists[i]);
    free(b->lists);
    free(b->lens);
    free(b->verdict);
    memset(b, 0, sizeof *b);
}

/* Appends a list (copied); false when out of memory. */
static bool batch_add(batch *b, const uint32_t *lines, uint32_t m)
{
    if (b->n == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 64;
        uint32_t **l = realloc(b->lists, cap * sizeof *l);
        if (l)
            b->lists = l;
        uint32_t *n = realloc(b->lens, cap * sizeof *n);
        if (n)
            b->lens = n;
        mt_fit_verdict *v = realloc(b->verdict, cap * sizeof *v);
        if (v)
            b->verdict = v;
        if (!l || !n || !v)
            return false;
        b->cap = cap;
    }
    uint32_t *copy = malloc((m ? m : 1) * sizeof *copy);
    if (!copy)
        return false;
    memcpy(copy, lines, m * sizeof *copy);
    b->lists[b->n] = copy;
    b->lens[b->n++] = m;
    return true;
}

static mt_err batch_run(mt_probe_ctx *c, const mt_hash_request *q, batch *b, mt_hash_result *out)
{
    return mt_geometry_lists_fit(c, &q->target, b->lists, b->lens, b->n, b->verdict,
                                 &out->experiments);
}

static mt_err nomem(mt_probe_ctx *c)
{
    return mt_fail(c->ei, MT_ERR_NOMEM, "out of memory");
}

/* Step 1: the members of P (W + 1 lines of one set).  Returns their count
 * in *nm (0 with out->why set when it cannot be told). */
static mt_err find_members(mt_probe_ctx *c, const mt_hash_request *q, const uint32_t *p,
                           uint32_t np, uint32_t *members, uint32_t *nm, mt_hash_result *out)
{
    uint32_t chunk = (uint32_t)ceil(sqrt((double)np)), nchunks = (np + chunk - 1) / chunk;
    uint32_t *tmp = malloc((size_t)np * sizeof *tmp);
    bool *flag = calloc(nchunks, sizeof *flag);
    batch b = {0};
    mt_err err = MT_OK;
    *nm = 0;
    if (!tmp || !flag) {
        err = nomem(c);
        goto out;
    }
    for (uint32_t j = 0; j < nchunks; j++) { /* P without chunk j */
        uint32_t m = 0;
        for (uint32_t k = 0; k < np; k++)
            if (k / chunk != j)
                tmp[m++] = p[k];
        if (!batch_add(&b, tmp, m)) {
            err = nomem(c);
            goto out;
        }
    }
    if ((err = batch_run(c, q, &b, out)) != MT_OK)
        goto out;
    for (uint32_t j = 0; j < nchunks; j++) {
        if (b.verdict[j] == MT_FIT_UNDECIDED) {
            snprintf(out->why, sizeof out->why, "eviction set: a decision over %u lines needs "
                     "more laps than the limits allow", b.lens[j]);
            goto out;
        }
        flag[j] = b.verdict[j] == MT_FIT_YES;
    }
    batch_free(&b);
    for (uint32_t x = 0; x < np; x++) { /* P without line x, x in a flagged chunk */
        if (!flag[x / chunk])
            continue;
        uint32_t m = 0;
        for (uint32_t k = 0; k < np; k++)
            if (k != x)
                tmp[m++] = p[k];
        if (!batch_add(&b, tmp, m)) {
            err = nomem(c);
            goto out;
        }
    }
    if ((err = batch_run(c, q, &b, out)) != MT_OK)
        goto out;
    uint32_t at = 0, found = 0;
    for (uint32_t x = 0; x < np; x++) {
        if (!flag[x / chunk])
            continue;
        mt_fit_verdict v = b.verdict[at++];
        if (v == MT_FIT_UNDECIDED) {
            snprintf(out->why, sizeof out->why, "eviction set: a decision over %u lines needs "
                     "more laps than the limits allow", np - 1);
            goto out;
        }
        if (v == MT_FIT_YES)
            members[found++] = p[x];
    }
    if (found < 2) {
        snprintf(out->why, sizeof out->why, "eviction set: %u line(s) of the %u that overflow "
                 "are needed, not ways + 1 >= 2 (inconsistent decisions)", found, np);
        goto out;
    }
    /* Check: the members alone overflow, and without one of them fit (a
     * member missed by a false decision would leave a list that fits). */
    batch_free(&b);
    if (!batch_add(&b, members, found) || !batch_add(&b, members, found - 1)) {
        err = nomem(c);
        goto out;
    }
    if ((err = batch_run(c, q, &b, out)) != MT_OK)
        goto out;
    if (b.verdict[0] != MT_FIT_NO || b.verdict[1] != MT_FIT_YES) {
        snprintf(out->why, sizeof out->why, "eviction set: its %u lines %s (inconsistent "
                 "decisions)", found, b.verdict[0] != MT_FIT_NO ? "fit" : "less one do not fit");
        goto out;
    }
    *nm = found;
out:
    batch_free(&b);
    free(tmp);
    free(flag);
    return err;
}

/* The pivot combinations a union covers: those within `sel` (bit k:
 * pivot k), and with `eq01` only those whose coordinates 0 and 1 agree. */
static bool covered(uint32_t sub, uint32_t sel, bool eq01)
{
    return !(sub & ~sel) && (!eq01 || (sub & 1) == ((sub >> 1) & 1));
}

static uint32_t span_vector(const uint32_t *piv, uint32_t r, uint32_t sub)
{
    uint32_t t = 0;
    for (uint32_t k = 0; k < r; k++)
        if (sub & (1u << k))
            t ^= 1u << piv[k];
    return t;
}

/* The union over the covered t of t XOR E, then y; returns the count. */
static uint32_t union_list(const uint32_t *e, uint32_t w, const uint32_t *piv, uint32_t r,
                           uint32_t sel, bool eq01, uint32_t y, uint32_t *out)
{
    uint32_t m = 0;
    for (uint32_t sub = 0; sub < (1u << r); sub++)
        if (covered(sub, sel, eq01))
            for (uint32_t j = 0, t = span_vector(piv, r, sub); j < w; j++)
                out[m++] = t ^ e[j];
    out[m++] = y;
    return m;
}

/* Whether y is itself a line of that union (then it adds nothing, and it
 * is in one of the union's sets: the test's outcome is known). */
static bool in_union(const uint32_t *e, uint32_t w, const uint32_t *piv, uint32_t r, uint32_t sel,
                     bool eq01, uint32_t y)
{
    for (uint32_t sub = 0; sub < (1u << r); sub++)
        if (covered(sub, sel, eq01))
            for (uint32_t j = 0, t = span_vector(piv, r, sub); j < w; j++)
                if ((t ^ e[j]) == y)
                    return true;
    return false;
}

/* Step 2: coordinates (in the pivots' basis) of every tested bit's column.
 * coef[i] bit k: coordinate k of H e_i.  Returns the rank in *rank (0 with
 * out->why set when it cannot be told). */
static mt_err find_columns(mt_probe_ctx *c, const mt_hash_request *q, const uint32_t *e, uint32_t w,
                           uint32_t x0, uint32_t bits, uint64_t *coef, uint32_t *rank,
                           mt_hash_result *out)
{
    uint32_t piv[MT_HASH_MAX_BITS], r = 0;
    bool done[HASH_MAX_LINE_BITS] = {false};
    uint64_t seq = c->dev.max_sequence ? c->dev.max_sequence : UINT32_MAX;
    uint32_t *tmp = NULL;
    batch b = {0};
    mt_err err = MT_OK;
    *rank = 0;
    for (;;) {
        /* The largest list: W 2^max(r-1, 0) + 1 lines (the dependence
         * test spans the whole span only while r <= 1), loaded 1 + warm-up
         * times. */
        uint64_t biggest = ((uint64_t)w << (r > 1 ? r - 1 : r)) + 1;
        if (r >= MT_HASH_MAX_BITS || biggest * (GEOMETRY_WARMUP_LAPS + 1) > seq) {
            snprintf(out->why, sizeof out->why, "columns: %u ways x 2^%u sets need lists of "
                     "%llu lines, beyond the backend's sequences (%llu entries)", w, r,
                     (unsigned long long)biggest, (unsigned long long)seq);
            goto out;
        }
        free(tmp);
        if (!(tmp = malloc((size_t)biggest * sizeof *tmp))) {
            err = nomem(c);
            goto out;
        }
        /* known[i * (r + 1) + k]: the outcome is known without a test
         * (y in the union): does not fit. */
        size_t open = 0;
        for (uint32_t i = 0; i < bits; i++)
            open += !done[i];
        if (!open)
            break;
        bool *known = calloc(open * (r + 1), sizeof *known);
        size_t *slot = calloc(open * (r + 1), sizeof *slot);
        if (!known || !slot) {
            free(known);
            free(slot);
            err = nomem(c);
            goto out;
        }
        size_t o = 0;
        uint32_t all = (1u << r) - 1;
        for (uint32_t i = 0; i < bits && err == MT_OK; i++) {
            if (done[i])
                continue;
            uint32_t y = x0 ^ (1u << i);
            for (uint32_t k = 0; k <= r; k++, o++) { /* k == r: the dependence test */
                uint32_t sel = k == r ? all : all & ~(1u << k);
                bool eq01 = k == r && r > 1;
                if ((known[o] = in_union(e, w, piv, r, sel, eq01, y)))
                    continue;
                slot[o] = b.n;
                if (!batch_add(&b, tmp, union_list(e, w, piv, r, sel, eq01, y, tmp)))
                    err = nomem(c);
            }
        }
        if (err == MT_OK)
            err = batch_run(c, q, &b, out);
        int next = -1;
        o = 0;
        for (uint32_t i = 0; i < bits && err == MT_OK && !out->why[0]; i++) {
            if (done[i])
                continue;
            mt_fit_verdict v[MT_HASH_MAX_BITS + 1];
            for (uint32_t k = 0; k <= r; k++, o++) {
                v[k] = known[o] ? MT_FIT_NO : b.verdict[slot[o]];
                if (v[k] == MT_FIT_UNDECIDED)
                    snprintf(out->why, sizeof out->why, "columns: a decision over %u lines "
                             "needs more laps than the limits allow", b.lens[slot[o]]);
            }
            /* Dependent: some half-union overflows (a coordinate is 0), or
             * all coordinates are 1, which the dependence test's union
             * (coordinates 0 and 1 equal) catches; neither: independent. */
            bool dependent = v[r] == MT_FIT_NO;
            for (uint32_t k = 0; k < r; k++)
                dependent = dependent || v[k] == MT_FIT_NO;
            if (!dependent) {
                if (next < 0)
                    next = (int)i;
                continue;
            }
            coef[i] = 0;
            for (uint32_t k = 0; k < r; k++)
                coef[i] |= (uint64_t)(v[k] == MT_FIT_YES) << k;
            done[i] = true;
        }
        free(known);
        free(slot);
        batch_free(&b);
        if (err != MT_OK || out->why[0])
            goto out;
        if (next < 0)
            break;
        piv[r] = (uint32_t)next;
        coef[next] = 1ull << r;
        done[next] = true;
        r++;
    }
    *rank = r;
out:
    free(tmp);
    batch_free(&b);
    return err;
}

/* Moves y into the set labelled `label` by flipping the rows' pivot bits
 * (the lowest bit of each reduced row is in no other row). */
static uint32_t force_label(const uint64_t *rows, uint32_t r, uint32_t y, uint64_t label)
{
    return y ^ (uint32_t)mt_gf2_pivot_vector(rows, r, mt_gf2_apply(rows, r, y) ^ label);
}

static bool contains(const uint32_t *l, uint32_t m, uint32_t y)
{
    for (uint32_t j = 0; j < m; j++)
        if (l[j] == y)
            return true;
    return false;
}

/* A partition of the lines into `labels` sets, as a predictor: moves line
 * y (< 2^bits) into the set labelled `label`. */
typedef struct {
    uint64_t labels;
    uint32_t bits;
    const uint64_t *rows; /* XOR masks (rank rows), or NULL: modulo `labels` */
    uint32_t rank;
} partition;

static uint32_t force_into(const partition *p, uint32_t y, uint64_t label)
{
    if (p->rows)
        return force_label(p->rows, p->rank, y, label);
    uint64_t x = y - y % p->labels + label; /* modulo: same block, other residue */
    return (uint32_t)(x >> p->bits ? x - p->labels : x);
}

/* Step 4: random lists the partition says must conflict (W + 1 lines of
 * one set) or must fit (W lines in each of up to HASH_VERIFY_SETS sets).
 * *wrong: lists decided against the prediction; *undecided: lists the
 * limits left open; *lists: lists run (0: a set holds too few lines). */
static mt_err predict(mt_probe_ctx *c, const mt_fit_target *t, const partition *p, uint32_t w,
                      uint32_t *wrong, uint32_t *undecided, uint32_t *lists, size_t *experiments)
{
    uint64_t space = p->bits >= 32 ? 1ull << 32 : 1ull << p->bits;
    uint32_t nsets = p->labels < HASH_VERIFY_SETS ? (uint32_t)p->labels : HASH_VERIFY_SETS;
    uint32_t most = w * nsets > w + 1 ? w * nsets : w + 1;
    *wrong = *undecided = *lists = 0;
    /* W + 1 distinct lines of one set must exist among those tested. */
    if (space / p->labels < (uint64_t)w + 1)
        return MT_OK;
    uint32_t *l = malloc((size_t)most * sizeof *l);
    mt_rng rng = {HASH_SEED};
    batch b = {0};
    mt_err err = MT_OK;
    if (!l)
        return nomem(c);
    for (uint32_t v = 0; v < 2 * GEOMETRY_HASH_VERIFY_LISTS && err == MT_OK; v++) {
        bool conflict = v < GEOMETRY_HASH_VERIFY_LISTS;
        uint64_t first = mt_rng_below(&rng, p->labels);
        uint32_t m = 0, sets = conflict ? 1 : nsets, per = conflict ? w + 1 : w;
        for (uint32_t k = 0; k < sets; k++) {
            uint64_t label = (first + k) % p->labels; /* distinct labels */
            for (uint32_t j = 0; j < per; j++) {
                uint32_t y;
                do
                    y = force_into(p, (uint32_t)mt_rng_below(&rng, space), label);
                while (contains(l, m, y));
                l[m++] = y;
            }
        }
        if (!batch_add(&b, l, m))
            err = nomem(c);
    }
    if (err == MT_OK)
        err = mt_geometry_lists_fit(c, t, b.lists, b.lens, b.n, b.verdict, experiments);
    for (uint32_t v = 0; v < b.n && err == MT_OK; v++) {
        mt_fit_verdict want = v < GEOMETRY_HASH_VERIFY_LISTS ? MT_FIT_NO : MT_FIT_YES;
        *undecided += b.verdict[v] == MT_FIT_UNDECIDED;
        *wrong += b.verdict[v] != MT_FIT_UNDECIDED && b.verdict[v] != want;
    }
    *lists = (uint32_t)b.n;
    batch_free(&b);
    free(l);
    return err;
}

static mt_err verify(mt_probe_ctx *c, const mt_hash_request *q, mt_hash_result *out)
{
    partition p = {.labels = 1ull << out->rank, .bits = out->bits_tested, .rows = out->masks,
                   .rank = out->rank};
    uint32_t wrong, undecided, lists;
    mt_err err = predict(c, &q->target, &p, out->ways, &wrong, &undecided, &lists,
                         &out->experiments);
    out->predictions = lists;
    if (err == MT_OK && (!lists || wrong || undecided))
        snprintf(out->why, sizeof out->why, "prediction: %s",
                 !lists ? "a set holds fewer than ways + 1 of the lines tested"
                 : wrong ? "random lists the masks put in one set (or within the ways) did not "
                           "conflict (or did)"
                         : "a list was left undecided");
    return err;
}

/* The spread lists of a modulo claim (mt_geometry_verify_modulo): for
 * residue classes spaced evenly over the S classes (every one when S <=
 * GEOMETRY_SPREAD_CLASSES), the class's lowest line and its W highest lines
 * in the space tested, which modulo puts in one set (so they must not
 * fit).  A hash that adds folded tag bits to the modulo set of another
 * count moves a class's lines from one set to the next as the tag grows,
 * while random lines of a class mostly share their tag's neighbourhood:
 * the lines furthest apart within a class are where the move shows.  (The
 * simulator's xor over 54 sets passes 16 strides and random lists as
 * modulo over 53, the lines of 9 of the 53 classes split over two sets.) */
static mt_err spread_lists(mt_probe_ctx *c, const mt_fit_target *t, const partition *p,
                           uint32_t w, uint32_t *wrong, uint32_t *decided)
{
    uint64_t space = p->bits >= 32 ? 1ull << 32 : 1ull << p->bits;
    uint64_t classes = p->labels < GEOMETRY_SPREAD_CLASSES ? p->labels : GEOMETRY_SPREAD_CLASSES;
    uint32_t *l = malloc(((size_t)w + 1) * sizeof *l);
    batch b = {0};
    mt_err err = MT_OK;
    if (!l)
        return nomem(c);
    for (uint64_t k = 0; k < classes && err == MT_OK; k++) {
        uint64_t a = k * p->labels / classes;
        if (a >= space)
            break;
        uint64_t top = (space - 1 - a) / p->labels; /* the class's lines: a + j S, j <= top */
        if (top < w)
            continue; /* fewer than W + 1 lines of the class in the space */
        l[0] = (uint32_t)a;
        for (uint32_t i = 0; i < w; i++)
            l[i + 1] = (uint32_t)(a + (top - i) * p->labels);
        if (!batch_add(&b, l, w + 1))
            err = nomem(c);
    }
    if (err == MT_OK && b.n)
        err = mt_geometry_lists_fit(c, t, b.lists, b.lens, b.n, b.verdict, NULL);
    for (size_t v = 0; v < b.n && err == MT_OK; v++) {
        *decided += b.verdict[v] != MT_FIT_UNDECIDED;
        *wrong += b.verdict[v] == MT_FIT_YES;
    }
    batch_free(&b);
    free(l);
    return err;
}

mt_err mt_geometry_verify_modulo(mt_probe_ctx *c, const mt_fit_target *t, uint64_t limit_bytes,
                                 uint64_t sets, uint32_t ways, uint32_t *wrong, uint32_t *lists)
{
    partition p = {.labels = sets, .bits = mt_geometry_hash_bits(t->line, limit_bytes)};
    uint32_t undecided;
    *wrong = *lists = 0;
    if (!sets || !mt_backend_supports(c->be, MT_KIND_SEQUENCE))
        return MT_OK;
    mt_err err = predict(c, t, &p, ways, wrong, &undecided, lists, NULL);
    *lists -= undecided; /* only the decided ones count as predictions */
    if (err == MT_OK && !*wrong)
        err = spread_lists(c, t, &p, ways, wrong, lists);
    return err;
}

uint32_t mt_geometry_hash_bits(uint32_t line, uint64_t limit_bytes)
{
    uint64_t span = limit_bytes && limit_bytes < GEOMETRY_HASH_SPAN_BYTES
                        ? limit_bytes
                        : GEOMETRY_HASH_SPAN_BYTES;
    uint64_t lines = line ? span / line : 0;
    uint32_t bits = 0;
    while (bits < HASH_MAX_LINE_BITS && (2ull << bits) <= lines)
        bits++;
    return bits;
}

/* Step 5: the members of an eviction set the recovery did not confirm,
 * decided again by counted decisions; out->ways becomes their count less
 * one, or 0 with out->ways_why set. */
static mt_err confirm_members(mt_probe_ctx *c, const mt_hash_request *q, uint32_t *members,
                              uint32_t nm, mt_hash_result *out)
{
    uint32_t *tmp = malloc((size_t)nm * sizeof *tmp);
    batch b = {0};
    mt_err err = MT_OK;
    out->ways = 0;
    if (!tmp || !batch_add(&b, members, nm)) {
        err = nomem(c);
        goto out;
    }
    for (uint32_t x = 0; x < nm; x++) { /* M less line x */
        uint32_t m = 0;
        for (uint32_t k = 0; k < nm; k++)
            if (k != x)
                tmp[m++] = members[k];
        if (!batch_add(&b, tmp, m)) {
            err = nomem(c);
            goto out;
        }
    }
    if ((err = mt_geometry_lists_fit_counted(c, &q->target, b.lists, b.lens, b.n, b.verdict,
                                             &out->experiments)) != MT_OK)
        goto out;
    uint32_t kept = 0;
    for (size_t v = 0; v < b.n; v++)
        if (b.verdict[v] == MT_FIT_UNDECIDED) {
            snprintf(out->ways_why, sizeof out->ways_why, "a confirming decision over %u lines "
                     "was left open", b.lens[v]);
            goto out;
        }
    if (b.verdict[0] != MT_FIT_NO) {
        snprintf(out->ways_why, sizeof out->ways_why, "its %u lines fit over %u laps", nm,
                 GEOMETRY_CONFIRM_LAPS);
        goto out;
    }
    for (uint32_t x = 0; x < nm; x++)
        if (b.verdict[x + 1] == MT_FIT_YES)
            tmp[kept++] = members[x];
    if (kept < 2) {
        snprintf(out->ways_why, sizeof out->ways_why, "%u of its %u lines are needed to "
                 "overflow it over %u laps, not ways + 1 >= 2", kept, nm, GEOMETRY_CONFIRM_LAPS);
        goto out;
    }
    if (kept < nm) { /* the members alone must still overflow */
        batch_free(&b);
        if (!batch_add(&b, tmp, kept)) {
            err = nomem(c);
            goto out;
        }
        if ((err = mt_geometry_lists_fit_counted(c, &q->target, b.lists, b.lens, b.n, b.verdict,
                                                 &out->experiments)) != MT_OK)
            goto out;
        if (b.verdict[0] != MT_FIT_NO) {
            snprintf(out->ways_why, sizeof out->ways_why, "the %u of its %u lines needed to "
                     "overflow it %s over %u laps", kept, nm,
                     b.verdict[0] == MT_FIT_YES ? "fit" : "were left open",
                     GEOMETRY_CONFIRM_LAPS);
            goto out;
        }
    }
    out->ways = kept - 1;
    out->dropped = nm - kept;
    out->confirmed = true;
out:
    batch_free(&b);
    free(tmp);
    return err;
}

mt_err mt_geometry_hash(mt_probe_ctx *c, const mt_hash_request *q, mt_hash_result *out)
{
    memset(out, 0, sizeof *out);
    uint32_t line = q->target.line;
    uint32_t bits = mt_geometry_hash_bits(line, q->limit_bytes);
    out->bits_tested = bits;
    uint64_t np = q->cap + 1, top = q->cap * q->stride;
    if (q->cap < 1 || bits < 1 || top >= (1ull << bits) || np > UINT32_MAX) {
        snprintf(out->why, sizeof out->why, "no start: %llu elements %llu lines apart exceed "
                 "the %u line bits that can be tested", (unsigned long long)np,
                 (unsigned long long)q->stride, bits);
        return MT_OK;
    }
    uint32_t *p = malloc((size_t)np * sizeof *p), *members = malloc((size_t)np * sizeof *members);
    uint64_t coef[HASH_MAX_LINE_BITS] = {0};
    mt_err err = MT_OK;
    if (!p || !members) {
        err = nomem(c);
        goto out;
    }
    for (uint64_t t = 0; t < np; t++)
        p[t] = (uint32_t)(t * q->stride);
    uint32_t nm;
    if ((err = find_members(c, q, p, (uint32_t)np, members, &nm, out)) != MT_OK || !nm)
        goto out;
    out->ways = nm - 1;
    uint32_t r;
    if ((err = find_columns(c, q, members, out->ways, members[out->ways], bits, coef, &r, out)) !=
            MT_OK ||
        out->why[0])
        goto out;
    for (uint32_t k = 0; k < r; k++) {
        out->masks[k] = 0;
        for (uint32_t i = 0; i < bits; i++)
            out->masks[k] |= ((coef[i] >> k) & 1) << i;
    }
    out->rank = (uint32_t)mt_gf2_rref(out->masks, r);
    if (out->rank != r) {
        snprintf(out->why, sizeof out->why, "columns: %u pivots gave rank %u (inconsistent "
                 "decisions)", r, out->rank);
        goto out;
    }
    /* Every line of a first-miss footprint was resident at once, so the
     * cache holds at least size_low bytes: sets x ways x line short of that
     * by a factor 2 or more (one index bit) means index bits were not seen
     * (a hash of bits above those tested); the size's own error is far
     * below a factor 2. */
    double geo = (double)out->ways * (double)(1ull << out->rank) * line;
    if (2 * geo <= q->size_low) {
        snprintf(out->why, sizeof out->why, "%u ways x %llu sets x %u B = %.0f B, at most half "
                 "the size (%.0f B): the index uses bits above line bit %u", out->ways,
                 1ull << out->rank, line, geo, q->size_low, bits - 1);
        goto out;
    }
    if ((err = verify(c, q, out)) == MT_OK && !out->why[0])
        out->recovered = true;
out:
    if (err == MT_OK && out->ways && !out->recovered)
        err = confirm_members(c, q, members, out->ways + 1, out);
    free(p);
    free(members);
    return err;
}

void mt_hash_masks_text(const mt_hash_result *h, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
    for (uint32_t k = 0; k < h->rank && at < len; k++)
        at += (size_t)snprintf(buf + at, len - at, "%s0x%llx", k ? " " : "",
                               (unsigned long long)h->masks[k]);
}

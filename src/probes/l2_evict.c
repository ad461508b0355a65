/* L2 ways and sets from one eviction set over a whole partition
 * (l2_evict.h; docs/method.md, "L2 eviction sets beyond 2 MiB").
 *
 * 1. The timed target's hits and misses: a reference of tests whose pool
 *    is one line (nothing evicts a target from an empty set of W >= 2
 *    ways) gives the rate at which a hit reads as a miss (timer spikes),
 *    and from it the repeats that must all miss for a pool to evict.
 * 2. The pool: the partition's lines after the target (element 0), which
 *    under LRU, FIFO and pseudo-LRU evict it when they hold W lines of its
 *    set (an aligned block of the partition's lines holds W of every set
 *    under modulo, the sim's xor and most hashes); doubled while it does
 *    not evict, up to L2_EVICT_POOL_MAX_PARTITIONS partitions.
 * 3. The reduction (evict_reduce.h) to a list none of whose lines can go.
 * 4. Checks: the list evicts in every one of MT_EVICT_MAX_REPEATS repeats,
 *    and without any one of its lines it keeps the target in most of
 *    them.  Under LRU, FIFO and pseudo-LRU that holds exactly for W lines
 *    of the target's set; under random replacement no list passes both
 *    (W lines evict only about 1/W of the time; lists that evict nearly
 *    always still do without one line).  A failed check runs the whole
 *    search once more from another target (a timer spike misled it),
 *    then gives up: the ways stay a range.
 * Sets: the partition's lines / W, where the partition's lines are known
 * exactly: the driver's L2 over a whole number of equal partitions. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "confidence.h"
#include "evict_masks.h"
#include "evict_reduce.h"
#include "geometry_hash.h"
#include "l2_evict.h"

/* Most test repeats (each one L2 flush and one pool read on a GPU, ~0.1-
 * 0.25 ms on the H100) the search may spend: at most about 5-12 s, an
 * opt-in measurement's price; 16 ways take ~2800 tests x 5 repeats, 32
 * ways ~7700 x 5.  A policy that no list satisfies (random replacement)
 * spends all of it in the simulator too, so it is kept no larger. */
#define L2_EVICT_BUDGET_REPEATS 50000ull
/* Most chance that one of the search's decisions goes the wrong way
 * because timer spikes made every one of its repeats of a hit read as a
 * miss, over L2_EVICT_EXPECTED_TESTS tests; a wrong decision fails the
 * checks and costs a second search, it never yields a wrong value. */
#define L2_EVICT_PASS_ERROR 0.01
/* Tests of a search for 16-32 ways (tools/l2evict_cost: 2358-7685). */
#define L2_EVICT_EXPECTED_TESTS 8000.0
/* Experiments of the hit reference (x MT_EVICT_MAX_REPEATS timed loads:
 * 256, which resolve spike rates down to about 0.004). */
#define L2_EVICT_REF_EXPERIMENTS 16u
/* Largest pool tried, in partitions' lines: a hash that puts fewer than W
 * lines of the target's set in four partitions' worth is beyond this. */
#define L2_EVICT_POOL_MAX_PARTITIONS 4u
/* The driver's L2 over the partition size must lie this close to a whole
 * number of partitions for the partition's lines to count as exact. */
#define L2_EVICT_PARTITION_ROUNDING 0.1
/* The determinism check: prefixes of 1/L2_EVICT_CURVE_PARTS, 2/..., of a
 * pool that evicted in every repeat, MT_EVICT_MAX_REPEATS repeats each.
 * Under LRU, FIFO and pseudo-LRU a pool holds W lines of the target's set
 * or not, so each prefix evicts in every repeat or only where a hit reads
 * as a miss; quarters show where the H100's eviction rises (docs/method.md:
 * 16 of 16 for the whole pool, about 10 at 3/4, 3 at 1/2). */
#define L2_EVICT_CURVE_PARTS 4u
/* A prefix that kept the target in some repeats and missed in more than
 * the hit reference's spike rate explains (one-sided binomial tail below
 * this) shows an eviction that is not all or nothing: 0.001 over three
 * prefixes keeps a false alarm on a deterministic cache below 0.3%. */
#define L2_EVICT_STOCHASTIC_ALPHA 0.001
/* Set-index masks over the whole partition: line bits up to this many
 * bytes of the buffer (the simulator's global path limit, every line a
 * probe reaches there; on a GPU the bits above the 2 MiB page are
 * physical-page bits the buffer's line numbers do not set linearly, which
 * the predictions catch). */
#define L2_EVICT_MASK_SPAN_BYTES (4ull << 30)
/* The masks are measured only where the partition's sets, estimated as
 * its lines / W, lie at most this share below a power of two (or 3%
 * above it): a linear index has 2^r sets, and the estimate errs low (the
 * partition size is one SM's first eviction, which a hash brings early:
 * 8% below 25 MiB on the H100).  Elsewhere no linear index fits, and the
 * masks' tests (each about a partition's lines) would only fail their
 * predictions (a random draw, 189914 sets of 4 x 64 B: 5 s of CPU). */
#define L2_EVICT_MASK_SETS_SLACK 0.25
/* Fixed seed of the masks' predictions: the same experiments every run
 * (recordings replay them). */
#define L2_EVICT_MASK_SEED 0x6c32657669637473ull
/* Confidence of ways and sets from an eviction set that passed its checks
 * (an index or policy beyond LRU, FIFO and pseudo-LRU that passed them
 * anyway is not ruled out). */
#define L2_EVICT_CONF 0.9
/* Confidence of sets from the driver's L2 that neither the block test
 * (confirm_sets) nor the masks' rank confirmed: the driver's size need not be the cache's
 * (the format allows a factor of 2) and one SM's first eviction, which
 * must agree only within L2_EVICT_PARTITION_ROUNDING, cannot tell a few
 * percent (seeds w3282: driver 6% below the cache, 18688 for 19973 sets;
 * w3696: 0.4% below, 4929 for 4951), so below the 0.5 users trust. */
#define L2_EVICT_SETS_UNCONFIRMED_CONF 0.4

typedef struct {
    mt_probe_ctx *c;
    const mt_geometry_target *t;
    uint64_t elements, offset; /* the block: target element 0, the pool after it */
    uint32_t repeats;          /* per decision */
    uint32_t *list;            /* the experiment's list (1 + 2 x MT_EVICT_MAX_INTERVALS) */
    uint64_t spent;            /* repeats run */
    uint32_t target;           /* the target's element (0 but in the masks' tests) */
    uint32_t stride;           /* bytes between elements: the line, or half of it */
    double p;                  /* the rate at which a hit reads as a miss */
    uint64_t decisions, splits; /* the reduction's tests; those whose repeats disagreed */
    double ref_median[L2_EVICT_REF_EXPERIMENTS]; /* the reference targets' hit latencies */
} evict_ctx;

static mt_experiment make_test(const evict_ctx *x, const mt_line_list *l, uint32_t repeats)
{
    x->list[0] = x->target;
    for (uint32_t i = 0; i < l->n; i++) {
        x->list[1 + 2 * i] = l->iv[i].first;
        x->list[2 + 2 * i] = l->iv[i].count;
    }
    mt_experiment e = mt_exp_evict(x->elements, x->stride, x->list, 1 + 2 * l->n, repeats);
    e.chain[0].offset = x->offset;
    e.sm = 0; /* one SM, so that every test sees the same partition */
    return e;
}

/* Misses among the n timed repeats of r. */
static mt_miss_count misses_of(const evict_ctx *x, const mt_result *r)
{
    mt_miss_count m = {0};
    mt_count_misses(x->c, r, x->t->hit_threshold, &m);
    return m;
}

/* One test; *median (when not NULL): the median of its timed loads. */
static mt_err run_timed(evict_ctx *x, const mt_line_list *l, uint32_t repeats, mt_miss_count *m,
                        double *median)
{
    mt_experiment e = make_test(x, l, repeats);
    mt_result r;
    mt_err err = mt_run(x->c, &e, 1, &r);
    if (err != MT_OK)
        return err;
    x->spent += repeats;
    *m = misses_of(x, &r);
    if (median) {
        size_t n = 0;
        double *v = mt_fine_samples(x->c, &r, 0, &n);
        *median = v && n ? mt_median(v, n) : NAN;
        free(v);
    }
    mt_results_free(&r, 1);
    return MT_OK;
}

static mt_err run_one(evict_ctx *x, const mt_line_list *l, uint32_t repeats, mt_miss_count *m)
{
    return run_timed(x, l, repeats, m, NULL);
}

/* The oracle of the reduction: the pool evicts when every one of
 * x->repeats repeats misses.  A timer spike only turns a hit into a miss,
 * so under LRU, FIFO and pseudo-LRU an evicting pool always passes and a
 * keeping one passes only when every repeat spiked (p^k).  A pool whose
 * repeats disagree beyond spikes (a split: the H100 alternates evict,
 * keep, evict at the edge, docs/method.md) counts as keeping, and the
 * split is counted as evidence. */
static mt_err all_evict(void *ctx, const mt_line_list *l, bool *evicts)
{
    evict_ctx *x = ctx;
    mt_miss_count m;
    mt_err err = run_one(x, l, x->repeats, &m);
    *evicts = err == MT_OK && m.missed == m.timed;
    if (err == MT_OK && m.missed && m.missed < m.timed &&
        mt_binom_at_least(m.timed, m.missed, x->p) < L2_EVICT_STOCHASTIC_ALPHA)
        x->splits++;
    x->decisions += err == MT_OK;
    return err;
}

/* The spike rate of the timed hit (Laplace's rule over the reference). */
static mt_err spike_rate(evict_ctx *x, double *p, bool *hits_seen)
{
    mt_line_interval one = {1, 1};
    mt_line_list l = {.iv = &one, .n = 1, .cap = 1, .lines = 1};
    mt_miss_count all = {0};
    for (uint32_t k = 0; k < L2_EVICT_REF_EXPERIMENTS; k++) {
        /* Different targets (offsets), so that the repeats are independent. */
        uint64_t keep = x->offset;
        x->offset += (uint64_t)k * 2 * x->t->line;
        mt_miss_count m;
        mt_err err = run_timed(x, &l, MT_EVICT_MAX_REPEATS, &m, &x->ref_median[k]);
        x->offset = keep;
        if (err != MT_OK)
            return err;
        all.missed += m.missed;
        all.timed += m.timed;
    }
    *p = ((double)all.missed + 1) / ((double)all.timed + 2);
    *hits_seen = 2 * all.missed < all.timed;
    return MT_OK;
}

/* Checks a reduced list (see the file's comment): *ok when it evicts in
 * every repeat and keeps the target in most without any one line. */
static mt_err check_list(evict_ctx *x, const mt_line_list *l, mt_line_list *scratch, bool *ok,
                         char *why, size_t cap)
{
    mt_miss_count m;
    mt_err err = run_one(x, l, MT_EVICT_MAX_REPEATS, &m);
    if (err != MT_OK)
        return err;
    *ok = m.missed == m.timed;
    if (!*ok) {
        snprintf(why, cap, "its %llu lines evicted the target in %zu of %zu repeats",
                 (unsigned long long)l->lines, m.missed, m.timed);
        return MT_OK;
    }
    for (uint64_t pos = 0; pos < l->lines && *ok; pos++) {
        if (!mt_line_list_remove(l, pos, pos + 1, scratch)) {
            *ok = false; /* cannot happen: scratch holds one interval more */
            snprintf(why, cap, "its lines could not be listed without one");
            return MT_OK;
        }
        if ((err = run_one(x, scratch, MT_EVICT_MAX_REPEATS, &m)) != MT_OK)
            return err;
        *ok = 2 * m.missed < m.timed;
        if (!*ok)
            snprintf(why, cap, "without line %llu of its %llu it still evicted in %zu of %zu "
                     "repeats", (unsigned long long)pos, (unsigned long long)l->lines, m.missed,
                     m.timed);
    }
    return MT_OK;
}

/* Whether the eviction set confirms the measured line L (the sets count
 * lines of L bytes).  Each test swaps one of its W elements for another
 * address: (a) the next element, L further: a true line longer than L
 * holds both for some element of the set, so the list would still evict;
 * with lines of L it is another line, in the target's set only by chance
 * (1 in the sets); (b) the element's second half, L / 2 further: with
 * lines of L the same line, so the list still evicts; with shorter lines
 * another one.  Confirmed when every (a) keeps the target and every (b)
 * evicts it (every one of the search's repeats each). */
static mt_err confirm_line(evict_ctx *x, const mt_line_list *l, mt_line_list *s, bool *ok)
{
    uint32_t w = (uint32_t)l->lines, *m = malloc((size_t)w * sizeof *m), at = 0;
    if (!m)
        return mt_fail(x->c->ei, MT_ERR_NOMEM, "out of memory for an eviction set");
    for (uint32_t i = 0; i < l->n; i++)
        for (uint32_t k = 0; k < l->iv[i].count; k++)
            m[at++] = l->iv[i].first + k;
    mt_err err = MT_OK;
    *ok = x->t->line >= 8 && x->t->line % 8 == 0; /* a half line of whole words */
    for (int half = 0; half < 2 && *ok && err == MT_OK; half++) {
        uint64_t keep_elements = x->elements;
        uint32_t scale = half ? 2 : 1;
        x->stride = x->t->line / scale;
        x->elements = keep_elements * scale;
        for (uint32_t i = 0; i < w && *ok && err == MT_OK; i++) {
            uint64_t swap = (uint64_t)m[i] * scale + 1;
            if (swap >= x->elements || (!half && i + 1 < w && m[i + 1] == swap)) {
                *ok = false; /* cannot be tested: not confirmed */
                break;
            }
            /* The list in element order, m[i] swapped (it stays in place:
             * m[i] < swap < m[i + 1] in both cases). */
            s->n = 0;
            s->lines = w;
            for (uint32_t j = 0; j < w; j++)
                s->iv[s->n++] = (mt_line_interval){j == i ? (uint32_t)swap
                                                          : m[j] * scale, 1};
            bool evicts = false;
            err = all_evict(x, s, &evicts);
            *ok = evicts == (half == 1);
        }
        x->stride = x->t->line;
        x->elements = keep_elements;
    }
    free(m);
    return err;
}

/* Whether the cache has exactly `sets` sets of `ways` (docs/method.md,
 * "L2 eviction sets beyond 2 MiB"), for an index under which every aligned
 * block of S lines holds one line of each set (modulo, the format's xor,
 * hashes balanced over aligned blocks) and the replacement the eviction
 * set needed (W lines of a set evict, W - 1 do not).  With N = sets x ways
 * and lines counted from line 0 of the buffer (aligned on the sim; on a
 * GPU a misaligned buffer fails the test, which only lowers confidence):
 * (a) target line N - 1, pool lines 0 .. N - 2 must keep it: for S' > S
 * the target lies beyond the first W true blocks, which the pool holds
 * whole, W lines of its set; (b) target line N, pool lines 0 .. N - 1 must
 * evict it: for S' < S the pool holds fewer than W whole true blocks, and
 * the partial one's line of the target's set is the target itself.  Both
 * hold only for S' = S.  Every one of MT_EVICT_MAX_REPEATS repeats must
 * evict in (b), fewer than half in (a), as the list's checks decide. */
static mt_err confirm_sets(evict_ctx *x, uint64_t sets, uint32_t ways, bool *ok,
                           const char **why)
{
    uint64_t n = sets * ways, limit = x->c->dev.path_limit_bytes[MT_PATH_GLOBAL_CG];
    *ok = false;
    *why = "the test's lines lie beyond the buffer";
    if (n < 2 || n + 1 > UINT32_MAX || (limit && (n + 1) * x->t->line > limit))
        return MT_OK; /* cannot be tested: not confirmed */
    uint64_t keep_offset = x->offset, keep_elements = x->elements;
    x->offset = 0;
    x->elements = n + 1;
    mt_line_interval one;
    mt_line_list l = {.iv = &one, .n = 1, .cap = 1};
    mt_err err = MT_OK;
    bool held = true;
    for (int side = 0; side < 2 && held && err == MT_OK; side++) {
        uint64_t target = side ? n : n - 1;
        one = (mt_line_interval){0, (uint32_t)target};
        l.lines = target;
        x->target = (uint32_t)target;
        mt_miss_count m;
        err = run_one(x, &l, MT_EVICT_MAX_REPEATS, &m);
        held = side ? m.missed == m.timed : 2 * m.missed < m.timed;
        if (!held)
            *why = side ? "the line after them kept (more sets?)"
                        : "their last line evicted (fewer sets?)";
    }
    x->target = 0;
    x->offset = keep_offset;
    x->elements = keep_elements;
    *ok = err == MT_OK && held;
    return err;
}

/* The partition's lines where they are known exactly: the driver's L2 as
 * one partition (l2.partition_size absent, trusted), or over a whole
 * number P of equal partitions (the partition size within
 * L2_EVICT_PARTITION_ROUNDING of L2 / P); else 0.  The driver's size need
 * not be the cache's (the sim's format allows a factor of 2), so each
 * reading must agree with what was measured: what one SM used before its
 * first eviction, for one partition, that share of the driver's L2, and P
 * the partitions the near share (l2map, where it ran) says, 1 / share
 * (seeds w1190 and w1221, unpartitioned L2s of 1.6x and 1.8x the
 * driver's size, gave sets from the driver's size, 0.6x the truth with
 * confidence 0.9).  The near-share test guards the same way against a
 * driver's size that is P' partitions of the one measured, P' not P. */
static uint64_t exact_partition_lines(const mt_probe_ctx *c, uint32_t line, uint32_t *parts)
{
    const mt_finding *p = mt_get(c, "l2", "partition_size");
    const mt_finding *share = mt_get(c, "l2", "near_share");
    uint64_t l2 = c->dev.l2_bytes, used = c->cs[MT_CACHE_L2].sm_capacity;
    *parts = 0;
    if (!l2 || p->confidence < MT_CONF_TRUSTED)
        return 0;
    double ratio = p->kind == MT_FIND_ABSENT ? (used ? (double)l2 / (double)used : 0)
                   : p->kind == MT_FIND_VALUE && p->value > 0 ? (double)l2 / p->value
                                                              : 0;
    double whole = round(ratio);
    if (whole < 1 || fabs(ratio - whole) > L2_EVICT_PARTITION_ROUNDING ||
        l2 % ((uint64_t)whole * line) || (p->kind == MT_FIND_ABSENT && whole != 1))
        return 0;
    if (share->kind == MT_FIND_VALUE && share->confidence >= MT_CONF_TRUSTED &&
        share->value > 0 && round(1 / share->value) != whole)
        return 0;
    *parts = (uint32_t)whole;
    return l2 / (uint64_t)whole / line;
}

static void set_open_note(mt_probe_ctx *c, const char *fmt_note)
{
    static const char *const open_findings[] = {"ways", "sets"};
    for (size_t i = 0; i < sizeof open_findings / sizeof *open_findings; i++) {
        mt_finding f = *mt_get(c, "l2", open_findings[i]);
        if (f.kind == MT_FIND_NONE || f.kind == MT_FIND_VALUE)
            continue;
        mt_finding_note_first(&f, "%s", fmt_note);
        mt_set(c, "l2", open_findings[i], &f);
    }
}

/* The determinism check (L2_EVICT_CURVE_PARTS) on the pool of `lines`
 * that evicted the target in every repeat: the prefixes' misses go to
 * missed[0 .. PARTS - 1) (the whole pool's: all); *stochastic when a
 * prefix kept the target in some repeats and missed in more than the
 * spike rate explains. */
static mt_err eviction_curve(evict_ctx *x, uint64_t lines, size_t *missed, bool *stochastic)
{
    mt_line_interval one;
    mt_line_list l = {.iv = &one, .n = 1, .cap = 1};
    *stochastic = false;
    for (uint32_t q = 1; q < L2_EVICT_CURVE_PARTS; q++) {
        uint64_t n = lines * q / L2_EVICT_CURVE_PARTS;
        one = (mt_line_interval){1, (uint32_t)n};
        l.lines = n;
        mt_miss_count m;
        mt_err err = run_one(x, &l, MT_EVICT_MAX_REPEATS, &m);
        if (err != MT_OK)
            return err;
        missed[q - 1] = m.missed;
        if (m.missed < m.timed &&
            mt_binom_at_least(m.timed, m.missed, x->p) < L2_EVICT_STOCHASTIC_ALPHA)
            *stochastic = true;
    }
    return MT_OK;
}

/* "1/4, 1/2, 3/4, all of N lines evicted it in a, b, c, 16" */
static int curve_text(char *buf, size_t cap, uint64_t lines, const size_t *missed)
{
    return snprintf(buf, cap, "1/4, 1/2, 3/4, all of %llu lines evicted it in %zu, %zu, %zu, %u "
                    "of %u repeats", (unsigned long long)lines, missed[0], missed[1], missed[2],
                    MT_EVICT_MAX_REPEATS, MT_EVICT_MAX_REPEATS);
}

/* The reference target whose hits took longest or shortest against the
 * first one's (the other partition's latency class where there is one). */
static uint32_t other_class_target(const evict_ctx *x)
{
    uint32_t best = 0;
    for (uint32_t k = 1; k < L2_EVICT_REF_EXPERIMENTS; k++)
        if (fabs(x->ref_median[k] - x->ref_median[0]) > fabs(x->ref_median[best] - x->ref_median[0]))
            best = k;
    return best;
}

/* Eviction that is not all or nothing: the same check from a target of
 * the other hit-latency class (partition), appended to why as evidence. */
static mt_err other_target_curve(evict_ctx *x, uint64_t lines, char *why, size_t cap)
{
    uint32_t k = other_class_target(x);
    if (!k)
        return MT_OK;
    uint64_t keep = x->offset;
    x->offset += (uint64_t)k * 2 * x->t->line;
    mt_line_interval one = {1, (uint32_t)lines};
    mt_line_list l = {.iv = &one, .n = 1, .cap = 1, .lines = lines};
    mt_miss_count all;
    size_t missed[L2_EVICT_CURVE_PARTS - 1];
    bool stochastic = false;
    mt_err err = run_one(x, &l, MT_EVICT_MAX_REPEATS, &all);
    if (err == MT_OK && all.missed == all.timed)
        err = eviction_curve(x, lines, missed, &stochastic);
    x->offset = keep;
    if (err != MT_OK)
        return err;
    size_t at = strlen(why);
    if (all.missed == all.timed)
        snprintf(why + at, cap - at, "; a target hit in %.0f (not %.0f) cycles: %zu, %zu, "
                 "%zu", x->ref_median[k], x->ref_median[0], missed[0], missed[1], missed[2]);
    else
        snprintf(why + at, cap - at, "; a target hit in %.0f (not %.0f) cycles: the pool "
                 "evicted in %zu of %zu", x->ref_median[k], x->ref_median[0], all.missed,
                 all.timed);
    return MT_OK;
}

/* One search from the target at byte `offset`: the pool, the reduction,
 * the checks.  *found = the ways when the list passed; else why. */
static mt_err search_once(evict_ctx *x, uint64_t pool_lines, mt_line_list *l, mt_line_list *s,
                          uint32_t *found, char *why, size_t cap, bool *final)
{
    uint64_t limit = x->c->dev.path_limit_bytes[MT_PATH_GLOBAL_CG];
    bool evicts = false;
    uint64_t m = 1;
    for (; m <= L2_EVICT_POOL_MAX_PARTITIONS && !evicts; m *= 2) {
        uint64_t lines = m * pool_lines;
        if (lines > UINT32_MAX - 2 ||
            (limit && x->offset + (lines + 1) * x->t->line > limit))
            break;
        x->elements = lines + 1;
        l->iv[0] = (mt_line_interval){1, (uint32_t)lines};
        l->n = 1;
        l->lines = lines;
        /* Every repeat must evict: under LRU, FIFO and pseudo-LRU a pool
         * with W lines of the set always does (timer spikes only turn hits
         * into misses); under random replacement a pool of about W lines
         * of the set rarely does 16 times, so the search does not start. */
        mt_miss_count got;
        mt_err err = run_one(x, l, MT_EVICT_MAX_REPEATS, &got);
        if (err != MT_OK)
            return err;
        evicts = got.missed == got.timed;
    }
    if (!evicts) {
        snprintf(why, cap, "no pool of up to %u partitions' lines evicted the target in "
                 "every repeat", L2_EVICT_POOL_MAX_PARTITIONS);
        *final = true;
        return MT_OK;
    }
    /* Group testing needs a pool's eviction to be all or nothing. */
    size_t missed[L2_EVICT_CURVE_PARTS - 1];
    bool stochastic = false;
    uint64_t pool = l->lines;
    mt_err err = eviction_curve(x, pool, missed, &stochastic);
    if (err != MT_OK)
        return err;
    if (stochastic) {
        int at = snprintf(why, cap, "eviction not all or nothing (not LRU, FIFO, tree PLRU; "
                          "hits read as misses at %.3f): ", x->p);
        curve_text(why + at, cap - (size_t)at, pool, missed);
        *final = true;
        return other_target_curve(x, pool, why, cap);
    }
    mt_progress(x->c, "L2 eviction set: reducing a pool of %llu lines, %u repeats a test",
                (unsigned long long)l->lines, x->repeats);
    mt_evict_reduce_stats st = {0};
    uint64_t left = L2_EVICT_BUDGET_REPEATS > x->spent ? L2_EVICT_BUDGET_REPEATS - x->spent : 0;
    err = mt_evict_reduce(l, s, left / x->repeats, all_evict, x, &st);
    if (err != MT_OK)
        return err;
    if (st.budget_spent) {
        snprintf(why, cap, "the budget of %llu test repeats was spent (%llu tests)",
                 L2_EVICT_BUDGET_REPEATS, (unsigned long long)st.tests);
        *final = true;
        return MT_OK;
    }
    bool ok = false;
    if ((err = check_list(x, l, s, &ok, why, cap)) != MT_OK)
        return err;
    if (ok)
        *found = (uint32_t)l->lines;
    return MT_OK;
}

/* The masks' oracle: a pool of lines of the block from line 0 of the
 * buffer, and its target; decided as the reduction's tests are. */
static mt_err masks_oracle(void *ctx, uint64_t target, const mt_line_list *pool, bool *evicts)
{
    evict_ctx *x = ctx;
    x->target = (uint32_t)target;
    mt_err err = all_evict(x, pool, evicts);
    x->target = 0;
    return err;
}

/* Line bits the masks are measured over: those of the buffer a probe
 * reaches, up to L2_EVICT_MASK_SPAN_BYTES; *whole when that is all of it. */
static uint32_t mask_bits(const mt_probe_ctx *c, uint32_t line, bool *whole)
{
    uint64_t limit = c->dev.path_limit_bytes[MT_PATH_GLOBAL_CG];
    uint64_t span = limit && limit < L2_EVICT_MASK_SPAN_BYTES ? limit : L2_EVICT_MASK_SPAN_BYTES;
    uint32_t bits = 0;
    while (bits < MT_EVICT_MASKS_MAX_BITS && ((uint64_t)line << (bits + 1)) <= span)
        bits++;
    *whole = limit && limit <= L2_EVICT_MASK_SPAN_BYTES;
    return bits;
}

/* The set-index masks from the eviction set l (elements after the
 * target at x->offset), over the whole partition (evict_masks.h). */
static mt_err measure_masks(evict_ctx *x, const mt_line_list *l, uint32_t bits,
                            mt_evict_masks *m)
{
    uint64_t first = x->offset / x->t->line, w = l->lines, at = 0;
    uint64_t *e = malloc((size_t)w * sizeof *e);
    if (!e)
        return mt_fail(x->c->ei, MT_ERR_NOMEM, "out of memory for an eviction set");
    for (uint32_t i = 0; i < l->n; i++)
        for (uint32_t k = 0; k < l->iv[i].count; k++)
            e[at++] = first + l->iv[i].first + k;
    uint64_t keep_offset = x->offset, keep_elements = x->elements;
    x->offset = 0;
    x->elements = 1ull << bits;
    uint64_t left = L2_EVICT_BUDGET_REPEATS > x->spent ? L2_EVICT_BUDGET_REPEATS - x->spent : 0;
    mt_err err = MT_OK;
    if (e[w - 1] >> bits || first >> bits) {
        memset(m, 0, sizeof *m);
        snprintf(m->why, sizeof m->why, "the eviction set lies beyond line bit %u", bits);
    } else if (left / x->repeats == 0) {
        memset(m, 0, sizeof *m);
        snprintf(m->why, sizeof m->why, "the budget of %llu test repeats was spent",
                 L2_EVICT_BUDGET_REPEATS);
    } else {
        err = mt_evict_masks_measure(first, e, (uint32_t)w, bits, left / x->repeats,
                                     GEOMETRY_HASH_VERIFY_LISTS, L2_EVICT_MASK_SEED,
                                     masks_oracle, x, m);
        if (err == MT_ERR_NOMEM) /* the backend's errors come with their message */
            err = mt_fail(x->c->ei, MT_ERR_NOMEM, "out of memory for the set-index masks");
    }
    x->offset = keep_offset;
    x->elements = keep_elements;
    free(e);
    return err;
}

/* Findings of verified masks: l2.index_masks, l2.index (unless a trusted
 * "modulo" stands), and l2.sets = 2^rank where the partition's lines are
 * not known exactly, or where they disagree and the masks cover every
 * line a probe reaches (a direct measurement against an inference from
 * the driver's size); masks over fewer bits that disagree are dropped
 * (returns false). */
static bool masks_findings(mt_probe_ctx *c, const evict_ctx *x, const mt_evict_masks *m,
                           uint32_t ways, bool whole, uint64_t exact_sets, mt_finding *fs)
{
    uint64_t sets = 1ull << m->rank;
    bool disagree = exact_sets && exact_sets != sets;
    if (disagree && !whole) {
        mt_finding f = *mt_get(c, "l2", "index_masks");
        mt_finding_append_note(&f, "not measured: masks of %u bits (%llu sets) from the eviction "
                               "set contradict the partition's %llu sets", m->rank,
                               (unsigned long long)sets, (unsigned long long)exact_sets);
        mt_set(c, "l2", "index_masks", &f);
        return false;
    }
    const char *how = "eviction set and coset tests over the partition";
    mt_hash_result h = {.rank = m->rank};
    memcpy(h.masks, m->masks, m->rank * sizeof *m->masks);
    mt_finding fm = mt_find_value(0, "", MT_SRC_MEASURED, how, L2_EVICT_CONF,
                                  "set bit k = parity(line AND mask k), line = address / %u B; "
                                  "line bits 0-%u tested (higher: not tested); reduced row "
                                  "echelon form; %llu tests, %u predictions held", x->t->line,
                                  m->bits - 1, (unsigned long long)m->tests, m->predictions);
    fm.kind = MT_FIND_TEXT;
    char text[sizeof fm.text + 64];
    mt_hash_masks_text(&h, text, sizeof text);
    if (strlen(text) >= sizeof fm.text) {
        fm.kind = MT_FIND_NONE;
        mt_finding_append_note(&fm, "%u masks do not fit the report's text", m->rank);
    } else {
        snprintf(fm.text, sizeof fm.text, "%s", text);
    }
    mt_set(c, "l2", "index_masks", &fm);
    const mt_finding *ix = mt_get(c, "l2", "index");
    if (!(ix->kind == MT_FIND_TEXT && strncmp(ix->text, "modulo", 6) == 0 &&
          ix->confidence >= MT_CONF_TRUSTED)) {
        mt_finding fi = mt_find_value(0, "", MT_SRC_MEASURED, how, L2_EVICT_CONF,
                                      "XOR of line-address bits (l2.index_masks); %u random "
                                      "predictions held", m->predictions);
        fi.kind = MT_FIND_TEXT;
        snprintf(fi.text, sizeof fi.text, "xor");
        mt_set(c, "l2", "index", &fi);
    }
    if (!exact_sets || disagree) {
        if (whole)
            *fs = mt_find_value((double)sets, "", MT_SRC_MEASURED, how, L2_EVICT_CONF,
                                "2^%u: the masks' rank over every line bit a probe reaches "
                                "(%s); ways %u", m->rank,
                                disagree ? "not the driver's L2 over the partitions"
                                         : "the partition's lines are not known exactly",
                                ways);
        else
            *fs = mt_find_bound((double)sets, "", how, L2_EVICT_CONF, "2^%u: the masks' rank "
                                "over line bits 0-%u (higher bits may add sets)", m->rank,
                                m->bits - 1);
    }
    return true;
}

mt_err mt_l2_evict_measure(mt_probe_ctx *c, const mt_geometry_target *t,
                           double partition_bytes)
{
    if (!mt_backend_supports(c->be, MT_KIND_EVICT) || !(t->line > 0) ||
        t->size_lo <= GEOMETRY_HASH_SPAN_BYTES)
        return MT_OK;
    const mt_finding w0 = *mt_get(c, "l2", "ways");
    if (w0.kind == MT_FIND_VALUE || w0.kind == MT_FIND_NONE)
        return MT_OK;
    mt_note_threshold(c, "L2_EVICT_BUDGET_REPEATS", (double)L2_EVICT_BUDGET_REPEATS,
                      "L2 eviction set: most test repeats (an L2 flush and a pool read each) "
                      "the search may spend");
    mt_note_threshold(c, "L2_EVICT_PASS_ERROR", L2_EVICT_PASS_ERROR,
                      "L2 eviction set: most chance of one decision misled by timer spikes "
                      "over a search (sets the repeats per test)");
    mt_note_threshold(c, "L2_EVICT_POOL_MAX_PARTITIONS", L2_EVICT_POOL_MAX_PARTITIONS,
                      "L2 eviction set: largest pool tried, in partitions' lines");
    mt_note_threshold(c, "L2_EVICT_CURVE_PARTS", L2_EVICT_CURVE_PARTS,
                      "L2 eviction set: the determinism check tests prefixes of 1/N, 2/N, ... "
                      "of an evicting pool");
    mt_note_threshold(c, "L2_EVICT_STOCHASTIC_ALPHA", L2_EVICT_STOCHASTIC_ALPHA,
                      "L2 eviction set: binomial alpha of a prefix's misses beyond the spike "
                      "rate (eviction not all or nothing)");
    mt_note_threshold(c, "L2_EVICT_MASK_SPAN_BYTES", (double)L2_EVICT_MASK_SPAN_BYTES,
                      "L2 set-index masks: line bits tested lie below this many bytes of the "
                      "buffer");
    mt_note_threshold(c, "L2_EVICT_MASK_SETS_SLACK", L2_EVICT_MASK_SETS_SLACK,
                      "L2 set-index masks: measured only where lines / ways lie at most this "
                      "share below a power of two");
    mt_note_threshold(c, "L2_EVICT_PARTITION_ROUNDING", L2_EVICT_PARTITION_ROUNDING,
                      "L2 eviction set: how close L2 / partition size must be to a whole "
                      "number for the sets to be exact");
    mt_note_threshold(c, "L2_EVICT_SETS_UNCONFIRMED_CONF", L2_EVICT_SETS_UNCONFIRMED_CONF,
                      "L2 sets: confidence of the driver's L2 / ways where neither the "
                      "block test nor the masks confirmed it");
    uint32_t parts = 0;
    uint64_t exact_lines = exact_partition_lines(c, t->line, &parts);
    uint64_t pool_lines = exact_lines ? exact_lines
                          : partition_bytes > 0 ? (uint64_t)(partition_bytes / t->line)
                                                : (uint64_t)(t->size_lo / t->line);
    mt_line_list l = {.cap = MT_EVICT_MAX_INTERVALS}, s = {.cap = MT_EVICT_MAX_INTERVALS};
    l.iv = malloc(MT_EVICT_MAX_INTERVALS * sizeof *l.iv);
    s.iv = malloc(MT_EVICT_MAX_INTERVALS * sizeof *s.iv);
    uint32_t *list = malloc((1 + 2 * (size_t)MT_EVICT_MAX_INTERVALS) * sizeof *list);
    mt_err err = MT_OK;
    if (!l.iv || !s.iv || !list) {
        err = mt_fail(c->ei, MT_ERR_NOMEM, "out of memory for an eviction set");
        goto out;
    }
    evict_ctx x = {.c = c, .t = t, .elements = 2, .list = list, .stride = t->line};
    double p = 1;
    bool hits_seen = false;
    mt_progress(c, "L2 eviction set: hit reference (%u tests)", L2_EVICT_REF_EXPERIMENTS);
    if ((err = spike_rate(&x, &p, &hits_seen)) != MT_OK)
        goto out;
    x.p = p;
    char why[256] = "", note[256];
    if (!hits_seen) {
        snprintf(why, sizeof why, "a target with nothing to evict it read as a miss in most "
                 "repeats");
    } else {
        x.repeats = 3;
        while (x.repeats + 2 <= MT_EVICT_MAX_REPEATS &&
               pow(p, x.repeats) * L2_EVICT_EXPECTED_TESTS > L2_EVICT_PASS_ERROR)
            x.repeats += 2;
    }
    uint32_t ways = 0;
    bool final = !hits_seen;
    /* Two searches at most: from element 0, then from the line after it. */
    for (int attempt = 0; attempt < 2 && !ways && !final; attempt++) {
        x.offset = (uint64_t)attempt * t->line;
        if ((err = search_once(&x, pool_lines, &l, &s, &ways, why, sizeof why, &final)) != MT_OK)
            goto out;
    }
    bool inside = ways && (w0.kind != MT_FIND_RANGE || (ways >= w0.lo && ways <= w0.hi)) &&
                  (w0.kind != MT_FIND_LOWER_BOUND || ways >= w0.lo);
    if (ways && !inside)
        snprintf(why, sizeof why, "its %u lines contradict the stride search", ways);
    if (!ways || !inside) {
        if (x.splits) {
            size_t at = strlen(why);
            snprintf(why + at, sizeof why - at, "; %llu of %llu tests split (some repeats "
                     "evicted, some not)", (unsigned long long)x.splits,
                     (unsigned long long)x.decisions);
        }
        snprintf(note, sizeof note, "no eviction set (docs/method.md): %s", why);
        set_open_note(c, note);
        goto out;
    }
    mt_finding fw = mt_find_value(ways, "", MT_SRC_MEASURED, "eviction set over the partition",
                                  L2_EVICT_CONF, "%u lines of one set evict the target, %u never "
                                  "(%u repeats each); %llu test repeats, all %u of a test miss "
                                  "to evict; %llu of %llu tests split", ways, ways - 1,
                                  MT_EVICT_MAX_REPEATS, (unsigned long long)x.spent, x.repeats,
                                  (unsigned long long)x.splits,
                                  (unsigned long long)x.decisions);
    mt_set(c, "l2", "ways", &fw);
    mt_finding fs = *mt_get(c, "l2", "sets");
    uint64_t exact_sets = exact_lines && exact_lines % ways == 0 ? exact_lines / ways : 0;
    if (exact_sets)
        fs = mt_find_value((double)exact_sets, "", MT_SRC_MEASURED,
                           "partition lines / eviction-set ways", L2_EVICT_CONF,
                           "the partition's %llu lines (the driver's L2%s) / %u ways",
                           (unsigned long long)exact_lines,
                           parts > 1 ? " over equal partitions" : ", one partition", ways);
    /* The masks (and, where the partition's lines are not known, the
     * sets) over the whole partition, from the same eviction set. */
    bool whole = false;
    uint32_t bits = mask_bits(c, t->line, &whole);
    mt_evict_masks m;
    double est = (double)(exact_lines ? exact_lines : pool_lines) / ways, pow2 = 1;
    while (pow2 < est * 0.97)
        pow2 *= 2;
    if (pow2 > est / (1 - L2_EVICT_MASK_SETS_SLACK)) {
        memset(&m, 0, sizeof m);
        snprintf(m.why, sizeof m.why, "about %.0f sets (%llu lines / %u ways), no power of two: "
                 "no linear index", est, (unsigned long long)(exact_lines ? exact_lines
                                                                          : pool_lines), ways);
    } else {
        mt_progress(c, "L2 set-index masks: line bits 0-%u", bits ? bits - 1 : 0);
        if ((err = measure_masks(&x, &l, bits, &m)) != MT_OK)
            goto out;
    }
    bool masked = m.verified && masks_findings(c, &x, &m, ways, whole, exact_sets, &fs);
    if (!m.verified) {
        mt_finding f = *mt_get(c, "l2", "index_masks");
        mt_finding_append_note(&f, "not measured over the partition: %s", m.why);
        mt_set(c, "l2", "index_masks", &f);
    }
    if (!exact_sets && !masked && fs.kind != MT_FIND_NONE)
        mt_finding_note_first(&fs, "ways %u, but the partition's lines are not known exactly",
                              ways);
    /* The driver's L2 / W counts the cache's sets only where the driver's
     * size is the cache's, which one SM's first eviction confirms only
     * within L2_EVICT_PARTITION_ROUNDING: verified masks of rank r confirm
     * S = 2^r, else the block test (confirm_sets) must. */
    bool driver_sets = exact_sets && fs.kind == MT_FIND_VALUE && fs.value == (double)exact_sets;
    if (driver_sets && !(masked && exact_sets == 1ull << m.rank)) {
        bool sets_ok = false;
        const char *sets_why = "";
        if ((err = confirm_sets(&x, exact_sets, ways, &sets_ok, &sets_why)) != MT_OK)
            goto out;
        if (sets_ok) {
            mt_finding_append_note(&fs, "confirmed: the line after %llu aligned sets x %u "
                                   "ways evicted, their last line did not",
                                   (unsigned long long)exact_sets, ways);
        } else {
            /* First in the notes: the 255-character note would cut it off. */
            if (fs.confidence > L2_EVICT_SETS_UNCONFIRMED_CONF)
                fs.confidence = L2_EVICT_SETS_UNCONFIRMED_CONF;
            mt_finding_note_first(&fs, "not confirmed (the driver's L2 need not be the cache's; "
                                  "one SM used %llu B): of %llu aligned sets x %u ways, %s",
                                  (unsigned long long)c->cs[MT_CACHE_L2].sm_capacity,
                                  (unsigned long long)exact_sets, ways, sets_why);
        }
    }
    if (exact_sets || masked) {
        /* Sets and masks count lines of the measured line: they are no
         * surer than it (the ways are not: a list of elements a multiple
         * of the true line apart still needs W lines of the set). */
        bool line_ok = false;
        if ((err = confirm_line(&x, &l, &s, &line_ok)) != MT_OK)
            goto out;
        static const char *const counted[] = {"sets", "index_masks", "index"};
        for (size_t i = 0; i < sizeof counted / sizeof *counted; i++) {
            mt_finding f = i == 0 ? fs : *mt_get(c, "l2", counted[i]);
            if (f.kind == MT_FIND_NONE || (i > 0 && !masked))
                continue;
            if (line_ok && i == 0)
                mt_finding_append_note(&f, "the %u B line confirmed by the eviction set",
                                       t->line);
            else if (!line_ok && t->confidence < L2_EVICT_CONF)
                mt_finding_doubt(&f, t->confidence, "the lines are counted in the measured "
                                 "line (%u B, confidence %.2f)", t->line, t->confidence);
            if (i == 0)
                fs = f;
            else
                mt_set(c, "l2", counted[i], &f);
        }
    }
    mt_set(c, "l2", "sets", &fs);
out:
    free(l.iv);
    free(s.iv);
    free(list);
    return err;
}

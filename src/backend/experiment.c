/* Experiments (backend.h): the one builder, the validation every backend
 * runs before measuring, and the parameter hash that seeds the sim's noise
 * and indexes recordings. */
#include <stdbool.h>
#include <string.h>

#include "backend.h"
#include "chain.h"
#include "experiment_cluster.h"
#include "experiment_link.h"
#include "experiment_together.h"
#include "../core/rng.h"

mt_experiment mt_exp_chase(mt_path p, uint64_t footprint, uint32_t stride, uint32_t warmup_laps,
                           uint32_t loads, mt_mode mode)
{
    mt_experiment e;
    memset(&e, 0, sizeof e);
    e.kind = MT_KIND_CHASE;
    e.n_chains = 1;
    e.chain[0].thread = 0;
    e.chain[0].path = p;
    e.chain[0].footprint = footprint;
    e.chain[0].stride = stride;
    e.order = MT_ORDER_SEQUENTIAL;
    e.warmup_laps = warmup_laps;
    e.loads = loads;
    e.mode = mode;
    e.sm = -1;
    /* cg loads bypass the L1: their data lives in the L2. */
    e.scope = p == MT_PATH_GLOBAL_CG ? MT_SCOPE_GPU : MT_SCOPE_SM;
    return e;
}

mt_experiment mt_exp_with_carveout(mt_experiment e, int percent)
{
    e.set_carveout = 1;
    e.carveout_percent = percent;
    return e;
}

mt_experiment mt_exp_stream(mt_stream_op op, mt_path p, uint32_t blocks, uint32_t threads,
                            uint32_t vector_bytes, uint32_t in_flight, uint64_t bytes,
                            uint32_t repeats, uint32_t chase_stride)
{
    uint64_t span = op == MT_STREAM_COPY ? 2 * bytes : bytes;
    mt_experiment e = mt_exp_chase(p, span, op == MT_STREAM_CHASE ? chase_stride : vector_bytes, 0,
                                   repeats, MT_MODE_AGGREGATE);
    e.kind = MT_KIND_STREAM;
    e.scope = MT_SCOPE_GPU;
    e.u.stream.op = op;
    e.u.stream.blocks = blocks;
    e.u.stream.threads = threads;
    e.u.stream.vector_bytes = vector_bytes;
    e.u.stream.in_flight = in_flight;
    e.u.stream.bytes = bytes;
    e.u.stream.repeats = repeats;
    return e;
}

uint64_t mt_stream_block_share(const mt_experiment *e)
{
    const mt_stream *s = &e->u.stream;
    if (s->op == MT_STREAM_READ && e->chain[0].stride > s->vector_bytes)
        return e->chain[0].stride; /* shared data (backend.h) */
    return s->blocks ? s->bytes / s->blocks : 0;
}

mt_experiment mt_exp_clock(uint32_t ns, int sm)
{
    mt_experiment e = mt_exp_chase(MT_PATH_NONE, 4, 4, 0, 2, MT_MODE_FINE);
    e.kind = MT_KIND_CLOCK;
    e.sm = sm;
    e.u.clock.ns = ns;
    return e;
}

mt_experiment mt_exp_icache(uint32_t code_bytes, uint32_t laps)
{
    mt_experiment e = mt_exp_chase(MT_PATH_NONE, 4, 4, 1, laps, MT_MODE_FINE);
    e.kind = MT_KIND_ICACHE;
    e.u.icache.code_bytes = code_bytes;
    return e;
}

mt_experiment mt_exp_banks(uint32_t word_bytes, const uint32_t *word_index, uint32_t n_threads,
                           uint32_t loads)
{
    uint32_t top = 0;
    for (uint32_t t = 0; t < n_threads && t < 32; t++)
        top = word_index[t] > top ? word_index[t] : top;
    mt_experiment e = mt_exp_chase(MT_PATH_SHARED, ((uint64_t)top + 1) * word_bytes, word_bytes, 0,
                                   loads, MT_MODE_FINE);
    e.kind = MT_KIND_BANKS;
    e.u.banks.word_bytes = word_bytes;
    e.u.banks.n_threads = n_threads;
    for (uint32_t t = 0; t < n_threads && t < 32; t++)
        e.u.banks.word_index[t] = word_index[t];
    return e;
}

mt_experiment mt_exp_access(mt_path p, const uint32_t *word_index, uint32_t n_threads,
                            uint32_t loads)
{
    uint32_t top = 0;
    for (uint32_t t = 0; t < n_threads && t < 32; t++)
        top = word_index[t] > top ? word_index[t] : top;
    mt_experiment e = mt_exp_chase(p, ((uint64_t)top + 1) * 4, 4, 1, loads, MT_MODE_FINE);
    e.kind = MT_KIND_ACCESS;
    e.u.access.word_bytes = 4;
    e.u.access.n_threads = n_threads;
    for (uint32_t t = 0; t < n_threads && t < 32; t++)
        e.u.access.word_index[t] = word_index[t];
    return e;
}

mt_experiment mt_exp_evict(uint64_t elements, uint32_t line_bytes, const uint32_t *list,
                           uint32_t n, uint32_t repeats)
{
    mt_experiment e = mt_exp_chase(MT_PATH_GLOBAL_CG, elements * line_bytes, line_bytes, 0,
                                   repeats, MT_MODE_FINE);
    e.kind = MT_KIND_EVICT;
    e.u.evict.index = list;
    e.u.evict.n = n;
    e.u.evict.untimed = 0;
    return e;
}

/* The shape of an evict experiment (backend.h, MT_KIND_EVICT) and its
 * list: the target inside the chain, the intervals ascending, disjoint,
 * non-empty, inside the chain and clear of the target. */
static mt_err check_evict(const mt_experiment *e, mt_errinfo *ei)
{
    const mt_sequence *q = &e->u.evict;
    const mt_chain *c = &e->chain[0];
    if (e->n_chains != 1 || c->path != MT_PATH_GLOBAL_CG || e->mode != MT_MODE_FINE ||
        e->warmup_laps != 0 || e->scope != MT_SCOPE_GPU || e->loads < 1 ||
        e->loads > MT_EVICT_MAX_REPEATS || q->untimed != 0)
        return mt_fail(ei, MT_ERR_INVALID_ARG,
                       "evict experiment must have one cg chain, fine samples, no warm-up, GPU "
                       "scope, 1..%u repeats and no untimed entries", MT_EVICT_MAX_REPEATS);
    if (!q->index || q->n < 3 || q->n % 2 == 0 || (q->n - 1) / 2 > MT_EVICT_MAX_INTERVALS)
        return mt_fail(ei, MT_ERR_INVALID_ARG,
                       "evict experiment: a list of %u entries (a target and 1..%u intervals)",
                       q->n, MT_EVICT_MAX_INTERVALS);
    uint64_t elements = mt_chain_elements(c), next = 0, target = q->index[0];
    if (target >= elements)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "evict experiment: target %llu of %llu elements",
                       (unsigned long long)target, (unsigned long long)elements);
    for (uint32_t k = 1; k + 1 < q->n; k += 2) {
        uint64_t first = q->index[k], end = first + q->index[k + 1];
        if (q->index[k + 1] == 0 || first < next || end > elements ||
            (target >= first && target < end))
            return mt_fail(ei, MT_ERR_INVALID_ARG,
                           "evict experiment: interval %u (%llu, %u) is empty, overlaps the one "
                           "before, leaves the %llu elements or holds the target", (k - 1) / 2,
                           (unsigned long long)first, q->index[k + 1],
                           (unsigned long long)elements);
        next = end;
    }
    return MT_OK;
}

/* The fixed shape of an access experiment (backend.h, MT_KIND_ACCESS): the
 * chain checks bound its words by the path's limit, this by the span. */
static mt_err check_access(const mt_experiment *e, mt_errinfo *ei)
{
    const mt_banks *b = &e->u.access;
    const mt_chain *c = &e->chain[0];
    if (b->word_bytes != 4 || b->n_threads < 1 || b->n_threads > 32)
        return mt_fail(ei, MT_ERR_INVALID_ARG,
                       "access experiment: %u threads of %u B words (1..32 threads, 4 B)",
                       b->n_threads, b->word_bytes);
    if (e->n_chains != 1 || (c->path != MT_PATH_GLOBAL_CA && c->path != MT_PATH_GLOBAL_CG) ||
        c->stride != 4 || c->offset % MT_ACCESS_ALIGN || e->mode != MT_MODE_FINE ||
        e->warmup_laps != 1 || e->sm >= 0)
        return mt_fail(ei, MT_ERR_INVALID_ARG,
                       "access experiment must have one ca or cg chain of stride 4 at a "
                       "multiple of %u B, fine loads, one warm-up lap and any SM",
                       MT_ACCESS_ALIGN);
    if (c->footprint > MT_ACCESS_MAX_SPAN)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "access experiment spans %llu B (at most %u B)",
                       (unsigned long long)c->footprint, MT_ACCESS_MAX_SPAN);
    for (uint32_t t = 0; t < b->n_threads; t++)
        if ((uint64_t)b->word_index[t] * 4 >= c->footprint)
            return mt_fail(ei, MT_ERR_INVALID_ARG,
                           "access experiment: thread %u reads word %u of a %llu-byte span", t,
                           b->word_index[t], (unsigned long long)c->footprint);
    return MT_OK;
}

/* The fixed shape of a banks experiment (backend.h, mt_banks): its words
 * live in chain 0's shared-memory span, so the chain checks bound them. */
static mt_err check_banks(const mt_experiment *e, mt_errinfo *ei)
{
    const mt_banks *b = &e->u.banks;
    if (b->word_bytes != 4 && b->word_bytes != 8 && b->word_bytes != 16)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "banks experiment: word of %u B (4, 8 or 16)",
                       b->word_bytes);
    if (b->n_threads < 1 || b->n_threads > 32)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "banks experiment: %u threads (1..32)",
                       b->n_threads);
    if (e->n_chains != 1 || e->chain[0].path != MT_PATH_SHARED ||
        e->chain[0].stride != b->word_bytes || e->mode != MT_MODE_FINE || e->warmup_laps != 0)
        return mt_fail(ei, MT_ERR_INVALID_ARG,
                       "banks experiment must have one shared chain of stride word_bytes, fine "
                       "loads and no warm-up");
    uint64_t words = e->chain[0].footprint / b->word_bytes;
    for (uint32_t t = 0; t < b->n_threads; t++)
        if (b->word_index[t] >= words)
            return mt_fail(ei, MT_ERR_INVALID_ARG,
                           "banks experiment: thread %u reads word %u of a %llu-word span", t,
                           b->word_index[t], (unsigned long long)words);
    return MT_OK;
}

/* The fixed shape of a clock experiment (backend.h, mt_clock). */
static mt_err check_clock(const mt_experiment *e, mt_errinfo *ei)
{
    if (e->n_chains != 1 || e->chain[0].path != MT_PATH_NONE || e->loads != 2 ||
        e->mode != MT_MODE_FINE || e->warmup_laps != 0)
        return mt_fail(ei, MT_ERR_INVALID_ARG,
                       "clock experiment must have one `none` chain, 2 fine loads and no warm-up");
    if (e->u.clock.ns < MT_CLOCK_MIN_NS || e->u.clock.ns > MT_CLOCK_MAX_NS)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "clock experiment of %u ns is outside %u..%u ns",
                       e->u.clock.ns, MT_CLOCK_MIN_NS, MT_CLOCK_MAX_NS);
    return MT_OK;
}

/* The fixed shape of an icache experiment (backend.h, mt_icache). */
static mt_err check_icache(const mt_experiment *e, mt_errinfo *ei)
{
    const mt_icache *q = &e->u.icache;
    if (e->n_chains != 1 || e->chain[0].path != MT_PATH_NONE || e->mode != MT_MODE_FINE ||
        e->sm != -1 || e->warmup_laps < 1 || e->warmup_laps > MT_ICACHE_MAX_WARMUP || e->loads < 1 ||
        e->loads > MT_ICACHE_MAX_LAPS)
        return mt_fail(ei, MT_ERR_INVALID_ARG,
                       "icache experiment must have one `none` chain, fine mode, any SM, 1..%u "
                       "warm laps and 1..%u timed laps",
                       MT_ICACHE_MAX_WARMUP, MT_ICACHE_MAX_LAPS);
    if (e->set_carveout)
        return mt_fail(ei, MT_ERR_UNSUPPORTED, "icache experiments run at the default carveout");
    if (q->code_bytes % MT_ICACHE_INSTRUCTION_BYTES || q->code_bytes < MT_ICACHE_MIN_BYTES ||
        q->code_bytes > MT_ICACHE_MAX_BYTES)
        return mt_fail(ei, MT_ERR_INVALID_ARG,
                       "icache experiment of %u B of code: a multiple of %u B within %u..%u B",
                       q->code_bytes, MT_ICACHE_INSTRUCTION_BYTES, MT_ICACHE_MIN_BYTES,
                       MT_ICACHE_MAX_BYTES);
    return MT_OK;
}

/* The shape of a stream (backend.h, mt_stream); it replaces the chain
 * checks, since a stream's limits are per block (shared) or per launch. */
static mt_err check_stream(const mt_experiment *e, const mt_device_info *dev, mt_errinfo *ei)
{
    const mt_stream *s = &e->u.stream;
    const mt_chain *c = &e->chain[0];
    int global = c->path == MT_PATH_GLOBAL_CA || c->path == MT_PATH_GLOBAL_CG;
    if (e->n_chains != 1 || e->mode != MT_MODE_AGGREGATE || e->warmup_laps != 0 ||
        e->loads != s->repeats || s->repeats == 0)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "stream experiment must have one chain, aggregate "
                                               "mode, no warm-up and loads = repeats >= 1");
    if (e->set_carveout)
        return mt_fail(ei, MT_ERR_UNSUPPORTED, "stream experiments run at the default carveout");
    if (s->op > MT_STREAM_CHASE)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "stream experiment has an unknown op %d", (int)s->op);
    if (c->path == MT_PATH_CONSTANT || c->path == MT_PATH_NONE || c->path >= MT_PATH_COUNT)
        return mt_fail(ei, MT_ERR_UNSUPPORTED, "stream experiments do not run on the %s path",
                       mt_path_name(c->path));
    if ((s->op == MT_STREAM_WRITE || s->op == MT_STREAM_COPY) && !global && c->path != MT_PATH_SHARED)
        return mt_fail(ei, MT_ERR_UNSUPPORTED, "%s path streams only read (no stores through it)",
                       mt_path_name(c->path));
    if (s->op == MT_STREAM_CHASE && !global)
        return mt_fail(ei, MT_ERR_UNSUPPORTED, "stream chases run on the ca and cg paths only");
    uint32_t vec = s->op == MT_STREAM_CHASE ? 4 : s->vector_bytes;
    if (s->vector_bytes != vec || (vec != 4 && vec != 8 && vec != 16))
        return mt_fail(ei, MT_ERR_INVALID_ARG, "stream vector of %u bytes (4, 8 or 16; a chase 4)",
                       s->vector_bytes);
    if (s->in_flight < 1 || s->in_flight > MT_STREAM_MAX_IN_FLIGHT ||
        (s->in_flight & (s->in_flight - 1)) || (s->op == MT_STREAM_CHASE && s->in_flight != 1))
        return mt_fail(ei, MT_ERR_INVALID_ARG,
                       "stream with %u accesses in flight (a power of two up to %u; a chase 1)",
                       s->in_flight, MT_STREAM_MAX_IN_FLIGHT);
    /* A chase may run any number of threads (the sweep starts at one);
     * the other ops move whole warps. */
    int bad_threads = s->op == MT_STREAM_CHASE ? s->threads < 1 : s->threads < 32 || s->threads % 32;
    if (s->blocks < 1 || s->blocks > MT_STREAM_MAX_BLOCKS || bad_threads ||
        (dev->max_threads_per_block && s->threads > (uint32_t)dev->max_threads_per_block))
        return mt_fail(ei, MT_ERR_INVALID_ARG, "stream of %u blocks x %u threads (blocks 1..%u, "
                       "threads a multiple of 32, a chase's at least 1, up to the block limit)",
                       s->blocks, s->threads, MT_STREAM_MAX_BLOCKS);
    uint64_t round = (uint64_t)s->threads * vec * s->in_flight; /* one block's */
    uint64_t share = mt_stream_block_share(e);
    uint64_t span = s->op == MT_STREAM_COPY ? 2 * s->bytes : s->bytes;
    /* A read whose blocks share data names the share as its stride. */
    int shared_data = s->op == MT_STREAM_READ && c->stride > vec;
    if (shared_data && (c->stride % vec || s->bytes % c->stride || c->path == MT_PATH_SHARED))
        return mt_fail(ei, MT_ERR_INVALID_ARG,
                       "stream read with shared data: the share (stride %u) must be a multiple "
                       "of the vector dividing the %llu bytes, on a global path",
                       c->stride, (unsigned long long)s->bytes);
    uint32_t want_stride = s->op == MT_STREAM_CHASE || shared_data ? c->stride : vec;
    if (s->op == MT_STREAM_CHASE &&
        (c->stride < 4 || c->stride % 4 || s->bytes / ((uint64_t)s->blocks * s->threads) < 2ull * c->stride))
        return mt_fail(ei, MT_ERR_INVALID_ARG,
                       "stream chase: stride %u must be a multiple of 4 and each thread's share "
                       "hold two of them", c->stride);
    /* A block's round covers its share whole times, or the share divides
     * it (accesses wrap around it); a chase's threads each get an equal
     * share. */
    int whole = s->bytes && (shared_data || s->bytes % ((uint64_t)s->blocks * vec) == 0) &&
                (share % round == 0 || (s->op != MT_STREAM_CHASE && round % share == 0));
    if (!whole || c->footprint != span || c->stride != want_stride || c->offset % 16)
        return mt_fail(ei, MT_ERR_INVALID_ARG,
                       "stream of %llu bytes: each block's share a multiple or a divisor of "
                       "threads x vector x in_flight (%llu), chain footprint = the span, stride = "
                       "the vector, offset 16-aligned",
                       (unsigned long long)s->bytes, (unsigned long long)round);
    /* A balanced read (since 2.11): each warp reads whole rounds of its
     * own slice of its block's own share, on a path of global loads. */
    int load_path = global || c->path == MT_PATH_GLOBAL_NC;
    if (s->balanced > 1 ||
        (s->balanced && (s->op != MT_STREAM_READ || !load_path || shared_data || share % round)))
        return mt_fail(ei, MT_ERR_INVALID_ARG,
                       "balanced stream (%u): a read on the ca, cg or nc path, each block its own "
                       "share, a whole number of rounds (%llu bytes)",
                       s->balanced, (unsigned long long)round);
    uint64_t lim = dev->path_limit_bytes[c->path];
    uint64_t need = c->path == MT_PATH_SHARED ? span / s->blocks : c->offset + span;
    if (lim && need > lim)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "stream needs %llu bytes of the %s path (limit %llu%s)",
                       (unsigned long long)need, mt_path_name(c->path), (unsigned long long)lim,
                       c->path == MT_PATH_SHARED ? " per block" : "");
    if (e->sm >= dev->sm_count)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "SM %d does not exist (%d SMs)", e->sm, dev->sm_count);
    return MT_OK;
}

uint64_t mt_chain_limit(const mt_device_info *dev, const mt_chain *c)
{
    uint64_t lim = dev->path_limit_bytes[c->path];
    bool global = c->path == MT_PATH_GLOBAL_CA || c->path == MT_PATH_GLOBAL_CG ||
                  c->path == MT_PATH_GLOBAL_NC;
    if (global && c->stride >= MT_SPARSE_MIN_STRIDE && dev->sparse_limit_bytes > lim)
        lim = dev->sparse_limit_bytes;
    return lim;
}

uint64_t mt_sparse_limit(uint64_t free_bytes)
{
    uint64_t margin = free_bytes / MT_SPARSE_MARGIN_DIVISOR;
    if (margin < MT_SPARSE_MARGIN_MIN)
        margin = MT_SPARSE_MARGIN_MIN;
    return free_bytes > margin ? free_bytes - margin : 0;
}

static mt_err check_chain(const mt_chain *c, int i, const mt_device_info *dev, mt_errinfo *ei)
{
    if (c->path < 0 || c->path >= MT_PATH_COUNT)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "chain %d has an unknown path", i);
    if (c->stride < 4 || c->stride % 4 || c->offset % 4)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "chain %d: stride %u / offset not a multiple of 4",
                       i, c->stride);
    if (c->footprint < c->stride)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "chain %d: footprint below one stride", i);
    uint64_t lim = mt_chain_limit(dev, c);
    if (c->path != MT_PATH_NONE && lim && c->offset + c->footprint > lim)
        return mt_fail(ei, MT_ERR_INVALID_ARG,
                       "chain %d: %llu bytes exceed the %s path limit of %llu bytes", i,
                       (unsigned long long)(c->offset + c->footprint), mt_path_name(c->path),
                       (unsigned long long)lim);
    if (dev->max_threads_per_experiment && c->thread >= dev->max_threads_per_experiment)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "chain %d: thread %d out of range", i, c->thread);
    return MT_OK;
}

/* The shape of a sequence (backend.h, mt_sequence), before the chain checks. */
static mt_err check_sequence_shape(const mt_experiment *e, const mt_device_info *dev,
                                   mt_errinfo *ei)
{
    const mt_sequence *q = &e->u.seq;
    if (e->n_chains != 1)
        return mt_fail(ei, MT_ERR_INVALID_ARG,
                       "sequence experiment has %d chains; it needs exactly 1", e->n_chains);
    if (e->warmup_laps != 0)
        return mt_fail(ei, MT_ERR_INVALID_ARG,
                       "sequence experiment has %u warm-up laps; it needs 0 (warming is part "
                       "of the index list)",
                       e->warmup_laps);
    if (!q->index)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "sequence experiment has no index list");
    if (q->n == 0)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "sequence experiment has an empty index list");
    if (dev->max_sequence && q->n > dev->max_sequence)
        return mt_fail(ei, MT_ERR_INVALID_ARG,
                       "sequence of %u entries exceeds the backend limit %u", q->n,
                       dev->max_sequence);
    if (q->untimed >= q->n)
        return mt_fail(ei, MT_ERR_INVALID_ARG,
                       "sequence of %u entries has %u untimed ones: nothing is measured", q->n,
                       q->untimed);
    if (e->loads != q->n - q->untimed)
        return mt_fail(ei, MT_ERR_INVALID_ARG,
                       "sequence measures %u entries (%u minus %u untimed) but loads is %u",
                       q->n - q->untimed, q->n, q->untimed, e->loads);
    return MT_OK;
}

static mt_err check_sequence_indices(const mt_experiment *e, mt_errinfo *ei)
{
    const mt_sequence *q = &e->u.seq;
    uint64_t elements = mt_chain_elements(&e->chain[0]);
    for (uint32_t k = 0; k < q->n; k++)
        if (q->index[k] >= elements)
            return mt_fail(ei, MT_ERR_INVALID_ARG,
                           "sequence entry %u is element %u; the chain has %llu elements", k,
                           q->index[k], (unsigned long long)elements);
    return MT_OK;
}

mt_err mt_experiment_check(const mt_experiment *e, const mt_device_info *dev,
                           mt_errinfo *ei)
{
    mt_err err;
    switch (e->kind) {
    case MT_KIND_CHASE:
        break;
    case MT_KIND_SEQUENCE:
        if ((err = check_sequence_shape(e, dev, ei)))
            return err;
        break;
    case MT_KIND_CLOCK:
        if ((err = check_clock(e, ei)))
            return err;
        break;
    case MT_KIND_STREAM:
        return check_stream(e, dev, ei);
    case MT_KIND_BANKS:
        if ((err = check_banks(e, ei)))
            return err;
        break;
    case MT_KIND_ICACHE:
        if ((err = check_icache(e, ei)))
            return err;
        break;
    case MT_KIND_ACCESS:
        if ((err = check_access(e, ei)))
            return err;
        break;
    case MT_KIND_LINK:
        if ((err = mt_check_link(e, ei)))
            return err;
        break;
    case MT_KIND_EVICT:
        if ((err = check_evict(e, ei)))
            return err;
        break;
    case MT_KIND_CLUSTER:
        if ((err = mt_check_cluster(e, dev, ei)))
            return err;
        if (e->u.cluster.op != MT_CLUSTER_CHASE)
            return MT_OK; /* streams and copies: their own limits, checked */
        break;
    default:
        return mt_fail(ei, MT_ERR_INVALID_ARG, "unknown experiment kind %d", (int)e->kind);
    }
    if (e->n_chains < 1 || e->n_chains > MT_MAX_CHAINS)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "experiment has %d chains", e->n_chains);
    if (e->set_carveout && (e->carveout_percent < 0 || e->carveout_percent > 100))
        return mt_fail(ei, MT_ERR_INVALID_ARG, "carveout %d%% is outside 0..100%%",
                       e->carveout_percent);
    if (e->set_carveout && dev->n_carveouts == 0)
        return mt_fail(ei, MT_ERR_UNSUPPORTED,
                       "a carveout was requested, but the device lists no carveouts to choose from");
    if (e->loads == 0)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "experiment measures no loads");
    if (e->mode == MT_MODE_FINE && dev->max_fine_loads && e->loads > dev->max_fine_loads)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "%u fine-grained loads exceed the backend limit %u",
                       e->loads, dev->max_fine_loads);
    if (e->sm >= dev->sm_count)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "SM %d does not exist (%d SMs)", e->sm, dev->sm_count);
    if ((err = mt_check_together(e, ei)))
        return err;
    for (int i = 0; i < e->n_chains; i++)
        if ((err = check_chain(&e->chain[i], i, dev, ei)))
            return err;
    if (e->kind == MT_KIND_SEQUENCE)
        return check_sequence_indices(e, ei);
    return MT_OK;
}

uint64_t mt_hash_mix(uint64_t h, uint64_t v)
{
    mt_rng r = {.s = h ^ (v * 0xD6E8FEB86659FD93ull)};
    return mt_rng_next(&r);
}

/* Since 2.1: a requested carveout; nothing for the default, so every
 * hash from before stays what it was. */
static uint64_t mix_carveout(uint64_t h, const mt_experiment *e)
{
    if (!e->set_carveout)
        return h;
    h = mt_hash_mix(h, 0x63617276656f7574ull); /* "carveout" */
    return mt_hash_mix(h, (uint64_t)(int64_t)e->carveout_percent);
}

uint64_t mt_experiment_hash(uint64_t h0, const mt_experiment *e)
{
    /* Version 1's hash, unchanged: the sim's noise and the recordings made
     * before version 2 depend on it bit for bit. */
    uint64_t h = mt_hash_mix(h0, (uint64_t)e->n_chains);
    h = mt_hash_mix(h, (uint64_t)e->order);
    h = mt_hash_mix(h, e->order_seed);
    h = mt_hash_mix(h, e->warmup_laps);
    h = mt_hash_mix(h, e->loads);
    h = mt_hash_mix(h, (uint64_t)e->mode);
    h = mt_hash_mix(h, (uint64_t)(int64_t)e->sm);
    h = mt_hash_mix(h, (uint64_t)(e->scope == MT_SCOPE_GPU)); /* version 1: exclusive */
    for (int i = 0; i < e->n_chains && i < MT_MAX_CHAINS; i++) {
        const mt_chain *c = &e->chain[i];
        h = mt_hash_mix(h, (uint64_t)(int64_t)c->thread);
        h = mt_hash_mix(h, (uint64_t)c->path);
        h = mt_hash_mix(h, c->footprint);
        h = mt_hash_mix(h, c->stride);
        h = mt_hash_mix(h, c->offset);
    }
    if (e->kind == MT_KIND_CHASE)
        return mt_hash_together(mix_carveout(h, e), e);
    /* Version 2: the kind and every one of its parameters. */
    h = mt_hash_mix(h, (uint64_t)e->kind);
    switch (e->kind) {
    case MT_KIND_SEQUENCE:
    case MT_KIND_EVICT: /* both an index list; the kind was mixed in */
        h = mt_hash_mix(h, e->u.seq.n);
        h = mt_hash_mix(h, e->u.seq.untimed);
        for (uint32_t k = 0; e->u.seq.index && k < e->u.seq.n; k++)
            h = mt_hash_mix(h, e->u.seq.index[k]);
        break;
    case MT_KIND_STREAM:
        h = mt_hash_mix(h, (uint64_t)e->u.stream.op);
        h = mt_hash_mix(h, e->u.stream.blocks);
        h = mt_hash_mix(h, e->u.stream.threads);
        h = mt_hash_mix(h, e->u.stream.vector_bytes);
        h = mt_hash_mix(h, e->u.stream.bytes);
        h = mt_hash_mix(h, e->u.stream.repeats);
        h = mt_hash_mix(h, e->u.stream.in_flight);
        h = mt_hash_mix(h, e->u.stream.balanced);
        break;
    case MT_KIND_BANKS:
    case MT_KIND_ACCESS: /* the same parameters (mt_banks); the kind was mixed in */
        h = mt_hash_mix(h, e->u.banks.word_bytes);
        h = mt_hash_mix(h, e->u.banks.n_threads);
        for (uint32_t t = 0; t < e->u.banks.n_threads && t < 32; t++)
            h = mt_hash_mix(h, e->u.banks.word_index[t]);
        break;
    case MT_KIND_CLOCK:
        h = mt_hash_mix(h, e->u.clock.ns);
        break;
    case MT_KIND_ICACHE:
        h = mt_hash_mix(h, e->u.icache.code_bytes);
        break;
    case MT_KIND_LINK:
        h = mt_hash_link(h, e);
        break;
    case MT_KIND_CLUSTER:
        h = mt_hash_mix(h, (uint64_t)e->u.cluster.op);
        h = mt_hash_mix(h, e->u.cluster.cluster_size);
        h = mt_hash_mix(h, e->u.cluster.target_rank);
        h = mt_hash_mix(h, e->u.cluster.threads);
        h = mt_hash_mix(h, e->u.cluster.blocks);
        h = mt_hash_mix(h, e->u.cluster.bytes);
        h = mt_hash_mix(h, e->u.cluster.repeats);
        break;
    default:
        break;
    }
    return mix_carveout(h, e);
}

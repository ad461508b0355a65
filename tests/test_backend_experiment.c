/* Experiments (backend.h, src/backend/experiment.c): the chase builder's
 * defaults, the version-1 hash kept bit for bit for chases (the sim's noise
 * and old recordings depend on it), the sequence kind's hash and checks, and
 * the kind names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "backend/backend.h"
#include "core/rng.h"

/* ---- the version-1 hash, written out as it was before version 2 ---- */

static uint64_t v1_mix(uint64_t h, uint64_t v)
{
    uint64_t z = (h ^ (v * 0xD6E8FEB86659FD93ull)) + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Version 1's experiment: what the old mt_experiment_hash read. */
typedef struct {
    int n_chains, order;
    uint32_t order_seed, warmup_laps, loads;
    int mode, sm, exclusive;
    mt_chain chain[MT_MAX_CHAINS];
} v1_exp;

static uint64_t v1_hash(uint64_t h0, const v1_exp *e)
{
    uint64_t h = v1_mix(h0, (uint64_t)e->n_chains);
    h = v1_mix(h, (uint64_t)e->order);
    h = v1_mix(h, e->order_seed);
    h = v1_mix(h, e->warmup_laps);
    h = v1_mix(h, e->loads);
    h = v1_mix(h, (uint64_t)e->mode);
    h = v1_mix(h, (uint64_t)(int64_t)e->sm);
    h = v1_mix(h, (uint64_t)e->exclusive);
    for (int i = 0; i < e->n_chains && i < MT_MAX_CHAINS; i++) {
        const mt_chain *c = &e->chain[i];
        h = v1_mix(h, (uint64_t)(int64_t)c->thread);
        h = v1_mix(h, (uint64_t)c->path);
        h = v1_mix(h, c->footprint);
        h = v1_mix(h, c->stride);
        h = v1_mix(h, c->offset);
    }
    return h;
}

static v1_exp to_v1(const mt_experiment *e)
{
    v1_exp o;
    memset(&o, 0, sizeof o);
    o.n_chains = e->n_chains;
    o.order = (int)e->order;
    o.order_seed = e->order_seed;
    o.warmup_laps = e->warmup_laps;
    o.loads = e->loads;
    o.mode = (int)e->mode;
    o.sm = e->sm;
    o.exclusive = e->scope == MT_SCOPE_GPU;
    memcpy(o.chain, e->chain, sizeof o.chain);
    return o;
}

static void test_chase_builder_defaults(void **state)
{
    (void)state;
    for (int p = 0; p < MT_PATH_COUNT; p++) {
        mt_experiment e = mt_exp_chase((mt_path)p, 4096, 64, 3, 100, MT_MODE_AGGREGATE);
        assert_int_equal(e.kind, MT_KIND_CHASE);
        assert_int_equal(e.n_chains, 1);
        assert_int_equal(e.chain[0].thread, 0);
        assert_int_equal(e.chain[0].path, p);
        assert_int_equal(e.chain[0].footprint, 4096);
        assert_int_equal(e.chain[0].stride, 64);
        assert_int_equal(e.chain[0].offset, 0);
        assert_int_equal(e.order, MT_ORDER_SEQUENTIAL);
        assert_int_equal(e.order_seed, 0);
        assert_int_equal(e.warmup_laps, 3);
        assert_int_equal(e.loads, 100);
        assert_int_equal(e.mode, MT_MODE_AGGREGATE);
        assert_int_equal(e.sm, -1);
        /* exactly as the old builder: exclusive (GPU scope) for cg only */
        assert_int_equal(e.scope, p == MT_PATH_GLOBAL_CG ? MT_SCOPE_GPU : MT_SCOPE_SM);
        assert_null(e.u.seq.index);
        assert_int_equal(e.u.seq.n, 0);
    }
}

static void test_chase_hash_is_version_1(void **state)
{
    (void)state;
    /* Literal values computed by the pre-refactor build (commit 6b9e5a4). */
    mt_experiment e1 = mt_exp_chase(MT_PATH_GLOBAL_CG, 1 << 20, 128, 1, 4096, MT_MODE_FINE);
    assert_int_equal(mt_experiment_hash(0x1234, &e1), 0x74ab61c3b4c0c4f9ull);

    mt_experiment e2 = mt_exp_chase(MT_PATH_TEXTURE, 12288, 32, 2, 100, MT_MODE_AGGREGATE);
    e2.n_chains = 2;
    e2.order = MT_ORDER_RANDOM;
    e2.order_seed = 77;
    e2.sm = 5;
    e2.chain[1] = (mt_chain){.thread = 64, .path = MT_PATH_GLOBAL_NC, .footprint = 8192,
                             .stride = 64, .offset = 1 << 20};
    assert_int_equal(mt_experiment_hash(0xfeed, &e2), 0x61870c6e2c8b30dbull);

    /* And against the formula, over many experiments and both scopes. */
    mt_rng r = {.s = 42};
    for (int k = 0; k < 2000; k++) {
        mt_experiment e = mt_exp_chase((mt_path)mt_rng_below(&r, MT_PATH_COUNT),
                                       4ull << mt_rng_below(&r, 30), 4u << mt_rng_below(&r, 8),
                                       (uint32_t)mt_rng_below(&r, 3),
                                       1 + (uint32_t)mt_rng_below(&r, 9000),
                                       (mt_mode)mt_rng_below(&r, 2));
        e.n_chains = 1 + (int)mt_rng_below(&r, 2);
        e.order = (mt_order)mt_rng_below(&r, 2);
        e.order_seed = (uint32_t)mt_rng_next(&r);
        e.sm = (int)mt_rng_below(&r, 140) - 1;
        e.scope = (mt_scope)mt_rng_below(&r, 2);
        e.chain[1] = (mt_chain){.thread = (int)mt_rng_below(&r, 1024),
                                .path = (mt_path)mt_rng_below(&r, MT_PATH_COUNT),
                                .footprint = mt_rng_next(&r) >> 20,
                                .stride = (uint32_t)mt_rng_next(&r),
                                .offset = mt_rng_next(&r) >> 16};
        uint64_t h0 = mt_rng_next(&r);
        v1_exp o = to_v1(&e);
        assert_int_equal(mt_experiment_hash(h0, &e), v1_hash(h0, &o));
    }
}

static void test_chase_hash_ignores_kind_parameters(void **state)
{
    (void)state;
    /* A chase has no kind parameters: whatever the union holds, the hash
     * (and so the sim's noise) is version 1's. */
    static const uint32_t idx[] = {1, 2, 3};
    mt_experiment a = mt_exp_chase(MT_PATH_GLOBAL_CA, 4096, 128, 1, 64, MT_MODE_FINE);
    mt_experiment b = a;
    b.u.seq = (mt_sequence){idx, 3, 1};
    assert_int_equal(mt_experiment_hash(7, &a), mt_experiment_hash(7, &b));
}

static mt_experiment sequence(const uint32_t *idx, uint32_t n, uint32_t untimed)
{
    mt_experiment e = mt_exp_chase(MT_PATH_GLOBAL_CA, 64 * 128, 128, 0, n - untimed,
                                   MT_MODE_FINE);
    e.kind = MT_KIND_SEQUENCE;
    e.u.seq = (mt_sequence){idx, n, untimed};
    return e;
}

static void test_sequence_hash_covers_every_parameter(void **state)
{
    (void)state;
    uint32_t idx[6] = {0, 5, 0, 9, 5, 0};
    mt_experiment base = sequence(idx, 6, 2);
    uint64_t h = mt_experiment_hash(11, &base);

    /* the kind itself: the same fields as a chase hash differently */
    mt_experiment c = base;
    c.kind = MT_KIND_CHASE;
    assert_int_not_equal(mt_experiment_hash(11, &c), h);
    /* the list's content, not its address */
    uint32_t copy[6];
    memcpy(copy, idx, sizeof idx);
    c = base;
    c.u.seq.index = copy;
    assert_int_equal(mt_experiment_hash(11, &c), h);
    /* every entry */
    for (int k = 0; k < 6; k++) {
        copy[k] ^= 1;
        assert_int_not_equal(mt_experiment_hash(11, &c), h);
        copy[k] ^= 1;
    }
    /* n, untimed (with loads kept or changed) */
    c = base;
    c.u.seq.n = 5;
    assert_int_not_equal(mt_experiment_hash(11, &c), h);
    c = base;
    c.u.seq.untimed = 3;
    assert_int_not_equal(mt_experiment_hash(11, &c), h);
    c.loads = 3;
    assert_int_not_equal(mt_experiment_hash(11, &c), h);
    /* swapping two entries (same multiset) */
    c = base;
    uint32_t swapped[6] = {5, 0, 0, 9, 5, 0};
    c.u.seq.index = swapped;
    assert_int_not_equal(mt_experiment_hash(11, &c), h);
    /* the chase fields still count */
    c = base;
    c.chain[0].stride = 256;
    assert_int_not_equal(mt_experiment_hash(11, &c), h);
    c = base;
    c.chain[0].offset = 4096;
    assert_int_not_equal(mt_experiment_hash(11, &c), h);
    c = base;
    c.mode = MT_MODE_AGGREGATE;
    assert_int_not_equal(mt_experiment_hash(11, &c), h);
    c = base;
    c.sm = 3;
    assert_int_not_equal(mt_experiment_hash(11, &c), h);
    c = base;
    c.scope = MT_SCOPE_GPU;
    assert_int_not_equal(mt_experiment_hash(11, &c), h);
    /* the seed */
    assert_int_not_equal(mt_experiment_hash(12, &base), h);
    /* a NULL list does not crash the hash (checks refuse it later) */
    c = base;
    c.u.seq.index = NULL;
    (void)mt_experiment_hash(11, &c);
}

static void test_other_kinds_hash_their_parameters(void **state)
{
    (void)state;
    mt_experiment s = mt_exp_chase(MT_PATH_GLOBAL_CG, 1 << 20, 16, 0, 1, MT_MODE_FINE);
    s.kind = MT_KIND_STREAM;
    s.u.stream = (mt_stream){MT_STREAM_READ, 0, 256, 16, 1 << 20, 4, 1, 0};
    uint64_t h = mt_experiment_hash(1, &s);
    mt_experiment t = s;
    t.u.stream.repeats = 5;
    assert_int_not_equal(mt_experiment_hash(1, &t), h);
    t = s;
    t.u.stream.op = MT_STREAM_COPY;
    assert_int_not_equal(mt_experiment_hash(1, &t), h);
    t = s;
    t.u.stream.in_flight = 2; /* since 2.2 */
    assert_int_not_equal(mt_experiment_hash(1, &t), h);
    t = s;
    t.u.stream.balanced = 1; /* since 2.11 */
    assert_int_not_equal(mt_experiment_hash(1, &t), h);

    mt_experiment b = s;
    memset(&b.u, 0, sizeof b.u);
    b.kind = MT_KIND_BANKS;
    b.u.banks.word_bytes = 4;
    b.u.banks.n_threads = 2;
    b.u.banks.word_index[1] = 32;
    h = mt_experiment_hash(1, &b);
    t = b;
    t.u.banks.word_index[1] = 33;
    assert_int_not_equal(mt_experiment_hash(1, &t), h);
    t = b;
    t.u.banks.word_index[5] = 99; /* beyond n_threads: not a parameter */
    assert_int_equal(mt_experiment_hash(1, &t), h);

    mt_experiment c = s;
    memset(&c.u, 0, sizeof c.u);
    c.kind = MT_KIND_CLUSTER;
    c.u.cluster = (mt_cluster){.op = MT_CLUSTER_STREAM, .cluster_size = 4, .target_rank = 1,
                               .threads = 64, .blocks = 1, .bytes = 1024, .repeats = 8};
    h = mt_experiment_hash(1, &c);
    t = c;
    t.u.cluster.target_rank = 2;
    assert_int_not_equal(mt_experiment_hash(1, &t), h);
    /* since 2.3: every parameter of a cluster experiment */
    t = c;
    t.u.cluster.op = MT_CLUSTER_CHASE;
    assert_int_not_equal(mt_experiment_hash(1, &t), h);
    t = c;
    t.u.cluster.bytes = 2048;
    assert_int_not_equal(mt_experiment_hash(1, &t), h);
    t = c;
    t.u.cluster.repeats = 9;
    assert_int_not_equal(mt_experiment_hash(1, &t), h);
    t = c;
    t.u.cluster.threads = 128;
    assert_int_not_equal(mt_experiment_hash(1, &t), h);
}

static mt_device_info device(void)
{
    mt_device_info d;
    memset(&d, 0, sizeof d);
    d.sm_count = 4;
    for (int p = 0; p < MT_PATH_COUNT; p++)
        d.path_limit_bytes[p] = 1 << 20;
    d.max_fine_loads = 100;
    d.max_threads_per_experiment = 1024;
    d.max_sequence = 16;
    return d;
}

static void expect(const mt_experiment *e, const mt_device_info *d, mt_err want,
                   const char *msg_part)
{
    mt_errinfo ei = {{0}};
    mt_err got = mt_experiment_check(e, d, &ei);
    if (got != want)
        fail_msg("expected %d, got %d (%s)", want, got, ei.msg);
    if (msg_part && !strstr(ei.msg, msg_part))
        fail_msg("message '%s' lacks '%s'", ei.msg, msg_part);
    if (want && strchr(ei.msg, '\n'))
        fail_msg("message '%s' is not one line", ei.msg);
}

static void test_sequence_checks(void **state)
{
    (void)state;
    mt_device_info d = device();
    uint32_t idx[20] = {0, 63, 1, 0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17};
    mt_experiment ok = sequence(idx, 4, 1); /* 64 elements of 128 B */
    expect(&ok, &d, MT_OK, NULL);
    ok.mode = MT_MODE_AGGREGATE;
    expect(&ok, &d, MT_OK, NULL);
    mt_experiment e = sequence(idx, 4, 0); /* untimed 0 */
    expect(&e, &d, MT_OK, NULL);
    e = sequence(idx, 16, 15); /* at the limit, one timed entry */
    expect(&e, &d, MT_OK, NULL);

    e = sequence(idx, 4, 1);
    e.n_chains = 2;
    e.chain[1] = e.chain[0];
    expect(&e, &d, MT_ERR_INVALID_ARG, "2 chains");
    e = sequence(idx, 4, 1);
    e.warmup_laps = 1;
    expect(&e, &d, MT_ERR_INVALID_ARG, "warm-up");
    e = sequence(idx, 4, 1);
    e.u.seq.index = NULL;
    expect(&e, &d, MT_ERR_INVALID_ARG, "no index list");
    e = sequence(idx, 4, 1);
    e.u.seq.n = 0;
    expect(&e, &d, MT_ERR_INVALID_ARG, "empty");
    e = sequence(idx, 17, 1); /* over max_sequence */
    expect(&e, &d, MT_ERR_INVALID_ARG, "limit 16");
    d.max_sequence = 0; /* 0: the backend states no limit */
    expect(&e, &d, MT_OK, NULL);
    d = device();
    e = sequence(idx, 4, 1);
    e.u.seq.untimed = 4; /* nothing timed */
    e.loads = 1;
    expect(&e, &d, MT_ERR_INVALID_ARG, "untimed");
    e.u.seq.untimed = 5;
    expect(&e, &d, MT_ERR_INVALID_ARG, "untimed");
    e = sequence(idx, 4, 1);
    e.loads = 4; /* loads must be n - untimed = 3 */
    expect(&e, &d, MT_ERR_INVALID_ARG, "loads is 4");
    e.loads = 2;
    expect(&e, &d, MT_ERR_INVALID_ARG, "loads is 2");
    /* indices: 63 is the last element; 64 is outside */
    e = sequence(idx, 4, 1);
    e.chain[0].footprint = 63 * 128;
    expect(&e, &d, MT_ERR_INVALID_ARG, "entry 1 is element 63");
    uint32_t bad[3] = {0, 1, UINT32_MAX};
    e = sequence(bad, 3, 0);
    expect(&e, &d, MT_ERR_INVALID_ARG, "entry 2");
    /* in an untimed entry too */
    e = sequence(bad, 3, 2);
    bad[2] = 2;
    bad[0] = 64;
    expect(&e, &d, MT_ERR_INVALID_ARG, "entry 0 is element 64");
    /* the chase checks still apply */
    e = sequence(idx, 4, 1);
    e.chain[0].stride = 6;
    expect(&e, &d, MT_ERR_INVALID_ARG, "stride");
    e = sequence(idx, 4, 1);
    e.chain[0].footprint = 2 << 20;
    expect(&e, &d, MT_ERR_INVALID_ARG, "path limit");
    e = sequence(idx, 4, 1);
    e.sm = 4;
    expect(&e, &d, MT_ERR_INVALID_ARG, "SM 4");
    d.max_sequence = 1000;
    uint32_t many[200] = {0};
    e = sequence(many, 200, 50); /* 150 fine loads > max_fine_loads */
    expect(&e, &d, MT_ERR_INVALID_ARG, "fine-grained");
    e.mode = MT_MODE_AGGREGATE;
    expect(&e, &d, MT_OK, NULL);
    /* order is ignored by a sequence */
    e.order = MT_ORDER_RANDOM;
    expect(&e, &d, MT_OK, NULL);
}

static void test_kind_checks(void **state)
{
    (void)state;
    mt_device_info d = device();
    mt_experiment e = mt_exp_chase(MT_PATH_GLOBAL_CA, 4096, 128, 1, 16, MT_MODE_FINE);
    expect(&e, &d, MT_OK, NULL);
    e.kind = MT_KIND_COUNT;
    expect(&e, &d, MT_ERR_INVALID_ARG, "unknown experiment kind");
    e.kind = (mt_exp_kind)-1;
    expect(&e, &d, MT_ERR_INVALID_ARG, "unknown experiment kind");
    /* a stream has its own shape (backend.h): a chase's is refused */
    e.kind = MT_KIND_STREAM;
    expect(&e, &d, MT_ERR_INVALID_ARG, "stream");
    e.kind = MT_KIND_CLUSTER;
    expect(&e, &d, MT_ERR_UNSUPPORTED, "cluster");
    /* the chase checks are unchanged */
    e = mt_exp_chase(MT_PATH_GLOBAL_CA, 4096, 128, 1, 101, MT_MODE_FINE);
    expect(&e, &d, MT_ERR_INVALID_ARG, "exceed the backend limit 100");
    e.loads = 0;
    expect(&e, &d, MT_ERR_INVALID_ARG, "no loads");
}

/* Cluster experiments (since 2.3): their shapes against a device's
 * cluster limits and compute capability. */
static void test_cluster_checks(void **state)
{
    (void)state;
    mt_device_info d = device();
    d.cc_major = 9;
    d.max_cluster_size = 16;
    d.smem_per_block = 48 << 10;
    d.max_threads_per_block = 1024;
    mt_experiment e = mt_exp_cluster_chase(2, 1, 4096, 4, 1, 64, MT_MODE_AGGREGATE);
    assert_int_equal(e.kind, MT_KIND_CLUSTER);
    assert_int_equal(e.scope, MT_SCOPE_GPU);
    expect(&e, &d, MT_OK, NULL);
    e = mt_exp_cluster_chase(17, 1, 4096, 4, 1, 64, MT_MODE_AGGREGATE);
    expect(&e, &d, MT_ERR_INVALID_ARG, "2..16");
    e = mt_exp_cluster_chase(4, 4, 4096, 4, 1, 64, MT_MODE_AGGREGATE);
    expect(&e, &d, MT_ERR_INVALID_ARG, "target block 4");
    e = mt_exp_cluster_chase(2, 0, 4096, 4, 1, 64, MT_MODE_FINE);
    expect(&e, &d, MT_ERR_INVALID_ARG, "aggregate");
    e = mt_exp_cluster_chase(2, 0, 64 << 10, 4, 1, 64, MT_MODE_AGGREGATE);
    expect(&e, &d, MT_ERR_INVALID_ARG, "one block may use");

    e = mt_exp_cluster_stream(16, 1, 1024, 32 << 10, 8);
    expect(&e, &d, MT_OK, NULL);
    e = mt_exp_cluster_stream(2, 0, 1024, 32 << 10, 8);
    expect(&e, &d, MT_ERR_INVALID_ARG, "another block");
    e = mt_exp_cluster_stream(2, 1, 1000, 32 << 10, 8);
    expect(&e, &d, MT_ERR_INVALID_ARG, "multiple of 32");
    e = mt_exp_cluster_stream(2, 1, 1024, 1000, 8);
    expect(&e, &d, MT_ERR_INVALID_ARG, "multiple of 16");
    e = mt_exp_cluster_stream(2, 1, 1024, 32 << 10, 8);
    e.loads = 9;
    expect(&e, &d, MT_ERR_INVALID_ARG, "loads = repeats");

    e = mt_exp_cluster_copy(MT_CLUSTER_BULK_COPY, 132, 32, 32 << 10, 64);
    expect(&e, &d, MT_ERR_INVALID_ARG, "cg path"); /* 132 blocks x 32 KiB: beyond the 1 MiB limit */
    d.path_limit_bytes[MT_PATH_GLOBAL_CG] = 1 << 30;
    expect(&e, &d, MT_OK, NULL);
    e = mt_exp_cluster_copy(MT_CLUSTER_PLAIN_COPY, 1, 256, 1024, 64);
    expect(&e, &d, MT_OK, NULL);
    e.u.cluster.cluster_size = 2;
    expect(&e, &d, MT_ERR_INVALID_ARG, "cluster size 1");

    /* Before Hopper: no clusters, no bulk copies. */
    d.cc_major = 8;
    e = mt_exp_cluster_copy(MT_CLUSTER_BULK_COPY, 1, 32, 1024, 64);
    expect(&e, &d, MT_ERR_UNSUPPORTED, "9.0");
    e = mt_exp_cluster_chase(2, 1, 4096, 4, 1, 64, MT_MODE_AGGREGATE);
    e.u.cluster.op = MT_CLUSTER_OP_COUNT;
    expect(&e, &d, MT_ERR_INVALID_ARG, "unknown op");
    d.max_cluster_size = 0;
    expect(&e, &d, MT_ERR_UNSUPPORTED, "no thread-block clusters");

    for (int op = 0; op < MT_CLUSTER_OP_COUNT; op++) {
        mt_cluster_op back = MT_CLUSTER_OP_COUNT;
        assert_int_equal(mt_cluster_op_from_name(mt_cluster_op_name((mt_cluster_op)op), &back), 0);
        assert_int_equal(back, op);
    }
    assert_string_equal(mt_cluster_op_name(MT_CLUSTER_BULK_COPY), "bulk_copy");
    assert_string_equal(mt_cluster_op_name(MT_CLUSTER_OP_COUNT), "?");
}

static void test_kind_names(void **state)
{
    (void)state;
    const char *want[] = {"chase", "sequence", "stream", "banks", "cluster", "clock", "icache",
                          "access", "link", "evict"};
    assert_int_equal(sizeof want / sizeof want[0], MT_KIND_COUNT);
    for (int k = 0; k < MT_KIND_COUNT; k++) {
        assert_string_equal(mt_kind_name((mt_exp_kind)k), want[k]);
        mt_exp_kind back = MT_KIND_COUNT;
        assert_int_equal(mt_kind_from_name(want[k], &back), 0);
        assert_int_equal(back, k);
    }
    assert_string_equal(mt_kind_name(MT_KIND_COUNT), "?");
    assert_string_equal(mt_kind_name((mt_exp_kind)-3), "?");
    mt_exp_kind k = MT_KIND_STREAM;
    assert_int_equal(mt_kind_from_name("Chase", &k), -1);
    assert_int_equal(mt_kind_from_name("", &k), -1);
    assert_int_equal(mt_kind_from_name(NULL, &k), -1);
    assert_int_equal(k, MT_KIND_STREAM); /* untouched on failure */
    mt_path p;
    assert_int_equal(mt_path_from_name("tex", &p), 0);
    assert_int_equal(p, MT_PATH_TEXTURE);
    assert_int_equal(mt_path_from_name("chase", &p), -1);
}

/* MT_KIND_ICACHE (backend.h, mt_icache): the builder's shape passes,
 * every departure from it and every size off the instruction grid or out
 * of range fails, and the hash covers the code size. */
static void test_icache_checks(void **state)
{
    (void)state;
    mt_device_info d = device();
    mt_experiment e = mt_exp_icache(4096, 9);
    assert_int_equal(e.kind, MT_KIND_ICACHE);
    assert_int_equal(e.sm, -1);
    assert_int_equal(e.warmup_laps, 1);
    assert_int_equal(e.loads, 9);
    expect(&e, &d, MT_OK, NULL);
    mt_experiment x = mt_exp_icache(4096 + 8, 9);
    expect(&x, &d, MT_ERR_INVALID_ARG, "multiple of 16");
    x = mt_exp_icache(MT_ICACHE_MIN_BYTES - 16, 9);
    expect(&x, &d, MT_ERR_INVALID_ARG, "B of code");
    x = mt_exp_icache(MT_ICACHE_MAX_BYTES + 16, 9);
    expect(&x, &d, MT_ERR_INVALID_ARG, "B of code");
    x = mt_exp_icache(MT_ICACHE_MAX_BYTES, 9);
    expect(&x, &d, MT_OK, NULL);
    x = mt_exp_icache(4096, MT_ICACHE_MAX_LAPS + 1);
    expect(&x, &d, MT_ERR_INVALID_ARG, "timed laps");
    x = e;
    x.sm = 0;
    expect(&x, &d, MT_ERR_INVALID_ARG, "any SM");
    x = e;
    x.warmup_laps = 0;
    expect(&x, &d, MT_ERR_INVALID_ARG, "warm laps");
    x = e;
    x.mode = MT_MODE_AGGREGATE;
    expect(&x, &d, MT_ERR_INVALID_ARG, "fine mode");
    x = e;
    x.chain[0].path = MT_PATH_GLOBAL_CA;
    expect(&x, &d, MT_ERR_INVALID_ARG, "`none` chain");
    x = mt_exp_with_carveout(e, 50);
    expect(&x, &d, MT_ERR_UNSUPPORTED, "default carveout");
    mt_experiment y = mt_exp_icache(8192, 9);
    assert_int_not_equal(mt_experiment_hash(1, &e), mt_experiment_hash(1, &y));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chase_builder_defaults),
        cmocka_unit_test(test_chase_hash_is_version_1),
        cmocka_unit_test(test_chase_hash_ignores_kind_parameters),
        cmocka_unit_test(test_sequence_hash_covers_every_parameter),
        cmocka_unit_test(test_other_kinds_hash_their_parameters),
        cmocka_unit_test(test_sequence_checks),
        cmocka_unit_test(test_kind_checks),
        cmocka_unit_test(test_cluster_checks),
        cmocka_unit_test(test_kind_names),
        cmocka_unit_test(test_icache_checks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

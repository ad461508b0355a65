/* The set-associative cache model on its own: replacement policies, sector
 * and fill semantics, index functions, reset. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/rng.h"
#include "sim/cache.h"
#include "sim/spec.h"

static mt_sim_cache_spec geometry(uint64_t size, uint32_t line, uint32_t sector, uint32_t ways,
                                  mt_sim_repl repl)
{
    mt_sim_cache_spec cs;
    memset(&cs, 0, sizeof cs);
    snprintf(cs.name, sizeof cs.name, "t");
    cs.size = size;
    cs.line = line;
    cs.sector = sector;
    cs.fill = sector;
    cs.ways = ways;
    cs.repl = repl;
    cs.slices = 1;
    cs.partitions = 1;
    return cs;
}

static void init(mt_cache *c, const mt_sim_cache_spec *cs)
{
    mt_errinfo ei = {{0}};
    if (mt_cache_init(c, cs, &ei))
        fail_msg("%s", ei.msg);
}

/* One set of 4 ways of 64 B lines: line k at address k * 64. */
#define L(k) ((uint64_t)(k) * 64)

static void test_lru_eviction_order(void **state)
{
    (void)state;
    mt_sim_cache_spec cs = geometry(256, 64, 64, 4, MT_SIM_REPL_LRU);
    mt_cache c;
    init(&c, &cs);
    mt_rng r = {1};
    for (int k = 0; k < 4; k++) /* A B C D fill the empty ways in order */
        assert_int_equal(mt_cache_access(&c, L(k), &r, NULL), 0);
    assert_int_equal(mt_cache_access(&c, L(0), &r, NULL), 1);  /* A: now most recent */
    int way = -1;
    assert_int_equal(mt_cache_access(&c, L(4), &r, &way), 0);  /* E evicts B (LRU) */
    assert_int_equal(way, 1);
    assert_int_equal(mt_cache_access(&c, L(0), &r, NULL), 1);  /* A still there */
    assert_int_equal(mt_cache_access(&c, L(2), &r, NULL), 1);  /* C still there */
    assert_int_equal(mt_cache_access(&c, L(1), &r, &way), 0);  /* B gone; evicts D */
    assert_int_equal(way, 3);
    assert_int_equal(mt_cache_access(&c, L(3), &r, NULL), 0);  /* D gone */
    mt_cache_free(&c);
}

static void test_lru_sequential_thrash(void **state)
{
    (void)state;
    /* The classic pointer-chase property: a cyclic sweep over ways + 1
     * lines of one set misses every time under LRU. */
    mt_sim_cache_spec cs = geometry(256, 64, 64, 4, MT_SIM_REPL_LRU);
    mt_cache c;
    init(&c, &cs);
    mt_rng r = {1};
    int hits = 0;
    for (int lap = 0; lap < 10; lap++)
        for (int k = 0; k < 5; k++)
            hits += mt_cache_access(&c, L(k), &r, NULL);
    assert_int_equal(hits, 0);
    mt_cache_free(&c);
}

/* Tree pseudo-LRU on one 4-way set, bits derived by hand: filling A B C D
 * (ways 0-3) leaves the tree pointing at way 0, like LRU; a hit on A then
 * points the root at the right half, whose node still points at way 2 (C),
 * while LRU's victim would be B. */
static void test_plru_differs_from_lru(void **state)
{
    (void)state;
    mt_sim_cache_spec plru = geometry(256, 64, 64, 4, MT_SIM_REPL_PLRU);
    mt_sim_cache_spec lru = geometry(256, 64, 64, 4, MT_SIM_REPL_LRU);
    mt_cache p, l;
    init(&p, &plru);
    init(&l, &lru);
    mt_rng r = {1};
    for (int k = 0; k < 4; k++) {
        assert_int_equal(mt_cache_access(&p, L(k), &r, NULL), 0);
        assert_int_equal(mt_cache_access(&l, L(k), &r, NULL), 0);
    }
    assert_int_equal(mt_cache_access(&p, L(0), &r, NULL), 1);
    assert_int_equal(mt_cache_access(&l, L(0), &r, NULL), 1);
    int way = -1;
    assert_int_equal(mt_cache_access(&p, L(4), &r, &way), 0); /* E evicts C */
    assert_int_equal(way, 2);
    assert_int_equal(mt_cache_access(&l, L(4), &r, &way), 0); /* E evicts B */
    assert_int_equal(way, 1);
    assert_int_equal(mt_cache_access(&p, L(1), &r, NULL), 1); /* B kept by PLRU ... */
    assert_int_equal(mt_cache_access(&l, L(1), &r, NULL), 0); /* ... not by LRU */
    assert_int_equal(mt_cache_access(&p, L(2), &r, NULL), 0); /* C was PLRU's victim */
    mt_cache_free(&p);
    mt_cache_free(&l);
}

/* A cyclic sweep over ways + 1 lines, which LRU misses every time: under
 * tree PLRU the second lap hits B once (hand-traced: A's refill lands in
 * C's way, leaving B alone), and the third lap misses throughout. */
static void test_plru_cyclic_sweep(void **state)
{
    (void)state;
    mt_sim_cache_spec cs = geometry(256, 64, 64, 4, MT_SIM_REPL_PLRU);
    mt_cache c;
    init(&c, &cs);
    mt_rng r = {1};
    static const int expect[3][5] = {{0, 0, 0, 0, 0}, {0, 1, 0, 0, 0}, {0, 0, 0, 0, 0}};
    for (int lap = 0; lap < 3; lap++)
        for (int k = 0; k < 5; k++)
            assert_int_equal(mt_cache_access(&c, L(k), &r, NULL), expect[lap][k]);
    /* Reset clears the tree with the lines: the fill order starts over. */
    mt_cache_reset(&c);
    int way = -1;
    for (int k = 0; k < 4; k++) {
        assert_int_equal(mt_cache_access(&c, L(k + 10), &r, &way), 0);
        assert_int_equal(way, k);
    }
    assert_int_equal(mt_cache_access(&c, L(20), &r, &way), 0); /* tree points at way 0 */
    assert_int_equal(way, 0);
    mt_cache_free(&c);
}

static void test_fifo(void **state)
{
    (void)state;
    mt_sim_cache_spec cs = geometry(256, 64, 64, 4, MT_SIM_REPL_FIFO);
    mt_cache c;
    init(&c, &cs);
    mt_rng r = {1};
    for (int k = 0; k < 4; k++)
        mt_cache_access(&c, L(k), &r, NULL);
    assert_int_equal(mt_cache_access(&c, L(0), &r, NULL), 1); /* hit does not refresh A */
    int way = -1;
    assert_int_equal(mt_cache_access(&c, L(4), &r, &way), 0);  /* E evicts A, the oldest fill */
    assert_int_equal(way, 0);
    assert_int_equal(mt_cache_access(&c, L(1), &r, NULL), 1);
    assert_int_equal(mt_cache_access(&c, L(0), &r, &way), 0);  /* A gone; evicts B */
    assert_int_equal(way, 1);
    mt_cache_free(&c);
}

/* Cold stride-4 chase over sectored lines: one miss per sector. */
static void test_sector_fill(void **state)
{
    (void)state;
    mt_sim_cache_spec cs = geometry(4096, 128, 32, 4, MT_SIM_REPL_LRU);
    mt_cache c;
    init(&c, &cs);
    mt_rng r = {1};
    int misses = 0;
    for (uint64_t a = 0; a < 2048; a += 4) {
        int hit = mt_cache_access(&c, a, &r, NULL);
        if (!hit) {
            misses++;
            assert_int_equal(a % 32, 0); /* only the first word of a sector misses */
        }
    }
    assert_int_equal(misses, 2048 / 32);
    /* the sector misses of one line did not allocate new lines: the 16
     * lines touched are all still present (capacity 32 lines) */
    for (uint64_t a = 0; a < 2048; a += 32)
        assert_int_equal(mt_cache_access(&c, a, &r, NULL), 1);
    mt_cache_free(&c);

    /* fill = 64: a miss brings two sectors */
    cs.fill = 64;
    init(&c, &cs);
    misses = 0;
    for (uint64_t a = 0; a < 2048; a += 4)
        misses += !mt_cache_access(&c, a, &r, NULL);
    assert_int_equal(misses, 2048 / 64);
    mt_cache_free(&c);
}

static void test_sector_miss_keeps_line(void **state)
{
    (void)state;
    /* One set, 2 ways, 4 sectors per line.  A sector miss on a present line
     * is a miss but reuses the line (no eviction of the other way). */
    mt_sim_cache_spec cs = geometry(256, 128, 32, 2, MT_SIM_REPL_LRU);
    mt_cache c;
    init(&c, &cs);
    mt_rng r = {1};
    assert_int_equal(mt_cache_access(&c, 0, &r, NULL), 0);
    assert_int_equal(mt_cache_access(&c, 128, &r, NULL), 0);
    int way = -1;
    assert_int_equal(mt_cache_access(&c, 32, &r, &way), 0); /* sector miss on line 0 */
    assert_int_equal(way, 0);
    assert_int_equal(mt_cache_access(&c, 128, &r, NULL), 1); /* other line still there */
    assert_int_equal(mt_cache_access(&c, 0, &r, NULL), 1);
    assert_int_equal(mt_cache_access(&c, 32, &r, NULL), 1);
    assert_int_equal(mt_cache_access(&c, 64, &r, NULL), 0);
    mt_cache_free(&c);
}

static void test_fully_associative(void **state)
{
    (void)state;
    /* 16 lines of 32 B.  Addresses 512 B apart all fall into set 0 of a
     * 4-way modulo cache (4 sets), so 8 of them thrash it; fully
     * associative, all 8 fit. */
    mt_rng r = {1};
    mt_sim_cache_spec cs = geometry(512, 32, 32, 16, MT_SIM_REPL_LRU);
    cs.fully_assoc = 1;
    mt_cache c;
    init(&c, &cs);
    assert_int_equal(c.sets, 1);
    int hits = 0;
    for (int lap = 0; lap < 3; lap++)
        for (int k = 0; k < 8; k++)
            hits += mt_cache_access(&c, (uint64_t)k * 512, &r, NULL);
    assert_int_equal(hits, 16); /* laps 2 and 3 all hit */
    mt_cache_free(&c);

    cs = geometry(512, 32, 32, 4, MT_SIM_REPL_LRU);
    init(&c, &cs);
    hits = 0;
    for (int lap = 0; lap < 3; lap++)
        for (int k = 0; k < 8; k++)
            hits += mt_cache_access(&c, (uint64_t)k * 512, &r, NULL);
    assert_int_equal(hits, 0);
    mt_cache_free(&c);
}

static void check_block_covers_all_sets(mt_cache *c, uint64_t first_line)
{
    /* sets consecutive lines starting at a multiple of sets: every set once */
    uint32_t *seen = calloc(c->sets, sizeof *seen);
    assert_non_null(seen);
    for (uint64_t k = 0; k < c->sets; k++)
        seen[mt_cache_set_of(c, (first_line + k) << c->line_shift)]++;
    for (uint32_t s = 0; s < c->sets; s++)
        assert_int_equal(seen[s], 1);
    free(seen);
}

static void test_xor_index(void **state)
{
    (void)state;
    mt_sim_cache_spec cs = geometry(64 * 4 * 128, 128, 128, 4, MT_SIM_REPL_LRU); /* 64 sets */
    mt_cache mod, x;
    init(&mod, &cs);
    cs.index = MT_SIM_INDEX_XOR;
    init(&x, &cs);
    assert_int_equal(x.sets, 64);
    /* stride of sets * line: modulo maps all to one set, xor spreads them */
    uint64_t stride = 64 * 128;
    uint32_t mod_set0 = mt_cache_set_of(&mod, 0);
    int distinct = 0;
    uint8_t used[64] = {0};
    for (uint64_t k = 0; k < 64; k++) {
        assert_int_equal(mt_cache_set_of(&mod, k * stride), mod_set0);
        uint32_t s = mt_cache_set_of(&x, k * stride);
        distinct += !used[s];
        used[s] = 1;
    }
    assert_int_equal(distinct, 64);
    /* ... so the xor cache holds 64 such lines where modulo holds 4 */
    mt_rng r = {1};
    int hits_mod = 0, hits_x = 0;
    for (int lap = 0; lap < 2; lap++)
        for (uint64_t k = 0; k < 64; k++) {
            hits_mod += mt_cache_access(&mod, k * stride, &r, NULL);
            hits_x += mt_cache_access(&x, k * stride, &r, NULL);
        }
    assert_int_equal(hits_mod, 0);
    assert_int_equal(hits_x, 64);
    /* still balanced for contiguous data */
    check_block_covers_all_sets(&x, 0);
    check_block_covers_all_sets(&x, 64 * 37);
    mt_cache_free(&mod);
    mt_cache_free(&x);

    /* non power-of-two set count (H100 L2: 25,600 sets) stays balanced */
    cs = geometry(50ull << 20, 128, 32, 16, MT_SIM_REPL_LRU);
    cs.index = MT_SIM_INDEX_XOR;
    init(&x, &cs);
    assert_int_equal(x.sets, 25600);
    check_block_covers_all_sets(&x, 0);
    check_block_covers_all_sets(&x, 25600ull * 5);
    mt_cache_free(&x);
}

/* index = hash: set bit i is the parity of the line address under mask i.
 * 8 sets of one way; masks 0x9, 0x12, 0x24 make set bit i = line bit i XOR
 * line bit i+3. */
static void test_hash_index(void **state)
{
    (void)state;
    mt_sim_cache_spec cs = geometry(8 * 64, 64, 64, 1, MT_SIM_REPL_LRU);
    cs.index = MT_SIM_INDEX_HASH;
    cs.index_mask[0] = 0x9;
    cs.index_mask[1] = 0x12;
    cs.index_mask[2] = 0x24;
    cs.n_index_masks = 3;
    mt_cache c;
    init(&c, &cs);
    assert_int_equal(c.sets, 8);
    static const struct {
        uint64_t line;
        uint32_t set;
    } want[] = {
        {0, 0},    {1, 1},    {5, 5},    {8, 1}, /* bit 3 flips set bit 0 */
        {9, 0},    {0x10, 2}, {0x20, 4}, {0x3F, 0},
        {0x38, 7}, {0x40, 0}, /* bit 6 is in no mask */
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        assert_int_equal(mt_cache_set_of(&c, want[i].line * 64 + 17), want[i].set);
    /* Contiguous data fills every set: each aligned block of 8 lines. */
    for (uint64_t b = 0; b < 16; b++)
        check_block_covers_all_sets(&c, b * 8);
    /* Lines 0 and 9 conflict in set 0 (one way): the second evicts the first. */
    mt_rng r = {1};
    assert_int_equal(mt_cache_access(&c, 0, &r, NULL), 0);
    assert_int_equal(mt_cache_access(&c, 9 * 64, &r, NULL), 0);
    assert_int_equal(mt_cache_access(&c, 0, &r, NULL), 0);
    /* Lines 0 and 8 do not (sets 0 and 1). */
    assert_int_equal(mt_cache_access(&c, 8 * 64, &r, NULL), 0);
    assert_int_equal(mt_cache_access(&c, 0, &r, NULL), 1);
    mt_cache_free(&c);

    /* A mask count that does not match the sets is refused, not guessed. */
    cs.n_index_masks = 2;
    mt_errinfo ei = {{0}};
    assert_int_equal(mt_cache_init(&c, &cs, &ei), MT_ERR_INVALID_ARG);
}

static void test_modulo_non_pow2(void **state)
{
    (void)state;
    /* the set index avoids a division for 32-bit line numbers: compare with
     * the plain remainder on both sides of 2^32 */
    mt_sim_cache_spec cs = geometry(50ull << 20, 128, 32, 16, MT_SIM_REPL_LRU); /* 25600 sets */
    mt_cache c;
    init(&c, &cs);
    mt_rng r = {3};
    for (int i = 0; i < 100000; i++) {
        uint64_t line = i < 50000 ? mt_rng_next(&r) >> 32 : mt_rng_next(&r) >> 20;
        if (i < 10)
            line = UINT32_MAX - (uint64_t)i; /* the edge of the fast path */
        assert_int_equal(mt_cache_set_of(&c, line << 7), line % 25600);
    }
    mt_cache_free(&c);
}

static void test_fermi_victim_frequencies(void **state)
{
    (void)state;
    /* Mei et al.: with 4 ways the designated way is replaced with
     * probability 1/2, each other way 1/6. */
    mt_sim_cache_spec cs = geometry(256, 64, 64, 4, MT_SIM_REPL_FERMI);
    cs.fermi_way = 1;
    mt_cache c;
    init(&c, &cs);
    mt_rng r = {42};
    for (int k = 0; k < 4; k++) {
        int way = -1;
        mt_cache_access(&c, L(k), &r, &way);
        assert_int_equal(way, k); /* empty ways are filled first, in order */
    }
    enum { N = 60000 };
    int count[4] = {0};
    for (int k = 0; k < N; k++) {
        int way = -1;
        assert_int_equal(mt_cache_access(&c, L(100 + k), &r, &way), 0);
        count[way]++;
    }
    /* binomial stddev at N = 60000 is < 0.0021; 0.01 is ~5 sigma */
    assert_true(fabs((double)count[1] / N - 0.5) < 0.01);
    for (int w = 0; w < 4; w++)
        if (w != 1)
            assert_true(fabs((double)count[w] / N - 1.0 / 6) < 0.01);
    mt_cache_free(&c);
}

static void test_random_policy(void **state)
{
    (void)state;
    mt_sim_cache_spec cs = geometry(256, 64, 64, 4, MT_SIM_REPL_RANDOM);
    mt_cache c;
    init(&c, &cs);
    mt_rng r = {7};
    for (int k = 0; k < 4; k++) {
        int way = -1;
        mt_cache_access(&c, L(k), &r, &way);
        assert_int_equal(way, k);
    }
    for (int k = 0; k < 4; k++) /* nothing was evicted while ways were empty */
        assert_int_equal(mt_cache_access(&c, L(k), &r, NULL), 1);
    enum { N = 40000 };
    int count[4] = {0};
    for (int k = 0; k < N; k++) {
        int way = -1;
        mt_cache_access(&c, L(100 + k), &r, &way);
        count[way]++;
    }
    for (int w = 0; w < 4; w++)
        assert_true(fabs((double)count[w] / N - 0.25) < 0.012);
    mt_cache_free(&c);
}

static void test_reset(void **state)
{
    (void)state;
    mt_sim_cache_spec cs = geometry(4096, 128, 32, 4, MT_SIM_REPL_LRU);
    mt_cache c;
    init(&c, &cs);
    mt_rng r = {1};
    for (uint64_t a = 0; a < 4096; a += 32)
        mt_cache_access(&c, a, &r, NULL);
    for (uint64_t a = 0; a < 4096; a += 32)
        assert_int_equal(mt_cache_access(&c, a, &r, NULL), 1);
    mt_cache_reset(&c);
    for (uint64_t a = 0; a < 4096; a += 32)
        assert_int_equal(mt_cache_access(&c, a, &r, NULL), 0);
    /* after a reset empty ways are filled before anything is evicted */
    for (uint64_t a = 0; a < 4096; a += 32)
        assert_int_equal(mt_cache_access(&c, a, &r, NULL), 1);
    mt_cache_free(&c);
}

/* carveout_takes = ways: a 16-line array of 4 sets of 4 ways, 3 lines lent
 * to shared memory: set 0 holds 4 lines, sets 1..3 hold 3 (modulo: set k's
 * lines are k, k + 4, ...). */
static void test_carveout_takes_ways(void **state)
{
    (void)state;
    mt_sim_cache_spec cs = geometry(16 * 64 - 3 * 64, 64, 64, 4, MT_SIM_REPL_LRU);
    cs.unified = 16 * 64;
    cs.carveout_ways = 1;
    mt_cache c;
    init(&c, &cs);
    assert_int_equal(c.sets, 4);
    mt_rng r = {1};
    for (uint32_t set = 0; set < 4; set++) {
        uint32_t usable = mt_sim_set_ways(&cs, 3 * 64, set), hits = 0;
        assert_int_equal(usable, set == 0 ? 4 : 3);
        for (int lap = 0; lap < 2; lap++)
            for (uint32_t k = 0; k < 4; k++)
                hits += (uint32_t)mt_cache_access(&c, L(set + 4 * k), &r, NULL);
        /* LRU: four lines in three ways miss on every access; in four
         * ways the second lap hits */
        assert_int_equal(hits, usable == 4 ? 4 : 0);
    }
    mt_cache_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lru_eviction_order),
        cmocka_unit_test(test_lru_sequential_thrash),
        cmocka_unit_test(test_plru_differs_from_lru),
        cmocka_unit_test(test_plru_cyclic_sweep),
        cmocka_unit_test(test_fifo),
        cmocka_unit_test(test_sector_fill),
        cmocka_unit_test(test_sector_miss_keeps_line),
        cmocka_unit_test(test_fully_associative),
        cmocka_unit_test(test_xor_index),
        cmocka_unit_test(test_hash_index),
        cmocka_unit_test(test_modulo_non_pow2),
        cmocka_unit_test(test_fermi_victim_frequencies),
        cmocka_unit_test(test_random_policy),
        cmocka_unit_test(test_reset),
        cmocka_unit_test(test_carveout_takes_ways),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

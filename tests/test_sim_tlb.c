/* The simulator's TLB levels (issue 9): the LRU structure against a plain
 * reference, the [tlb NAME] sections of the spec format (values, limits,
 * FILE:LINE errors) and the penalties the engine adds to loads. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/rng.h"
#include "sim/sim.h"
#include "sim/spec.h"
#include "sim/tlb.h"

/* ---- the LRU structure ---- */

/* Reference LRU: pages in recency order, most recent first. */
typedef struct {
    uint64_t page[64];
    uint32_t n, cap;
} naive_lru;

static int naive_access(naive_lru *l, uint64_t page)
{
    uint32_t i = 0;
    while (i < l->n && l->page[i] != page)
        i++;
    int hit = i < l->n;
    if (!hit && l->n < l->cap)
        l->n++;
    if (!hit)
        i = l->n - 1; /* the least recent (or the new last slot) is overwritten */
    memmove(&l->page[1], &l->page[0], i * sizeof l->page[0]);
    l->page[0] = page;
    return hit;
}

static void test_lru_matches_reference(void **state)
{
    (void)state;
    /* Few distinct pages over a small table: many collisions, evictions
     * and backward shifts of the hash table's probe runs. */
    static const uint32_t caps[] = {1, 2, 3, 5, 16, 33};
    for (size_t c = 0; c < sizeof caps / sizeof caps[0]; c++) {
        mt_tlb t;
        mt_errinfo ei = {{0}};
        assert_int_equal(mt_tlb_init(&t, caps[c], &ei), MT_OK);
        naive_lru ref = {.cap = caps[c]};
        mt_rng r = {.s = 42 + c};
        for (int k = 0; k < 20000; k++) {
            uint64_t page = mt_rng_below(&r, 3 * caps[c] + 2) * 977; /* spread hash inputs */
            int want = naive_access(&ref, page);
            int got = mt_tlb_access(&t, page);
            if (got != want)
                fail_msg("capacity %u, access %d of page %llu: got %d, want %d", caps[c], k,
                         (unsigned long long)page, got, want);
            if (k == 10000) { /* a reset empties both */
                mt_tlb_reset(&t);
                ref.n = 0;
            }
        }
        mt_tlb_free(&t);
    }
}

static void test_lru_cyclic_thrash(void **state)
{
    (void)state;
    mt_tlb t;
    mt_errinfo ei = {{0}};
    assert_int_equal(mt_tlb_init(&t, 8, &ei), MT_OK);
    int hits = 0;
    for (int lap = 0; lap < 3; lap++) /* 8 pages fit: only the first lap misses */
        for (uint64_t p = 0; p < 8; p++)
            hits += mt_tlb_access(&t, p);
    assert_int_equal(hits, 16);
    mt_tlb_reset(&t);
    hits = 0;
    for (int lap = 0; lap < 3; lap++) /* 9 in a cycle: LRU misses every one */
        for (uint64_t p = 0; p < 9; p++)
            hits += mt_tlb_access(&t, p);
    assert_int_equal(hits, 0);
    mt_tlb_free(&t);
}

/* ---- the spec format ---- */

/* A spec whose TLBs the sparse chains can pass: 64 GiB of memory give a
 * 4 GiB path limit (the first level's least reach) and a 60 GiB sparse
 * limit (less a sixteenth).  Line numbers matter to the tests below. */
static const char *const base_lines[] = {
    "[device]",                      /* 1 */
    "name = TLB GPU",                /* 2 */
    "compute_capability = 9.0",      /* 3 */
    "sm_count = 4",                  /* 4 */
    "clock_mhz = 1000",              /* 5 */
    "mem_clock_mhz = 1000",          /* 6 */
    "bus_width_bits = 256",          /* 7 */
    "global_mem = 64 GiB",           /* 8 */
    "l2_size = 4 MiB",               /* 9 */
    "smem_per_sm = 64 KiB",          /* 10 */
    "smem_per_block = 48 KiB",       /* 11 */
    "smem_per_block_optin = 64 KiB", /* 12 */
    "const_mem = 64 KiB",            /* 13 */
    "max_threads_per_block = 1024",  /* 14 */
    "max_threads_per_sm = 2048",     /* 15 */
    "warp_size = 32",                /* 16 */
    "seed = 7",                      /* 17 */
    "timer_overhead = 10",           /* 18 */
    "loop_overhead = 8",             /* 19 */
    "[cache l2]",                    /* 20 */
    "serves = all",                  /* 21 */
    "size = 4 MiB",                  /* 22 */
    "line = 128",                    /* 23 */
    "ways = 16",                     /* 24 */
    "latency = 200",                 /* 25 */
    "[dram]",                        /* 26 */
    "latency = 400",                 /* 27 */
    "[shared]",                      /* 28 */
    "latency = 25",                  /* 29 */
    "[tlb a]",                       /* 30 */
    "entries = 2048",                /* 31 */
    "page = 2 MiB",                  /* 32 */
    "miss_penalty = 20",             /* 33 */
    "[tlb b]",                       /* 34 */
    "entries = 8192",                /* 35 */
    "page = 2 MiB",                  /* 36 */
    "miss_penalty = 100",            /* 37 */
};
#define BASE_N (sizeof base_lines / sizeof base_lines[0])

/* The base spec with line `at` (1-based) replaced by repl (NULL: deleted);
 * `extra` is appended. */
static char *variant(int at, const char *repl, const char *extra)
{
    char *buf = calloc(1, 8192);
    assert_non_null(buf);
    for (size_t i = 0; i < BASE_N; i++) {
        const char *line = (int)i + 1 == at ? repl : base_lines[i];
        if (!line)
            continue;
        strcat(buf, line);
        strcat(buf, "\n");
    }
    if (extra)
        strcat(buf, extra);
    return buf;
}

static void expect_error(int at, const char *repl, const char *extra, int line, const char *needle)
{
    char *text = variant(at, repl, extra);
    mt_sim_spec s;
    mt_errinfo ei = {{0}};
    mt_err err = mt_sim_spec_parse(text, "t.spec", &s, &ei);
    free(text);
    if (err != MT_ERR_SPEC_PARSE)
        fail_msg("expected an error at line %d (%s), got %d: %s", line, needle, err, ei.msg);
    char prefix[32];
    snprintf(prefix, sizeof prefix, "t.spec:%d: ", line);
    if (strncmp(ei.msg, prefix, strlen(prefix)) != 0 || !strstr(ei.msg, needle))
        fail_msg("expected '%s...%s', got '%s'", prefix, needle, ei.msg);
}

static void test_spec_reads_levels(void **state)
{
    (void)state;
    char *text = variant(0, NULL, NULL);
    mt_sim_spec s;
    mt_errinfo ei = {{0}};
    if (mt_sim_spec_parse(text, "t.spec", &s, &ei) != MT_OK)
        fail_msg("%s", ei.msg);
    free(text);
    assert_int_equal(s.n_tlbs, 2);
    assert_string_equal(s.tlb[0].name, "a");
    assert_int_equal(s.tlb[0].entries, 2048);
    assert_int_equal(s.tlb[0].page, 2u << 20);
    assert_true(s.tlb[0].miss_penalty == 20);
    assert_string_equal(s.tlb[1].name, "b");
    assert_int_equal(s.tlb[1].entries, 8192);
    assert_true(s.tlb[1].miss_penalty == 100);
    mt_device_info d;
    mt_sim_spec_device_info(&s, &d);
    assert_int_equal(d.sparse_limit_bytes, 60ull << 30);
}

static void test_spec_errors(void **state)
{
    (void)state;
    expect_error(30, "[tlb]", NULL, 30, "[tlb] needs a name");
    expect_error(34, "[tlb a]", NULL, 34, "duplicate section [tlb a]");
    expect_error(31, "entries = 0", NULL, 31, "out of range");
    expect_error(31, "entries = 65537", NULL, 31, "out of range");
    expect_error(31, "associativity = 4", NULL, 31, "unknown key 'associativity' in [tlb a]");
    expect_error(31, NULL, NULL, 30, "entries");
    expect_error(32, "page = 96 KiB", NULL, 32, "not a power of two");
    expect_error(32, "page = 2 GiB", NULL, 32, "out of range");
    expect_error(32, "page = 768 MiB", NULL, 32, "not a power of two");
    expect_error(32, "page = 32 KiB", NULL, 32, "out of range");
    expect_error(33, "miss_penalty = 4", NULL, 33, "out of range");
    expect_error(33, "latency.l1d = 4", NULL, 33, "unknown key");
    /* Across levels. */
    expect_error(35, "entries = 4096", NULL, 35, "below 4 x [tlb a]'s 2048");
    expect_error(36, "page = 1 MiB", NULL, 36, "differs from [tlb a]'s");
    /* The first level must cover the global path limit (4 GiB here). */
    expect_error(31, "entries = 1024", NULL, 31, "below the global path limit");
    expect_error(0, NULL,
                 "[tlb c]\nentries = 32768\npage = 2 MiB\nmiss_penalty = 9\n"
                 "[tlb d]\nentries = 131072\npage = 2 MiB\nmiss_penalty = 9\n",
                 42, "more than 3 [tlb] sections");
}

/* ---- what loads cost ---- */

static mt_backend *open_base(void)
{
    char *text = variant(0, NULL, NULL);
    mt_sim_spec s;
    mt_errinfo ei = {{0}};
    if (mt_sim_spec_parse(text, "t.spec", &s, &ei) != MT_OK)
        fail_msg("%s", ei.msg);
    free(text);
    mt_backend *b = NULL;
    if (mt_backend_sim_from_spec(&s, &b, &ei) != MT_OK)
        fail_msg("%s", ei.msg);
    return b;
}

/* Fine samples of a warm cg chase of n elements at this stride: every one
 * equal to want. */
static void expect_chase_at(mt_backend *b, uint32_t stride, uint32_t n, uint32_t warmup,
                            uint32_t want)
{
    mt_experiment e =
        mt_exp_chase(MT_PATH_GLOBAL_CG, (uint64_t)n * stride, stride, warmup, 2048, MT_MODE_FINE);
    mt_result r;
    mt_errinfo ei = {{0}};
    if (mt_backend_run(b, &e, 1, &r, &ei) != MT_OK)
        fail_msg("%s", ei.msg);
    for (uint32_t k = 0; k < r.n[0]; k++)
        if (r.cycles[0][k] != want)
            fail_msg("%u elements, load %u: %u cycles, want %u", n, k, r.cycles[0][k], want);
    mt_result_free(&r);
}

/* ... one per 2 MiB page (plus a line, so the L2 keeps them all). */
static void expect_chase(mt_backend *b, uint32_t n, uint32_t warmup, uint32_t want)
{
    expect_chase_at(b, (2u << 20) + 128, n, warmup, want);
}

static void test_penalties_per_level(void **state)
{
    (void)state;
    mt_backend *b = open_base();
    /* L2 hit 200 + timer 10; no noise in the base spec. */
    expect_chase(b, 2048, 1, 210);        /* within level a's reach */
    expect_chase(b, 2049, 1, 210 + 20);   /* a thrashes, b holds every page */
    expect_chase(b, 8192, 1, 210 + 20);
    expect_chase(b, 8193, 1, 210 + 120);  /* both thrash */
    /* Cold chain within the reach: the pages were translated when the chain
     * was built, so only the data misses (DRAM 400 + 10). */
    expect_chase(b, 2048, 0, 410);
    mt_backend_destroy(b);
}

/* Pages up to 1 GiB (above the 2 MiB large page): the base spec's levels
 * with 4 and 16 entries of 1 GiB, the least the path limit (4 GiB) allows. */
static void test_huge_pages(void **state)
{
    (void)state;
    char *text = variant(0, NULL, NULL);
    static const char *const from[] = {"entries = 2048", "entries = 8192", "page = 2 MiB",
                                       "page = 2 MiB"};
    static const char *const to[] = {"entries = 4\n   ", "entries = 16\n  ", "page = 1 GiB",
                                     "page = 1 GiB"};
    for (int i = 0; i < 4; i++) {
        char *at = strstr(text, from[i]);
        assert_non_null(at);
        memcpy(at, to[i], strlen(from[i])); /* in place: the rest of the line left blank */
    }
    mt_sim_spec s;
    mt_errinfo ei = {{0}};
    if (mt_sim_spec_parse(text, "t.spec", &s, &ei) != MT_OK)
        fail_msg("%s", ei.msg);
    free(text);
    assert_int_equal(s.tlb[0].entries, 4);
    assert_true(s.tlb[0].page == 1ull << 30 && s.tlb[1].page == 1ull << 30);
    mt_backend *b = NULL;
    if (mt_backend_sim_from_spec(&s, &b, &ei) != MT_OK)
        fail_msg("%s", ei.msg);
    uint32_t gib = (1u << 30) + 128;
    expect_chase_at(b, gib, 4, 1, 210);      /* one element per page, within a's 4 */
    expect_chase_at(b, gib, 5, 1, 210 + 20); /* a thrashes, b holds the 5 pages */
    expect_chase_at(b, gib, 17, 1, 210 + 120);
    /* 64 elements 64 MiB apart share 4 pages: every translation hits. */
    expect_chase_at(b, (64u << 20) + 128, 64, 1, 210);
    mt_backend_destroy(b);
}

static void test_sparse_limit(void **state)
{
    (void)state;
    mt_backend *b = open_base();
    mt_device_info d;
    mt_errinfo ei = {{0}};
    assert_int_equal(mt_backend_info(b, &d, &ei), MT_OK);
    /* Beyond the path limit only with a sparse stride, and only up to the
     * sparse limit. */
    mt_experiment e = mt_exp_chase(MT_PATH_GLOBAL_CG, 8ull << 30, 1u << 20, 1, 16, MT_MODE_FINE);
    assert_int_equal(mt_experiment_check(&e, &d, &ei), MT_OK);
    e.chain[0].stride = 32 << 10;
    assert_int_equal(mt_experiment_check(&e, &d, &ei), MT_ERR_INVALID_ARG);
    e.chain[0].stride = 1u << 20;
    e.chain[0].footprint = (60ull << 30) + (1u << 20);
    assert_int_equal(mt_experiment_check(&e, &d, &ei), MT_ERR_INVALID_ARG);
    e.chain[0].footprint = 8ull << 30;
    e.chain[0].path = MT_PATH_TEXTURE; /* not a sparse path */
    assert_int_equal(mt_experiment_check(&e, &d, &ei), MT_ERR_INVALID_ARG);
    mt_backend_destroy(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lru_matches_reference),
        cmocka_unit_test(test_lru_cyclic_thrash),
        cmocka_unit_test(test_spec_reads_levels),
        cmocka_unit_test(test_spec_errors),
        cmocka_unit_test(test_penalties_per_level),
        cmocka_unit_test(test_huge_pages),
        cmocka_unit_test(test_sparse_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

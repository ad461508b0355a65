/* The simulator's set-associative TLB levels and SM groups (issue 9):
 * the set structure against a plain per-set LRU, the `ways` and
 * `sms_per_group` keys (values, limits, FILE:LINE errors), and the
 * together experiments (backend 2.10) that let one SM's pages evict
 * another's in a shared level. */
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
#include "spec_error.h"

/* ---- the set structure ---- */

/* Reference: sets x ways pages, each set in recency order (most recent
 * first), the set the page number modulo the sets. */
typedef struct {
    uint64_t page[8][8];
    uint32_t n[8], sets, ways;
} naive_sets;

static int naive_access(naive_sets *l, uint64_t page)
{
    uint64_t *p = l->page[page % l->sets];
    uint32_t *n = &l->n[page % l->sets];
    uint32_t i = 0;
    while (i < *n && p[i] != page)
        i++;
    int hit = i < *n;
    if (!hit && *n < l->ways)
        (*n)++;
    if (!hit)
        i = *n - 1;
    memmove(&p[1], &p[0], i * sizeof p[0]);
    p[0] = page;
    return hit;
}

static void test_sets_match_reference(void **state)
{
    (void)state;
    static const uint32_t shapes[][2] = {{8, 1}, {8, 2}, {16, 4}, {64, 8}, {4, 2}};
    for (size_t c = 0; c < sizeof shapes / sizeof shapes[0]; c++) {
        uint32_t entries = shapes[c][0], ways = shapes[c][1];
        mt_tlb t;
        mt_errinfo ei = {{0}};
        assert_int_equal(mt_tlb_init_sets(&t, entries, ways, &ei), MT_OK);
        naive_sets ref = {.sets = entries / ways, .ways = ways};
        mt_rng r = {.s = 7 + c};
        for (int k = 0; k < 20000; k++) {
            uint64_t page = mt_rng_below(&r, 3 * entries);
            int want = naive_access(&ref, page);
            int got = mt_tlb_access(&t, page);
            if (got != want)
                fail_msg("%u entries of %u ways, access %d of page %llu: got %d, want %d",
                         entries, ways, k, (unsigned long long)page, got, want);
            if (k == 10000) {
                mt_tlb_reset(&t);
                memset(ref.n, 0, sizeof ref.n);
            }
        }
        mt_tlb_free(&t);
    }
}

/* A cyclic chase over pages 0, S, 2S ... (one set): W fit, W + 1 thrash;
 * over consecutive pages all the entries fit. */
static void test_sets_one_set_thrash(void **state)
{
    (void)state;
    mt_tlb t;
    mt_errinfo ei = {{0}};
    assert_int_equal(mt_tlb_init_sets(&t, 64, 4, &ei), MT_OK); /* 16 sets */
    int hits = 0;
    for (int lap = 0; lap < 3; lap++)
        for (uint64_t p = 0; p < 5; p++)
            hits += mt_tlb_access(&t, p * 16);
    assert_int_equal(hits, 0);
    mt_tlb_reset(&t);
    for (int lap = 0; lap < 3; lap++)
        for (uint64_t p = 0; p < 64; p++)
            hits += mt_tlb_access(&t, p);
    assert_int_equal(hits, 128);
    mt_tlb_free(&t);
}

/* ---- the keys ---- */

#define SPEC_HEAD                                                                              \
    "[device]\nname = TLB share GPU\ncompute_capability = 9.0\nsm_count = 8\nclock_mhz = "   \
    "1000\nmem_clock_mhz = 1000\nbus_width_bits = 256\nglobal_mem = 64 GiB\nl2_size = 4 "   \
    "MiB\nsmem_per_sm = 64 KiB\nsmem_per_block = 48 KiB\nsmem_per_block_optin = 64 KiB\n"  \
    "const_mem = 64 KiB\nmax_threads_per_block = 1024\nmax_threads_per_sm = 2048\nwarp_size " \
    "= 32\nseed = 7\ntimer_overhead = 10\nloop_overhead = 8\n[cache l2]\nserves = all\nsize " \
    "= 4 MiB\nline = 128\nways = 16\nlatency = 200\n[dram]\nlatency = 400\n[shared]\n"       \
    "latency = 25\n"
/* SPEC_HEAD is lines 1-29; the first [tlb] header is line 30. */

static mt_err parse_levels(const char *levels, mt_sim_spec *out, mt_errinfo *ei)
{
    char text[4096];
    snprintf(text, sizeof text, "%s%s", SPEC_HEAD, levels);
    return mt_sim_spec_parse(text, "share.spec", out, ei);
}

static void test_keys_read(void **state)
{
    (void)state;
    mt_sim_spec s;
    mt_errinfo ei = {{0}};
    if (parse_levels("[tlb a]\nentries = 2048\npage = 2 MiB\nmiss_penalty = 20\nways = 4\n"
                     "sms_per_group = 2\n"
                     "[tlb b]\nentries = 8192\npage = 2 MiB\nmiss_penalty = 90\n"
                     "sms_per_group = 4\n"
                     "[tlb c]\nentries = 65536\npage = 2 MiB\nmiss_penalty = 300\n"
                     "sms_per_group = all\nways = 65536\n",
                     &s, &ei) != MT_OK)
        fail_msg("%s", ei.msg);
    assert_int_equal(s.tlb[0].ways, 4);
    assert_int_equal(s.tlb[0].sms_per_group, 2);
    assert_int_equal(s.tlb[1].ways, 8192); /* absent: fully associative */
    assert_int_equal(s.tlb[1].sms_per_group, 4);
    assert_int_equal(s.tlb[2].ways, 65536);
    assert_int_equal(s.tlb[2].sms_per_group, 0); /* all */
    /* Absent: all, as before the key existed. */
    if (parse_levels("[tlb a]\nentries = 2048\npage = 2 MiB\nmiss_penalty = 20\n", &s, &ei))
        fail_msg("%s", ei.msg);
    assert_int_equal(s.tlb[0].sms_per_group, 0);
    assert_int_equal(s.tlb[0].ways, 2048);
}

static void test_keys_refused(void **state)
{
    (void)state;
    const char *lvl = "[tlb a]\nentries = 2048\npage = 2 MiB\nmiss_penalty = 20\n";
    char buf[1024];
    static const struct {
        const char *extra, *want;
    } bad[] = {
        {"ways = 3\n", "share.spec:34: ways = 3: a set-associative level has a power of two"},
        {"ways = 128\n", "share.spec:34: ways = 128: a set-associative level"},
        {"ways = 4096\n", "share.spec:34: ways = 4096 exceeds entries = 2048"},
        {"ways = 0\n", "share.spec:34: ways = 0 is out of range"},
        {"sms_per_group = 0\n", "share.spec:34: sms_per_group = 0 is out of range"},
        {"sms_per_group = some\n", "share.spec:34: sms_per_group"},
        {"sms_per_group = 9\n", "share.spec:34: [tlb a]: sms_per_group = 9 exceeds sm_count = 8"},
        /* The second level's groups are whole groups of the first's. */
        {"sms_per_group = 2\n[tlb b]\nentries = 8192\npage = 2 MiB\nmiss_penalty = 90\n"
         "sms_per_group = 3\n",
         "share.spec:39: [tlb b]: sms_per_group = 3 is not a multiple of [tlb a]'s group"},
        {"[tlb b]\nentries = 8192\npage = 2 MiB\nmiss_penalty = 90\nsms_per_group = 4\n",
         "share.spec:38: [tlb b]: sms_per_group = 4 is not a multiple of [tlb a]'s `all`"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(buf, sizeof buf, "%s%s", lvl, bad[i].extra);
        expect_spec_error(parse_levels, "share.spec", buf, bad[i].want);
    }
    /* Set-associative with entries not a power of two. */
    expect_spec_error(parse_levels, "share.spec",
                      "[tlb a]\nentries = 3072\npage = 2 MiB\nmiss_penalty = 20\nways = 4\n",
                      "share.spec:34: ways = 4 of entries = 3072");
}

/* ---- together experiments ---- */

static mt_backend *open_levels(const char *levels)
{
    mt_sim_spec s;
    mt_errinfo ei = {{0}};
    if (parse_levels(levels, &s, &ei) != MT_OK)
        fail_msg("%s", ei.msg);
    mt_backend *b = NULL;
    if (mt_backend_sim_from_spec(&s, &b, &ei) != MT_OK)
        fail_msg("%s", ei.msg);
    return b;
}

#define STRIDE ((2u << 20) + 128) /* one 2 MiB page per element, and a line */
#define N 1536                    /* 3/4 of the first level's 2048 entries */
#define LOADS 2048

static mt_experiment chase_on(int sm, uint64_t offset, uint32_t warm)
{
    mt_experiment e =
        mt_exp_chase(MT_PATH_GLOBAL_CG, (uint64_t)N * STRIDE, STRIDE, warm, LOADS, MT_MODE_FINE);
    e.sm = sm;
    e.chain[0].offset = offset;
    return e;
}

/* SM 0's samples (every one equal, no noise in the spec) with SM `other`
 * chasing N pages of its own beside it. */
static uint32_t sm0_beside(mt_backend *b, int other)
{
    mt_experiment e[2] = {chase_on(0, 0, 1), chase_on(other, (uint64_t)(N + 1) * STRIDE, 3)};
    e[0].together = e[1].together = 5;
    mt_result r[2];
    mt_errinfo ei = {{0}};
    if (mt_backend_run(b, e, 2, r, &ei) != MT_OK)
        fail_msg("%s", ei.msg);
    assert_int_equal(r[0].n[0], LOADS);
    assert_int_equal(r[1].n[0], LOADS);
    assert_int_equal(r[1].sm_ran, other);
    uint32_t first = r[0].cycles[0][0];
    for (uint32_t k = 0; k < r[0].n[0]; k++)
        if (r[0].cycles[0][k] != first)
            fail_msg("SM 0 beside SM %d, load %u: %u cycles, load 0 %u", other, k,
                     r[0].cycles[0][k], first);
    mt_result_free(&r[0]);
    mt_result_free(&r[1]);
    return first;
}

static void test_groups_of_two(void **state)
{
    (void)state;
    /* First level per pair of SMs, second level for the whole GPU. */
    mt_backend *b = open_levels("[tlb a]\nentries = 2048\npage = 2 MiB\nmiss_penalty = 20\n"
                                "sms_per_group = 2\n"
                                "[tlb b]\nentries = 8192\npage = 2 MiB\nmiss_penalty = 100\n");
    /* L2 hit 200 + timer 10: alone, and beside an SM of another pair. */
    assert_int_equal(sm0_beside(b, 2), 210);
    assert_int_equal(sm0_beside(b, 7), 210);
    /* Beside SM 1 (the same pair): 3072 pages through a's 2048 entries
     * miss every time, b holds them all. */
    assert_int_equal(sm0_beside(b, 1), 230);
    mt_backend_destroy(b);
}

static void test_whole_gpu_level(void **state)
{
    (void)state;
    mt_backend *b = open_levels("[tlb a]\nentries = 2048\npage = 2 MiB\nmiss_penalty = 20\n");
    assert_int_equal(sm0_beside(b, 7), 230); /* `all`: every SM shares it */
    /* Alone (no group), the same chain fits. */
    mt_experiment e = chase_on(0, 0, 1);
    mt_result r;
    mt_errinfo ei = {{0}};
    assert_int_equal(mt_backend_run(b, &e, 1, &r, &ei), MT_OK);
    assert_int_equal(r.cycles[0][0], 210);
    mt_result_free(&r);
    mt_backend_destroy(b);
}

static void test_together_refused(void **state)
{
    (void)state;
    mt_backend *b = open_levels("[tlb a]\nentries = 2048\npage = 2 MiB\nmiss_penalty = 20\n");
    mt_experiment e[2] = {chase_on(0, 0, 1), chase_on(0, (uint64_t)(N + 1) * STRIDE, 1)};
    e[0].together = e[1].together = 1;
    mt_result r[2];
    mt_errinfo ei = {{0}};
    assert_int_equal(mt_backend_run(b, e, 2, r, &ei), MT_ERR_INVALID_ARG);
    assert_non_null(strstr(ei.msg, "both run on SM 0"));
    e[1].sm = 1;
    e[1].chain[0].path = MT_PATH_GLOBAL_CA;
    e[1].scope = MT_SCOPE_SM;
    assert_int_equal(mt_backend_run(b, e, 2, r, &ei), MT_ERR_INVALID_ARG);
    assert_non_null(strstr(ei.msg, "one cg chain"));
    e[1] = chase_on(-1, 0, 1);
    e[1].together = 1;
    assert_int_equal(mt_backend_run(b, e, 2, r, &ei), MT_ERR_INVALID_ARG);
    assert_non_null(strstr(ei.msg, "planned SM"));
    mt_backend_destroy(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sets_match_reference),
        cmocka_unit_test(test_sets_one_set_thrash),
        cmocka_unit_test(test_keys_read),
        cmocka_unit_test(test_keys_refused),
        cmocka_unit_test(test_groups_of_two),
        cmocka_unit_test(test_whole_gpu_level),
        cmocka_unit_test(test_together_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

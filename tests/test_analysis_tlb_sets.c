/* The one-set pattern of a set-associative TLB level (analysis/tlb_sets.h):
 * the outcomes a level of S sets, W ways and page P gives at strides
 * T + h, computed here from the geometry, read back into P, S and S x W. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "analysis/tlb_sets.h"

#define MIB (1ull << 20)

/* Whether W + 1 pages at T + h (T a multiple of S x P) share one set:
 * element i's set is floor(i x h / P) mod S. */
static bool one_set(uint64_t h, uint64_t ways, uint64_t sets, uint64_t page)
{
    for (uint64_t i = 1; i <= ways; i++)
        if ((i * h / page) % sets)
            return false;
    return true;
}

static mt_tlb_sets fit_geometry(uint64_t t, uint64_t ways, uint64_t sets, uint64_t page,
                                uint64_t h_min)
{
    uint64_t h[40];
    bool thrash[40];
    size_t n = 0;
    for (uint64_t x = t / 2; x >= h_min; x /= 2, n++) {
        h[n] = x;
        thrash[n] = one_set(x, ways, sets, page);
    }
    return mt_tlb_sets_fit(t, ways, h, thrash, n);
}

static void test_geometries(void **state)
{
    (void)state;
    /* (sets, ways, page) over the simulator's range, met at the span and
     * at four times it. */
    static const uint64_t g[][3] = {{512, 4, 2 * MIB},    {2048, 8, MIB / 4}, {32, 16, 8 * MIB},
                                    {1024, 64, MIB / 16}, {2, 1, 64 * MIB},   {4096, 1, MIB / 16}};
    for (size_t k = 0; k < sizeof g / sizeof *g; k++)
        for (uint64_t m = 1; m <= 4; m *= 4) {
            uint64_t span = g[k][0] * g[k][2];
            mt_tlb_sets r = fit_geometry(m * span, g[k][1], g[k][0], g[k][2], 64);
            assert_int_equal(r.status, MT_TLB_SETS_OK);
            assert_true(r.page == g[k][2]);
            assert_true(r.sets == g[k][0]);
            assert_true(r.entries == g[k][0] * g[k][1]);
        }
}

/* One set of every stride (a fully associative level): nothing to read. */
static void test_no_band(void **state)
{
    (void)state;
    mt_tlb_sets r = fit_geometry(1024 * MIB, 16, 1, 16 * MIB, 4096);
    assert_int_equal(r.status, MT_TLB_SETS_NO_BAND);
}

/* The scan ends inside the band: only a bound on the page. */
static void test_no_floor(void **state)
{
    (void)state;
    mt_tlb_sets r = fit_geometry(1024 * MIB, 4, 512, 2 * MIB, 1 * MIB);
    assert_int_equal(r.status, MT_TLB_SETS_NO_FLOOR);
    assert_true(r.page >= 2 * MIB);
}

/* Two bands, or a ladder that does not halve: no geometry. */
static void test_inconsistent(void **state)
{
    (void)state;
    const uint64_t h[] = {512 * MIB, 256 * MIB, 128 * MIB, 64 * MIB, 32 * MIB};
    const bool two_bands[] = {false, true, false, true, true};
    assert_int_equal(mt_tlb_sets_fit(1024 * MIB, 4, h, two_bands, 5).status,
                     MT_TLB_SETS_INCONSISTENT);
    const uint64_t skip[] = {512 * MIB, 128 * MIB};
    const bool any[] = {false, true};
    assert_int_equal(mt_tlb_sets_fit(1024 * MIB, 4, skip, any, 2).status,
                     MT_TLB_SETS_INCONSISTENT);
    assert_int_equal(mt_tlb_sets_fit(1000, 4, h, any, 1).status, MT_TLB_SETS_INCONSISTENT);
}

/* A level past the first read by element 0's edges at 2, 4, 8 ... pages
 * apart (mt_tlb_next_fit). */
static void test_next_levels(void **state)
{
    (void)state;
    /* 4 sets of 64 ways: 128 at 2 pages, 64 at 4 and at 8 (one set). */
    const uint64_t m[] = {2, 4, 8}, e[] = {128, 64, 64};
    mt_tlb_next g = mt_tlb_next_fit(m, e, 3);
    assert_int_equal(g.status, MT_TLB_SETS_OK);
    assert_int_equal(g.entries, 256);
    assert_int_equal(g.ways_lo, 64);
    assert_int_equal(g.ways_hi, 64);
    assert_int_equal(g.sets, 4);
    /* Direct-mapped, 256 sets: halving at every stride tried (the edges
     * past the first level's): the ways at most the last edge. */
    const uint64_t e2[] = {128, 64};
    g = mt_tlb_next_fit(m, e2, 2);
    assert_int_equal(g.status, MT_TLB_SETS_OK);
    assert_int_equal(g.entries, 256);
    assert_int_equal(g.ways_lo, 1);
    assert_int_equal(g.ways_hi, 64);
    assert_int_equal(g.sets, 0);
    /* Strides whose edge lay beyond the chains first (0), then a halving. */
    const uint64_t m3[] = {2, 4, 8, 16}, e3[] = {0, 0, 200, 100};
    g = mt_tlb_next_fit(m3, e3, 4);
    assert_int_equal(g.status, MT_TLB_SETS_INCONSISTENT); /* 1600: no power of two */
    const uint64_t e4[] = {0, 128, 64, 64};
    g = mt_tlb_next_fit(m3, e4, 4);
    assert_int_equal(g.status, MT_TLB_SETS_OK);
    assert_int_equal(g.entries, 512);
    assert_int_equal(g.sets, 8);
    assert_int_equal(g.ways_hi, 64);
    /* One edge alone, or edges that neither halve nor hold: no count. */
    const uint64_t e5[] = {128, 0, 0};
    assert_int_equal(mt_tlb_next_fit(m, e5, 3).status, MT_TLB_SETS_INCONSISTENT);
    const uint64_t e6[] = {128, 100, 50};
    assert_int_equal(mt_tlb_next_fit(m, e6, 3).status, MT_TLB_SETS_INCONSISTENT);
    /* A fully associative level of 128: the same edge at every stride. */
    const uint64_t e7[] = {128, 128, 128};
    assert_int_equal(mt_tlb_next_fit(m, e7, 3).status, MT_TLB_SETS_INCONSISTENT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_geometries),
        cmocka_unit_test(test_no_band),
        cmocka_unit_test(test_no_floor),
        cmocka_unit_test(test_inconsistent),
        cmocka_unit_test(test_next_levels),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

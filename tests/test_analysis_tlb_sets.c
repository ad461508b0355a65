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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_geometries),
        cmocka_unit_test(test_no_band),
        cmocka_unit_test(test_no_floor),
        cmocka_unit_test(test_inconsistent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

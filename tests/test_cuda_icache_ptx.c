/* The PTX of an icache experiment (src/cuda/icache_ptx.c), checked without
 * a GPU: one body instruction per 16 B of code, each accumulator rotating,
 * the kernel's frame around it, and refusals of sizes off the grid.  (That
 * ptxas makes one 16-byte SASS instruction of each was checked by hand:
 * docs/method.md, "Instruction caches".) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cuda/icache_ptx.h"

static size_t count(const char *s, const char *needle)
{
    size_t n = 0;
    for (const char *p = s; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

static void test_body_size(void **state)
{
    (void)state;
    static const uint32_t sizes[] = {16, 1024, 4096, 65536};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        char *s = mtc_icache_ptx(sizes[i]);
        assert_non_null(s);
        assert_int_equal(count(s, "mad.lo.u32"), sizes[i] / 16);
        assert_int_equal(mtc_icache_body_instructions(sizes[i]), sizes[i] / 16);
        /* The frame: the entry, two clock reads and one loop branch. */
        assert_non_null(strstr(s, ".visible .entry " MTC_ICACHE_ENTRY "("));
        assert_int_equal(count(s, "%clock;"), 2);
        assert_int_equal(count(s, "bra LAP;"), 1);
        free(s);
    }
}

static void test_rotation(void **state)
{
    (void)state;
    char *s = mtc_icache_ptx(256);
    assert_non_null(s);
    /* Instruction k squares accumulator k mod 8 and adds the next one. */
    assert_non_null(strstr(s, "mad.lo.u32 %a0, %a0, %a0, %a1;\nmad.lo.u32 %a1, %a1, %a1, %a2;\n"));
    assert_non_null(strstr(s, "mad.lo.u32 %a7, %a7, %a7, %a0;\nmad.lo.u32 %a0, %a0, %a0, %a1;\n"));
    free(s);
}

static void test_refusals(void **state)
{
    (void)state;
    assert_null(mtc_icache_ptx(0));
    assert_null(mtc_icache_ptx(24));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_body_size),
        cmocka_unit_test(test_rotation),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* NVML's NVLink version enum to the NVLink generation (src/cuda/nvml_links.c):
 * the two H200s answered 6, which nvml.h names NVML_NVLINK_VERSION_4_0,
 * and were reported as "NVLink 6" with no nominal rate before the map. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "backend/backend.h"
#include "cuda/nvml_links.h"

static void enum_to_generation(void **state)
{
    (void)state;
    /* nvml.h: 1 = 1.0, 2 = 2.0, 3 = 2.2, 4 = 3.0, 5 = 3.1, 6 = 4.0, 7 = 5.0, 8 = 6.0 */
    const uint32_t want[] = {MT_LINK_NOT_AVAILABLE, 1, 2, 2, 3, 3, 4, 5, 6};
    for (unsigned v = 0; v < sizeof want / sizeof want[0]; v++)
        assert_int_equal(mtc_nvml_nvlink_generation(v), want[v]);
    assert_int_equal(mtc_nvml_nvlink_generation(9), MT_LINK_NOT_AVAILABLE);
    assert_int_equal(mtc_nvml_nvlink_generation(UINT32_MAX), MT_LINK_NOT_AVAILABLE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(enum_to_generation)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}

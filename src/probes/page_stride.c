/* The stride of a chain of one element per page (page_stride.h). */
#include "page_stride.h"

#include <stdbool.h>

static bool is_prime(uint64_t v)
{
    if (v < 2)
        return false;
    for (uint64_t d = 2; d * d <= v; d++)
        if (v % d == 0)
            return false;
    return true;
}

uint64_t mt_page_stride(uint64_t base, uint32_t line)
{
    uint64_t lines = base / line, q = 1;
    while (q < MT_PAGE_STRIDE_MAX_LINES && !is_prime(lines + q))
        q += 2;
    return base + q * line;
}

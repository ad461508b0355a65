/* PTX of an icache experiment's kernel (icache_ptx.h). */
#include "icache_ptx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* sm_70 PTX: every GPU with 16-byte instructions runs it (the driver
 * compiles it for the GPU at hand); ISA 6.3 is the first to target sm_70
 * with everything used here, 7.0 is CUDA 11.0's (the oldest driver the
 * runtime API used below has). */
static const char head[] =
    ".version 7.0\n"
    ".target sm_70\n"
    ".address_size 64\n"
    ".visible .entry " MTC_ICACHE_ENTRY "(.param .u64 p_out, .param .u32 p_laps, .param .u32 p_seed)\n"
    "{\n"
    ".reg .pred %p<3>;\n"
    ".reg .b32 %a<8>;\n"
    ".reg .b32 %r<8>;\n"
    ".reg .b64 %d<4>;\n"
    "ld.param.u64 %d0, [p_out];\n"
    "cvta.to.global.u64 %d0, %d0;\n"
    "ld.param.u32 %r0, [p_laps];\n"
    "ld.param.u32 %a0, [p_seed];\n"
    "add.u32 %a1, %a0, 1;\n"
    "add.u32 %a2, %a0, 2;\n"
    "add.u32 %a3, %a0, 3;\n"
    "add.u32 %a4, %a0, 4;\n"
    "add.u32 %a5, %a0, 5;\n"
    "add.u32 %a6, %a0, 6;\n"
    "add.u32 %a7, %a0, 7;\n"
    "mov.u32 %r1, %tid.x;\n"
    "setp.eq.u32 %p1, %r1, 0;\n"
    "mov.u32 %r2, 0;\n"
    "LAP:\n"
    "mov.u32 %r3, %clock;\n";
/* After the body: the lap's cycles into out[HEADER + lap], the next lap,
 * then the accumulators and the SM into out[0], out[1]. */
static const char tail[] =
    "mov.u32 %r4, %clock;\n"
    "sub.u32 %r4, %r4, %r3;\n"
    "mul.wide.u32 %d1, %r2, 4;\n"
    "add.u64 %d2, %d0, %d1;\n"
    "@%p1 st.global.u32 [%d2+8], %r4;\n"
    "add.u32 %r2, %r2, 1;\n"
    "setp.lt.u32 %p2, %r2, %r0;\n"
    "@%p2 bra LAP;\n"
    "xor.b32 %a0, %a0, %a1;\n"
    "xor.b32 %a2, %a2, %a3;\n"
    "xor.b32 %a4, %a4, %a5;\n"
    "xor.b32 %a6, %a6, %a7;\n"
    "xor.b32 %a0, %a0, %a2;\n"
    "xor.b32 %a4, %a4, %a6;\n"
    "xor.b32 %a0, %a0, %a4;\n"
    "mov.u32 %r5, %smid;\n"
    "@%p1 st.global.u32 [%d0], %a0;\n"
    "@%p1 st.global.u32 [%d0+4], %r5;\n"
    "ret;\n"
    "}\n";
/* The longest body line: "mad.lo.u32 %a7, %a7, %a7, %a0;\n". */
#define BODY_LINE_MAX 40

_Static_assert(MTC_ICACHE_OUT_HEADER * 4 == 8, "tail's [%d2+8] is the first lap's word");
_Static_assert(MTC_ICACHE_ACCUMULATORS == 8, "head declares %a<8>");

uint32_t mtc_icache_body_instructions(uint32_t code_bytes)
{
    return code_bytes / 16;
}

char *mtc_icache_ptx(uint32_t code_bytes)
{
    if (code_bytes == 0 || code_bytes % 16)
        return NULL;
    uint32_t n = mtc_icache_body_instructions(code_bytes);
    size_t cap = sizeof head + sizeof tail + (size_t)n * BODY_LINE_MAX + 1;
    char *s = malloc(cap);
    if (!s)
        return NULL;
    size_t len = 0;
    memcpy(s, head, sizeof head - 1);
    len += sizeof head - 1;
    for (uint32_t i = 0; i < n; i++) {
        unsigned k = i % MTC_ICACHE_ACCUMULATORS, next = (k + 1) % MTC_ICACHE_ACCUMULATORS;
        int w = snprintf(s + len, cap - len, "mad.lo.u32 %%a%u, %%a%u, %%a%u, %%a%u;\n", k, k, k,
                         next);
        if (w < 0 || (size_t)w >= cap - len) {
            free(s);
            return NULL;
        }
        len += (size_t)w;
    }
    memcpy(s + len, tail, sizeof tail); /* with its terminating NUL */
    return s;
}

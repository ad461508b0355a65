/* The code of an icache experiment (backend.h, MT_KIND_ICACHE) as PTX
 * text, generated for its size at run time and compiled by the driver's
 * JIT (icache.c).  Pure C, no CUDA header: tested without a GPU.
 *
 * Why PTX generated at run time: a block of any size is one string away
 * (the probe may ask for any multiple of 16 B, not only a fixed set), only
 * the sizes a run asks for are compiled, and only for the GPU at hand;
 * kernels generated at build time would put megabytes of code for every
 * architecture into every binary and minutes into every build.  NVRTC
 * would compile CUDA C, whose optimiser folds arithmetic chains, so the
 * body would have to be inline PTX anyway: the driver's JIT (in every
 * driver, reached through the runtime's cudaLibraryLoadData) does it
 * without another library. */
#ifndef MT_CUDA_ICACHE_PTX_H
#define MT_CUDA_ICACHE_PTX_H

#include <stdint.h>

/* The kernel's entry name in the generated module. */
#define MTC_ICACHE_ENTRY "mt_icache"
/* Independent accumulators the body rotates through: enough that each
 * instruction's operand was written 8 instructions earlier, past the
 * integer pipeline's latency, so the warp issues as fast as the
 * instructions arrive and what slows it down is their fetch. */
#define MTC_ICACHE_ACCUMULATORS 8
/* Words of the output buffer before the lap samples: out[0] the
 * accumulators' xor (stored so the compiler keeps every instruction),
 * out[1] the SM (%smid); out[MTC_ICACHE_OUT_HEADER + lap] the cycles of
 * lap `lap` (warm laps first). */
#define MTC_ICACHE_OUT_HEADER 2

/* PTX of a kernel mt_icache(u64 out, u32 laps, u32 seed): thread 0 of the
 * block (the whole warp runs the code) times `laps` laps over a body of
 * code_bytes / 16 instructions `mad.lo.u32 a_k, a_k, a_k, a_k+1` (k
 * rotating over the accumulators: nonlinear, so no two fold into one
 * instruction; one SASS instruction of 16 B each on Volta and later),
 * reading %clock before and after each lap.  Returns a malloc'd string,
 * NULL when out of memory or code_bytes is not a positive multiple of 16. */
char *mtc_icache_ptx(uint32_t code_bytes);

/* Instructions of the body of a block of code_bytes. */
uint32_t mtc_icache_body_instructions(uint32_t code_bytes);

#endif

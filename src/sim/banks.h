/* The simulator's shared-memory bank model (docs/spec-format.md,
 * "Shared-memory banks"): how many serialised passes ("wavefronts") one
 * warp's shared-memory load takes.  Pure; the engine turns wavefronts into
 * cycles and the end-to-end truth (tests/e2e_truth_banks.c) uses the same
 * model to say what the probe must find. */
#ifndef MT_SIM_BANKS_H
#define MT_SIM_BANKS_H

#include <stdint.h>

#include "../backend/backend.h"

/* [shared] keys banks, bank_width, conflict_cycles, broadcast. */
typedef struct {
    uint32_t count;         /* banks: 16, 32 or 64 */
    uint32_t width;         /* bytes a bank delivers per pass: 4 or 8 */
    double conflict_cycles; /* cycles each pass after the first adds */
    int broadcast;          /* 1: threads reading one bank word share a pass */
} mt_sim_bank_spec;

/* Defaults when [shared] says nothing: every NVIDIA GPU since Maxwell
 * (CUDA C Programming Guide, compute capabilities 5.x-9.0: 32 banks of
 * 32 bits, a word broadcast to every thread reading it).  The cost of a
 * pass is not documented: 2 cycles is a placeholder of the order recent
 * GPUs show (Fermi's was about 37, Mei and Chu 2014); the probe measures
 * it. */
#define MT_SIM_DEFAULT_BANKS 32u
#define MT_SIM_DEFAULT_BANK_WIDTH 4u
#define MT_SIM_DEFAULT_CONFLICT_CYCLES 2.0

/* Limits of the format (docs/spec-format.md, "Shared-memory banks"). */
#define MT_SIM_MIN_BANK_ROW 128u       /* count x width: a warp's 4 B words fit one row */
#define MT_SIM_MIN_CONFLICT_CYCLES 1.0 /* a bank delivers one word per cycle */
#define MT_SIM_MAX_CONFLICT_CYCLES 64.0

/* Threads of one pass group (a "phase"): a warp's request is split into
 * groups of consecutive threads that together read at most one row of
 * banks (count x width bytes): 32 threads for 4-byte words on 32 x 4 B
 * banks, 16 for 8-byte words, 8 for 16-byte words. */
uint32_t mt_sim_bank_phase_threads(const mt_sim_bank_spec *b, uint32_t word_bytes);

/* Passes of one warp load of pattern x: the sum over its phases of the
 * most distinct bank words any one bank must deliver in that phase (a
 * bank word read by several threads counts once with broadcast, once per
 * thread without).  At least 1. */
uint32_t mt_sim_bank_wavefronts(const mt_sim_bank_spec *b, const mt_banks *x);

#endif

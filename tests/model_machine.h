/* A hand-built machine for the model's unit tests: round numbers so every
 * expected value can be computed by hand. */
#ifndef MT_TEST_MODEL_MACHINE_H
#define MT_TEST_MODEL_MACHINE_H

#include <string.h>

#include "model/model.h"

static inline void tm_set(mt_model_machine *m, mt_model_input_id id, double v)
{
    m->in[id].value = v;
    m->in[id].set = 1;
    strcpy(m->in[id].source, "test");
}

/* 100 SMs at 1000 MHz, 4 schedulers, 64 warps and 32 blocks per SM;
 * latencies L1 30, shared 20, L2 200 (all near), DRAM 600; bandwidths
 * 100 B/clk/SM for L1 and shared, 10 TB/s L2, 1 TB/s DRAM (10 B/clk/SM at
 * 1 GHz on 100 SMs); MLP 1e6 (never binding unless a test lowers it). */
static inline void tm_machine(mt_model_machine *m)
{
    memset(m, 0, sizeof *m);
    strcpy(m->gpu, "test GPU");
    tm_set(m, MT_MI_SM_COUNT, 100);
    tm_set(m, MT_MI_CLOCK_MHZ, 1000);
    tm_set(m, MT_MI_WARP_SIZE, 32);
    tm_set(m, MT_MI_SCHEDULERS, 4);
    tm_set(m, MT_MI_MAX_WARPS_SM, 64);
    tm_set(m, MT_MI_MAX_BLOCKS_SM, 32);
    tm_set(m, MT_MI_REGS_SM, 65536);
    tm_set(m, MT_MI_SMEM_SM, 228 * 1024);
    tm_set(m, MT_MI_SMEM_RESERVED, 1024);
    tm_set(m, MT_MI_L1_SIZE, 256 * 1024);
    tm_set(m, MT_MI_L1_LAT, 30);
    tm_set(m, MT_MI_SECTOR, 32);
    tm_set(m, MT_MI_SHARED_LAT, 20);
    tm_set(m, MT_MI_BANKS, 32);
    tm_set(m, MT_MI_CONFLICT_CYCLES, 2);
    tm_set(m, MT_MI_L2_SIZE, 50e6);
    tm_set(m, MT_MI_L2_NEAR_LAT, 200);
    tm_set(m, MT_MI_L2_FAR_LAT, 200);
    tm_set(m, MT_MI_L2_NEAR_SHARE, 1);
    tm_set(m, MT_MI_DRAM_LAT, 600);
    tm_set(m, MT_MI_L1_BW_READ, 100);
    tm_set(m, MT_MI_SHARED_BW, 100);
    tm_set(m, MT_MI_L2_GBPS_READ, 10000);
    tm_set(m, MT_MI_DRAM_GBPS_READ, 1000);
    tm_set(m, MT_MI_L2_MLP, 1e6);
    tm_set(m, MT_MI_DRAM_MLP, 1e6);
    tm_set(m, MT_MI_ALU_LAT, 4);
}

#endif

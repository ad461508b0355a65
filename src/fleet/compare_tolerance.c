/* Repeatability tolerances of the fleet comparison, per unit: the floor of
 * the outlier limit, so that two runs of one healthy GPU never differ.
 * Five runs in a row of the H100 (README, tests/fixtures/h100-sxm5-2/
 * report*.json) agreed on sizes within 0.17%, hit latencies within 0.1
 * cycle and DRAM within 2.1 cycles (0.3%); the tolerances are those of the
 * contract (docs/method.md, "Contract"), which every finding already meets
 * against the truth, so a difference beyond them is a different GPU. */
#include <math.h>
#include <string.h>

#include "compare.h"

/* Sizes and lines: the contract's 3% size tolerance. */
#define MT_CMP_BYTES_SHARE 0.03
/* Latencies: the contract's 2 cycles, or 1% of long latencies (DRAM's 2.1
 * cycle repeat spread on the H100 is 0.3% of 690 cycles). */
#define MT_CMP_CYCLES_ABS 2.0
#define MT_CMP_CYCLES_SHARE 0.01
/* The SM clock: 2%, above the boost clock's 15 MHz steps at 2 GHz (0.75%). */
#define MT_CMP_CLOCK_SHARE 0.02
/* Bandwidths: 5%, twice the simulated ceiling's tolerance (MT_BW_RISE_SHARE
 * 3%) rounded up for a median of three streams on a real GPU. */
#define MT_CMP_BANDWIDTH_SHARE 0.05
/* Shares and ratios without a unit (the L2 map's near share): the
 * contract's 0.1. */
#define MT_CMP_UNITLESS_ABS 0.1
/* The contract's own tolerances of two findings: an L2 partition size 5%
 * (what one SM can use moves with the lines its hash homes near), a miss
 * penalty max(4 cycles, 5%) (a difference of two noisy latencies). */
#define MT_CMP_PARTITION_SHARE 0.05
#define MT_CMP_PENALTY_ABS 4.0
#define MT_CMP_PENALTY_SHARE 0.05
/* Any unit not listed: 5%. */
#define MT_CMP_OTHER_SHARE 0.05

double mt_compare_tolerance(const char *name, const char *unit, double at)
{
    double a = fabs(at);
    if (name && strcmp(name, "partition_size") == 0)
        return MT_CMP_PARTITION_SHARE * a;
    if (name && strncmp(name, "miss_penalty", 12) == 0)
        return fmax(MT_CMP_PENALTY_ABS, MT_CMP_PENALTY_SHARE * a);
    if (!unit || !unit[0])
        return MT_CMP_UNITLESS_ABS;
    if (strcmp(unit, "B") == 0)
        return MT_CMP_BYTES_SHARE * a;
    if (strcmp(unit, "cycles") == 0)
        return fmax(MT_CMP_CYCLES_ABS, MT_CMP_CYCLES_SHARE * a);
    if (strcmp(unit, "MHz") == 0)
        return MT_CMP_CLOCK_SHARE * a;
    /* Counts and yes/no are exact: ways, sets, banks, slices. */
    if (strcmp(unit, "count") == 0 || strcmp(unit, "bool") == 0)
        return 0.0;
    if (strcmp(unit, "GB/s") == 0 || strncmp(unit, "B/clk", 5) == 0)
        return MT_CMP_BANDWIDTH_SHARE * a;
    return MT_CMP_OTHER_SHARE * a;
}

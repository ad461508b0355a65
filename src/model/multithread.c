/* GPUMech's multithreading model (Huang et al., MICRO 2014, section IV-A),
 * in our words: the representative warp alone takes its issue cycles plus
 * its stall cycles; the other warps on the scheduler fill its stalls, but
 * some of their instructions issue where the representative warp could
 * have issued (round-robin interleaves them between its instructions;
 * greedy-then-oldest lets an older warp finish its run after the stall is
 * covered).  Those "non-overlapped" instructions add to the time.  The
 * scheduler issues at most one instruction a cycle, so the time is never
 * below all warps' issue cycles (a bound the paper leaves implicit).
 *
 * The paper's equations (15) and (16) print min and max the other way
 * round; a probability is capped at 1 and a count at 0 from below, which
 * is what is used here (docs/model.md). */
#include <math.h>

#include "model_internal.h"

double mt_model_multithread(mt_model_sched s, double warps, double insts, const double *count,
                            const double *stall, int n_classes)
{
    double intervals = 0, stall_total = 0;
    for (int c = 0; c < n_classes; c++) {
        intervals += count[c];
        stall_total += count[c] * stall[c];
    }
    double issue_bound = warps * insts;
    if (intervals <= 0 || stall_total <= 0)
        return fmax(insts, issue_bound);
    /* A warp's chance of issuing in a given cycle when alone. */
    double issue_prob = insts / (insts + stall_total);
    double per_interval = insts / intervals;
    double others = warps > 1 ? warps - 1 : 0;
    double nonoverlapped = 0;
    if (s == MT_SCHED_RR) {
        /* Between two of the representative warp's instructions every other
         * warp gets its turn. */
        nonoverlapped = issue_prob * others * fmax(insts - intervals, 0);
    } else {
        for (int c = 0; c < n_classes; c++) {
            double p = fmin(issue_prob * stall[c], 1.0);
            double in_stall = per_interval * p * others;
            nonoverlapped += count[c] * fmax(in_stall - stall[c], 0);
        }
    }
    return fmax(insts + stall_total + nonoverlapped, issue_bound);
}

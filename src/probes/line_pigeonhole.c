/* A direct pigeonhole check of a line found by the capacity ratio
 * (measure_line.c).  The ratio's element count comes from strides that a
 * set index can defeat: a modulo index whose set count shares a factor
 * with every candidate stride (286 sets = 2 x 11 x 13 against strides of
 * 4, 11 and 13 lines), or a hash over a set count that is no power of two,
 * keeps a chain to a fraction of the sets at each of them, and the ratio
 * then reads a line twice the true one with full confidence.
 *
 * A chain at 1.5 times the claimed line L holds one line per element if L
 * is right, so it keeps at most N = C / L elements resident, whatever the
 * policy or the index.  If the line is L / 2 or less, the same stride is
 * three lines or more, a stride none of the ratio's candidates used (a
 * multiple of 3), and a chain of 1.5 N elements can fit whole.  One run of
 * one chain, timed over whole laps, tells the two apart: "elements -
 * misses / laps" elements stayed resident, and more than N (beyond
 * MT_LINE_RATIO_TOLERANCE, judged by the caller) refutes L. */
#include <math.h>
#include <stdlib.h>

#include "probe_internal.h"

/* Chain length in claimed lines: above N (1 + MT_LINE_RATIO_TOLERANCE) so
 * that a chain that fits whole refutes the line, below 2 N so that a line
 * of L / 2 can hold it all. */
#define PIGEONHOLE_CHAIN_LINES 1.5

mt_err mt_line_pigeonhole(mt_probe_ctx *c, mt_path path, uint64_t cap, uint32_t line,
                          uint64_t limit, double hit_threshold, double *resident,
                          uint32_t *stride)
{
    *resident = NAN; /* no check ran */
    *stride = line + line / 2;
    if (line < 8 || cap < line)
        return MT_OK;
    uint64_t n_lines = cap / line;
    uint64_t elements = (uint64_t)((double)n_lines * PIGEONHOLE_CHAIN_LINES) + 1;
    uint64_t footprint = elements * *stride;
    /* Only whole laps bound anything, and one run times at most
     * max_fine_loads: a longer chain (the L2 of a real GPU) is not checked. */
    if (elements > c->dev.max_fine_loads || (limit && footprint > limit))
        return MT_OK;
    uint32_t loads = (uint32_t)(2 * elements < c->dev.max_fine_loads ? 2 * elements
                                                                     : c->dev.max_fine_loads);
    mt_experiment e = mt_exp_chase(path, footprint, *stride, 1, loads, MT_MODE_FINE);
    mt_progress(c, "%s line: pigeonhole check at a %u B stride", mt_path_name(path), *stride);
    double *x;
    size_t n;
    mt_err err = mt_run_fine(c, &e, &x, &n);
    if (err == MT_ERR_REPLAY) {
        /* A recording made before this check existed has no such run: the
         * line stays as the ratio gave it, as it did when it was recorded. */
        c->ei->msg[0] = '\0';
        return MT_OK;
    }
    if (err != MT_OK)
        return err;
    size_t laps = n / elements, misses = 0;
    for (size_t i = 0; i < n; i++)
        misses += x[i] > hit_threshold;
    free(x);
    /* Every miss of the run counts against the whole laps in it: timer
     * outliers and the partial lap only lower the count (conservative). */
    if (laps)
        *resident = (double)elements - (double)misses / (double)laps;
    return MT_OK;
}

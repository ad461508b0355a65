/* Median of a class whose lower side a threshold cut off.  The loads of a
 * chain that thrashes a cache are told from its hits by a threshold; where
 * the next level's latencies spread down to it (noisy, close classes), the
 * values above it are that level's class without its lowest part, and
 * their median lies above the class's own.  For a class symmetric about
 * its centre c, the values in (cut, 2c - cut) are cut equally on both
 * sides, so their median is c: iterate c from the plain median until it
 * settles.  Where the class lies well above the cut, the window holds
 * every value below 2c - cut and the result is the plain median of those
 * (the same as the plain median unless the class reaches beyond twice its
 * distance from the cut: then it is no clean class anyway). */
#include <math.h>
#include <stdlib.h>

#include "analysis.h"

/* Enough for the window to settle on any data: each step moves c by less
 * than the previous one once the window stops losing values. */
#define MAX_STEPS 64

mt_err mt_median_above_cut(const double *x, size_t n, double cut, double *median)
{
    if (!x || !median)
        return MT_ERR_INVALID_ARG;
    double *w = malloc((n ? n : 1) * sizeof *w);
    if (!w)
        return MT_ERR_NOMEM;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (x[i] > cut)
            w[k++] = x[i];
    if (!k) {
        free(w);
        return MT_ERR_INVALID_ARG;
    }
    double c = mt_median(w, k);
    for (int step = 0; step < MAX_STEPS; step++) {
        double top = 2 * c - cut;
        size_t m = 0;
        for (size_t i = 0; i < k; i++)
            if (w[i] < top) /* c > cut, so every value up to c stays */
                w[m++] = w[i];
        /* c only moves down (a window cut higher than the symmetric one keeps
         * more above c than below), so w shrinks in place; a window that
         * lost nothing is final. */
        double next = mt_median(w, m);
        bool same = m == k && next == c;
        k = m;
        c = next;
        if (same)
            break;
    }
    free(w);
    *median = c;
    return MT_OK;
}

/* Slices of a cache per SM (thesis 4.6): warps whose chains evict warp 0's
 * chain share its slice; if slices are equal, they are 1/slices of all. */
#include <limits.h>

#include "analysis.h"

mt_err mt_count_slices(const bool *disturbed, size_t n_tested, mt_slices *out)
{
    /* One tested warp at least: with warp 0 alone nothing is measured. */
    if (!disturbed || !out || n_tested == 0 || n_tested >= (size_t)INT_MAX)
        return MT_ERR_INVALID_ARG;
    size_t sharing = 1;
    for (size_t w = 0; w < n_tested; w++)
        sharing += disturbed[w] ? 1 : 0;
    size_t n_warps = n_tested + 1;
    out->n_warps = (int)n_warps;
    out->sharing_warps = (int)sharing;
    size_t q = n_warps / sharing;
    /* Unequal groups or a non-power-of-two count do not match any hardware
     * we know: report the pattern as inconsistent (slices = 0). */
    out->ok = n_warps % sharing == 0 && (q & (q - 1)) == 0;
    out->slices = out->ok ? (int)q : 0;
    /* Seen to repeat: a sharing warp after a warp that does not share. */
    bool repeats = false, gap = false;
    for (size_t w = 0; w < n_tested; w++) {
        repeats |= gap && disturbed[w];
        gap |= !disturbed[w];
    }
    out->at_least = out->ok && q > 1 && !repeats;
    return MT_OK;
}

/* A pigeonhole check of a line L that no set index can defeat by aliasing
 * (complements line_pigeonhole.c).  Regular strides can all miss sets: an
 * XOR hash that folds high address bits into the low set bits (as real
 * GPUs' published set functions do) can pin a set bit at every power-of-two
 * stride and cluster the odd ones, so the ratio's chains and the 1.5 L
 * chain conflict early and the ratio reads a line twice the true one.
 *
 * Here each element is one half-line of its own L-sized block, the first
 * or the second half at random (a fixed seed: the same addresses in every
 * run), loaded once in order and timed on a second lap in reverse order.
 * In a lap that visits each element once, every hit was resident when the
 * lap began, whatever the order: if the line is L, every element is a line
 * of its own and at most N = C / L of them hit, whatever the policy or the
 * index.  If the line is L / 2 or less, the elements are lines picked at
 * random, so under any index they spread over the sets like balls over
 * bins, and the reverse lap meets each set's last-loaded lines first: a
 * set of W ways with k elements keeps min(k, W) hits under LRU or FIFO
 * instead of none (a cyclic lap thrashes every overfull set).  With 2.5 N
 * elements in 2 N lines that is about 1.43 N hits when direct-mapped, 1.6 N
 * with 2 ways and more with more, against the bound N (1 + tolerance) = 1.2
 * N, which refutes L.  Random placement needs an explicit access sequence;
 * the caller judges the count. */
#include <math.h>
#include <stdlib.h>

#include "../core/rng.h"
#include "probe_internal.h"

/* Chain length in claimed lines: above N (1 + MT_LINE_RATIO_TOLERANCE), and
 * enough random lines of L / 2 that even a direct-mapped cache keeps more
 * than that of them: 2 N (1 - exp(-1.25)) = 1.43 N of 2.5 N (1.5 N kept
 * only 1.06 N, and left caches of 1-3 ways unrefuted). */
#define SCATTER_CHAIN_LINES 2.5
/* At most this many runs time the lap (each at most max_fine_loads
 * loads): on the sim up to 13107 claimed lines (an L2 partition of 1.6 MiB
 * of 128 B lines, 32768 elements), few enough to stay cheap. */
#define SCATTER_MAX_RUNS 4
/* Seed of the halves picked: fixed, so that runs and replays agree. */
#define SCATTER_SEED 0x6c696e652d736361ull

/* Times elements [first, first + n) of the second lap (the first in
 * reverse), after the first lap and the second lap's earlier elements
 * (untimed): together, the runs time the whole lap as one long run would.
 * Adds the misses. */
static mt_err run_part(mt_probe_ctx *c, mt_path path, uint32_t half, const uint32_t *lap,
                       uint64_t elements, uint64_t first, uint64_t n, double hit_threshold,
                       size_t *misses, size_t *timed)
{
    uint64_t entries = elements + first + n;
    uint32_t *idx = malloc((size_t)entries * sizeof *idx);
    if (!idx)
        return mt_fail(c->ei, MT_ERR_NOMEM, "out of memory");
    for (uint64_t k = 0; k < elements; k++)
        idx[k] = lap[k];
    for (uint64_t k = 0; k < first + n; k++)
        idx[elements + k] = lap[elements - 1 - k];
    mt_experiment e = mt_exp_chase(path, 2 * elements * half, half, 0, (uint32_t)n, MT_MODE_FINE);
    e.kind = MT_KIND_SEQUENCE;
    e.u.seq = (mt_sequence){.index = idx, .n = (uint32_t)entries, .untimed = (uint32_t)(entries - n)};
    double *x;
    size_t got;
    mt_err err = mt_run_fine(c, &e, &x, &got);
    free(idx);
    if (err != MT_OK)
        return err;
    for (size_t i = 0; i < got; i++)
        *misses += x[i] > hit_threshold;
    *timed += got;
    free(x);
    return MT_OK;
}

mt_err mt_line_pigeonhole_scattered(mt_probe_ctx *c, mt_path path, uint64_t cap, uint32_t line,
                                    uint64_t limit, double hit_threshold, double *resident)
{
    *resident = NAN; /* no check ran */
    /* The texture path runs no sequences on the CUDA backend. */
    if (line < 8 || cap < line || path == MT_PATH_TEXTURE || !c->dev.max_fine_loads ||
        !mt_backend_supports(c->be, MT_KIND_SEQUENCE))
        return MT_OK;
    uint64_t elements = (uint64_t)((double)(cap / line) * SCATTER_CHAIN_LINES) + 1;
    uint32_t half = line / 2;
    uint64_t runs = (elements + c->dev.max_fine_loads - 1) / c->dev.max_fine_loads;
    if (runs > SCATTER_MAX_RUNS || (c->dev.max_sequence && 2 * elements > c->dev.max_sequence) ||
        (limit && 2 * elements * half > limit))
        return MT_OK;
    uint32_t *lap = malloc((size_t)elements * sizeof *lap);
    if (!lap)
        return mt_fail(c->ei, MT_ERR_NOMEM, "out of memory");
    mt_rng rng = {.s = SCATTER_SEED};
    for (uint64_t k = 0; k < elements; k++)
        lap[k] = (uint32_t)(2 * k + (mt_rng_next(&rng) & 1));
    mt_progress(c, "%s line: scattered pigeonhole check (%llu half-lines of %u B)",
                mt_path_name(path), (unsigned long long)elements, half);
    size_t misses = 0, timed = 0;
    uint64_t per = (elements + runs - 1) / runs;
    mt_err err = MT_OK;
    for (uint64_t first = 0; first < elements && err == MT_OK; first += per)
        err = run_part(c, path, half, lap, elements, first,
                       elements - first < per ? elements - first : per, hit_threshold, &misses,
                       &timed);
    free(lap);
    if (err == MT_ERR_REPLAY) {
        /* A recording made before this check existed has no such run. */
        c->ei->msg[0] = '\0';
        return MT_OK;
    }
    if (err != MT_OK)
        return err;
    /* Timer outliers count as misses: they only lower the count. */
    if (timed == elements)
        *resident = (double)elements - (double)misses;
    return MT_OK;
}

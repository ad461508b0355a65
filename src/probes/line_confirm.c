/* The line size confirmed by the set index (line_confirm.h).
 *
 * The line probe (measure_line.c) divides the capacity at a sector stride
 * by the elements that fit at a wider one.  When that element count is a
 * range (a borderline edge: on the H100's first run of 2026-11-23, 1862 to
 * 1864 elements at 256 B) whose ends both give the same line, the line
 * does not depend on where the edge lies, only on the range holding it:
 * an edge above it would mean a smaller line, which the pigeonhole checks
 * look for; an edge below it (an over-full chain that kept most of its
 * lines, which fools the first-miss test and its re-test alike) a larger
 * one.  The geometry probes measure the set index in lines of the claimed
 * size L, verified by random predictions.  If it puts lines x and x + 1
 * (line-address bit 0: modulo over 2 or more sets, or an XOR mask using
 * bit 0) in different sets, those two L-byte blocks are not one line, so
 * the line is at most L.  With the range closed both ways the line takes
 * the confidence its ratio has with a single edge: the geometry findings
 * at once (probe_geometry.c), the line itself in the derivation
 * derive_line_by_index.c (a probe sets only its own findings). */
#include <stdio.h>
#include <string.h>

#include "line_confirm.h"

bool mt_index_separates_lines(bool modulo, uint64_t sets, const uint64_t *masks, uint32_t rank,
                              char *why, size_t cap)
{
    if (modulo && sets >= 2) {
        snprintf(why, cap, "modulo %llu sets puts consecutive lines in different sets",
                 (unsigned long long)sets);
        return true;
    }
    for (uint32_t k = 0; !modulo && k < rank; k++)
        if (masks[k] & 1) {
            snprintf(why, cap, "mask 0x%llx uses line-address bit 0",
                     (unsigned long long)masks[k]);
            return true;
        }
    return false;
}

double mt_line_confidence_for_geometry(const mt_probe_ctx *c, const char *key, bool separates)
{
    double conf = mt_get(c, key, "line")->confidence;
    for (int id = 0; id < MT_CACHE_COUNT; id++) {
        const mt_cache_state *cs = &c->cs[id];
        if (strcmp(mt_cache_key((mt_cache_id)id), key) == 0 && separates &&
            cs->line_edge_capped && cs->line_conf_confirmed > conf)
            return cs->line_conf_confirmed;
    }
    return conf;
}

/* A line size confirmed by the set index measured in its units (issue 8;
 * the H100's first run of 2026-11-23): see line_confirm.c. */
#ifndef MT_LINE_CONFIRM_H
#define MT_LINE_CONFIRM_H

#include "probe_internal.h"

/* What measure_line.c writes in a line's note when the capacity range at
 * the ratio's stride is all that capped it and both its ends give the
 * line; the derivation line_by_index looks for it. */
#define MT_LINE_BOTH_ENDS "both ends give"

/* Whether an index (modulo over `sets`, or the XOR masks[0..rank)) puts
 * lines x and x + 1 in different sets for some x: then two blocks of the
 * line size are never one line.  Writes the evidence to why. */
bool mt_index_separates_lines(bool modulo, uint64_t sets, const uint64_t *masks, uint32_t rank,
                              char *why, size_t cap);

/* The confidence a geometry of cache `key` measured in its lines may
 * take: the line's, or, where the index separates lines and the line was
 * capped only by its capacity range (mt_cache_state.line_edge_capped),
 * the line's confidence with that range closed. */
double mt_line_confidence_for_geometry(const mt_probe_ctx *c, const char *key, bool separates);

#endif

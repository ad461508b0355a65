/* Rendering an mt_topology: text table, JSON document, and the small text
 * formatters both use.  Library code: writes only to the stream or path it
 * is given, never prints elsewhere, never exits. */
#ifndef MT_REPORT_H
#define MT_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "../core/error.h"
#include "topology.h"

#define MT_SCHEMA_VERSION "1.0.0"
#define MT_TOOL_NAME "memtopo"

/* ---------- text formatting (topology.c) ---------- */

/* Bytes with binary units and at most 3 significant digits, trailing zeros
 * dropped: 128 -> "128 B", 26112 -> "25.5 KiB", 52428800 -> "50 MiB".
 * Returns buf. */
char *mt_format_bytes(double bytes, char *buf, size_t n);

/* A finding as text in its unit ("B" -> binary units, "cycles", "count",
 * "bool" -> "yes"/"no"):
 *   VALUE "224 KiB" / "128 B" / "33 cycles" / "1"
 *   LOWER_BOUND "> 64 KiB"       RANGE "22.0-24.5 KiB"
 *   NONE "-"                     ABSENT "no"
 * with_unit = 0 leaves out a non-byte unit ("33" instead of "33 cycles"),
 * for table columns whose header names the unit.  Returns buf. */
char *mt_format_finding(const mt_finding *f, int with_unit, char *buf, size_t n);

/* "measured", "driver", "derived". */
const char *mt_source_name(mt_source s);
/* "none", "value", "lower_bound", "range", "absent". */
const char *mt_finding_kind_name(mt_finding_kind k);
/* Short cache name for "shared with" cells: "L1D", "Tex", "RO", "CL1",
 * "CL1.5", "Shm", "L2", "DRAM". */
const char *mt_cache_abbrev(mt_cache_id id);
/* "Tex, RO" from a shared_with bitmask; "-" when empty.  Returns buf. */
char *mt_format_shared_with(uint32_t mask, char *buf, size_t n);

/* ---------- reports ---------- */

/* Human-readable report (header, cache table, other findings, method and
 * confidence, thresholds, timing) written to out; fits in 100 columns. */
mt_err mt_report_text(const mt_topology *t, FILE *out, mt_errinfo *ei);

/* JSON report following schema/memtopo-report.schema.json.  path "-" writes
 * to stdout; any other path is written as "<path>.tmp" and renamed, so a
 * failure never leaves a partial file (the temporary is removed). */
mt_err mt_report_json(const mt_topology *t, const char *path, mt_errinfo *ei);

#endif

/* Rendering an mt_topology (src/topology): the text report, the JSON file
 * and a CSV of the findings, and the small text formatters they use.  The
 * renderers walk the topology's objects and findings, so a finding a new
 * probe adds shows up without a change here.  Library code: writes only to
 * the stream or path it is given, never prints elsewhere, never exits. */
#ifndef MT_REPORT_H
#define MT_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "../core/error.h"
#include "../topology/topology.h"

/* ---------- text formatting (format.c) ---------- */

/* Bytes with binary units and at most 3 significant digits, trailing zeros
 * dropped: 128 -> "128 B", 26112 -> "25.5 KiB", 52428800 -> "50 MiB".
 * Returns buf. */
char *mt_format_bytes(double bytes, char *buf, size_t n);

/* A finding as text in its unit ("B" -> binary units, "cycles", "count",
 * "bool" -> "yes"/"no"):
 *   VALUE "224 KiB" / "128 B" / "33 cycles" / "1"
 *   LOWER_BOUND "> 64 KiB"       RANGE "22.0-24.5 KiB"
 *   NONE "-"                     ABSENT "no"
 *   TEXT its text                SET its keys, ", "-separated ("-" when empty)
 * with_unit = 0 leaves out a non-byte unit ("33" instead of "33 cycles"),
 * for table columns whose header names the unit.  Returns buf. */
char *mt_format_finding(const mt_finding *f, int with_unit, char *buf, size_t n);
/* A finding in cycles converted to ns at the topology's measured clock
 * (mt_topology_ns_per_cycle), formatted as mt_format_finding does: "17.1 ns",
 * "> 60.2 ns"; "-" when there is no clock or f is not a number in cycles. */
void mt_format_ns(const mt_topology *t, const mt_finding *f, int with_unit, char *buf, size_t n);

/* The members of a set (keys, comma-separated, as in mt_finding.text of an
 * MT_FIND_SET) as the objects' abbreviations in the topology's object order,
 * self left out, keys that name no object appended as they are: "Tex, RO";
 * "-" when nothing is left.  t and self may be NULL.  Returns buf. */
char *mt_format_members(const mt_topology *t, const mt_object *self, const char *keys,
                        size_t keys_size, char *buf, size_t n);

/* ---------- reports ---------- */

/* Human-readable report written to out; fits in 100 columns:
 *   header (device, run, missing probes, "STOPPED EARLY"),
 *   "Caches": one row per MT_OBJ_IN_TABLE object with the columns size,
 *     line, sector, latency, miss_penalty, shared_with, per_sm,
 *   "Other findings": every other finding, under its object,
 *   "Method and confidence": every measured finding, with its note,
 *   thresholds and timing. */
mt_err mt_report_text(const mt_topology *t, FILE *out, mt_errinfo *ei);

/* JSON report (topology_json.h, schema/memtopo-report.schema.json).  path
 * "-" writes to stdout; any other path is written as "<path>.tmp" and
 * renamed, so a failure never leaves a partial file (the temporary is
 * removed). */
mt_err mt_report_json(const mt_topology *t, const char *path, mt_errinfo *ei);

/* One CSV row per finding, after a header row:
 *   object,finding,label,kind,value,lo,hi,text,unit,source,method,confidence,note
 * value/lo/hi as the kind uses them (empty otherwise), text for TEXT and the
 * member keys ("a,b") for SET.  RFC 4180 quoting (fields with a comma, a
 * quote or a line break in double quotes, quotes doubled), "\n" line ends.
 * path "-" is stdout; any other path is written atomically as for JSON. */
mt_err mt_report_csv(const mt_topology *t, const char *path, mt_errinfo *ei);

#endif

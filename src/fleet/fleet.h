/* A set of reports to compare (saved files, or the ranks of an MPI fleet)
 * and its two renderings: the text summary (fleet_text.c) and the fleet
 * report document (fleet_json.c, schema/memtopo-fleet.schema.json). */
#ifndef MT_FLEET_H
#define MT_FLEET_H

#include <stdio.h>

#include <jansson.h>

#include "compare.h"

#define MT_FLEET_SCHEMA_VERSION "1.0.0"

typedef struct {
    char name[256];       /* the file, or "rank 3 (host)" */
    mt_topology *report;  /* NULL when it could not be measured or read */
    char error[512];      /* why report is NULL */
} mt_fleet_member;

typedef struct {
    mt_fleet_member *members;
    size_t n;
} mt_fleet;

/* Frees every member's report and the array (NULL-safe). */
void mt_fleet_free_members(mt_fleet *fl);

/* The comparison of fl's reports (compare.h). */
mt_err mt_fleet_compare_members(const mt_fleet *fl, mt_fleet_cmp **out, mt_errinfo *ei);
/* The same for the GPUs of one node: without their links to each other
 * (compare.h, mt_fleet_compare_except), which mt_fleet_links compares. */
mt_err mt_fleet_compare_node_members(const mt_fleet *fl, mt_fleet_cmp **out, mt_errinfo *ei);

/* The node's links (fleet_links.c): one row per link each GPU measured
 * (to the host, to another GPU), the type, peer access, latency and
 * bandwidths; a link to another GPU whose copy or SM bandwidth lies below
 * the median of the node's links of the same type by more than the
 * comparison's bandwidth tolerance, or whose latency lies above it by
 * more than the latency tolerance, is flagged (SLOW).  With no link
 * measured: one line saying why. */
mt_err mt_fleet_links_text(const mt_fleet *fl, FILE *out, mt_errinfo *ei);
/* How many links between GPUs mt_fleet_links_text flags as slow. */
size_t mt_fleet_slow_links(const mt_fleet *fl);

/* The comparison as text: the members, the test, one line per finding
 * (its centre, limit and the members flagged), and a closing verdict. */
mt_err mt_fleet_text(const mt_fleet *fl, const mt_fleet_cmp *c, FILE *out, mt_errinfo *ei);

/* The fleet report document: every member (name, error, its full report),
 * the test, and per finding the distribution and the members flagged. */
mt_err mt_fleet_build_json(const mt_fleet *fl, const mt_fleet_cmp *c, json_t **out,
                           mt_errinfo *ei);

#endif

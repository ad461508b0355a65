/* The topology as JSON (schema/memtopo-report.schema.json, schema_version
 * MT_SCHEMA_VERSION): the writer the report uses, and the reader that the
 * performance model, fleet comparison and the tests use to load reports
 * written earlier.  Reading what was written gives back an equal topology
 * (tests/test_topology_json.c).  The device block is device_json.h. */
#ifndef MT_TOPOLOGY_JSON_H
#define MT_TOPOLOGY_JSON_H

#include <jansson.h>

#include "topology.h"

#define MT_SCHEMA_VERSION "2.5.0"
#define MT_TOOL_NAME "memtopo"

/* The whole report document in *out (the caller's, json_decref).
 * MT_ERR_NOMEM, or MT_ERR_JSON (message names the finding) for what JSON
 * cannot hold: a non-finite number, an unknown kind, source, type or flag. */
mt_err mt_topology_build_json(const mt_topology *t, json_t **out, mt_errinfo *ei);
/* The same without the reason; NULL on any failure. */
json_t *mt_topology_to_json(const mt_topology *t);
/* Reads a report document (schema major version 2).  Other major versions,
 * missing or mistyped members fail with MT_ERR_JSON and a one-line message
 * naming the member.  On success *out is the caller's (mt_topology_free). */
mt_err mt_topology_from_json(const json_t *doc, mt_topology **out, mt_errinfo *ei);
/* Reads a report file. */
mt_err mt_topology_read_file(const char *path, mt_topology **out, mt_errinfo *ei);

#endif

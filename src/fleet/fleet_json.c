/* The fleet report document (fleet.h, schema/memtopo-fleet.schema.json). */
#include <math.h>

#include "../analysis/outliers.h"
#include "../core/version.h"
#include "../topology/topology_json.h"
#include "fleet.h"

/* A real, or null where it is not finite (an open bound's upper end). */
static json_t *real_or_null(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static json_t *row_json(const mt_cmp_row *row, size_t n)
{
    json_t *status = json_array();
    for (size_t r = 0; status && r < n; r++)
        json_array_append_new(status, json_string(mt_cmp_status_name(row->status[r])));
    bool compared = row->n_compared >= 2 || (row->n_compared == 1 && row->reference_mode);
    const char *how = row->description ? "description"
                      : !compared      ? "none"
                      : row->numeric   ? "numeric"
                                       : "category";
    json_t *j = json_pack("{s:s, s:s, s:s, s:s, s:s, s:b, s:I, s:I, s:o}", "object",
                          row->object, "name", row->name, "label", row->label, "unit", row->unit,
                          "comparison", how, "reference_mode", row->reference_mode, "compared",
                          (json_int_t)row->n_compared, "flagged", (json_int_t)row->n_flagged,
                          "status", status);
    if (j && compared && row->numeric) {
        json_object_set_new(j, "centre_lo", real_or_null(row->center_lo));
        json_object_set_new(j, "centre_hi", real_or_null(row->center_hi));
        json_object_set_new(j, "mad", real_or_null(row->mad));
        json_object_set_new(j, "tolerance", real_or_null(row->tolerance));
        json_object_set_new(j, "limit", real_or_null(row->limit));
        json_object_set_new(j, "min", real_or_null(row->min));
        json_object_set_new(j, "max", real_or_null(row->max));
    }
    if (j && compared && !row->numeric)
        json_object_set_new(j, "category",
                            row->category[0] ? json_string(row->category) : json_null());
    return j;
}

static mt_err member_json(const mt_fleet_member *m, size_t flagged, json_t **out,
                          mt_errinfo *ei)
{
    json_t *rep = json_null();
    if (m->report) {
        mt_err e = mt_topology_build_json(m->report, &rep, ei);
        if (e != MT_OK)
            return e;
    }
    *out = json_pack("{s:s, s:o, s:I, s:o}", "name", m->name, "error",
                     m->report ? json_null() : json_string(m->error), "flagged",
                     (json_int_t)flagged, "report", rep);
    return *out ? MT_OK : mt_fail(ei, MT_ERR_NOMEM, "fleet report: out of memory");
}

mt_err mt_fleet_build_json(const mt_fleet *fl, const mt_fleet_cmp *c, json_t **out,
                           mt_errinfo *ei)
{
    json_t *members = json_array(), *findings = json_array();
    json_t *flagged = json_array(), *failed = json_array();
    json_t *doc = NULL;
    mt_err e = MT_OK;
    if (!members || !findings || !flagged || !failed)
        e = mt_fail(ei, MT_ERR_NOMEM, "fleet report: out of memory");
    for (size_t r = 0; e == MT_OK && r < fl->n; r++) {
        json_t *m;
        e = member_json(&fl->members[r], c->flagged[r], &m, ei);
        if (e == MT_OK)
            json_array_append_new(members, m);
        if (c->flagged[r])
            json_array_append_new(flagged, json_integer((json_int_t)r));
        if (!fl->members[r].report)
            json_array_append_new(failed, json_integer((json_int_t)r));
    }
    for (size_t i = 0; e == MT_OK && i < c->n_rows; i++) {
        json_t *row = row_json(&c->rows[i], c->n_reports);
        if (!row || json_array_append_new(findings, row) != 0)
            e = mt_fail(ei, MT_ERR_NOMEM, "fleet report: out of memory");
    }
    if (e == MT_OK) {
        bool same = c->n_flagged_reports == 0 && c->n_failed == 0;
        doc = json_pack("{s:s, s:{s:s, s:s}, s:{s:s, s:f, s:f}, s:s, s:O, s:O, s:O, s:O}",
                        "fleet_schema_version", MT_FLEET_SCHEMA_VERSION, "tool", "name",
                        MT_TOOL_NAME, "version", MEMTOPO_VERSION, "test", "centre",
                        fl->n == 2 ? "reference" : "median", "outlier_mads", MT_OUTLIER_MADS,
                        "mad_to_sd", MT_MAD_TO_SD, "result", same ? "same" : "differs",
                        "flagged_members", flagged, "failed_members", failed, "members",
                        members, "findings", findings);
        if (!doc)
            e = mt_fail(ei, MT_ERR_NOMEM, "fleet report: out of memory");
    }
    json_decref(members);
    json_decref(findings);
    json_decref(flagged);
    json_decref(failed);
    *out = doc;
    return e;
}

/* A fleet's members: freeing them, and comparing their reports. */
#include <stdlib.h>

#include "fleet.h"

void mt_fleet_free_members(mt_fleet *fl)
{
    if (!fl)
        return;
    for (size_t i = 0; i < fl->n; i++)
        mt_topology_free(fl->members[i].report);
    free(fl->members);
    fl->members = NULL;
    fl->n = 0;
}

static mt_err compare_members(const mt_fleet *fl, const char *skip_prefix, mt_fleet_cmp **out,
                              mt_errinfo *ei)
{
    if (!fl || fl->n == 0)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "compare: no reports");
    const mt_topology **reps = calloc(fl->n, sizeof *reps);
    if (!reps)
        return mt_fail(ei, MT_ERR_NOMEM, "compare: out of memory");
    for (size_t i = 0; i < fl->n; i++)
        reps[i] = fl->members[i].report;
    mt_err e = mt_fleet_compare_except(reps, fl->n, skip_prefix, out, ei);
    free(reps);
    return e;
}

mt_err mt_fleet_compare_members(const mt_fleet *fl, mt_fleet_cmp **out, mt_errinfo *ei)
{
    return compare_members(fl, NULL, out, ei);
}

mt_err mt_fleet_compare_node_members(const mt_fleet *fl, mt_fleet_cmp **out, mt_errinfo *ei)
{
    return compare_members(fl, MT_CMP_PEER_LINK_PREFIX, out, ei);
}

/* The node's links as text (fleet.h, mt_fleet_links_text): the link
 * matrix of a node run, one row per link a GPU measured.  Links between
 * GPUs are compared here, not by the finding-by-finding comparison (their
 * keys name the peer, so no two GPUs share them): each is held against
 * the best link of its type in the node. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../report/report.h"
#include "fleet.h"

/* The measured quantities of a link, in the matrix's column order. */
static const char *const measured[] = {"latency", "read_bandwidth", "write_bandwidth",
                                       "copy_in_bandwidth", "copy_out_bandwidth"};
#define N_MEASURED (sizeof measured / sizeof measured[0])

/* A link the GPU measured: the driver named its type (a backend without
 * link experiments leaves the type not measured). */
static bool is_link(const mt_object *o)
{
    const mt_finding *type = mt_object_get(o, "type");
    return o->type == MT_OBJ_LINK && type && type->kind == MT_FIND_TEXT;
}

static bool is_peer_link(const mt_object *o)
{
    return is_link(o) && strncmp(o->key, MT_CMP_PEER_LINK_PREFIX,
                                 strlen(MT_CMP_PEER_LINK_PREFIX)) == 0;
}

static const char *text_of(const mt_object *o, const char *name)
{
    const mt_finding *f = mt_object_get(o, name);
    return f && f->kind == MT_FIND_TEXT ? f->text : "-";
}

/* The best value of measured[m] among the node's peer links of type
 * `type`: the highest bandwidth, the lowest latency (NAN: none). */
static double best_of_type(const mt_fleet *fl, const char *type, size_t m)
{
    double best = NAN;
    for (size_t i = 0; i < fl->n; i++) {
        const mt_topology *t = fl->members[i].report;
        for (size_t k = 0; t && k < t->n_objects; k++) {
            const mt_object *o = &t->objects[k];
            const mt_finding *f = mt_object_get(o, measured[m]);
            if (!is_peer_link(o) || strcmp(text_of(o, "type"), type) != 0 || !f ||
                f->kind != MT_FIND_VALUE)
                continue;
            if (isnan(best) || (m == 0 ? f->value < best : f->value > best))
                best = f->value;
        }
    }
    return best;
}

/* Which measurements of peer link o fall short of the best of its type by
 * more than the comparison's tolerance ("", or "copy_in_bandwidth, ..."). */
static void shortfalls(const mt_fleet *fl, const mt_object *o, char *buf, size_t n)
{
    buf[0] = '\0';
    for (size_t m = 0; m < N_MEASURED; m++) {
        const mt_finding *f = mt_object_get(o, measured[m]);
        if (!f || f->kind != MT_FIND_VALUE)
            continue;
        double best = best_of_type(fl, text_of(o, "type"), m);
        double tol = mt_compare_tolerance(measured[m], f->unit, best);
        bool slow = m == 0 ? f->value > best + tol : f->value < best - tol;
        if (slow)
            snprintf(buf + strlen(buf), n - strlen(buf), "%s%s", buf[0] ? ", " : "",
                     measured[m]);
    }
}

size_t mt_fleet_slow_links(const mt_fleet *fl)
{
    size_t n = 0;
    char slow[160];
    for (size_t i = 0; i < fl->n; i++)
        for (size_t k = 0; fl->members[i].report && k < fl->members[i].report->n_objects; k++) {
            const mt_object *o = &fl->members[i].report->objects[k];
            if (!is_peer_link(o))
                continue;
            shortfalls(fl, o, slow, sizeof slow);
            n += slow[0] != '\0';
        }
    return n;
}

static void cell(const mt_object *o, const char *name, char *buf, size_t n)
{
    const mt_finding *f = mt_object_get(o, name);
    if (!f || f->kind == MT_FIND_NONE)
        snprintf(buf, n, "-");
    else
        mt_format_finding(f, 0, buf, n);
}

mt_err mt_fleet_links_text(const mt_fleet *fl, FILE *out, mt_errinfo *ei)
{
    size_t n_slow = 0;
    size_t n_links = 0;
    for (size_t i = 0; i < fl->n; i++)
        for (size_t k = 0; fl->members[i].report && k < fl->members[i].report->n_objects; k++)
            n_links += is_link(&fl->members[i].report->objects[k]);
    if (n_links == 0) {
        fprintf(out, "Links: %s\n",
                fl->n == 1 ? "no links measured (one GPU; --no-links, or a backend without them)"
                           : "not measured (--no-links, or a backend without link experiments)");
        return ferror(out) ? mt_fail(ei, MT_ERR_IO, "cannot write the link matrix") : MT_OK;
    }
    fprintf(out,
            "Links (%zu; each GPU's to the host and to the others; latency in cycles of one "
            "load, bandwidth in GB/s = 1e9 B/s per direction, each byte moved counted once; "
            "nominal: computed from the type, not measured):\n",
            n_links);
    fprintf(out, "  %-4s %-7s %-16s %-4s %9s %9s %9s %9s %9s %9s\n", "from", "to", "type", "peer",
            "latency", "SM read", "SM write", "copy in", "copy out", "nominal");
    for (size_t i = 0; i < fl->n; i++) {
        const mt_topology *t = fl->members[i].report;
        for (size_t k = 0; t && k < t->n_objects; k++) {
            const mt_object *o = &t->objects[k];
            if (!is_link(o))
                continue;
            char to[40], from[24], c[N_MEASURED + 1][32], slow[160] = "";
            snprintf(from, sizeof from, "#%zu", i);
            if (is_peer_link(o))
                snprintf(to, sizeof to, "GPU %s", o->key + strlen(MT_CMP_PEER_LINK_PREFIX));
            else
                snprintf(to, sizeof to, "host");
            for (size_t m = 0; m < N_MEASURED; m++)
                cell(o, measured[m], c[m], sizeof c[m]);
            cell(o, "nominal_bandwidth", c[N_MEASURED], sizeof c[N_MEASURED]);
            if (is_peer_link(o))
                shortfalls(fl, o, slow, sizeof slow);
            fprintf(out, "  %-4s %-7s %-16.16s %-4s %9s %9s %9s %9s %9s %9s%s%s\n", from, to,
                    text_of(o, "type"), text_of(o, "peer_access"), c[0], c[1], c[2], c[3], c[4],
                    c[5], slow[0] ? "  SLOW: " : "", slow);
            n_slow += slow[0] != '\0';
        }
    }
    fprintf(out, "Links between GPUs: %zu slow (against the best link of the same type, beyond "
                 "the comparison's tolerances)\n",
            n_slow);
    return ferror(out) ? mt_fail(ei, MT_ERR_IO, "cannot write the link matrix") : MT_OK;
}

/* The human-readable report: a header about the device and the run, one
 * table row per MT_OBJ_IN_TABLE object (like the thesis' result tables),
 * every other finding under its object, then the evidence behind each
 * number.  Nothing here names a finding except the table's columns.
 * Everything fits in TEXT_WIDTH columns. */
#include <errno.h>
#include <string.h>

#include "../topology/topology_json.h" /* MT_TOOL_NAME */
#include "report.h"

#define TEXT_WIDTH 100

/* Prints text wrapped at TEXT_WIDTH: the first line continues a lead the
 * caller already printed (`col` columns wide), continuation lines are
 * indented by `indent`.  Always ends the line. */
static void wrap(FILE *out, int col, int indent, const char *text)
{
    const char *p = text;
    int printed = 0;
    for (;;) {
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        if (printed) {
            fprintf(out, "%*s", indent, "");
            col = indent;
        }
        int room = TEXT_WIDTH - col;
        if (room < 20)
            room = 20; /* never wrap into a sliver; overflow instead */
        size_t len = strlen(p);
        size_t take = len;
        if (len > (size_t)room) {
            take = (size_t)room;
            while (take > 0 && p[take] != ' ')
                take--;
            if (take == 0) /* one word longer than the line */
                for (take = (size_t)room; p[take] && p[take] != ' '; take++)
                    ;
        }
        fprintf(out, "%.*s\n", (int)take, p);
        printed = 1;
        p += take;
    }
    if (!printed)
        fputc('\n', out); /* end the caller's lead line */
}

static void header(const mt_topology *t, FILE *out)
{
    const mt_device_info *d = &t->dev;
    char a[64], b[64], c[64];

    fprintf(out, "%s %s: memory topology of %s\n", MT_TOOL_NAME,
            t->prov.tool_version[0] ? t->prov.tool_version : "(unknown version)",
            d->name[0] ? d->name : "(unnamed device)");
    fprintf(out, "  %-15s %s (device %d), compute capability %d.%d\n", "Device",
            d->name[0] ? d->name : "?", d->ordinal, d->cc_major, d->cc_minor);
    fprintf(out, "  %-15s %d, max clock %.0f MHz, warp %d, %d threads/SM, %d registers/SM\n",
            "SMs", d->sm_count, d->clock_khz / 1000.0, d->warp_size, d->max_threads_per_sm,
            d->regs_per_sm);
    fprintf(out, "  %-15s %s, clock %.0f MHz, %d-bit bus\n", "Memory",
            mt_format_bytes((double)d->global_mem_bytes, a, sizeof a), d->mem_clock_khz / 1000.0,
            d->bus_width_bits);
    fprintf(out, "  %-15s %s, persisting max %s; constant memory %s\n", "L2 (driver)",
            mt_format_bytes((double)d->l2_bytes, a, sizeof a),
            mt_format_bytes((double)d->persisting_l2_max_bytes, b, sizeof b),
            mt_format_bytes((double)d->const_mem_bytes, c, sizeof c));
    fprintf(out, "  %-15s %s/SM, %s/block", "Shared memory",
            mt_format_bytes(d->smem_per_sm, a, sizeof a),
            mt_format_bytes(d->smem_per_block, b, sizeof b));
    fprintf(out, " (%s opt-in)", mt_format_bytes(d->smem_per_block_optin, c, sizeof c));
    if (d->carveout_percent >= 0) {
        fprintf(out, "; carveout %d%%", d->carveout_percent);
        if (d->carveout_smem_bytes)
            fprintf(out, " = %s", mt_format_bytes(d->carveout_smem_bytes, a, sizeof a));
        fputc('\n', out);
    } else {
        fprintf(out, "; carveout unknown\n");
    }

    fprintf(out, "  %-15s %s", "Backend", d->backend[0] ? d->backend : "?");
    if (d->driver_version[0] || d->runtime_version[0])
        fprintf(out, " (driver %s, runtime %s)", d->driver_version[0] ? d->driver_version : "?",
                d->runtime_version[0] ? d->runtime_version : "?");
    if (t->prov.source[0] && strcmp(t->prov.source, d->backend) != 0)
        fprintf(out, ", results from %s", t->prov.source);
    fputc('\n', out);
    if (t->prov.replay_of[0]) {
        fprintf(out, "  %-15s ", "Replay of");
        wrap(out, 18, 18, t->prov.replay_of);
    }
    if (t->prov.time_utc[0])
        fprintf(out, "  %-15s %s\n", "Time (UTC)", t->prov.time_utc);
    if (t->prov.command_line[0]) {
        fprintf(out, "  %-15s ", "Command");
        wrap(out, 18, 18, t->prov.command_line);
    }
    if (t->prov.probes_missing[0]) {
        /* A replay without some requested probes: their findings are absent. */
        char list[2 * sizeof t->prov.probes_missing + 64]; /* "a,b" -> "a, b" */
        mt_format_members(NULL, NULL, t->prov.probes_missing, sizeof t->prov.probes_missing, list,
                          2 * sizeof t->prov.probes_missing);
        strcat(list, " (requested; the recording lacks them)");
        fprintf(out, "  %-15s ", "Probes missing");
        wrap(out, 18, 18, list);
    }
    if (t->prov.error[0]) {
        /* A partial run: say so before any number is read as complete. */
        fprintf(out, "  %-15s ", "STOPPED EARLY");
        wrap(out, 18, 18, t->prov.error);
    }
}

/* One table cell: the finding's text ("-" when there is none), with "*"
 * when a driver query (not a measurement) supplied it. */
static void cell(const mt_finding *f, char *buf, size_t n)
{
    if (!f) {
        snprintf(buf, n, "-");
        return;
    }
    mt_format_finding(f, 0, buf, n);
    if (f->kind != MT_FIND_NONE && f->source == MT_SRC_DRIVER) {
        size_t l = strlen(buf);
        if (l + 1 < n) {
            buf[l] = '*';
            buf[l + 1] = '\0';
        }
    }
}

/* The table's columns: the findings of an MT_OBJ_IN_TABLE object with these
 * names are cells; every other finding is listed under "Other findings". */
static const struct {
    const char *finding;
    const char *head;
} columns[] = {
    {"size", "Size"},
    {"line", "Line"},
    {"sector", "Sector"},
    {"latency", "Latency"},
    {"miss_penalty", "Miss pen."},
    {"shared_with", "Shared with"},
    {"per_sm", "Per SM"},
};
#define N_COLUMNS (sizeof columns / sizeof columns[0])
#define SHARED_WITH "shared_with"

static int is_cell(const mt_object *o, const char *finding)
{
    if (!(o->flags & MT_OBJ_IN_TABLE))
        return 0;
    for (size_t i = 0; i < N_COLUMNS; i++)
        if (strcmp(columns[i].finding, finding) == 0)
            return 1;
    return 0;
}

/* A finding's value as text with its unit; a set as abbreviations. */
static void value_text(const mt_topology *t, const mt_object *o, const mt_finding *f,
                       int with_unit, char *buf, size_t n)
{
    if (f->kind == MT_FIND_SET)
        mt_format_members(t, o, f->text, sizeof f->text, buf, n);
    else
        mt_format_finding(f, with_unit, buf, n);
}

/* The "Shared with" cell.  A set lists the other members; with no set an
 * object that may share (MT_OBJ_SHAREABLE), was probed and exists shows
 * "?" (not tested), any other "-". */
static void sharing_cell(const mt_topology *t, const mt_object *o, char *buf, size_t n)
{
    const mt_finding *f = mt_object_get(o, SHARED_WITH);
    if (f && f->kind == MT_FIND_SET) {
        mt_format_members(t, o, f->text, sizeof f->text, buf, n);
        if (f->source == MT_SRC_DRIVER && strlen(buf) + 1 < n)
            strcat(buf, "*");
    } else if (f && f->kind != MT_FIND_NONE) {
        cell(f, buf, n);
    } else {
        const mt_finding *size = mt_object_get(o, "size");
        int exists = !size || size->kind != MT_FIND_ABSENT;
        snprintf(buf, n, "%s", (o->flags & MT_OBJ_SHAREABLE) && o->probed && exists ? "?" : "-");
    }
}

/* Column widths: 13+14+12+8+9+9+14+6 plus 7 two-space gaps = 99 columns. */
#define ROW_FMT "%-13s  %-14s  %-12s  %-8s  %-9s  %-9s  %-14s  %s\n"
/* With a measured clock the latency follows again in ns (mt_format_ns), in
 * a column of its own after the latency: 107 columns.  Without one (older
 * recordings) the table is exactly the one those runs printed.  To stay
 * within 100 columns the ns table narrows size, sector, latency and
 * "shared with" to their longest usual contents:
 * 13+13+12+7+7+5+9+12+6 plus 8 two-space gaps = 100 columns. */
#define ROW_FMT_NS "%-13s  %-13s  %-12s  %-7s  %-7s  %-5s  %-9s  %-12s  %s\n"
#define NS_HEAD "ns"

static void cache_table(const mt_topology *t, FILE *out)
{
    _Static_assert(N_COLUMNS == 7, "ROW_FMT has seven value columns");
    fprintf(out, "\nCaches\n");
    const double ns_per_cycle = mt_topology_ns_per_cycle(t);
    if (ns_per_cycle > 0) {
        fprintf(out, ROW_FMT_NS, "Cache", columns[0].head, columns[1].head, columns[2].head,
                columns[3].head, NS_HEAD, columns[4].head, columns[5].head, columns[6].head);
        fprintf(out, ROW_FMT_NS, "-------------", "-------------", "------------", "-------",
                "-------", "-----", "---------", "------------", "------");
    } else {
        fprintf(out, ROW_FMT, "Cache", columns[0].head, columns[1].head, columns[2].head,
                columns[3].head, columns[4].head, columns[5].head, columns[6].head);
        fprintf(out, ROW_FMT, "-------------", "--------------", "------------", "--------",
                "---------", "---------", "--------------", "------");
    }
    int any_driver = 0;
    for (size_t i = 0; i < t->n_objects; i++) {
        const mt_object *o = &t->objects[i];
        if (!(o->flags & MT_OBJ_IN_TABLE))
            continue;
        char c[N_COLUMNS][200];
        for (size_t k = 0; k < N_COLUMNS; k++) {
            const mt_finding *f = mt_object_get(o, columns[k].finding);
            if (strcmp(columns[k].finding, SHARED_WITH) == 0)
                sharing_cell(t, o, c[k], sizeof c[k]);
            else
                cell(f, c[k], sizeof c[k]);
            if (f && f->kind != MT_FIND_NONE && f->source == MT_SRC_DRIVER)
                any_driver = 1;
        }
        char ns[64];
        mt_format_ns(t, mt_object_get(o, "latency"), 0, ns, sizeof ns);
        if (ns_per_cycle > 0)
            fprintf(out, ROW_FMT_NS, o->name, c[0], c[1], c[2], c[3], ns, c[4], c[5], c[6]);
        else
            fprintf(out, ROW_FMT, o->name, c[0], c[1], c[2], c[3], c[4], c[5], c[6]);
    }
    if (ns_per_cycle > 0)
        fprintf(out, "Latency and miss penalty in cycles; ns: the latency at the measured SM clock "
                     "of %.0f MHz.\n\"-\" not measured, \"no\" found absent, \"> x\" lower bound, "
                     "\"?\" sharing not tested.", 1e3 / ns_per_cycle);
    else
        fprintf(out, "Latency and miss penalty in cycles.  \"-\" not measured, \"no\" found "
                     "absent, \"> x\" lower bound,\n\"?\" sharing not tested.");
    if (any_driver)
        fprintf(out, ns_per_cycle > 0 ? "\n* from the driver query, not measured."
                                      : "  * from the driver query, not measured.");
    fputc('\n', out);
}

/* Label column of "Other findings" (values start at column 45). */
#define OTHER_LABEL_WIDTH 40

static void other_findings(const mt_topology *t, FILE *out)
{
    fprintf(out, "\nOther findings\n");
    int any = 0;
    for (size_t i = 0; i < t->n_objects; i++) {
        const mt_object *o = &t->objects[i];
        int heading = 0;
        for (size_t k = 0; k < o->n_findings; k++) {
            const mt_named_finding *nf = &o->findings[k];
            if (is_cell(o, nf->name))
                continue;
            if (!heading) {
                fprintf(out, "  %s\n", o->name[0] ? o->name : o->key);
                heading = any = 1;
            }
            char val[256];
            value_text(t, o, &nf->f, 1, val, sizeof val);
            if (mt_finding_has_ns(t, &nf->f)) {
                char ns[64];
                mt_format_ns(t, &nf->f, 1, ns, sizeof ns);
                size_t l = strlen(val);
                snprintf(val + l, sizeof val - l, " (%s)", ns);
            }
            const char *label = nf->label[0] ? nf->label : nf->name;
            int col = fprintf(out, "    %-*s ", OTHER_LABEL_WIDTH, label);
            wrap(out, col, 4 + OTHER_LABEL_WIDTH + 1, val);
        }
    }
    if (!any)
        fprintf(out, "  (none)\n");
}

/* "Finding" column of the method section; a longer name gets a line of its
 * own, the rest of its entry follows on the next line. */
#define METHOD_LABEL_WIDTH 36

static void method_line(FILE *out, const mt_object *o, const mt_named_finding *nf)
{
    const mt_finding *f = &nf->f;
    if (f->kind == MT_FIND_NONE)
        return;
    char label[MT_LABEL_LEN + 40];
    snprintf(label, sizeof label, "%s %s", o->name[0] ? o->name : o->key,
             nf->label[0] ? nf->label : nf->name);
    if (strlen(label) > METHOD_LABEL_WIDTH) {
        fprintf(out, "  %s\n", label);
        label[0] = '\0';
    }
    char conf[16];
    snprintf(conf, sizeof conf, "%.2f", f->confidence);
    fprintf(out, "  %-*s %-9s %-5s  %s\n", METHOD_LABEL_WIDTH, label, mt_source_name(f->source),
            conf, f->method[0] ? f->method : "-");
    if (f->note[0]) {
        fprintf(out, "%6s", "");
        fprintf(out, "note: ");
        wrap(out, 12, 12, f->note);
    } else if (f->kind == MT_FIND_LOWER_BOUND) {
        /* A bound without a note still says why it is only a bound. */
        fprintf(out, "%6snote: lower bound only (the measurement reached a limit)\n", "");
    }
}

static void methods(const mt_topology *t, FILE *out)
{
    fprintf(out, "\nMethod and confidence\n");
    fprintf(out, "  %-*s %-9s %-5s  %s\n", METHOD_LABEL_WIDTH, "Finding", "Source", "Conf.",
            "Method");
    for (size_t i = 0; i < t->n_objects; i++)
        for (size_t k = 0; k < t->objects[i].n_findings; k++)
            method_line(out, &t->objects[i], &t->objects[i].findings[k]);
}

static void thresholds(const mt_topology *t, FILE *out)
{
    if (t->n_thresholds <= 0)
        return;
    fprintf(out, "\nThresholds\n");
    int n = t->n_thresholds < MT_MAX_THRESHOLDS ? t->n_thresholds : MT_MAX_THRESHOLDS;
    for (int i = 0; i < n; i++) {
        const mt_threshold *th = &t->thresholds[i];
        char lead[128];
        int col = snprintf(lead, sizeof lead, "  %s = %g: ", th->name, th->value);
        fputs(lead, out);
        if (th->why[0])
            wrap(out, col, 6, th->why);
        else
            fputc('\n', out);
    }
}

static void timing(const mt_topology *t, FILE *out)
{
    fprintf(out, "\nTiming\n");
    fprintf(out, "  %-24s %10s %12s\n", "Probe", "Seconds", "Experiments");
    int n = t->n_times < MT_MAX_PROBE_TIMES ? t->n_times : MT_MAX_PROBE_TIMES;
    for (int i = 0; i < n; i++)
        fprintf(out, "  %-24s %10.3f %12u\n", t->times[i].probe, t->times[i].seconds,
                t->times[i].experiments);
    fprintf(out, "  %-24s %10.3f %12u\n", "Total", t->total_seconds, t->total_experiments);
}

mt_err mt_report_text(const mt_topology *t, FILE *out, mt_errinfo *ei)
{
    if (!t || !out)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "text report: no topology or no output stream");
    errno = 0;
    header(t, out);
    cache_table(t, out);
    other_findings(t, out);
    methods(t, out);
    thresholds(t, out);
    timing(t, out);
    if (fflush(out) != 0 || ferror(out))
        return mt_fail(ei, MT_ERR_IO, "cannot write the text report: %s",
                       errno ? strerror(errno) : "stream error");
    return MT_OK;
}

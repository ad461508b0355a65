/* The human-readable report: a header about the device and the run, one
 * table row per cache (like the thesis' result tables), then the evidence
 * behind each number.  Everything fits in TEXT_WIDTH columns. */
#include <errno.h>
#include <string.h>

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
    if (t->prov.error[0]) {
        /* A partial run: say so before any number is read as complete. */
        fprintf(out, "  %-15s ", "STOPPED EARLY");
        wrap(out, 18, 18, t->prov.error);
    }
}

/* One table cell: the finding's text, with "*" when a driver query (not a
 * measurement) supplied it. */
static void cell(const mt_finding *f, char *buf, size_t n)
{
    mt_format_finding(f, 0, buf, n);
    if (f->kind != MT_FIND_NONE && f->source == MT_SRC_DRIVER) {
        size_t l = strlen(buf);
        if (l + 1 < n) {
            buf[l] = '*';
            buf[l + 1] = '\0';
        }
    }
}

/* Column widths: 13+14+12+8+9+9+14+6 plus 7 two-space gaps = 99 columns. */
#define ROW_FMT "%-13s  %-14s  %-12s  %-8s  %-9s  %-9s  %-14s  %s\n"

static void cache_table(const mt_topology *t, FILE *out)
{
    fprintf(out, "\nCaches\n");
    fprintf(out, ROW_FMT, "Cache", "Size", "Line", "Sector", "Latency", "Miss pen.", "Shared with",
            "Per SM");
    fprintf(out, ROW_FMT, "-------------", "--------------", "------------", "--------",
            "---------", "---------", "--------------", "------");
    int any_driver = 0;
    for (int i = 0; i < MT_CACHE_COUNT; i++) {
        const mt_cache_report *c = &t->cache[i];
        char sz[48], ln[48], sc[48], lat[48], mp[48], sw[96], ps[48];
        cell(&c->size, sz, sizeof sz);
        cell(&c->line, ln, sizeof ln);
        cell(&c->sector, sc, sizeof sc);
        cell(&c->latency, lat, sizeof lat);
        cell(&c->miss_penalty, mp, sizeof mp);
        cell(&c->per_sm, ps, sizeof ps);
        /* Only L1 data, texture and read-only can share one physical cache;
         * for them an untested pair is "?", for the others it is "-". */
        int can_share = i == MT_CACHE_L1D || i == MT_CACHE_TEX || i == MT_CACHE_RO;
        if (c->sharing_tested)
            mt_format_shared_with(c->shared_with & ~(1u << i), sw, sizeof sw);
        else
            snprintf(sw, sizeof sw, "%s",
                     can_share && c->probed && c->size.kind != MT_FIND_ABSENT ? "?" : "-");
        const mt_finding *all[] = {&c->size, &c->line, &c->sector, &c->latency, &c->miss_penalty,
                                   &c->per_sm};
        for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
            if (all[k]->kind != MT_FIND_NONE && all[k]->source == MT_SRC_DRIVER)
                any_driver = 1;
        fprintf(out, ROW_FMT, mt_cache_name((mt_cache_id)i), sz, ln, sc, lat, mp, sw, ps);
    }
    fprintf(out, "Latency and miss penalty in cycles.  \"-\" not measured, \"no\" found absent, "
                 "\"> x\" lower bound,\n\"?\" sharing not tested.");
    if (any_driver)
        fprintf(out, "  * from the driver query, not measured.");
    fputc('\n', out);
}

static const char *yes_no(const mt_finding *f, char *buf, size_t n)
{
    if (f->kind == MT_FIND_VALUE)
        return f->value != 0 ? "yes" : "no";
    return mt_format_finding(f, 1, buf, n);
}

static void other_findings(const mt_topology *t, FILE *out)
{
    char buf[64];
    fprintf(out, "\nOther findings\n");
    fprintf(out, "  %-42s %s\n", "Global loads (ld.global.ca) cached in L1",
            yes_no(&t->l1_caches_global, buf, sizeof buf));
    fprintf(out, "  %-42s %s\n", "L2 partition size (measured)",
            mt_format_finding(&t->l2_partition_size, 1, buf, sizeof buf));
    fprintf(out, "  %-42s %s\n", "L2 far-partition hit latency",
            mt_format_finding(&t->l2_far_latency, 1, buf, sizeof buf));
    fprintf(out, "  %-42s %s\n", "Timer overhead per fine-grained sample",
            mt_format_finding(&t->timer_overhead_fine, 1, buf, sizeof buf));
    fprintf(out, "  %-42s %s\n", "Loop overhead per aggregate load",
            mt_format_finding(&t->timer_overhead_agg, 1, buf, sizeof buf));
}

static void method_line(FILE *out, const char *label, const mt_finding *f)
{
    if (f->kind == MT_FIND_NONE)
        return;
    char conf[16];
    snprintf(conf, sizeof conf, "%.2f", f->confidence);
    fprintf(out, "  %-28s %-9s %-5s  %s\n", label, mt_source_name(f->source), conf,
            f->method[0] ? f->method : "-");
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
    static const char *const field_names[] = {"size", "line", "sector", "latency",
                                              "miss penalty", "per SM"};
    fprintf(out, "\nMethod and confidence\n");
    fprintf(out, "  %-28s %-9s %-5s  %s\n", "Finding", "Source", "Conf.", "Method");
    for (int i = 0; i < MT_CACHE_COUNT; i++) {
        const mt_cache_report *c = &t->cache[i];
        const mt_finding *fs[] = {&c->size, &c->line, &c->sector, &c->latency, &c->miss_penalty,
                                  &c->per_sm};
        for (int k = 0; k < 6; k++) {
            char label[64];
            snprintf(label, sizeof label, "%s %s", mt_cache_name((mt_cache_id)i), field_names[k]);
            method_line(out, label, fs[k]);
        }
    }
    method_line(out, "L1 caches global loads", &t->l1_caches_global);
    method_line(out, "L2 partition size", &t->l2_partition_size);
    method_line(out, "L2 far-partition latency", &t->l2_far_latency);
    method_line(out, "Timer overhead (fine)", &t->timer_overhead_fine);
    method_line(out, "Loop overhead (aggregate)", &t->timer_overhead_agg);
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

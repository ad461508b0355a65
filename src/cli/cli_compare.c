/* memtopo compare REPORT... : saved reports (files, or directories of
 * *.json files) compared finding by finding (src/fleet), for comparing
 * fleets measured at different times and for checking a report against a
 * known-good one in CI (exit status MT_EXIT_DIFFERS). */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../fleet/fleet.h"
#include "../report/json_file.h"
#include "../topology/topology_json.h"
#include "cli.h"

static void compare_usage(FILE *f)
{
    fputs("Usage: memtopo compare [--json FILE|-] REPORT|DIR...\n"
          "Compare saved JSON reports (memtopo --json) finding by finding. With two\n"
          "reports the second is checked against the first (the reference); with more,\n"
          "each against the median, flagging a member further from it than 3.5 robust\n"
          "standard deviations and than the finding's repeatability tolerance. A\n"
          "directory stands for its *.json files, in name order.\n"
          "  -j, --json FILE|-     also write the comparison as a fleet report (JSON)\n"
          "  -h, --help            this text\n"
          "Exit status: 0 same, 7 differs, 2 bad input (one line on stderr).\n",
          f);
}

/* Appends one member named `path` read from that file. */
static mt_err add_file(mt_fleet *fl, const char *path, mt_errinfo *ei)
{
    mt_fleet_member *m = realloc(fl->members, (fl->n + 1) * sizeof *m);
    if (!m)
        return mt_fail(ei, MT_ERR_NOMEM, "compare: out of memory");
    fl->members = m;
    m = &fl->members[fl->n];
    memset(m, 0, sizeof *m);
    snprintf(m->name, sizeof m->name, "%s", path);
    mt_errinfo rei = {{0}};
    mt_err e = mt_topology_read_file(path, &m->report, &rei);
    /* An unreadable or malformed report is bad input (exit 2), as a bad
     * spec file is; the reader's message names the member at fault. */
    if (e != MT_OK)
        return mt_fail(ei, e == MT_ERR_NOMEM ? e : MT_ERR_INVALID_ARG, "compare: %s%s%s",
                       strstr(rei.msg, path) ? "" : path, strstr(rei.msg, path) ? "" : ": ",
                       rei.msg);
    fl->n++;
    return MT_OK;
}

/* A directory's *.json files, in name order. */
static mt_err add_dir(mt_fleet *fl, const char *dir, mt_errinfo *ei)
{
    char **paths;
    size_t n;
    mt_err e = mt_cli_list_dir(dir, ".json", &paths, &n, ei);
    for (size_t i = 0; e == MT_OK && i < n; i++)
        e = add_file(fl, paths[i], ei);
    mt_cli_free_list(paths, n);
    return e;
}

int mt_cli_compare(int argc, char **argv)
{
    const char *json = NULL;
    mt_fleet fl = {0};
    mt_fleet_cmp *c = NULL;
    mt_errinfo ei = {{0}};
    mt_err e = MT_OK;
    int first = 1;
    for (; first < argc && argv[first][0] == '-' && argv[first][1]; first++) {
        if (strcmp(argv[first], "--") == 0) {
            first++;
            break;
        }
        if (strcmp(argv[first], "-h") == 0 || strcmp(argv[first], "--help") == 0) {
            compare_usage(stdout);
            return 0;
        }
        if ((strcmp(argv[first], "-j") == 0 || strcmp(argv[first], "--json") == 0) &&
            first + 1 < argc) {
            json = argv[++first];
            continue;
        }
        e = mt_fail(&ei, MT_ERR_INVALID_ARG, "compare: unknown option or missing value: %s",
                    argv[first]);
        goto out;
    }
    if (first >= argc) {
        e = mt_fail(&ei, MT_ERR_INVALID_ARG,
                    "compare: no reports given (memtopo compare A.json B.json ..., or a directory)");
        goto out;
    }
    for (int i = first; e == MT_OK && i < argc; i++) {
        struct stat st;
        e = stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode) ? add_dir(&fl, argv[i], &ei)
                                                           : add_file(&fl, argv[i], &ei);
    }
    if (e == MT_OK && fl.n < 2)
        e = mt_fail(&ei, MT_ERR_INVALID_ARG, "compare: need at least two reports, got %zu",
                    fl.n);
    if (e == MT_OK)
        e = mt_fleet_compare_members(&fl, &c, &ei);
    if (e == MT_OK && json) {
        json_t *doc = NULL;
        e = mt_fleet_build_json(&fl, c, &doc, &ei);
        if (e == MT_OK)
            e = mt_json_write_doc(doc, json, "fleet report", &ei);
        json_decref(doc);
    }
    if (e == MT_OK && !(json && strcmp(json, "-") == 0))
        e = mt_fleet_text(&fl, c, stdout, &ei);
out:;
    int code = e != MT_OK ? mt_exit_code(e)
               : (c->n_flagged_reports || c->n_failed) ? MT_EXIT_DIFFERS
                                                       : 0;
    if (e != MT_OK)
        mt_cli_error_line(ei.msg);
    mt_fleet_cmp_free(c);
    mt_fleet_free_members(&fl);
    return code;
}

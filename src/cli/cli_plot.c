/* --plot DIR and --html FILE: checking them before measuring, and drawing
 * the plots (report/plot_render.h) and the page (report/report_html.h)
 * after it. */
#include <stdio.h>
#include <stdlib.h>

#include "../report/atomic_dir.h"
#include "../report/output_check.h"
#include "../report/plot_render.h"
#include "../report/report_html.h"
#include "cli.h"

mt_err mt_cli_check_plot_outputs(const mt_cli *o, mt_errinfo *ei)
{
    if (!o->plot && !o->html)
        return MT_OK;
    if (!mt_plot_gnuplot_found())
        return mt_fail(ei, MT_ERR_INVALID_ARG,
                       "%s draws its plots with gnuplot, which is not on the PATH "
                       "(Debian: apt-get install gnuplot-nox)",
                       o->plot ? "--plot" : "--html");
    mt_err e = MT_OK;
    if (o->plot)
        e = mt_output_check("--plot", o->plot, MT_OUTPUT_DIR, mt_plot_files(), ei);
    if (!e && o->html)
        e = mt_output_check("--html", o->html, MT_OUTPUT_FILE, NULL, ei);
    return e;
}

mt_err mt_cli_write_plots(const mt_cli *o, const mt_topology *t, const mt_plot_data *pd,
                          mt_errinfo *ei)
{
    if (!o->plot && !o->html)
        return MT_OK;
    /* The plots are drawn into a fresh temporary directory: beside --plot
     * DIR (renamed into place when whole), or, for a page alone, in
     * $TMPDIR (never beside FILE, which may be a device or a FIFO). */
    char scratch[4096];
    const char *tmpdir = getenv("TMPDIR");
    snprintf(scratch, sizeof scratch, "%s/memtopo-plots", tmpdir && *tmpdir ? tmpdir : "/tmp");
    char *tmp = NULL;
    mt_err e = mt_dir_tmp_create(o->plot ? o->plot : scratch, &tmp, ei);
    if (e != MT_OK)
        return e;
    bool installed = false;
    if ((e = mt_plot_render(pd, t, tmp, ei)) == MT_OK && o->plot) {
        e = mt_dir_install(tmp, o->plot, mt_plot_files(), ei);
        installed = e == MT_OK;
    }
    if (e == MT_OK && o->html)
        e = mt_report_html(t, installed ? o->plot : tmp, o->html, ei);
    if (!installed)
        mt_dir_remove(tmp);
    free(tmp);
    return e;
}

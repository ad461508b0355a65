/* The report as one self-contained HTML page (--html FILE): the text
 * report (table, other findings, method, confidence, thresholds, timing)
 * and every plot of a plot directory (plot_render.h) inlined as SVG, so the
 * page needs nothing else to be read offline: no script, no style sheet,
 * no image file, no network. */
#ifndef MT_REPORT_HTML_H
#define MT_REPORT_HTML_H

#include "../core/error.h"
#include "../topology/topology.h"

/* Writes the page to path, atomically and never through a planted symlink
 * (atomic_file.h, as the JSON and CSV reports).  plot_dir NULL: a page
 * without plots.  MT_ERR_IO naming the file or the plot that cannot be
 * read; MT_ERR_NOMEM. */
mt_err mt_report_html(const mt_topology *t, const char *plot_dir, const char *path,
                      mt_errinfo *ei);

#endif

/* Drawing the plots (--plot DIR, --html FILE) with gnuplot.
 *
 * gnuplot (Debian package gnuplot-nox) is a program, not a library: memtopo
 * writes each plot's data and one script into a directory and runs
 * `gnuplot plots.gp` there, so the directory also holds everything needed to
 * redraw or restyle the plots by hand.  For each load path that the probes
 * chased (plot_data.h):
 *
 *   NAME-latency.{svg,png,dat}       median latency against footprint, one
 *                                    series per stride, with the sizes the
 *                                    report gives for the caches of that
 *                                    path marked (findings "size" and
 *                                    "*_size" of the path's objects)
 *   NAME-distribution.{svg,png,dat}  histogram of every fine-grained load
 *   l1d-carveout.{svg,png,dat}       with --carveout: the L1 at each carveout,
 *                                    one curve per carveout
 *   plots.gp                         the gnuplot script
 *
 * NAME is l1d, texture, readonly, constant, l2 or shared.  Library code:
 * it runs gnuplot with its output sent to a log file in the directory (never
 * to the terminal), and returns an mt_err. */
#ifndef MT_PLOT_RENDER_H
#define MT_PLOT_RENDER_H

#include <stdbool.h>

#include "../core/error.h"
#include "../topology/topology.h"
#include "plot_data.h"

/* 1 when a `gnuplot` executable is on the PATH. */
bool mt_plot_gnuplot_found(void);

/* Writes the plots of pd (titles and size marks from t) into dir, which
 * must exist and be empty (a fresh temporary directory, atomic_dir.h).
 * MT_ERR_IO with one line when a file cannot be written or gnuplot fails
 * (the line quotes gnuplot's first message); MT_ERR_NOMEM. */
mt_err mt_plot_render(const mt_plot_data *pd, const mt_topology *t, const char *dir,
                      mt_errinfo *ei);

/* Every file name a plot directory can hold, NULL-terminated (the
 * directory a new --plot may replace holds only these). */
const char *const *mt_plot_files(void);

/* The plot images in dir, in the report's order (l1d first, then each
 * path's latency plot before its distribution), as "NAME-KIND" stems; calls
 * fn(stem, user) for each whose .svg exists.  For the HTML page. */
void mt_plot_each(const char *dir, void (*fn)(const char *dir, const char *stem, void *user),
                  void *user);

#endif

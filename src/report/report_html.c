/* The HTML report (report_html.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "plot_render.h"
#include "report.h"
#include "report_html.h"

/* text with &, <, > and " as entities (enough inside elements and
 * double-quoted attributes). */
static void put_escaped(FILE *f, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        switch (s[i]) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(s[i], f);
        }
}

typedef struct {
    FILE *out;
    mt_err err;
    mt_errinfo *ei;
} plot_ctx;

/* One plot, its SVG element inlined (from "<svg" on: the XML declaration
 * and doctype before it are not allowed inside an HTML page). */
static void put_plot(const char *dir, const char *stem, void *user)
{
    plot_ctx *c = user;
    if (c->err != MT_OK)
        return;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.svg", dir, stem);
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t len = 0;
    if (f) {
        FILE *mem = open_memstream(&buf, &len);
        char chunk[8192];
        size_t got;
        while (mem && (got = fread(chunk, 1, sizeof chunk, f)) > 0)
            fwrite(chunk, 1, got, mem);
        if (mem)
            fclose(mem);
        if (ferror(f)) {
            free(buf);
            buf = NULL;
        }
        fclose(f);
    }
    const char *svg = buf ? strstr(buf, "<svg") : NULL;
    if (!svg) {
        c->err = mt_fail(c->ei, MT_ERR_IO, "cannot read the plot %s: %s", path,
                         buf ? "no <svg> element" : strerror(errno ? errno : EIO));
        free(buf);
        return;
    }
    fprintf(c->out, "<figure id=\"%s\">\n%s\n</figure>\n", stem, svg);
    free(buf);
}

/* The heading of the text report's method section (report_text.c). */
#define METHOD_HEADING "Method and confidence"

static const char style[] =
    "body{font-family:sans-serif;margin:1.5em auto;max-width:70em;padding:0 1em;color:#111}"
    "pre{font-size:0.8em;background:#f6f6f6;padding:1em;overflow-x:auto}"
    "figure{margin:1.5em 0}figure svg{max-width:100%;height:auto}";

mt_err mt_report_html(const mt_topology *t, const char *plot_dir, const char *path,
                      mt_errinfo *ei)
{
    char *text = NULL;
    size_t text_len = 0;
    FILE *mem = open_memstream(&text, &text_len);
    if (!mem)
        return mt_fail(ei, MT_ERR_NOMEM, "out of memory writing %s", path);
    mt_err e = mt_report_text(t, mem, ei);
    if (fclose(mem) != 0 && e == MT_OK)
        e = mt_fail(ei, MT_ERR_NOMEM, "out of memory writing %s", path);
    if (e != MT_OK) {
        free(text);
        return e;
    }
    mt_atomic_file af;
    if ((e = mt_atomic_open(&af, path, ei)) != MT_OK) {
        free(text);
        return e;
    }
    FILE *f = af.f;
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>memtopo: ",
          f);
    put_escaped(f, t->dev.name, strlen(t->dev.name));
    fprintf(f, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>Memory hierarchy of ", style);
    put_escaped(f, t->dev.name, strlen(t->dev.name));
    /* The table and findings first, then the plots, then the long method
     * notes (the text report's section of that name, report.h). */
    const char *method = strstr(text, "\n" METHOD_HEADING "\n");
    size_t head_len = method ? (size_t)(method - text) + 1 : text_len;
    fputs("</h1>\n<h2>Report</h2>\n<pre>", f);
    put_escaped(f, text, head_len);
    fputs("</pre>\n", f);
    plot_ctx c = {.out = f, .err = MT_OK, .ei = ei};
    if (plot_dir) {
        fputs("<h2>Plots</h2>\n<p>Latency against footprint for each load path (dashed: the "
              "sizes the report gives), and the latency distribution of every fine-grained "
              "load of its chains.</p>\n",
              f);
        mt_plot_each(plot_dir, put_plot, &c);
    }
    if (method) {
        fputs("<h2>" METHOD_HEADING "</h2>\n<pre>", f);
        put_escaped(f, method + strlen(METHOD_HEADING) + 2,
                    text_len - head_len - strlen(METHOD_HEADING) - 1);
        fputs("</pre>\n", f);
    }
    free(text);
    fputs("</body>\n</html>\n", f);
    if (c.err != MT_OK) {
        mt_atomic_abort(&af);
        return c.err;
    }
    return mt_atomic_commit(&af, ei);
}

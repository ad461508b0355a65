/* Plots with gnuplot (plot_render.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report.h"
#include "plot_render.h"

/* A plot per load path: its file stem, its title, and the objects whose
 * sizes the path's capacity sweep measures (their "size"/"*_size" findings
 * are marked).  Which cache a load path reaches is a property of the
 * instruction (docs/method.md, "Load paths"), not of a probe. */
typedef struct {
    mt_path path;
    const char *name;
    const char *title;
    const char *objects; /* comma-separated object keys */
} plot_target;

static const plot_target targets[] = {
    {MT_PATH_GLOBAL_CA, "l1d", "L1 data cache (ld.global.ca)", "l1d"},
    {MT_PATH_TEXTURE, "texture", "Texture cache (tex1Dfetch)", "texture"},
    {MT_PATH_GLOBAL_NC, "readonly", "Read-only data cache (ld.global.nc)", "readonly"},
    {MT_PATH_CONSTANT, "constant", "Constant caches (constant bank)", "const_l1,const_l15"},
    {MT_PATH_GLOBAL_CG, "l2", "L2 and DRAM (ld.global.cg)", "l2"},
    {MT_PATH_SHARED, "shared", "Shared memory", "shared"},
};
#define N_TARGETS (sizeof targets / sizeof targets[0])
static const char *const kinds[] = {"latency", "distribution"};
static const char *const exts[] = {"svg", "png", "dat"};
/* The L1 sized at each requested carveout (--carveout). */
#define CARVEOUT_STEM "l1d-carveout"

/* Strides drawn per latency plot, the most used first: a capacity search
 * uses two or three (a sector stride for the size, a few line-sized strides
 * for the line); more would make an unreadable legend. */
#define MT_PLOT_MAX_STRIDES 6
/* Plot size in pixels: wide enough for a log2 footprint axis of 16
 * doublings with readable tick labels. */
#define PLOT_W 900
#define PLOT_H 500

const char *const *mt_plot_files(void)
{
    static char names[N_TARGETS * 6 + 3][48];
    static const char *list[N_TARGETS * 6 + 3 + 2];
    if (!list[0]) {
        size_t k = 0;
        for (size_t t = 0; t < N_TARGETS; t++)
            for (size_t i = 0; i < 2; i++)
                for (size_t x = 0; x < 3; x++, k++) {
                    snprintf(names[k], sizeof names[k], "%s-%s.%s", targets[t].name, kinds[i],
                             exts[x]);
                    list[k] = names[k];
                }
        for (size_t x = 0; x < 3; x++, k++) {
            snprintf(names[k], sizeof names[k], "%s.%s", CARVEOUT_STEM, exts[x]);
            list[k] = names[k];
        }
        list[k++] = "plots.gp";
        list[k] = NULL;
    }
    return list;
}

bool mt_plot_gnuplot_found(void)
{
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/bin:/bin";
    char dir[4096];
    while (*path) {
        size_t len = strcspn(path, ":");
        if (len > 0 && len + sizeof "/gnuplot" < sizeof dir) {
            memcpy(dir, path, len);
            strcpy(dir + len, "/gnuplot");
            if (access(dir, X_OK) == 0)
                return true;
        }
        path += len + (path[len] == ':');
    }
    return false;
}

/* s as a single-quoted gnuplot string body: '' is a quote there, and a
 * line break would end the command. */
static void gp_quoted(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++)
        if (*s == '\'')
            fputs("''", f);
        else
            fputc((*s == '\n' || *s == '\r') ? ' ' : *s, f);
    fputc('\'', f);
}

/* A new file in dir (a fresh directory of ours: O_EXCL still refuses
 * anything planted there). */
static FILE *create_in(const char *dir, const char *name, mt_errinfo *ei)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        mt_fail(ei, MT_ERR_IO, "cannot create %s: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
    }
    return f;
}

static mt_err close_file(FILE *f, const char *dir, const char *name, mt_errinfo *ei)
{
    int bad = ferror(f);
    if (fclose(f) != 0 || bad)
        return mt_fail(ei, MT_ERR_IO, "cannot write %s/%s: %s", dir, name,
                       errno ? strerror(errno) : "write error");
    return MT_OK;
}

typedef struct {
    uint32_t stride;
    size_t count;
} stride_count;

static int by_count_desc(const void *a, const void *b)
{
    const stride_count *x = a, *y = b;
    if (x->count != y->count)
        return x->count < y->count ? 1 : -1;
    return (x->stride > y->stride) - (x->stride < y->stride);
}

static int by_footprint(const void *a, const void *b)
{
    const mt_plot_point *x = a, *y = b;
    return (x->footprint > y->footprint) - (x->footprint < y->footprint);
}

/* The strides of s, most used first; returns how many (at most max). */
static size_t top_strides(const mt_plot_series *s, stride_count *out, size_t max)
{
    stride_count all[256];
    size_t n = 0;
    for (size_t i = 0; i < s->n_points; i++) {
        size_t j = 0;
        while (j < n && all[j].stride != s->points[i].stride)
            j++;
        if (j == n) {
            if (n == sizeof all / sizeof all[0])
                continue;
            all[n++] = (stride_count){s->points[i].stride, 0};
        }
        all[j].count++;
    }
    qsort(all, n, sizeof all[0], by_count_desc);
    if (n > max)
        n = max;
    memcpy(out, all, n * sizeof *out);
    return n;
}

/* NAME-latency.dat: one block per stride (gnuplot's `index`), each sorted
 * by footprint: "footprint_bytes median_cycles". */
static mt_err write_latency_data(const mt_plot_series *s, const stride_count *strides, size_t ns,
                                 const char *dir, const char *name, mt_errinfo *ei)
{
    mt_plot_point *sorted = malloc(s->n_points * sizeof *sorted);
    if (!sorted)
        return mt_fail(ei, MT_ERR_NOMEM, "out of memory drawing plots");
    memcpy(sorted, s->points, s->n_points * sizeof *sorted);
    qsort(sorted, s->n_points, sizeof *sorted, by_footprint);
    FILE *f = create_in(dir, name, ei);
    if (!f) {
        free(sorted);
        return MT_ERR_IO;
    }
    fprintf(f, "# memtopo: median cycles of each fine-grained chase (timer overhead included)\n");
    for (size_t k = 0; k < ns; k++) {
        fprintf(f, "%s# stride %u B\n# footprint_bytes median_cycles\n", k ? "\n\n" : "",
                strides[k].stride);
        for (size_t i = 0; i < s->n_points; i++)
            if (sorted[i].stride == strides[k].stride)
                fprintf(f, "%llu %.1f\n", (unsigned long long)sorted[i].footprint,
                        sorted[i].median);
    }
    free(sorted);
    return close_file(f, dir, name, ei);
}

/* NAME-distribution.dat: "cycles loads" for every non-empty bin. */
static mt_err write_distribution_data(const mt_plot_series *s, const char *dir, const char *name,
                                      mt_errinfo *ei)
{
    FILE *f = create_in(dir, name, ei);
    if (!f)
        return MT_ERR_IO;
    fprintf(f, "# memtopo: fine-grained loads per cycle count (timer overhead included;\n"
               "# the last bin, %d, also counts every slower load)\n# cycles loads\n",
            MT_PLOT_HIST_BINS - 1);
    for (int c = 0; c < MT_PLOT_HIST_BINS; c++)
        if (s->hist[c])
            fprintf(f, "%d %llu\n", c, (unsigned long long)s->hist[c]);
    return close_file(f, dir, name, ei);
}

/* Before a plot command: draw it as NAME.svg. */
static void gp_svg(FILE *gp, const char *stem)
{
    fprintf(gp, "set terminal svg size %d,%d dynamic font 'Sans,12' background rgb 'white'\n"
                "set output '%s.svg'\n",
            PLOT_W, PLOT_H, stem);
}

/* After it: draw it again as NAME.png. */
static void gp_png(FILE *gp, const char *stem)
{
    fprintf(gp, "set terminal pngcairo size %d,%d font 'Sans,10' background rgb 'white'\n"
                "set output '%s.png'\nreplot\nset output\n",
            PLOT_W, PLOT_H, stem);
}

/* x tics at every power of two in [lo, hi], labelled as the report writes
 * sizes ("256 KiB"); every other one when there are many. */
static void gp_byte_tics(FILE *gp, uint64_t lo, uint64_t hi)
{
    uint64_t first = 1;
    while (first < lo)
        first <<= 1;
    int n = 0;
    for (uint64_t v = first; v <= hi && v; v <<= 1)
        n++;
    int step = n > 12 ? 2 : 1, i = 0;
    fputs("set xtics (", gp);
    for (uint64_t v = first; v <= hi && v; v <<= 1, i++) {
        if (i % step)
            continue;
        char b[32];
        fprintf(gp, "%s'%s' %llu", i ? ", " : "", mt_format_bytes((double)v, b, sizeof b),
                (unsigned long long)v);
    }
    fputs(")\n", gp);
}

/* The frame of a latency-against-footprint plot: title, log2 footprint
 * axis over [lo, hi] with byte tics, labels, key. */
static void gp_footprint_frame(FILE *gp, const char *title, uint64_t lo, uint64_t hi)
{
    fputs("\nreset\nunset arrow\nunset label\nset grid\nset key bottom right box opaque\n"
          "set title ", gp);
    gp_quoted(gp, title);
    /* Room above and below, so no point sits on the frame. */
    fputs(" noenhanced\nset logscale x 2\nset offsets 0, 0, graph 0.05, graph 0.05\n", gp);
    fprintf(gp, "set xrange [%llu:%llu]\n", (unsigned long long)(lo > 1 ? lo / 4 * 3 : 1),
            (unsigned long long)(hi + hi / 3));
    gp_byte_tics(gp, lo, hi);
    fputs("set xlabel 'footprint of the chain (log scale)'\n"
          "set ylabel 'median cycles per load (timer overhead included)'\n", gp);
}

/* Marks at the sizes the report gives for the path's objects: every
 * "size" or "*_size" finding that is a number, drawn where it falls inside
 * the plotted footprints. */
static void gp_size_marks(FILE *gp, const mt_topology *t, const char *objects, uint64_t lo,
                          uint64_t hi)
{
    char keys[128];
    snprintf(keys, sizeof keys, "%s", objects);
    int mark = 0;
    for (char *save = NULL, *k = strtok_r(keys, ",", &save); k; k = strtok_r(NULL, ",", &save)) {
        const mt_object *o = mt_topology_object(t, k);
        for (size_t i = 0; o && i < o->n_findings; i++) {
            const mt_named_finding *nf = &o->findings[i];
            size_t len = strlen(nf->name);
            bool is_size = strcmp(nf->name, "size") == 0 ||
                           (len > 5 && strcmp(nf->name + len - 5, "_size") == 0);
            const mt_finding *f = &nf->f;
            if (!is_size || strcmp(f->unit, "B") != 0)
                continue;
            double at[2];
            int n_at = 0;
            if (f->kind == MT_FIND_VALUE)
                at[n_at++] = f->value;
            else if (f->kind == MT_FIND_LOWER_BOUND)
                at[n_at++] = f->lo;
            else if (f->kind == MT_FIND_RANGE) {
                at[n_at++] = f->lo;
                at[n_at++] = f->hi;
            }
            char text[96], label[256];
            mt_format_finding(f, 1, text, sizeof text);
            snprintf(label, sizeof label, "%s %s: %s%s", o->name, nf->label, text,
                     f->source == MT_SRC_DRIVER ? " (driver)" : "");
            for (int j = 0; j < n_at; j++) {
                if (at[j] < (double)lo || at[j] > (double)hi)
                    continue;
                mark++;
                fprintf(gp, "set arrow from %.0f, graph 0 to %.0f, graph 1 nohead dt 2 lw 1.5 "
                            "lc rgb '#b00000' front\n", at[j], at[j]);
                fprintf(gp, "set label %d ", mark);
                gp_quoted(gp, label);
                fprintf(gp, " at %.0f, graph 0.97 rotate by 90 right offset -0.8,0 "
                            "tc rgb '#b00000' noenhanced front\n", at[j]);
            }
        }
    }
}

static mt_err plot_target_files(FILE *gp, const plot_target *tg, const mt_plot_series *s,
                                const mt_topology *t, const char *dir, mt_errinfo *ei)
{
    stride_count strides[MT_PLOT_MAX_STRIDES];
    size_t ns = top_strides(s, strides, MT_PLOT_MAX_STRIDES);
    char name[64], stem[48];
    mt_err e;
    snprintf(stem, sizeof stem, "%s-latency", tg->name);
    snprintf(name, sizeof name, "%s.dat", stem);
    if ((e = write_latency_data(s, strides, ns, dir, name, ei)) != MT_OK)
        return e;
    uint64_t lo = UINT64_MAX, hi = 0;
    for (size_t i = 0; i < s->n_points; i++) {
        if (s->points[i].footprint < lo)
            lo = s->points[i].footprint;
        if (s->points[i].footprint > hi)
            hi = s->points[i].footprint;
    }
    char title[256];
    snprintf(title, sizeof title, "%s: latency against footprint (%s)", tg->title, t->dev.name);
    gp_footprint_frame(gp, title, lo, hi);
    gp_size_marks(gp, t, tg->objects, lo, hi);
    gp_svg(gp, stem);
    fputs("plot ", gp);
    for (size_t k = 0; k < ns; k++)
        fprintf(gp, "%s'%s' index %zu using 1:2 with linespoints pt 7 ps 0.6 "
                    "title 'stride %u B (%zu chain%s)'",
                k ? ", \\\n     " : "", name, k, strides[k].stride, strides[k].count,
                strides[k].count == 1 ? "" : "s");
    fputs("\n", gp);
    gp_png(gp, stem);

    snprintf(stem, sizeof stem, "%s-distribution", tg->name);
    snprintf(name, sizeof name, "%s.dat", stem);
    if ((e = write_distribution_data(s, dir, name, ei)) != MT_OK)
        return e;
    fputs("\nreset\nset grid\nset logscale y 10\nset key off\n", gp);
    snprintf(title, sizeof title, "%s: latency distribution of %llu loads (%s)", tg->title,
             (unsigned long long)s->n_samples, t->dev.name);
    fputs("set title ", gp);
    gp_quoted(gp, title);
    fputs(" noenhanced\nset xlabel 'cycles per load (timer overhead included)'\n"
          "set ylabel 'loads (log scale)'\n", gp);
    gp_svg(gp, stem);
    fprintf(gp, "plot '%s' using 1:2 with impulses lw 2 lc rgb '#1f5fa0'\n", name);
    gp_png(gp, stem);
    return MT_OK;
}

static int by_carveout_footprint(const void *a, const void *b)
{
    const mt_plot_point *x = a, *y = b;
    if (x->carveout != y->carveout)
        return x->carveout < y->carveout ? -1 : 1;
    return by_footprint(a, b);
}

/* CARVEOUT_STEM: the L1's latency against footprint at each requested
 * carveout, one curve per carveout, at the stride its searches used most
 * (the sector stride of the capacity search). */
static mt_err plot_carveout(FILE *gp, const mt_plot_series *s, const mt_topology *t,
                            const char *dir, mt_errinfo *ei)
{
    stride_count top;
    if (top_strides(s, &top, 1) != 1)
        return MT_OK;
    mt_plot_point *p = malloc(s->n_points * sizeof *p);
    if (!p)
        return mt_fail(ei, MT_ERR_NOMEM, "out of memory drawing plots");
    size_t n = 0;
    for (size_t i = 0; i < s->n_points; i++)
        if (s->points[i].stride == top.stride)
            p[n++] = s->points[i];
    qsort(p, n, sizeof *p, by_carveout_footprint);
    const char *name = CARVEOUT_STEM ".dat";
    FILE *f = create_in(dir, name, ei);
    if (!f) {
        free(p);
        return MT_ERR_IO;
    }
    fprintf(f, "# memtopo: median cycles of each fine-grained ld.global.ca chase at a %u B "
               "stride,\n# one block per requested carveout (percent)\n", top.stride);
    int blocks[101], nb = 0;
    uint64_t lo = UINT64_MAX, hi = 0;
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || p[i].carveout != p[i - 1].carveout) {
            if (nb == (int)(sizeof blocks / sizeof blocks[0]))
                break;
            blocks[nb++] = p[i].carveout;
            fprintf(f, "%s# carveout %d%%\n# footprint_bytes median_cycles\n", i ? "\n\n" : "",
                    p[i].carveout);
        }
        fprintf(f, "%llu %.1f\n", (unsigned long long)p[i].footprint, p[i].median);
        lo = p[i].footprint < lo ? p[i].footprint : lo;
        hi = p[i].footprint > hi ? p[i].footprint : hi;
    }
    free(p);
    mt_err e = close_file(f, dir, name, ei);
    if (e != MT_OK || nb == 0)
        return e;
    char title[256];
    snprintf(title, sizeof title,
             "L1 data cache (ld.global.ca) at each carveout: latency against footprint (%s)",
             t->dev.name);
    gp_footprint_frame(gp, title, lo, hi);
    gp_svg(gp, CARVEOUT_STEM);
    fputs("plot ", gp);
    for (int b = 0; b < nb; b++) {
        char smem[32] = "";
        uint32_t bytes = mt_carveout_smem(&t->dev, blocks[b]);
        if (t->dev.n_carveouts > 0) { /* 0 B is a carveout too */
            char v[24];
            snprintf(smem, sizeof smem, ": %s shared", mt_format_bytes(bytes, v, sizeof v));
        }
        fprintf(gp, "%s'%s' index %d using 1:2 with linespoints pt 7 ps 0.5 "
                    "title 'carveout %d%%%s'",
                b ? ", \\\n     " : "", name, b, blocks[b], smem);
    }
    fputs("\n", gp);
    gp_png(gp, CARVEOUT_STEM);
    return MT_OK;
}

/* Runs `gnuplot plots.gp` in dir, its output into dir/gnuplot.log. */
static mt_err run_gnuplot(const char *dir, mt_errinfo *ei)
{
    char log[4096];
    snprintf(log, sizeof log, "%s/gnuplot.log", dir);
    pid_t pid = fork();
    if (pid < 0)
        return mt_fail(ei, MT_ERR_IO, "cannot start gnuplot: %s", strerror(errno));
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_EXCL, 0666);
        int in = open("/dev/null", O_RDONLY);
        if (fd < 0 || in < 0 || chdir(dir) != 0 || dup2(in, 0) < 0 || dup2(fd, 1) < 0 ||
            dup2(fd, 2) < 0)
            _exit(126);
        execlp("gnuplot", "gnuplot", "plots.gp", (char *)NULL);
        _exit(127);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return mt_fail(ei, MT_ERR_IO, "gnuplot: %s", strerror(errno));
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        unlink(log);
        return MT_OK;
    }
    char first[200] = "";
    FILE *f = fopen(log, "r");
    if (f) {
        /* gnuplot's message is the last non-blank line it wrote. */
        char line[200];
        while (fgets(line, sizeof line, f))
            if (strspn(line, " \t\r\n^") < strlen(line))
                snprintf(first, sizeof first, "%s", line);
        fclose(f);
        first[strcspn(first, "\r\n")] = '\0';
    }
    unlink(log);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
        return mt_fail(ei, MT_ERR_IO, "cannot run gnuplot (install the Debian package gnuplot-nox)");
    return mt_fail(ei, MT_ERR_IO, "gnuplot failed drawing the plots: %s",
                   first[0] ? first : "no message");
}

mt_err mt_plot_render(const mt_plot_data *pd, const mt_topology *t, const char *dir,
                      mt_errinfo *ei)
{
    FILE *gp = create_in(dir, "plots.gp", ei);
    if (!gp)
        return MT_ERR_IO;
    fputs("# memtopo's plots; redraw them with: gnuplot plots.gp\n", gp);
    mt_err e = MT_OK;
    for (size_t i = 0; i < N_TARGETS && e == MT_OK; i++) {
        const mt_plot_series *s = &pd->path[targets[i].path];
        /* One chase is no curve. */
        if (s->n_points >= 2)
            e = plot_target_files(gp, &targets[i], s, t, dir, ei);
    }
    bool carveouts = pd->carveout.n_points >= 2;
    if (e == MT_OK && carveouts)
        e = plot_carveout(gp, &pd->carveout, t, dir, ei);
    mt_err ec = close_file(gp, dir, "plots.gp", ei);
    if (e != MT_OK)
        return e;
    if (ec != MT_OK)
        return ec;
    if ((e = run_gnuplot(dir, ei)) != MT_OK)
        return e;
    /* Every image gnuplot should have drawn is there and not empty. */
    for (size_t i = 0; i < N_TARGETS; i++) {
        if (pd->path[targets[i].path].n_points < 2)
            continue;
        for (size_t k = 0; k < 2; k++)
            for (size_t x = 0; x < 2; x++) {
                char path[4096];
                struct stat st;
                snprintf(path, sizeof path, "%s/%s-%s.%s", dir, targets[i].name, kinds[k],
                         exts[x]);
                if (stat(path, &st) != 0 || st.st_size == 0)
                    return mt_fail(ei, MT_ERR_IO, "gnuplot did not draw %s", path);
            }
    }
    for (size_t x = 0; carveouts && x < 2; x++) {
        char path[4096];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s.%s", dir, CARVEOUT_STEM, exts[x]);
        if (stat(path, &st) != 0 || st.st_size == 0)
            return mt_fail(ei, MT_ERR_IO, "gnuplot did not draw %s", path);
    }
    return MT_OK;
}

void mt_plot_each(const char *dir, void (*fn)(const char *dir, const char *stem, void *user),
                  void *user)
{
    for (size_t i = 0; i < N_TARGETS; i++)
        for (size_t k = 0; k < 2; k++) {
            char stem[48], path[4096];
            snprintf(stem, sizeof stem, "%s-%s", targets[i].name, kinds[k]);
            snprintf(path, sizeof path, "%s/%s.svg", dir, stem);
            if (access(path, R_OK) == 0)
                fn(dir, stem, user);
        }
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.svg", dir, CARVEOUT_STEM);
    if (access(path, R_OK) == 0)
        fn(dir, CARVEOUT_STEM, user);
}

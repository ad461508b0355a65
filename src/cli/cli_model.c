/* memtopo model [options] KERNEL...: predicted cycles, time and CPI stack
 * of each kernel (an Nsight Compute raw CSV or a .kd description) on a
 * machine that memtopo measured (a report JSON, a simulated GPU, or the
 * GPU at hand), and the same under what-if changes (docs/model.md). */
#include <stdlib.h>
#include <string.h>

#include "../report/json_file.h"
#include "../topology/topology_json.h"
#include "cli.h"
#include "cli_model.h"

/* Kernel profiles are text files of a few MB at most (a full ncu raw page
 * is ~50 KB per launch); this bounds what is read into memory. */
#define MODEL_MAX_INPUT_BYTES (256u << 20)

static void model_usage(FILE *f)
{
    fputs("Usage: memtopo model [options] KERNEL...\n"
          "Predict each kernel's cycles, time and CPI stack on a measured GPU (GPUMech\n"
          "interval analysis with MSHR, bandwidth, bank-conflict, barrier and tail\n"
          "contention; docs/model.md). KERNEL: an Nsight Compute raw CSV (ncu --set full\n"
          "--csv --page raw; one prediction per launch) or a kernel description (.kd).\n"
          "  -t, --topology FILE      the machine: a memtopo --json report (measured with\n"
          "                           --bandwidth); without it the GPU (or --sim) is measured\n"
          "      --sim NAME|FILE      measure a simulated GPU for the machine\n"
          "      --profile-topology FILE  the report of the GPU the profile was taken on:\n"
          "                           hit rates are rescaled to --topology's cache sizes\n"
          "      --sass FILE          ncu source page (--page source --csv --print-source sass):\n"
          "                           instruction mix and dependence distances\n"
          "  -k, --kernel NAME|ID     only the launches with this ID or (part of this) name\n"
          "      --scheduler gto|rr   warp scheduler policy (default gto: greedy-then-oldest)\n"
          "      --clock MHZ          predict at this SM clock (default: the measured one)\n"
          "  -w, --what-if KEY=VALUE  also predict with a changed input (repeatable):\n"
          "                           l2.size=2x, l1d.latency=20, dram.gbps_read=4000,\n"
          "                           occupancy=50%, clock=1500\n"
          "  -j, --json FILE|-        also write the predictions as JSON (schema/model.schema.json)\n"
          "  -h, --help               this text\n"
          "Exit status: 0 ok, 2 bad input (one line on stderr naming it), 3 no GPU,\n"
          "4 GPU error, 5 output error.\n",
          f);
}

static mt_err read_text(const char *path, char **out, mt_errinfo *ei)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "model: cannot open %s", path);
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    mt_err e = MT_OK;
    while (buf) {
        if (n + 1 >= cap) {
            if (cap >= MODEL_MAX_INPUT_BYTES) {
                e = mt_fail(ei, MT_ERR_INVALID_ARG, "model: %s is larger than %u MiB", path,
                            MODEL_MAX_INPUT_BYTES >> 20);
                break;
            }
            char *g = realloc(buf, cap * 2);
            if (!g)
                break;
            buf = g;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0)
            break;
    }
    if (!buf && e == MT_OK)
        e = mt_fail(ei, MT_ERR_NOMEM, "model: out of memory reading %s", path);
    else if (e == MT_OK && ferror(f))
        e = mt_fail(ei, MT_ERR_INVALID_ARG, "model: cannot read %s", path);
    fclose(f);
    if (e != MT_OK) {
        free(buf);
        return e;
    }
    buf[n] = 0;
    if (memchr(buf, 0, n)) {
        free(buf);
        return mt_fail(ei, MT_ERR_INVALID_ARG, "model: %s is not a text file", path);
    }
    *out = buf;
    return MT_OK;
}

static int ends_with(const char *s, const char *tail)
{
    size_t a = strlen(s), b = strlen(tail);
    return a >= b && strcmp(s + a - b, tail) == 0;
}

/* Appends the kernels of one file. */
static mt_err load_kernels(const char *path, mt_cli_model_run *run, mt_errinfo *ei)
{
    char *text;
    mt_err e = read_text(path, &text, ei);
    if (e != MT_OK)
        return e;
    mt_model_kernel *ks = NULL;
    size_t n = 0;
    if (ends_with(path, ".kd")) {
        ks = calloc(1, sizeof *ks);
        if (!ks)
            e = mt_fail(ei, MT_ERR_NOMEM, "model: out of memory");
        else if ((e = mt_model_kd_parse(text, path, ks, ei)) == MT_OK)
            n = 1;
        /* A .kd error is bad input (exit 2) like any other. */
        if (e == MT_ERR_SPEC_PARSE)
            e = MT_ERR_INVALID_ARG;
    } else {
        e = mt_model_ncu_parse(text, path, &ks, &n, ei);
    }
    free(text);
    if (e == MT_OK) {
        mt_cli_model_pred *g = realloc(run->preds, (run->n + n) * sizeof *g);
        if (!g) {
            e = mt_fail(ei, MT_ERR_NOMEM, "model: out of memory");
        } else {
            run->preds = g;
            for (size_t i = 0; i < n; i++) {
                memset(&g[run->n + i], 0, sizeof g[0]);
                g[run->n + i].kernel = ks[i];
            }
            run->n += n;
        }
    }
    free(ks);
    return e;
}

/* Keeps the kernels whose ID (the number before ':', when `sel` is a
 * number) or name (containing `sel` otherwise) matches. */
static void select_kernels(mt_cli_model_run *run, const char *sel)
{
    size_t kept = 0;
    int by_id = sel[0] && strspn(sel, "0123456789") == strlen(sel);
    for (size_t i = 0; i < run->n; i++) {
        const char *name = run->preds[i].kernel.name;
        const char *colon = strchr(name, ':');
        int id_match = colon && strlen(sel) == (size_t)(colon - name) &&
                       strncmp(name, sel, (size_t)(colon - name)) == 0;
        if (by_id ? id_match : strstr(name, sel) != NULL)
            run->preds[kept++] = run->preds[i];
    }
    run->n = kept;
}

static mt_err machine_from_file(const char *path, mt_model_machine *m, mt_errinfo *ei)
{
    mt_topology *t = NULL;
    mt_errinfo rei = {{0}};
    mt_err e = mt_topology_read_file(path, &t, &rei);
    if (e != MT_OK) {
        mt_topology_free(t);
        return mt_fail(ei, e == MT_ERR_NOMEM ? e : MT_ERR_INVALID_ARG, "model: %s: %s", path,
                       rei.msg);
    }
    e = mt_model_machine_from_topology(t, m, ei);
    mt_topology_free(t);
    return e;
}

/* The machine measured now, through the CLI's own measuring path, with the
 * bandwidth probes the model needs. */
static mt_err machine_measured(const char *sim, mt_model_machine *m, mt_errinfo *ei)
{
    char *argv[] = {"memtopo", "--bandwidth", sim ? "--sim" : NULL, (char *)sim, NULL};
    int argc = sim ? 4 : 2;
    mt_cli o;
    mt_err e = mt_cli_parse(argc, argv, &o, ei);
    if (e != MT_OK)
        return e;
    mt_topology *t = NULL;
    if ((e = mt_cli_measure(&o, NULL, &t, ei)) == MT_OK)
        e = mt_model_machine_from_topology(t, m, ei);
    mt_topology_free(t);
    return e;
}

typedef struct {
    const char *topology, *profile_topology, *sim, *sass, *kernel, *json;
    mt_model_options opt;
    char **files; /* the KERNEL arguments, wherever they stand among the options */
    int n_files;
} model_args;

static mt_err parse_args(int argc, char **argv, model_args *a, mt_cli_model_run *run, int *help,
                         mt_errinfo *ei)
{
    int i = 1;
    for (; i < argc; i++) {
        const char *o = argv[i];
        if (o[0] != '-' || !o[1]) {
            a->files[a->n_files++] = argv[i];
            continue;
        }
        if (strcmp(o, "--") == 0) {
            while (++i < argc)
                a->files[a->n_files++] = argv[i];
            break;
        }
        if (strcmp(o, "-h") == 0 || strcmp(o, "--help") == 0) {
            *help = 1;
            return MT_OK;
        }
        if (i + 1 >= argc)
            return mt_fail(ei, MT_ERR_INVALID_ARG, "model: unknown option or missing value: %s", o);
        const char *v = argv[++i];
        if (!strcmp(o, "-t") || !strcmp(o, "--topology"))
            a->topology = v;
        else if (!strcmp(o, "--profile-topology"))
            a->profile_topology = v;
        else if (!strcmp(o, "--sim"))
            a->sim = v;
        else if (!strcmp(o, "--sass"))
            a->sass = v;
        else if (!strcmp(o, "-k") || !strcmp(o, "--kernel"))
            a->kernel = v;
        else if (!strcmp(o, "-j") || !strcmp(o, "--json"))
            a->json = v;
        else if (!strcmp(o, "--scheduler")) {
            if (!strcmp(v, "gto"))
                run->sched = MT_SCHED_GTO;
            else if (!strcmp(v, "rr"))
                run->sched = MT_SCHED_RR;
            else
                return mt_fail(ei, MT_ERR_INVALID_ARG, "model: --scheduler is gto or rr, got \"%s\"", v);
        } else if (!strcmp(o, "--clock")) {
            char *end;
            a->opt.clock_mhz = strtod(v, &end);
            if (end == v || *end || !(a->opt.clock_mhz > 0 && a->opt.clock_mhz < 1e5))
                return mt_fail(ei, MT_ERR_INVALID_ARG, "model: --clock wants MHz, got \"%s\"", v);
        } else if (!strcmp(o, "-w") || !strcmp(o, "--what-if")) {
            if (run->n_what_if >= MT_MODEL_MAX_WHAT_IF)
                return mt_fail(ei, MT_ERR_INVALID_ARG, "model: at most %d --what-if",
                               MT_MODEL_MAX_WHAT_IF);
            run->what_if[run->n_what_if++] = v;
        } else {
            return mt_fail(ei, MT_ERR_INVALID_ARG, "model: unknown option %s", o);
        }
    }
    if (a->topology && a->sim)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "model: --topology and --sim both name the machine");
    if (a->n_files == 0)
        return mt_fail(ei, MT_ERR_INVALID_ARG,
                       "model: no kernel given (an ncu raw CSV or a .kd file; memtopo model --help)");
    return MT_OK;
}

static mt_err predict_all(mt_cli_model_run *run, const model_args *a, const mt_model_machine *from,
                          mt_errinfo *ei)
{
    mt_model_options wopt = a->opt;
    wopt.sched = run->sched;
    run->what_if_machine = run->machine;
    for (int i = 0; i < run->n_what_if; i++) {
        mt_err e = mt_model_what_if(run->what_if[i], &run->what_if_machine, &wopt, ei);
        if (e != MT_OK)
            return e;
    }
    run->has_what_if = run->n_what_if > 0;
    mt_model_options bopt = a->opt;
    bopt.sched = run->sched;
    for (size_t i = 0; i < run->n; i++) {
        mt_cli_model_pred *p = &run->preds[i];
        if (from)
            p->retargeted = mt_model_retarget(&p->kernel, from, &run->machine) > 0;
        mt_err e = mt_model_predict(&run->machine, &p->kernel, &bopt, &p->base, ei);
        if (e == MT_OK && run->has_what_if) {
            mt_model_kernel wk = p->kernel;
            mt_model_retarget(&wk, &run->machine, &run->what_if_machine);
            e = mt_model_predict(&run->what_if_machine, &wk, &wopt, &p->what_if, ei);
        }
        if (e != MT_OK)
            return e;
    }
    return MT_OK;
}

int mt_cli_model(int argc, char **argv)
{
    model_args a = {0};
    mt_cli_model_run run = {0};
    mt_model_machine from;
    mt_errinfo ei = {{0}};
    int help = 0;
    mt_err e = MT_OK;
    a.files = calloc((size_t)argc + 1, sizeof *a.files);
    if (!a.files)
        e = mt_fail(&ei, MT_ERR_NOMEM, "model: out of memory");
    if (e == MT_OK)
        e = parse_args(argc, argv, &a, &run, &help, &ei);
    if (e == MT_OK && help) {
        model_usage(stdout);
        free(a.files);
        return 0;
    }
    for (int i = 0; e == MT_OK && i < a.n_files; i++)
        e = load_kernels(a.files[i], &run, &ei);
    if (e == MT_OK && a.sass) {
        char *text;
        if ((e = read_text(a.sass, &text, &ei)) == MT_OK) {
            mt_model_kernel *ks = calloc(run.n ? run.n : 1, sizeof *ks);
            if (!ks)
                e = mt_fail(&ei, MT_ERR_NOMEM, "model: out of memory");
            for (size_t i = 0; ks && i < run.n; i++)
                ks[i] = run.preds[i].kernel;
            if (ks && (e = mt_model_sass_apply(text, a.sass, ks, run.n, &ei)) == MT_OK)
                for (size_t i = 0; i < run.n; i++)
                    run.preds[i].kernel = ks[i];
            free(ks);
            free(text);
        }
    }
    if (e == MT_OK && a.kernel) {
        select_kernels(&run, a.kernel);
        if (run.n == 0)
            e = mt_fail(&ei, MT_ERR_INVALID_ARG, "model: no kernel matches --kernel %s", a.kernel);
    }
    if (e == MT_OK && a.profile_topology)
        e = machine_from_file(a.profile_topology, &from, &ei);
    if (e == MT_OK)
        e = a.topology ? machine_from_file(a.topology, &run.machine, &ei)
                       : machine_measured(a.sim, &run.machine, &ei);
    if (e == MT_OK)
        e = predict_all(&run, &a, a.profile_topology ? &from : NULL, &ei);
    if (e == MT_OK && a.json) {
        json_t *doc = mt_cli_model_json(&run);
        e = doc ? mt_json_write_doc(doc, a.json, "model report", &ei)
                : mt_fail(&ei, MT_ERR_NOMEM, "model: out of memory");
        json_decref(doc);
    }
    if (e == MT_OK && !(a.json && strcmp(a.json, "-") == 0))
        mt_cli_model_text(stdout, &run);
    free(run.preds);
    free(a.files);
    if (e != MT_OK) {
        mt_cli_error_line(ei.msg);
        return mt_exit_code(e);
    }
    return 0;
}

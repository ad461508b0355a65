/* A kernel from Nsight Compute's raw page (`ncu --set full --csv --page
 * raw`): launch attributes, instruction and request counts, sector counts
 * and hit rates, read per launch row and turned into per-warp averages.
 * Only characterisation is read: never a duration, a cycle count, a stall
 * sample or a throughput the kernel achieved (those are for validation). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

typedef struct {
    char **h;
    size_t nh;
    char **units; /* the units row (NULL when the export has none) */
    size_t nu;
} header;

/* ncu scales sizes to a readable unit ("Kbyte", "Mbyte/block"): the SI
 * prefix of a unit row's cell, as a factor (1 for none). */
static double unit_scale(const char *unit)
{
    static const struct {
        char prefix;
        double factor;
    } si[] = {{'K', 1e3}, {'M', 1e6}, {'G', 1e9}, {'T', 1e12}};
    for (size_t i = 0; i < sizeof si / sizeof si[0]; i++)
        if (unit[0] == si[i].prefix && unit[1] >= 'a' && unit[1] <= 'z')
            return si[i].factor;
    return 1;
}

static long column(const header *hd, const char *metric)
{
    for (size_t i = 0; i < hd->nh; i++)
        if (strcmp(hd->h[i], metric) == 0)
            return (long)i;
    return -1;
}

/* The metric's value in row r; `fallback` when the column is missing or
 * empty; -1 through *missing when required and absent. */
static double get(const header *hd, char **r, size_t nr, const char *metric, double fallback,
                  const char **missing)
{
    long c = column(hd, metric);
    double v;
    if (c >= 0 && (size_t)c < nr && mt_model_number(r[c], &v))
        return hd->units && (size_t)c < hd->nu ? v * unit_scale(hd->units[c]) : v;
    if (missing && !*missing)
        *missing = metric;
    return fallback;
}

static double clamp01(double x) { return x < 0 ? 0 : x > 1 ? 1 : x; }

static mt_err row_kernel(const header *hd, char **r, size_t nr, mt_model_kernel *k,
                         const char *name, mt_errinfo *ei)
{
    memset(k, 0, sizeof *k);
    const char *miss = NULL;
    long kn = column(hd, "Kernel Name"), id = column(hd, "ID");
    snprintf(k->name, sizeof k->name, "%s%s%s", id >= 0 ? r[id] : "", id >= 0 ? ":" : "",
             kn >= 0 ? r[kn] : "?");
    snprintf(k->source, sizeof k->source, "ncu");
    k->grid_blocks = get(hd, r, nr, "launch__grid_size", 0, &miss);
    k->block_threads = get(hd, r, nr, "launch__block_size", 0, &miss);
    double total_inst = get(hd, r, nr, "smsp__inst_executed.sum", 0, &miss);
    if (miss)
        return mt_fail(ei, MT_ERR_INVALID_ARG,
                       "model: %s: kernel %s lacks the metric %s (profile with ncu --set full)",
                       name, k->name, miss);
    k->regs_per_thread = get(hd, r, nr, "launch__registers_per_thread", 0, NULL);
    k->smem_per_block = get(hd, r, nr, "launch__shared_mem_per_block_static", 0, NULL) +
                        get(hd, r, nr, "launch__shared_mem_per_block_dynamic", 0, NULL);
    k->carveout_smem = get(hd, r, nr, "launch__shared_mem_config_size", 0, NULL);
    double warps = k->grid_blocks * ceil(k->block_threads / 32.0);
    if (!(warps > 0))
        return mt_fail(ei, MT_ERR_INVALID_ARG, "model: %s: kernel %s has an empty launch", name,
                       k->name);
    double ldg = get(hd, r, nr, "smsp__sass_inst_executed_op_global_ld.sum", 0, NULL) +
                 get(hd, r, nr, "smsp__sass_inst_executed_op_local_ld.sum", 0, NULL);
    double stg = get(hd, r, nr, "smsp__sass_inst_executed_op_global_st.sum", 0, NULL) +
                 get(hd, r, nr, "smsp__sass_inst_executed_op_local_st.sum", 0, NULL);
    double lds = get(hd, r, nr, "smsp__sass_inst_executed_op_shared_ld.sum", 0, NULL);
    double sts = get(hd, r, nr, "smsp__sass_inst_executed_op_shared_st.sum", 0, NULL);
    double ld_req = get(hd, r, nr, "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", 0, NULL);
    double ld_sec = get(hd, r, nr, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 0, NULL);
    double st_req = get(hd, r, nr, "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", 0, NULL);
    double st_sec = get(hd, r, nr, "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", 0, NULL);
    double sh_wf = get(hd, r, nr, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", 0, NULL) +
                   get(hd, r, nr, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", 0, NULL);
    /* Every request leaves the L1 in one or more wavefronts (one per
     * data-path pass; divergent and conflicting requests take several). */
    double wf = 0;
    const char *ops[] = {"ld", "st", "atom", "red"};
    for (int i = 0; i < 4; i++) {
        char m[96];
        snprintf(m, sizeof m, "l1tex__t_output_wavefronts_pipe_lsu_mem_global_op_%s.sum", ops[i]);
        wf += get(hd, r, nr, m, 0, NULL);
    }
    double atom = get(hd, r, nr, "smsp__inst_executed_op_global_red.sum", 0, NULL) +
                  get(hd, r, nr, "smsp__inst_executed_op_generic_atom_dot_alu.sum", 0, NULL) +
                  get(hd, r, nr, "smsp__inst_executed_op_generic_atom_dot_cas.sum", 0, NULL);
    double atom_req = get(hd, r, nr, "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum", 0, NULL) +
                      get(hd, r, nr, "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum", 0, NULL);
    double atom_sec = get(hd, r, nr, "l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum", 0, NULL) +
                      get(hd, r, nr, "l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum", 0, NULL);
    k->l1_wavefronts = wf / warps;
    k->atomics = atom / warps;
    k->atomic_sectors = atom_req > 0 ? atom_sec / atom_req : 1;
    k->inst = total_inst / warps;
    k->ld_global = ldg / warps;
    k->st_global = stg / warps;
    k->ld_shared = lds / warps;
    k->st_shared = sts / warps;
    k->ld_sectors = ld_req > 0 ? ld_sec / ld_req : 4;
    k->st_sectors = st_req > 0 ? st_sec / st_req : 4;
    k->bank_ways = lds + sts > 0 && sh_wf > 0 ? fmax(sh_wf / (lds + sts), 1) : 1;
    k->l1_hit = clamp01(get(hd, r, nr, "l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct", 0, NULL) / 100);
    k->l2_hit = clamp01(get(hd, r, nr, "lts__t_sector_op_read_hit_rate.pct", 0, NULL) / 100);
    k->dram_read_bytes = get(hd, r, nr, "dram__bytes_read.sum", -warps, NULL) / warps;
    k->dram_write_bytes = get(hd, r, nr, "dram__bytes_write.sum", -warps, NULL) / warps;
    /* Without the SASS page every load is its own interval, used by the
     * next instruction (the pessimistic reading, stated in the output). */
    k->ld_intervals = k->ld_global;
    k->sh_intervals = k->ld_shared;
    k->use_distance = 1;
    return MT_OK;
}

static int is_header(char **c, size_t n)
{
    int id = 0, name = 0;
    for (size_t i = 0; i < n; i++) {
        id |= strcmp(c[i], "ID") == 0;
        name |= strcmp(c[i], "Kernel Name") == 0;
    }
    return id && name && n > 2;
}

mt_err mt_model_ncu_parse(const char *text, const char *name, mt_model_kernel **out, size_t *n,
                          mt_errinfo *ei)
{
    *out = NULL;
    *n = 0;
    header hd = {0};
    char **c;
    size_t nc;
    const char *p = text;
    int st;
    mt_err e = MT_OK;
    int units_seen = 0;
    while ((st = mt_model_csv_record(&p, &c, &nc)) > 0) {
        if (!hd.h) {
            if (is_header(c, nc)) {
                hd.h = c;
                hd.nh = nc;
                continue;
            }
        } else if (nc == hd.nh) {
            if (!units_seen) {
                /* Row 2 holds units ("byte", "cycle", "%"): its ID cell is empty. */
                long id = column(&hd, "ID");
                double v;
                if (id >= 0 && !mt_model_number(c[id], &v)) {
                    units_seen = 1;
                    hd.units = c;
                    hd.nu = nc;
                    continue;
                }
                units_seen = 1;
            }
            mt_model_kernel *g = realloc(*out, (*n + 1) * sizeof *g);
            if (!g) {
                e = mt_fail(ei, MT_ERR_NOMEM, "model: out of memory");
            } else {
                *out = g;
                e = row_kernel(&hd, c, nc, &g[*n], name, ei);
                if (e == MT_OK)
                    (*n)++;
            }
            if (e != MT_OK) {
                mt_model_csv_free(c, nc);
                break;
            }
        }
        mt_model_csv_free(c, nc);
    }
    if (st < 0 && e == MT_OK)
        e = mt_fail(ei, MT_ERR_NOMEM, "model: out of memory");
    if (e == MT_OK && !hd.h)
        e = mt_fail(ei, MT_ERR_INVALID_ARG,
                    "model: %s: no ncu raw CSV header (a row with \"ID\" and \"Kernel Name\"; "
                    "profile with ncu --csv --page raw)",
                    name);
    else if (e == MT_OK && *n == 0)
        e = mt_fail(ei, MT_ERR_INVALID_ARG, "model: %s: the ncu CSV has no kernel rows", name);
    mt_model_csv_free(hd.h, hd.nh);
    mt_model_csv_free(hd.units, hd.nu);
    if (e != MT_OK) {
        free(*out);
        *out = NULL;
        *n = 0;
    }
    return e;
}

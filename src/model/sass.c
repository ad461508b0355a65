/* The SASS source page of Nsight Compute (`--page source --csv
 * --print-source sass`): per instruction its text and how often warps
 * executed it.  From it: the instruction mix (FP64, SFU, barriers) and
 * GPUMech's interval structure, read from the registers: a load's interval
 * ends at the first instruction reading what it wrote (loads issued before
 * that one share the interval), and an ALU result read d instructions
 * later makes the reader wait latency - d cycles.
 *
 * The listing is static: a loop body is read once in address order,
 * weighted by its execution counts, which is the dynamic order except at
 * the back edge (a load still unused at the end of the body is counted as
 * its own interval). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

#define SASS_REGS 256 /* R0..R254 and RZ */

typedef struct {
    long pos;   /* instruction index of the last writer, -1 none */
    int load;   /* the writer is a global (1) or shared (2) load still unused */
    int group;  /* its load group */
} reg_state;

static int starts(const char *s, const char *p) { return strncmp(s, p, strlen(p)) == 0; }

/* Registers named in `ops` (R<n>, R<n>.64 pairs), skipping UR/SR/RZ. */
static int registers(const char *ops, int *out, int max, int *first_is_reg)
{
    int n = 0;
    *first_is_reg = 0;
    for (const char *c = ops; *c; c++) {
        if (*c != 'R' || (c > ops && (isalnum((unsigned char)c[-1]) || c[-1] == '_')))
            continue;
        if (!isdigit((unsigned char)c[1]))
            continue;
        int r = atoi(c + 1);
        const char *e = c + 1;
        while (isdigit((unsigned char)*e))
            e++;
        int width = starts(e, ".64") ? 2 : 1;
        if (n == 0) {
            const char *b = ops;
            while (*b == ' ')
                b++;
            *first_is_reg = b == c;
        }
        for (int w = 0; w < width && n < max; w++)
            if (r + w < SASS_REGS - 1)
                out[n++] = r + w;
    }
    return n;
}

static int no_destination(const char *op)
{
    static const char *const none[] = {"ST", "BRA", "BAR", "EXIT", "RET", "RED", "BSYNC", "BSSY",
                                       "CALL", "NOP", "WARPSYNC", "YIELD", "MEMBAR", "ERRBAR",
                                       "CCTL", "DEPBAR", "JMP", "BPT", NULL};
    for (int i = 0; none[i]; i++)
        if (starts(op, none[i]))
            return 1;
    return 0;
}

/* Loads issued together whose interval has not ended yet: one per kind
 * (global, shared) at a time, so a few slots are plenty. */
#define SASS_MAX_GROUPS 8
typedef struct {
    long open_at; /* instruction index of its first load; -1 free */
    int kind;     /* 1 global, 2 shared */
} load_group;

typedef struct {
    double fp64, sfu, barriers, ld_groups, sh_groups, use_dist, uses;
    double alu_dep[MT_MODEL_MAX_DEP + 1];
} mix;

/* One instruction: its opcode and operands (predicate guard removed). */
static void instruction(const char *src, long idx, double count, reg_state *rs, mix *x,
                        load_group *groups, int *n_groups)
{
    while (*src == ' ')
        src++;
    if (*src == '@')
        while (*src && *src != ' ')
            src++;
    while (*src == ' ')
        src++;
    char op[48];
    size_t j = 0;
    while (src[j] && src[j] != ' ' && j + 1 < sizeof op) {
        op[j] = src[j];
        j++;
    }
    op[j] = 0;
    const char *ops = src + j;
    int regs[16], first_reg;
    int nr = registers(ops, regs, 16, &first_reg);
    int dest = !no_destination(op) && first_reg;
    int is_gld = starts(op, "LDG") || starts(op, "LDL") || (starts(op, "LD.") || strcmp(op, "LD") == 0);
    int is_sld = starts(op, "LDS");
    if (op[0] == 'D' && (starts(op, "DADD") || starts(op, "DFMA") || starts(op, "DMUL")))
        x->fp64 += count;
    if (starts(op, "MUFU"))
        x->sfu += count;
    if (starts(op, "BAR") && !starts(op, "BAR.ARV"))
        x->barriers += count;
    /* The destination is the first operand: one register, or a pair or
     * quad when the opcode's width says so (R4 of LDG.E.128 is R4..R7);
     * every other register named is a source. */
    int nd = 0, dest_reg = dest ? regs[0] : -1, dest_width = 1;
    if (dest) {
        nd = 1;
        if (strstr(op, ".128"))
            dest_width = 4;
        else if (strstr(op, ".64") || strstr(op, ".WIDE"))
            dest_width = 2;
        /* registers() expanded a destination written R4.64 into two. */
        const char *comma = strchr(ops, ','), *pair = strstr(ops, ".64");
        if (nr >= 2 && pair && (!comma || pair < comma))
            nd = 2;
    }
    int min_alu = MT_MODEL_MAX_DEP + 1;
    for (int i = nd; i < nr; i++) {
        reg_state *s = &rs[regs[i]];
        if (s->pos < 0)
            continue;
        if (s->load) {
            load_group *grp = &groups[s->group];
            if (grp->open_at >= 0) {
                x->use_dist += count * (double)(idx - grp->open_at);
                x->uses += count;
                grp->open_at = -1; /* the group's interval ends here */
            }
            s->load = 0;
        } else {
            long d = idx - s->pos;
            if (d < min_alu)
                min_alu = (int)d;
        }
    }
    if (min_alu <= MT_MODEL_MAX_DEP && min_alu >= 1 && !is_gld && !is_sld)
        x->alu_dep[min_alu] += count;
    if (is_gld || is_sld) {
        /* A load joins the open group of its kind, or opens one in a free
         * slot (a group is free again once its first use closed it). */
        int kind = is_gld ? 1 : 2, g = -1, free_slot = -1;
        for (int k = 0; k < *n_groups; k++) {
            if (groups[k].open_at >= 0 && groups[k].kind == kind)
                g = k;
            if (groups[k].open_at < 0 && free_slot < 0)
                free_slot = k;
        }
        if (g < 0) {
            if (free_slot < 0 && *n_groups < SASS_MAX_GROUPS)
                free_slot = (*n_groups)++;
            g = free_slot;
            if (g >= 0) {
                groups[g].open_at = idx;
                groups[g].kind = kind;
                if (is_gld)
                    x->ld_groups += count;
                else
                    x->sh_groups += count;
            }
        }
        for (int w = 0; dest && w < dest_width && dest_reg + w < SASS_REGS - 1; w++) {
            rs[dest_reg + w].pos = idx;
            rs[dest_reg + w].load = g >= 0 ? kind : 0;
            rs[dest_reg + w].group = g;
        }
        return;
    }
    for (int w = 0; dest && w < dest_width && dest_reg + w < SASS_REGS - 1; w++) {
        rs[dest_reg + w].pos = idx;
        rs[dest_reg + w].load = 0;
    }
}


/* Kernel name as the raw page has it: "ID:name" -> "name". */
static const char *bare(const char *kname)
{
    const char *c = strchr(kname, ':');
    return c && c != kname && isdigit((unsigned char)kname[0]) ? c + 1 : kname;
}

/* The two pages spell template arguments differently (`chase<1>` in the
 * raw page, `chase<(bool)1>` in the source page): names are compared up
 * to the first '<' or '('. */
static int same_kernel(const char *a, const char *b)
{
    size_t la = strcspn(a, "<("), lb = strcspn(b, "<(");
    return la == lb && strncmp(a, b, la) == 0;
}

/* 1 when the page lists exactly the n launches, in order (one listing per
 * launch, as the validation suite exports it): listing i is launch i's. */
static int one_listing_per_launch(const char *text, const mt_model_kernel *k, size_t n)
{
    const char *p = text;
    char **c;
    size_t nc, i = 0;
    int same = 1;
    while (mt_model_csv_record(&p, &c, &nc) > 0) {
        if (nc >= 2 && strcmp(c[0], "Kernel Name") == 0) {
            if (i >= n || !same_kernel(bare(k[i].name), c[1]))
                same = 0;
            i++;
        }
        mt_model_csv_free(c, nc);
    }
    return same && i == n;
}

mt_err mt_model_sass_apply(const char *text, const char *name, mt_model_kernel *k, size_t n,
                           mt_errinfo *ei)
{
    int *done = calloc(n ? n : 1, sizeof *done);
    if (!done)
        return mt_fail(ei, MT_ERR_NOMEM, "model: out of memory");
    int positional = one_listing_per_launch(text, k, n);
    const char *p = text;
    char **c;
    size_t nc;
    int st, listings = 0;
    while ((st = mt_model_csv_record(&p, &c, &nc)) > 0) {
        if (!(nc >= 2 && strcmp(c[0], "Kernel Name") == 0)) {
            mt_model_csv_free(c, nc);
            continue;
        }
        listings++;
        /* The kernels this listing belongs to (every launch of the name). */
        char kname[160];
        snprintf(kname, sizeof kname, "%s", c[1]);
        mt_model_csv_free(c, nc);
        char **h;
        size_t nh;
        if (mt_model_csv_record(&p, &h, &nh) <= 0)
            break;
        long col_src = -1, col_exec = -1;
        for (size_t i = 0; i < nh; i++) {
            if (strcmp(h[i], "Source") == 0)
                col_src = (long)i;
            if (strcmp(h[i], "Instructions Executed") == 0)
                col_exec = (long)i;
        }
        mt_model_csv_free(h, nh);
        if (col_src < 0 || col_exec < 0) {
            free(done);
            return mt_fail(ei, MT_ERR_INVALID_ARG,
                           "model: %s: the SASS listing of %s has no \"Source\" or \"Instructions "
                           "Executed\" column (ncu --page source --csv --print-source sass)",
                           name, kname);
        }
        reg_state rs[SASS_REGS];
        for (int i = 0; i < SASS_REGS; i++)
            rs[i] = (reg_state){-1, 0, 0};
        load_group groups[SASS_MAX_GROUPS];
        int n_groups = 0;
        mix x = {0};
        long idx = 0;
        double total = 0;
        for (;;) {
            const char *save = p;
            if (mt_model_csv_record(&p, &c, &nc) <= 0)
                break;
            if (nc <= (size_t)col_exec || (nc >= 1 && strcmp(c[0], "Kernel Name") == 0)) {
                mt_model_csv_free(c, nc);
                p = save;
                break;
            }
            double cnt;
            if (mt_model_number(c[col_exec], &cnt)) {
                instruction(c[col_src], idx++, cnt, rs, &x, groups, &n_groups);
                total += cnt;
            }
            mt_model_csv_free(c, nc);
        }
        for (size_t i = 0; i < n; i++) {
            if (positional ? i != (size_t)(listings - 1)
                           : (done[i] || !same_kernel(bare(k[i].name), kname)))
                continue;
            done[i] = 1;
            double warps = k[i].grid_blocks * ceil(k[i].block_threads / 32.0);
            if (!(warps > 0) || !(total > 0))
                continue;
            k[i].inst_fp64 = x.fp64 / warps;
            k[i].inst_sfu = x.sfu / warps;
            k[i].barriers = x.barriers / warps;
            k[i].ld_intervals = fmin(x.ld_groups / warps, k[i].ld_global);
            k[i].sh_intervals = fmin(x.sh_groups / warps, k[i].ld_shared);
            k[i].use_distance = x.uses > 0 ? x.use_dist / x.uses : 1;
            for (int d = 0; d <= MT_MODEL_MAX_DEP; d++)
                k[i].alu_dep[d] = x.alu_dep[d] / warps;
            k[i].has_dep = 1;
            snprintf(k[i].source, sizeof k[i].source, "ncu+sass");
        }
    }
    free(done);
    if (st < 0)
        return mt_fail(ei, MT_ERR_NOMEM, "model: out of memory");
    if (!listings)
        return mt_fail(ei, MT_ERR_INVALID_ARG,
                       "model: %s: no SASS listing (a \"Kernel Name\" row; ncu --page source --csv "
                       "--print-source sass)",
                       name);
    return MT_OK;
}

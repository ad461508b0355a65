/* The kernel description format (.kd, docs/model.md): `key = value` lines,
 * `#` comments, for synthetic kernels whose counts are known by
 * construction.  Per-warp counts; rates in [0, 1]. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

typedef enum { KD_NUM, KD_RATE, KD_COUNT1, KD_NAME, KD_LEVEL } kd_type;

typedef struct {
    const char *key;
    kd_type type;
    size_t offset;  /* of the double in mt_model_kernel (KD_NUM, KD_RATE, KD_COUNT1) */
    int required;
} kd_key;

#define F(m) offsetof(mt_model_kernel, m)
static const kd_key keys[] = {
    {"name", KD_NAME, 0, 0},
    {"grid", KD_COUNT1, F(grid_blocks), 1},
    {"block", KD_COUNT1, F(block_threads), 1},
    {"registers", KD_NUM, F(regs_per_thread), 0},
    {"shared_per_block", KD_NUM, F(smem_per_block), 0},
    {"carveout", KD_NUM, F(carveout_smem), 0},
    {"inst", KD_COUNT1, F(inst), 1},
    {"fp64", KD_NUM, F(inst_fp64), 0},
    {"sfu", KD_NUM, F(inst_sfu), 0},
    {"ld_global", KD_NUM, F(ld_global), 0},
    {"st_global", KD_NUM, F(st_global), 0},
    {"ld_shared", KD_NUM, F(ld_shared), 0},
    {"st_shared", KD_NUM, F(st_shared), 0},
    {"ld_sectors", KD_COUNT1, F(ld_sectors), 0},
    {"st_sectors", KD_COUNT1, F(st_sectors), 0},
    {"l1_hit", KD_RATE, F(l1_hit), 0},
    {"l2_hit", KD_RATE, F(l2_hit), 0},
    {"ld_level", KD_LEVEL, 0, 0},
    {"dram_read_bytes", KD_NUM, F(dram_read_bytes), 0},
    {"dram_write_bytes", KD_NUM, F(dram_write_bytes), 0},
    {"bank_ways", KD_COUNT1, F(bank_ways), 0},
    {"l1_wavefronts", KD_NUM, F(l1_wavefronts), 0},
    {"atomics", KD_NUM, F(atomics), 0},
    {"atomic_sectors", KD_COUNT1, F(atomic_sectors), 0},
    {"barriers", KD_NUM, F(barriers), 0},
    {"ld_per_interval", KD_COUNT1, 0, 0},
    {"sh_per_interval", KD_COUNT1, 0, 0},
    {"use_distance", KD_NUM, F(use_distance), 0},
    {"dep_distance", KD_COUNT1, 0, 0},
    {"dep_fraction", KD_RATE, 0, 0},
};
#undef F
#define N_KEYS (sizeof keys / sizeof keys[0])

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    char *e = s + strlen(s);
    while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
        *--e = 0;
    return s;
}

mt_err mt_model_kd_parse(const char *text, const char *name, mt_model_kernel *k, mt_errinfo *ei)
{
    memset(k, 0, sizeof *k);
    snprintf(k->name, sizeof k->name, "%s", name);
    snprintf(k->source, sizeof k->source, "kd");
    k->ld_sectors = k->st_sectors = 4; /* a coalesced 4-byte access: 128 B */
    k->bank_ways = 1;
    k->atomic_sectors = 1;
    k->dram_read_bytes = k->dram_write_bytes = -1;
    k->use_distance = 1;
    double ld_per = 1, sh_per = 1, dep_d = 0, dep_f = 1;
    int seen[N_KEYS] = {0};
    int line = 0;
    const char *p = text;
    while (*p) {
        line++;
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        char buf[512];
        if (len >= sizeof buf)
            return mt_fail(ei, MT_ERR_SPEC_PARSE, "%s:%d: line too long", name, line);
        memcpy(buf, p, len);
        buf[len] = 0;
        p += len + (nl ? 1 : 0);
        char *hash = strchr(buf, '#');
        if (hash)
            *hash = 0;
        char *s = trim(buf);
        if (!*s)
            continue;
        char *eq = strchr(s, '=');
        if (!eq)
            return mt_fail(ei, MT_ERR_SPEC_PARSE, "%s:%d: expected key = value, got \"%.60s\"",
                           name, line, s);
        *eq = 0;
        char *key = trim(s), *val = trim(eq + 1);
        size_t i = 0;
        while (i < N_KEYS && strcmp(keys[i].key, key) != 0)
            i++;
        if (i == N_KEYS)
            return mt_fail(ei, MT_ERR_SPEC_PARSE, "%s:%d: unknown key \"%.40s\"", name, line, key);
        if (seen[i]++)
            return mt_fail(ei, MT_ERR_SPEC_PARSE, "%s:%d: %s given twice", name, line, key);
        if (keys[i].type == KD_NAME) {
            snprintf(k->name, sizeof k->name, "%s", val);
            continue;
        }
        if (keys[i].type == KD_LEVEL) {
            if (strcmp(val, "l1") == 0)
                k->l1_hit = 1, k->l2_hit = 1;
            else if (strcmp(val, "l2") == 0)
                k->l1_hit = 0, k->l2_hit = 1;
            else if (strcmp(val, "dram") == 0)
                k->l1_hit = 0, k->l2_hit = 0;
            else
                return mt_fail(ei, MT_ERR_SPEC_PARSE, "%s:%d: ld_level is l1, l2 or dram, got \"%.20s\"",
                               name, line, val);
            continue;
        }
        char *end;
        double v = strtod(val, &end);
        if (end == val || *end || !isfinite(v) || v < 0)
            return mt_fail(ei, MT_ERR_SPEC_PARSE, "%s:%d: %s wants a number >= 0, got \"%.40s\"",
                           name, line, key, val);
        if (keys[i].type == KD_RATE && v > 1)
            return mt_fail(ei, MT_ERR_SPEC_PARSE, "%s:%d: %s is a rate in [0, 1], got %g", name,
                           line, key, v);
        if (keys[i].type == KD_COUNT1 && v < 1)
            return mt_fail(ei, MT_ERR_SPEC_PARSE, "%s:%d: %s must be at least 1, got %g", name,
                           line, key, v);
        if (strcmp(key, "ld_per_interval") == 0)
            ld_per = v;
        else if (strcmp(key, "sh_per_interval") == 0)
            sh_per = v;
        else if (strcmp(key, "dep_distance") == 0)
            dep_d = v;
        else if (strcmp(key, "dep_fraction") == 0)
            dep_f = v;
        else
            *(double *)((char *)k + keys[i].offset) = v;
    }
    for (size_t i = 0; i < N_KEYS; i++)
        if (keys[i].required && !seen[i])
            return mt_fail(ei, MT_ERR_SPEC_PARSE, "%s: missing key %s", name, keys[i].key);
    double mem = k->ld_global + k->st_global + k->ld_shared + k->st_shared + k->barriers +
                 k->inst_fp64 + k->inst_sfu + k->atomics;
    if (mem > k->inst)
        return mt_fail(ei, MT_ERR_SPEC_PARSE,
                       "%s: loads, stores, atomics, barriers, fp64 and sfu (%g) exceed inst (%g)", name, mem,
                       k->inst);
    if (seen[0] == 0 && strchr(k->name, '/'))
        snprintf(k->name, sizeof k->name, "%s", strrchr(name, '/') + 1);
    k->ld_intervals = k->ld_global / ld_per;
    k->sh_intervals = k->ld_shared / sh_per;
    /* dep_distance d: that share of the ALU instructions reads a result
     * written d instructions before it; without the key, none does. */
    if (dep_d >= 1) {
        int d = (int)fmin(dep_d, MT_MODEL_MAX_DEP);
        if (dep_d <= MT_MODEL_MAX_DEP)
            k->alu_dep[d] = dep_f * (k->inst - mem);
    }
    k->has_dep = 1;
    return MT_OK;
}

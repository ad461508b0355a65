/* Finding a spec (built-in preset or file) and turning it into the device
 * information a driver query would give. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../backend/backend.h"
#include "presets.h"
#include "spec.h"

/* A spec is a page of text; anything this large is not one. */
#define MT_SIM_MAX_SPEC_BYTES (1u << 20)

const char *mt_sim_preset_text(const char *name)
{
    for (const mt_preset *p = mt_presets; p->name; p++)
        if (strcmp(p->name, name) == 0)
            return p->text;
    return NULL;
}

void mt_sim_preset_names(char *buf, size_t cap)
{
    if (!cap)
        return;
    buf[0] = '\0';
    for (const mt_preset *p = mt_presets; p->name; p++) {
        size_t len = strlen(buf);
        snprintf(buf + len, cap - len, "%s%s", p == mt_presets ? "" : ", ", p->name);
    }
}

/* Reads a whole file; 1 = not openable (so the caller can say "unknown
 * preset"), 0 = ok, otherwise an error already filled in. */
static mt_err read_file(const char *path, char **text, int *not_found, mt_errinfo *ei)
{
    *not_found = 0;
    FILE *f = fopen(path, "rb");
    if (!f) {
        *not_found = 1;
        return MT_OK;
    }
    char *buf = malloc(MT_SIM_MAX_SPEC_BYTES + 1);
    if (!buf) {
        fclose(f);
        return mt_fail(ei, MT_ERR_NOMEM, "out of memory reading %s", path);
    }
    size_t n = fread(buf, 1, MT_SIM_MAX_SPEC_BYTES + 1, f);
    int bad = ferror(f);
    int saved = errno;
    fclose(f);
    if (bad) {
        free(buf);
        /* A directory opens but does not read: treat like "not a spec file". */
        if (saved == EISDIR) {
            *not_found = 1;
            return MT_OK;
        }
        return mt_fail(ei, MT_ERR_IO, "%s: read error: %s", path, strerror(saved));
    }
    if (n > MT_SIM_MAX_SPEC_BYTES) {
        free(buf);
        return mt_fail(ei, MT_ERR_SPEC_PARSE, "%s:1: file larger than %u bytes is not a spec",
                       path, MT_SIM_MAX_SPEC_BYTES);
    }
    if (memchr(buf, '\0', n)) {
        free(buf);
        return mt_fail(ei, MT_ERR_SPEC_PARSE, "%s:1: file contains NUL bytes (not a text spec)",
                       path);
    }
    buf[n] = '\0';
    *text = buf;
    return MT_OK;
}

mt_err mt_sim_spec_load(const char *preset_or_file, mt_sim_spec *out, mt_errinfo *ei)
{
    if (!preset_or_file || !*preset_or_file)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "no sim preset or spec file given");
    const char *preset = mt_sim_preset_text(preset_or_file);
    if (preset) {
        char fname[96];
        snprintf(fname, sizeof fname, "presets/%s.spec", preset_or_file);
        return mt_sim_spec_parse(preset, fname, out, ei);
    }
    char *text = NULL;
    int not_found = 0;
    mt_err err = read_file(preset_or_file, &text, &not_found, ei);
    if (err)
        return err;
    if (not_found) {
        char names[256];
        mt_sim_preset_names(names, sizeof names);
        return mt_fail(ei, MT_ERR_INVALID_ARG,
                       "'%s' is neither a sim preset (%s) nor a readable spec file",
                       preset_or_file, names);
    }
    err = mt_sim_spec_parse(text, preset_or_file, out, ei);
    free(text);
    return err;
}

uint64_t mt_sim_global_path_limit(const mt_sim_spec *s)
{
    /* The cuda backend can never get all of the memory; 4 GiB keeps word
     * indices within 32 bits. */
    return s->global_mem / 2 < (4ull << 30) ? s->global_mem / 2 : 4ull << 30;
}

void mt_sim_spec_device_info(const mt_sim_spec *s, mt_device_info *d)
{
    memset(d, 0, sizeof *d);
    snprintf(d->name, sizeof d->name, "%s", s->name);
    snprintf(d->backend, sizeof d->backend, "sim");
    d->ordinal = 0;
    d->cc_major = s->cc_major;
    d->cc_minor = s->cc_minor;
    d->sm_count = s->sm_count;
    d->clock_khz = s->clock_mhz * 1000;
    d->mem_clock_khz = s->mem_clock_mhz * 1000;
    d->bus_width_bits = s->bus_width_bits;
    d->global_mem_bytes = s->global_mem;
    d->l2_bytes = s->l2_size;
    d->persisting_l2_max_bytes = s->persisting_l2_max;
    d->smem_per_block = s->smem_per_block;
    d->smem_per_block_optin = s->smem_per_block_optin;
    d->smem_per_sm = s->smem_per_sm;
    d->const_mem_bytes = s->const_mem;
    d->max_threads_per_block = s->max_threads_per_block;
    d->max_threads_per_sm = s->max_threads_per_sm;
    d->warp_size = s->warp_size;
    d->regs_per_sm = s->regs_per_sm;
    d->carveout_percent = s->carveout_percent;
    d->carveout_smem_bytes = s->carveout_smem;
    d->n_carveouts = s->n_carveouts;
    memcpy(d->carveout_smem_options, s->carveouts, sizeof d->carveout_smem_options);
    snprintf(d->driver_version, sizeof d->driver_version, "sim");
    snprintf(d->runtime_version, sizeof d->runtime_version, "sim");

    /* Backend limits.  Global paths: mt_sim_global_path_limit.  Texture:
     * the 2^27-texel limit of a 1D linear texture of 4 B texels (and never
     * more than the global buffer it is bound to). */
    uint64_t global = mt_sim_global_path_limit(s);
    d->path_limit_bytes[MT_PATH_GLOBAL_CA] = global;
    d->path_limit_bytes[MT_PATH_GLOBAL_CG] = global;
    d->path_limit_bytes[MT_PATH_GLOBAL_NC] = global;
    d->path_limit_bytes[MT_PATH_TEXTURE] = global < (512ull << 20) ? global : 512ull << 20;
    d->path_limit_bytes[MT_PATH_CONSTANT] = s->const_mem - s->const_reserved;
    d->path_limit_bytes[MT_PATH_SHARED] = s->smem_per_block_optin;
    /* A sparse chain costs the sim one load per element, whatever it
     * spans: all of the memory less the cuda backend's margin, as a GPU
     * with nothing else on it gives a buffer it only writes at the
     * elements. */
    d->sparse_limit_bytes = mt_sparse_limit(s->global_mem);
    d->path_limit_bytes[MT_PATH_NONE] = 0; /* unlimited: no memory is touched */
    d->max_fine_loads = 8192;
    d->max_threads_per_experiment = s->max_threads_per_block;
    /* The simulator runs every experiment alone with cold caches; it states
     * what a GPU running one SM-scope experiment per SM would, so probes
     * size batches for the sim as for real hardware. */
    d->concurrent_experiments = s->sm_count;
    d->max_sequence = MT_SIM_MAX_SEQUENCE;
    d->max_cluster_size = s->cluster.present ? (int)s->cluster.max_size : 0;
    d->max_cluster_size_portable = s->cluster.present ? (int)s->cluster.portable_size : 0;
    /* The sim knows who else runs on it: its [tenant]'s processes. */
    d->other_processes = s->tenant.n_pids;
    d->other_busy = 0; /* before any batch; backend_sim.c updates it per batch */
    size_t len = 0;
    for (int i = 0; i < s->tenant.n_pids && len < sizeof d->other_process_list; i++)
        len += (size_t)snprintf(d->other_process_list + len, sizeof d->other_process_list - len,
                                "%s%d sim-tenant", i ? ", " : "", s->tenant.pids[i]);
}

/* Shared between the spec parser's files (spec_syntax.c: the text's
 * structure; spec_values.c: typed values; spec.c: the sections' meaning).
 * Not for use outside src/sim/. */
#ifndef MT_SIM_SPEC_INTERNAL_H
#define MT_SIM_SPEC_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "spec.h"

#define MT_SP_MAX_SECTIONS \
    (MT_SIM_MAX_CACHES + MT_SIM_MAX_TLBS + MT_SIM_MAX_ICACHES + MT_SIM_MAX_LINKS + 8)
#define MT_SP_MAX_KEYS 64
#define MT_SP_MAX_VALUE 256

typedef enum { SEC_DEVICE, SEC_CACHE, SEC_DRAM, SEC_SHARED, SEC_TENANT, SEC_THROUGHPUT, SEC_TLB,
               SEC_CLUSTER, SEC_ICACHE, SEC_ACCESS, SEC_LINK, SEC_HOST_LINK } sec_kind;

typedef struct {
    char key[32];
    char val[MT_SP_MAX_VALUE];
    int line;
} kv;

typedef struct {
    sec_kind kind;
    char name[32]; /* cache, TLB or icache name; a [link N]'s N */
    int line;      /* of the header */
    kv kv[MT_SP_MAX_KEYS];
    int n;
} section;

typedef struct {
    const char *fname;
    mt_errinfo *ei;
    int last_line;
    section *sec; /* MT_SP_MAX_SECTIONS */
    int n_sec;
} pctx;

extern const char *const mt_sp_lpath_names[MT_SIM_LP_COUNT];

/* "FILE:LINE: message" as MT_ERR_SPEC_PARSE. */
mt_err mt_sp_err(pctx *c, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* "[cache l1]" etc. */
const char *mt_sp_title(const section *s, char *buf, size_t cap);

/* Pass 1: splits text into c->sec, rejecting bad syntax, unknown or
 * duplicate sections and keys. */
mt_err mt_sp_structure(pctx *c, const char *text);

/* Pass 2 helpers.  Absent optional keys leave *out untouched (callers
 * pre-set defaults); *present (optional) says whether the key was there. */
const kv *mt_sp_find(const section *s, const char *key);
mt_err mt_sp_missing(pctx *c, const section *s, const char *key);
mt_err mt_sp_uint(pctx *c, const section *s, const char *key, int required, uint64_t lo,
                  uint64_t hi, uint64_t *out, int *present);
mt_err mt_sp_int(pctx *c, const section *s, const char *key, int required, int lo, int hi,
                 int *out, int *present);
mt_err mt_sp_u32(pctx *c, const section *s, const char *key, int required, uint32_t lo,
                 uint32_t hi, uint32_t *out, int *present);
mt_err mt_sp_size(pctx *c, const section *s, const char *key, int required, uint64_t lo,
                  uint64_t hi, uint64_t *out, int *present);
mt_err mt_sp_size32(pctx *c, const section *s, const char *key, int required, uint32_t *out,
                    int *present);
mt_err mt_sp_double(pctx *c, const section *s, const char *key, int required, double lo,
                    double hi, double *out, int *present);
/* One of words (NULL-terminated); *out = its index. */
mt_err mt_sp_word(pctx *c, const section *s, const char *key, const char *const *words, int *out);
int mt_sp_is_pow2(uint64_t v);
/* Strict decimal integer (digits only, no sign, no leading zeros, no
 * overflow): 0 and *out set, or -1. */
int mt_sp_parse_u64(const char *s, uint64_t *out);
/* "MAJOR.MINOR": 1-2 digits without a leading zero, '.', one digit. */
int mt_sp_parse_cc(const char *s, int *major, int *minor);
/* base and base.<path> into lat[] (overrides only for paths in allowed_paths). */
mt_err mt_sp_latencies(pctx *c, const section *s, const char *base, int required,
                       unsigned allowed_paths, double *lat, double *base_out, int *present);

/* Pass 3 (spec_measurable.c): rules across keys and sections that keep a
 * parsed spec measurable and its run short; errors point at the key. */
mt_err mt_sp_check_measurable(pctx *c, const mt_sim_spec *o);
/* Cache geometry (spec_geometry.c): unified before the size is read (it
 * replaces `size`), the other per-cache keys once the section's geometry is
 * known, carveouts_kib with [device], and the rules across sections after
 * every section is read. */
mt_err mt_sp_read_unified(pctx *c, const section *s, mt_sim_cache_spec *cs, int *has);
/* carveout_takes (after ways and replacement are read): how the carveout
 * removes capacity from a unified cache. */
mt_err mt_sp_read_carveout_takes(pctx *c, const section *s, mt_sim_cache_spec *cs);
mt_err mt_sp_read_geometry(pctx *c, const section *s, mt_sim_cache_spec *cs);
mt_err mt_sp_read_carveouts(pctx *c, const section *s, mt_sim_spec *o);
mt_err mt_sp_check_geometry(pctx *c, mt_sim_spec *o);
/* [shared]'s bank keys (spec_banks.c). */
mt_err mt_sp_read_banks(pctx *c, const section *s, mt_sim_bank_spec *b);
/* [tenant] (spec_tenant.c). */
mt_err mt_sp_read_tenant(pctx *c, const section *s, mt_sim_tenant_spec *t);
extern const char *const mt_sp_tenant_keys[];
/* [throughput] (spec_throughput.c): read once every section is, since its
 * keys name the caches; mt_sp_throughput_key_known is pass 1's key test. */
mt_err mt_sp_read_throughput(pctx *c, const section *s, mt_sim_spec *o);
int mt_sp_throughput_key_known(const char *key);
/* [tlb NAME] (spec_tlb.c): one level's keys, then the rules across levels
 * and against the rest of the spec once everything is read. */
mt_err mt_sp_read_tlb(pctx *c, const section *s, mt_sim_tlb_spec *t);
mt_err mt_sp_check_tlbs(pctx *c, const mt_sim_spec *o);
extern const char *const mt_sp_tlb_keys[];
/* [cluster] (spec_cluster.c): read after [device] and [shared], whose
 * compute capability, shared memory per block and latency it is checked
 * against. */
mt_err mt_sp_read_cluster(pctx *c, const section *s, mt_sim_spec *o);
extern const char *const mt_sp_cluster_keys[];
/* [link N] and [host_link] (spec_link.c). */
mt_err mt_sp_read_link(pctx *c, const section *s, mt_sim_spec *o);
extern const char *const mt_sp_link_keys[];

/* [icache NAME] (spec_icache.c): one level's keys, then the rules across
 * levels once every section is read. */
mt_err mt_sp_read_icache(pctx *c, const section *s, mt_sim_icache_spec *q);
mt_err mt_sp_check_icaches(pctx *c, const mt_sim_spec *o);
extern const char *const mt_sp_icache_keys[];
/* [access] (spec_access.c): s may be NULL (no section: the defaults,
 * derived from [shared], which must have been read). */
mt_err mt_sp_read_access(pctx *c, const section *s, mt_sim_spec *o);
extern const char *const mt_sp_access_keys[];

#endif

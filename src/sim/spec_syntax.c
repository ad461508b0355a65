/* Spec parser, pass 1: the text's structure.  Splits the text into
 * sections of key = value entries and rejects what is wrong whatever the
 * values are: syntax, unknown or duplicate sections and keys. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "spec_internal.h"

const char *const mt_sp_lpath_names[MT_SIM_LP_COUNT] = {"l1d", "tex", "ro", "const", "cg"};

const char *mt_sim_lpath_name(mt_sim_lpath p)
{
    return (p >= 0 && p < MT_SIM_LP_COUNT) ? mt_sp_lpath_names[p] : "?";
}

static const char *const device_keys[] = {
    "name", "compute_capability", "sm_count", "clock_mhz", "actual_clock_mhz", "mem_clock_mhz", "bus_width_bits",
    "global_mem", "l2_size", "persisting_l2_max", "smem_per_sm", "smem_per_block",
    "smem_per_block_optin", "const_mem", "const_reserved", "max_threads_per_block",
    "max_threads_per_sm", "warp_size", "regs_per_sm", "seed", "timer_overhead", "loop_overhead",
    "outlier_rate", "outlier_cycles", "carveout_percent", "carveout_smem", "fail_after_batches",
    "signal_after_batches", "signal", "carveouts_kib", NULL};
static const char *const cache_keys[] = {
    "serves", "level", "size", "line", "sector", "fill", "ways", "index", "replacement",
    "fermi_way", "carveout_takes", "latency", "noise", "slices", "slice_map", "partitions", "far_latency",
    "index_masks", "unified", "partition_of_sm", NULL};
static const char *const dram_keys[] = {"latency", "noise", NULL};
static const char *const shared_keys[] = {"latency",         "noise",     "banks", "bank_width",
                                          "conflict_cycles", "broadcast", NULL};

const char *mt_sp_title(const section *s, char *buf, size_t cap)
{
    switch (s->kind) {
    case SEC_DEVICE: snprintf(buf, cap, "[device]"); break;
    case SEC_CACHE: snprintf(buf, cap, "[cache %s]", s->name); break;
    case SEC_DRAM: snprintf(buf, cap, "[dram]"); break;
    case SEC_SHARED: snprintf(buf, cap, "[shared]"); break;
    case SEC_TENANT: snprintf(buf, cap, "[tenant]"); break;
    case SEC_THROUGHPUT: snprintf(buf, cap, "[throughput]"); break;
    case SEC_TLB: snprintf(buf, cap, "[tlb %s]", s->name); break;
    case SEC_CLUSTER: snprintf(buf, cap, "[cluster]"); break;
    case SEC_ICACHE: snprintf(buf, cap, "[icache %s]", s->name); break;
    case SEC_ACCESS: snprintf(buf, cap, "[access]"); break;
    case SEC_LINK: snprintf(buf, cap, "[link %s]", s->name); break;
    case SEC_HOST_LINK: snprintf(buf, cap, "[host_link]"); break;
    }
    return buf;
}

mt_err mt_sp_err(pctx *c, int line, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return mt_fail(c->ei, MT_ERR_SPEC_PARSE, "%s:%d: %s", c->fname, line, msg);
}

/* Is key known for this section kind?  Per-path overrides are the base
 * key plus ".<path>" (latency.tex); only latency and far_latency have them. */
static int key_known(sec_kind k, const char *key)
{
    if (k == SEC_THROUGHPUT)
        return mt_sp_throughput_key_known(key);
    const char *const *list = k == SEC_DEVICE ? device_keys
                              : k == SEC_CACHE ? cache_keys
                              : k == SEC_DRAM  ? dram_keys
                              : k == SEC_TENANT ? mt_sp_tenant_keys
                              : k == SEC_TLB ? mt_sp_tlb_keys
                              : k == SEC_CLUSTER ? mt_sp_cluster_keys
                              : k == SEC_ICACHE ? mt_sp_icache_keys
                              : k == SEC_ACCESS ? mt_sp_access_keys
                              : (k == SEC_LINK || k == SEC_HOST_LINK) ? mt_sp_link_keys
                                               : shared_keys;
    char base[32];
    snprintf(base, sizeof base, "%s", key);
    char *dot = strchr(base, '.');
    if (dot) {
        *dot = '\0';
        const char *suffix = dot + 1;
        int ok_base = strcmp(base, "latency") == 0 ||
                      (k == SEC_CACHE && strcmp(base, "far_latency") == 0);
        if (!ok_base || k == SEC_SHARED || k == SEC_TENANT || k == SEC_TLB || k == SEC_CLUSTER ||
            k == SEC_ICACHE || k == SEC_ACCESS || k == SEC_LINK || k == SEC_HOST_LINK)
            return 0;
        int ok_suffix = 0;
        for (int p = 0; p < MT_SIM_LP_COUNT; p++)
            if (strcmp(suffix, mt_sp_lpath_names[p]) == 0)
                ok_suffix = 1;
        return ok_suffix;
    }
    for (int i = 0; list[i]; i++)
        if (strcmp(list[i], base) == 0)
            return 1;
    return 0;
}

static void trim(const char **b, const char **e)
{
    while (*b < *e && isspace((unsigned char)**b))
        (*b)++;
    while (*e > *b && isspace((unsigned char)(*e)[-1]))
        (*e)--;
}

static mt_err parse_header(pctx *c, int line, const char *b, const char *e)
{
    /* b..e is the text between [ and ] */
    char inner[128];
    size_t len = (size_t)(e - b);
    if (len >= sizeof inner)
        return mt_sp_err(c, line, "section header too long");
    memcpy(inner, b, len);
    inner[len] = '\0';
    char *save = NULL; /* strtok_r: node runs parse specs on several threads at once */
    char *tok1 = strtok_r(inner, " \t", &save);
    char *tok2 = tok1 ? strtok_r(NULL, " \t", &save) : NULL;
    char *tok3 = tok2 ? strtok_r(NULL, " \t", &save) : NULL;
    if (!tok1)
        return mt_sp_err(c, line, "empty section header []");
    section s;
    memset(&s, 0, sizeof s);
    s.line = line;
    if (strcmp(tok1, "cache") == 0 || strcmp(tok1, "tlb") == 0 || strcmp(tok1, "icache") == 0) {
        if (!tok2)
            return mt_sp_err(c, line, "[%s] needs a name, e.g. [%s l1]", tok1, tok1);
        if (tok3)
            return mt_sp_err(c, line, "unexpected '%s' in section header", tok3);
        if (strlen(tok2) >= sizeof s.name)
            return mt_sp_err(c, line, "%s name '%s' is too long (at most %zu characters)", tok1,
                             tok2, sizeof s.name - 1);
        for (const char *p = tok2; *p; p++)
            if (!isalnum((unsigned char)*p) && *p != '_')
                return mt_sp_err(c, line, "%s name '%s': use letters, digits and '_'", tok1, tok2);
        s.kind = tok1[0] == 'c' ? SEC_CACHE : tok1[0] == 't' ? SEC_TLB : SEC_ICACHE;
        snprintf(s.name, sizeof s.name, "%s", tok2);
    } else if (strcmp(tok1, "link") == 0) {
        /* [link N]: N the peer's position in the node, 0..MT_LINK_MAX_PEER */
        uint64_t peer;
        if (!tok2)
            return mt_sp_err(c, line, "[link] needs the peer GPU's index, e.g. [link 1]");
        if (tok3)
            return mt_sp_err(c, line, "unexpected '%s' in section header", tok3);
        if (mt_sp_parse_u64(tok2, &peer) != 0 || peer > MT_LINK_MAX_PEER)
            return mt_sp_err(c, line, "[link %s]: the peer is a GPU index 0..%d", tok2,
                             MT_LINK_MAX_PEER);
        s.kind = SEC_LINK;
        snprintf(s.name, sizeof s.name, "%s", tok2);
    } else if (tok2) {
        return mt_sp_err(c, line, "unexpected '%s' in section header [%s]", tok2, tok1);
    } else if (strcmp(tok1, "device") == 0) {
        s.kind = SEC_DEVICE;
    } else if (strcmp(tok1, "dram") == 0) {
        s.kind = SEC_DRAM;
    } else if (strcmp(tok1, "shared") == 0) {
        s.kind = SEC_SHARED;
    } else if (strcmp(tok1, "tenant") == 0) {
        s.kind = SEC_TENANT;
    } else if (strcmp(tok1, "throughput") == 0) {
        s.kind = SEC_THROUGHPUT;
    } else if (strcmp(tok1, "cluster") == 0) {
        s.kind = SEC_CLUSTER;
    } else if (strcmp(tok1, "access") == 0) {
        s.kind = SEC_ACCESS;
    } else if (strcmp(tok1, "host_link") == 0) {
        s.kind = SEC_HOST_LINK;
    } else {
        return mt_sp_err(c, line,
                    "unknown section [%s] (expected [device], [cache NAME], [tlb NAME], "
                    "[icache NAME], [dram], [shared], [tenant], [throughput], [cluster], "
                    "[access], [link N] or [host_link])",
                    tok1);
    }
    for (int i = 0; i < c->n_sec; i++) {
        const section *o = &c->sec[i];
        if (o->kind == s.kind &&
            ((s.kind != SEC_CACHE && s.kind != SEC_TLB && s.kind != SEC_ICACHE &&
              s.kind != SEC_LINK) ||
             strcmp(o->name, s.name) == 0)) {
            char t[64];
            return mt_sp_err(c, line, "duplicate section %s (first at line %d)",
                        mt_sp_title(&s, t, sizeof t), o->line);
        }
    }
    if (s.kind == SEC_CACHE) {
        int n_caches = 0;
        for (int i = 0; i < c->n_sec; i++)
            n_caches += c->sec[i].kind == SEC_CACHE;
        if (n_caches >= MT_SIM_MAX_CACHES)
            return mt_sp_err(c, line, "more than %d [cache] sections", MT_SIM_MAX_CACHES);
    }
    if (s.kind == SEC_TLB) {
        int n_tlbs = 0;
        for (int i = 0; i < c->n_sec; i++)
            n_tlbs += c->sec[i].kind == SEC_TLB;
        if (n_tlbs >= MT_SIM_MAX_TLBS)
            return mt_sp_err(c, line, "more than %d [tlb] sections", MT_SIM_MAX_TLBS);
    }
    if (s.kind == SEC_ICACHE) {
        int n_icaches = 0;
        for (int i = 0; i < c->n_sec; i++)
            n_icaches += c->sec[i].kind == SEC_ICACHE;
        if (n_icaches >= MT_SIM_MAX_ICACHES)
            return mt_sp_err(c, line, "more than %d [icache] sections", MT_SIM_MAX_ICACHES);
    }
    c->sec[c->n_sec++] = s;
    return MT_OK;
}

static mt_err parse_kv(pctx *c, int line, const char *b, const char *e)
{
    const char *eq = memchr(b, '=', (size_t)(e - b));
    if (!eq)
        return mt_sp_err(c, line, "expected 'key = value' or '[section]'");
    const char *kb = b, *ke = eq, *vb = eq + 1, *ve = e;
    trim(&kb, &ke);
    trim(&vb, &ve);
    if (kb == ke)
        return mt_sp_err(c, line, "missing key before '='");
    for (const char *p = kb; p < ke; p++)
        if (!(islower((unsigned char)*p) || isdigit((unsigned char)*p) || *p == '_' || *p == '.'))
            return mt_sp_err(c, line, "bad key '%.*s' (keys are lower case: a-z 0-9 _ .)",
                        (int)(ke - kb), kb);
    if (c->n_sec == 0)
        return mt_sp_err(c, line, "key '%.*s' before the first [section]", (int)(ke - kb), kb);
    section *s = &c->sec[c->n_sec - 1];
    char key[32];
    if ((size_t)(ke - kb) >= sizeof key)
        return mt_sp_err(c, line, "key '%.*s' is too long", (int)(ke - kb), kb);
    memcpy(key, kb, (size_t)(ke - kb));
    key[ke - kb] = '\0';
    char t[64];
    if (!key_known(s->kind, key))
        return mt_sp_err(c, line, "unknown key '%s' in %s", key, mt_sp_title(s, t, sizeof t));
    for (int i = 0; i < s->n; i++)
        if (strcmp(s->kv[i].key, key) == 0)
            return mt_sp_err(c, line, "duplicate key '%s' in %s (first at line %d)", key,
                        mt_sp_title(s, t, sizeof t), s->kv[i].line);
    if (vb == ve)
        return mt_sp_err(c, line, "key '%s' has no value", key);
    if (memchr(vb, '\t', (size_t)(ve - vb)))
        return mt_sp_err(c, line, "TAB inside the value of '%s' (separate words with spaces)", key);
    if ((size_t)(ve - vb) >= MT_SP_MAX_VALUE)
        return mt_sp_err(c, line, "value of '%s' is too long", key);
    if (s->n >= MT_SP_MAX_KEYS)
        return mt_sp_err(c, line, "too many keys in %s", mt_sp_title(s, t, sizeof t));
    kv *k = &s->kv[s->n++];
    snprintf(k->key, sizeof k->key, "%s", key);
    memcpy(k->val, vb, (size_t)(ve - vb));
    k->val[ve - vb] = '\0';
    k->line = line;
    return MT_OK;
}

mt_err mt_sp_structure(pctx *c, const char *text)
{
    int line = 0;
    const char *p = text;
    if (strncmp(p, "\xEF\xBB\xBF", 3) == 0) /* UTF-8 byte-order mark from some editors */
        p += 3;
    while (*p) {
        line++;
        const char *nl = strchr(p, '\n');
        const char *e = nl ? nl : p + strlen(p);
        const char *b = p;
        /* Control bytes are refused anywhere, comments included, and never
         * echoed: TAB is a space, CR only ends a CRLF line. */
        for (const char *q = b; q < e; q++) {
            unsigned char ch = (unsigned char)*q;
            if (ch == '\r' && q + 1 == e)
                continue;
            if ((ch < 0x20 && ch != '\t') || ch == 0x7f)
                return mt_sp_err(c, line, "control character 0x%02x in line%s", ch,
                                 ch == '\r' ? " (a CR may only end a line, as in CRLF)" : "");
        }
        const char *hash = memchr(b, '#', (size_t)(e - b));
        const char *ce = hash ? hash : e;
        trim(&b, &ce);
        if (b < ce) {
            mt_err err;
            if (*b == '[') {
                if (ce[-1] != ']')
                    return mt_sp_err(c, line, "section header without closing ']'");
                const char *ib = b + 1, *ie = ce - 1;
                trim(&ib, &ie);
                err = parse_header(c, line, ib, ie);
            } else {
                err = parse_kv(c, line, b, ce);
            }
            if (err)
                return err;
        }
        p = nl ? nl + 1 : e;
    }
    c->last_line = line > 0 ? line : 1;
    return MT_OK;
}


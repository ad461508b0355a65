/* The replay backend: answers experiments from a directory written by the
 * record wrapper (format in recording.h: versions 1 and 2), so a GPU run
 * can be re-analysed anywhere.  Everything is validated on open; a request
 * is answered by the first not-yet-used recorded experiment with exactly
 * the same parameters (so repeats of one experiment are served in recorded
 * order). */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "../topology/device_json.h"
#include "banks_params.h"
#include "csv_read.h"
#include "csv_write.h"
#include "recording.h"

#define NO_INDEX SIZE_MAX

/* The probes of every version-1 recording (the version-1 probe set), in
 * the order version 1 ran them. */
static const char *const v1_probes[] = {
    "calibrate", "shared", "l1d", "texture", "readonly", "constant", "l2", "dram", "sharing",
};

typedef struct {
    mt_device_info dev;
    mt_recording_info info;
    int version; /* format_version of the recording */
    mt_experiment *exps;
    mt_result *res;
    size_t n, cap;
    unsigned char *used;
    /* Hash index: head[bucket] -> first experiment, next[i] -> following
     * experiment in the same bucket, ascending (recorded) order. */
    size_t *head, *next;
    size_t n_buckets;
    mt_backend_ops ops; /* replay_ops plus replay_caps() of this recording */
} replay_impl;

static const mt_backend_ops replay_ops;

/* ---------- experiment identity ---------- */

static int exp_equal(const mt_experiment *a, const mt_experiment *b)
{
    if (a->kind != b->kind || a->n_chains != b->n_chains || a->order != b->order ||
        a->order_seed != b->order_seed || a->warmup_laps != b->warmup_laps ||
        a->loads != b->loads || a->mode != b->mode || a->sm != b->sm || a->scope != b->scope ||
        a->together != b->together)
        return 0;
    if (a->set_carveout != b->set_carveout ||
        (a->set_carveout && a->carveout_percent != b->carveout_percent))
        return 0;
    if (mt_kind_has_index_list(a->kind)) {
        const mt_sequence *x = &a->u.seq, *y = &b->u.seq;
        if (x->n != y->n || x->untimed != y->untimed)
            return 0;
        if (x->n && x->index != y->index &&
            (!x->index || !y->index || memcmp(x->index, y->index, x->n * sizeof *x->index)))
            return 0;
    }
    if (a->kind == MT_KIND_CLOCK && a->u.clock.ns != b->u.clock.ns)
        return 0;
    if (a->kind == MT_KIND_ICACHE && a->u.icache.code_bytes != b->u.icache.code_bytes)
        return 0;
    if (a->kind == MT_KIND_LINK &&
        (a->u.link.op != b->u.link.op || a->u.link.peer != b->u.link.peer ||
         a->u.link.bytes != b->u.link.bytes || a->u.link.repeats != b->u.link.repeats))
        return 0;
    if (a->kind == MT_KIND_STREAM) {
        const mt_stream *x = &a->u.stream, *y = &b->u.stream;
        if (x->op != y->op || x->blocks != y->blocks || x->threads != y->threads ||
            x->vector_bytes != y->vector_bytes || x->bytes != y->bytes ||
            x->repeats != y->repeats || x->in_flight != y->in_flight ||
            x->balanced != y->balanced)
            return 0;
    }
    if (a->kind == MT_KIND_BANKS || a->kind == MT_KIND_ACCESS) { /* both an mt_banks */
        const mt_banks *x = &a->u.banks, *y = &b->u.banks;
        if (x->word_bytes != y->word_bytes || x->n_threads != y->n_threads ||
            (x->n_threads <= 32 &&
             memcmp(x->word_index, y->word_index, x->n_threads * sizeof *x->word_index)))
            return 0;
    }
    if (a->kind == MT_KIND_CLUSTER) {
        const mt_cluster *x = &a->u.cluster, *y = &b->u.cluster;
        if (x->op != y->op || x->cluster_size != y->cluster_size ||
            x->target_rank != y->target_rank || x->threads != y->threads ||
            x->blocks != y->blocks || x->bytes != y->bytes || x->repeats != y->repeats)
            return 0;
    }
    for (int c = 0; c < a->n_chains && c < MT_MAX_CHAINS; c++) {
        const mt_chain *x = &a->chain[c], *y = &b->chain[c];
        if (x->thread != y->thread || x->path != y->path || x->footprint != y->footprint ||
            x->stride != y->stride || x->offset != y->offset)
            return 0;
    }
    return 1;
}

static uint64_t exp_hash(const mt_experiment *e)
{
    return mt_experiment_hash(0, e);
}

/* "n_chains=1 [thread=0 path=ca footprint=4096 stride=64 offset=0] ..." */
static void describe(const mt_experiment *e, char *buf, size_t n)
{
    size_t len = 0;
#define PUT(...)                                                                                  \
    do {                                                                                          \
        int w_ = snprintf(buf + len, len < n ? n - len : 0, __VA_ARGS__);                         \
        if (w_ > 0)                                                                               \
            len += (size_t)w_;                                                                    \
    } while (0)
    PUT("kind=%s n_chains=%d", mt_kind_name(e->kind), e->n_chains);
    for (int c = 0; c < e->n_chains && c < MT_MAX_CHAINS; c++)
        PUT(" [thread=%d path=%s footprint=%llu stride=%u offset=%llu]", e->chain[c].thread,
            mt_path_name(e->chain[c].path), (unsigned long long)e->chain[c].footprint,
            e->chain[c].stride, (unsigned long long)e->chain[c].offset);
    PUT(" order=%s seed=%u warmup_laps=%u loads=%u mode=%s sm=%d scope=%s",
        mt_order_name(e->order), e->order_seed, e->warmup_laps, e->loads, mt_mode_name(e->mode),
        e->sm, mt_scope_name(e->scope));
    if (mt_kind_has_index_list(e->kind))
        PUT(" %s n=%u untimed=%u", mt_kind_name(e->kind), e->u.seq.n, e->u.seq.untimed);
    if (e->kind == MT_KIND_CLOCK)
        PUT(" clock ns=%u", e->u.clock.ns);
    if (e->kind == MT_KIND_ICACHE)
        PUT(" icache code_bytes=%u", e->u.icache.code_bytes);
    if (e->kind == MT_KIND_STREAM)
        PUT(" stream op=%d blocks=%u threads=%u vec=%u in_flight=%u bytes=%llu repeats=%u",
            (int)e->u.stream.op, e->u.stream.blocks, e->u.stream.threads,
            e->u.stream.vector_bytes, e->u.stream.in_flight,
            (unsigned long long)e->u.stream.bytes, e->u.stream.repeats);
    if (e->kind == MT_KIND_STREAM && e->u.stream.balanced)
        PUT(" balanced=%u", e->u.stream.balanced);
    if (e->kind == MT_KIND_BANKS || e->kind == MT_KIND_ACCESS)
        PUT(" %s word_bytes=%u threads=%u", mt_kind_name(e->kind), e->u.banks.word_bytes,
            e->u.banks.n_threads);
    if (e->kind == MT_KIND_CLUSTER)
        PUT(" cluster op=%s size=%u target=%u threads=%u blocks=%u bytes=%llu repeats=%u",
            mt_cluster_op_name(e->u.cluster.op), e->u.cluster.cluster_size,
            e->u.cluster.target_rank, e->u.cluster.threads, e->u.cluster.blocks,
            (unsigned long long)e->u.cluster.bytes, e->u.cluster.repeats);
    if (e->kind == MT_KIND_LINK)
        PUT(" link op=%s peer=%d bytes=%llu repeats=%u", mt_link_op_name(e->u.link.op),
            (int)e->u.link.peer, (unsigned long long)e->u.link.bytes, e->u.link.repeats);
    if (e->set_carveout)
        PUT(" carveout=%d%%", e->carveout_percent);
    if (e->together)
        PUT(" together=%d", e->together);
#undef PUT
}

/* ---------- loading ---------- */

static char *join(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s/%s", dir, name);
    return p;
}

static mt_err json_count(const json_t *m, const char *key, const char *path, size_t *out,
                         mt_errinfo *ei)
{
    const json_t *v = json_object_get(m, key);
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        return mt_fail(ei, MT_ERR_REPLAY, "%s: \"%s\" missing or not a count", path, key);
    *out = (size_t)json_integer_value(v);
    return MT_OK;
}

static mt_err json_opt_str(const json_t *obj, const char *key, char *dst, size_t size,
                           const char *path, mt_errinfo *ei)
{
    const json_t *v = json_object_get(obj, key);
    if (!v)
        return MT_OK;
    if (!json_is_string(v) || json_string_length(v) >= size)
        return mt_fail(ei, MT_ERR_REPLAY, "%s: provenance \"%s\" is not a string of < %zu bytes",
                       path, key, size);
    memcpy(dst, json_string_value(v), json_string_length(v) + 1);
    return MT_OK;
}

/* The manifest's probe list (version 2), or the version-1 probe set. */
static mt_err load_probes(replay_impl *r, const json_t *m, const char *path, mt_errinfo *ei)
{
    mt_recording_info *ri = &r->info;
    const json_t *list = json_object_get(m, "probes");
    if (r->version == 1) {
        if (list)
            return mt_fail(ei, MT_ERR_REPLAY, "%s: \"probes\" in a version-1 manifest", path);
        ri->probes_known = 1;
        ri->n_probes = (int)(sizeof v1_probes / sizeof v1_probes[0]);
        for (int i = 0; i < ri->n_probes; i++)
            snprintf(ri->probes[i], sizeof ri->probes[i], "%s", v1_probes[i]);
        return MT_OK;
    }
    if (!list)
        return MT_OK; /* the writer did not say: probes_known stays 0 */
    if (!json_is_array(list) || json_array_size(list) > MT_RECORDING_MAX_PROBES)
        return mt_fail(ei, MT_ERR_REPLAY, "%s: \"probes\" is not an array of at most %d names",
                       path, MT_RECORDING_MAX_PROBES);
    for (size_t i = 0; i < json_array_size(list); i++) {
        const json_t *v = json_array_get(list, i);
        size_t len = json_is_string(v) ? json_string_length(v) : 0;
        if (len == 0 || len >= MT_RECORDING_PROBE_NAME || strlen(json_string_value(v)) != len)
            return mt_fail(ei, MT_ERR_REPLAY,
                           "%s: \"probes\"[%zu] is not a name of 1-%d characters", path, i,
                           MT_RECORDING_PROBE_NAME - 1);
        const char *name = json_string_value(v);
        for (size_t k = 0; k < i; k++)
            if (strcmp(ri->probes[k], name) == 0)
                return mt_fail(ei, MT_ERR_REPLAY, "%s: probe \"%s\" listed twice", path, name);
        memcpy(ri->probes[i], name, len + 1);
    }
    ri->n_probes = (int)json_array_size(list);
    ri->probes_known = 1;
    return MT_OK;
}

static mt_err load_manifest(replay_impl *r, const char *dir, size_t *n_exps, size_t *n_samples,
                            mt_errinfo *ei)
{
    char *path = join(dir, MT_MANIFEST_JSON);
    if (!path)
        return mt_fail(ei, MT_ERR_NOMEM, "replay: out of memory");
    mt_err e = MT_OK;
    json_t *m = NULL;
    FILE *f = fopen(path, "r");
    if (!f) {
        e = mt_fail(ei, MT_ERR_REPLAY, "%s: cannot open: %s", path, strerror(errno));
        goto out;
    }
    json_error_t je;
    m = json_loadf(f, JSON_REJECT_DUPLICATES, &je);
    fclose(f);
    if (!m) {
        e = mt_fail(ei, MT_ERR_REPLAY, "%s:%d: not valid JSON: %s", path, je.line, je.text);
        goto out;
    }
    const json_t *fmt = json_object_get(m, "format");
    if (!json_is_string(fmt) || strcmp(json_string_value(fmt), MT_RECORD_FORMAT) != 0) {
        e = mt_fail(ei, MT_ERR_REPLAY, "%s: \"format\" is not \"%s\"", path, MT_RECORD_FORMAT);
        goto out;
    }
    const json_t *ver = json_object_get(m, "format_version");
    if (!json_is_integer(ver)) {
        e = mt_fail(ei, MT_ERR_REPLAY, "%s: \"format_version\" missing or not an integer", path);
        goto out;
    }
    if (json_integer_value(ver) < MT_RECORD_FORMAT_VERSION_MIN ||
        json_integer_value(ver) > MT_RECORD_FORMAT_VERSION) {
        e = mt_fail(ei, MT_ERR_REPLAY,
                    "%s: format_version %lld is not supported (this memtopo reads versions "
                    "%d to %d)",
                    path, (long long)json_integer_value(ver), MT_RECORD_FORMAT_VERSION_MIN,
                    MT_RECORD_FORMAT_VERSION);
        goto out;
    }
    r->version = (int)json_integer_value(ver);
    r->info.format_version = r->version;
    char ctx[300];
    snprintf(ctx, sizeof ctx, "%s: device", path);
    if (mt_device_from_json(json_object_get(m, "device"), &r->dev, ctx, ei) != MT_OK) {
        e = MT_ERR_REPLAY; /* the message from the device reader stands */
        goto out;
    }
    const json_t *prov = json_object_get(m, "provenance");
    if (prov && !json_is_object(prov)) {
        e = mt_fail(ei, MT_ERR_REPLAY, "%s: \"provenance\" is not an object", path);
        goto out;
    }
    if (prov) {
        e = json_opt_str(prov, "tool_version", r->info.tool_version, sizeof r->info.tool_version,
                         path, ei);
        if (!e)
            e = json_opt_str(prov, "command_line", r->info.command_line,
                             sizeof r->info.command_line, path, ei);
        if (!e)
            e = json_opt_str(prov, "time_utc", r->info.time_utc, sizeof r->info.time_utc, path,
                             ei);
        if (e)
            goto out;
    }
    if ((e = load_probes(r, m, path, ei)))
        goto out;
    const json_t *intr = json_object_get(m, "interrupted");
    if (intr && (!json_is_string(intr) || json_string_length(intr) == 0 ||
                 json_string_length(intr) >= sizeof r->info.interrupted)) {
        e = mt_fail(ei, MT_ERR_REPLAY, "%s: \"interrupted\" is not a signal name", path);
        goto out;
    }
    if (intr)
        memcpy(r->info.interrupted, json_string_value(intr), json_string_length(intr) + 1);
    size_t batches;
    e = json_count(m, "experiments", path, n_exps, ei);
    if (!e)
        e = json_count(m, "samples", path, n_samples, ei);
    if (!e)
        e = json_count(m, "batches", path, &batches, ei);
    if (!e && batches > UINT_MAX)
        e = mt_fail(ei, MT_ERR_REPLAY, "%s: \"batches\" out of range", path);
    if (!e)
        r->info.n_batches = (unsigned)batches;
out:
    json_decref(m);
    free(path);
    return e;
}

static mt_err grow(replay_impl *r, mt_errinfo *ei)
{
    if (r->n < r->cap)
        return MT_OK;
    size_t cap = r->cap ? 2 * r->cap : 256;
    mt_experiment *x = realloc(r->exps, cap * sizeof *x);
    if (x)
        r->exps = x;
    mt_result *y = x ? realloc(r->res, cap * sizeof *y) : NULL;
    if (!y)
        return mt_fail(ei, MT_ERR_NOMEM, "replay: out of memory for %zu experiments", cap);
    r->res = y;
    memset(r->res + r->cap, 0, (cap - r->cap) * sizeof *y);
    r->cap = cap;
    return MT_OK;
}

/* Columns of experiments.csv (csv_write.h): version 1 has the first
 * C_COUNT_V1, with `exclusive` (0/1) in C_SCOPE; version 2 all of them. */
enum {
    C_ID, C_BATCH, C_NCHAINS, C_CHAIN, C_THREAD, C_PATH, C_FOOTPRINT, C_STRIDE, C_OFFSET, C_ORDER,
    C_SEED, C_WARMUP, C_LOADS, C_MODE, C_SM, C_SCOPE, C_SMRAN, C_COUNT_V1,
    C_KIND = C_COUNT_V1, C_PARAMS, C_COUNT
};

/* A kind's parameters "key=value key=value" (csv_write.h): chase has none,
 * a sequence has n and untimed (its indices come from sequences.csv), a
 * clock experiment ns, an icache experiment code_bytes (since 2.4); any kind may add carveout=P (a requested carveout,
 * since backend 2.1: absent in older recordings, which ran at the default). */
static mt_err parse_params(const mt_csv *c, mt_experiment *x, mt_errinfo *ei)
{
    const char *s = c->field[C_PARAMS];
    if (x->kind == MT_KIND_BANKS || x->kind == MT_KIND_ACCESS) { /* both an mt_banks */
        char why[MT_BANKS_PARAMS_MAX + 200];
        int carveout;
        if (mt_banks_params_parse(s, &x->u.banks, &carveout, why, sizeof why))
            return mt_csv_fail(c, ei, "%s", why);
        x->set_carveout = carveout >= 0;
        x->carveout_percent = carveout >= 0 ? carveout : 0;
        return MT_OK;
    }
    /* The keys of each kind, all required, in any order; then the
     * optional carveout. */
    uint32_t carveout = 0, together = 0, op = 0, bytes = 0, host = 0, peer = 0;
    const char *keys[8] = {NULL};
    uint32_t *dst[8] = {NULL};
    const char *expect = "";
    size_t nkeys = 0;
    if (mt_kind_has_index_list(x->kind)) {
        keys[0] = "n", keys[1] = "untimed";
        dst[0] = &x->u.seq.n, dst[1] = &x->u.seq.untimed;
        nkeys = 2, expect = "\"n=N untimed=U\" for a sequence";
    } else if (x->kind == MT_KIND_CLOCK) {
        keys[0] = "ns", dst[0] = &x->u.clock.ns;
        nkeys = 1, expect = "\"ns=N\" for a clock experiment";
    } else if (x->kind == MT_KIND_ICACHE) {
        keys[0] = "code_bytes", dst[0] = &x->u.icache.code_bytes;
        nkeys = 1, expect = "\"code_bytes=N\" for an icache experiment";
    } else if (x->kind == MT_KIND_STREAM) {
        keys[0] = "op", keys[1] = "blocks", keys[2] = "threads", keys[3] = "vec";
        keys[4] = "in_flight";
        dst[0] = &op, dst[1] = &x->u.stream.blocks, dst[2] = &x->u.stream.threads;
        dst[3] = &x->u.stream.vector_bytes, dst[4] = &x->u.stream.in_flight;
        nkeys = 5, expect = "\"op=O blocks=B threads=T vec=V in_flight=U\" for a stream";
    } else if (x->kind == MT_KIND_CLUSTER) {
        keys[0] = "op", keys[1] = "size", keys[2] = "target", keys[3] = "threads";
        keys[4] = "blocks", keys[5] = "bytes", keys[6] = "repeats";
        dst[0] = &op, dst[1] = &x->u.cluster.cluster_size, dst[2] = &x->u.cluster.target_rank;
        dst[3] = &x->u.cluster.threads, dst[4] = &x->u.cluster.blocks, dst[5] = &bytes;
        dst[6] = &x->u.cluster.repeats;
        nkeys = 7, expect = "\"op=O size=S target=T threads=N blocks=B bytes=Y repeats=R\" for a "
                            "cluster experiment";
    } else if (x->kind == MT_KIND_LINK) { /* since backend 2.8 */
        keys[0] = "op", keys[1] = "host", keys[2] = "peer", keys[3] = "bytes";
        keys[4] = "repeats";
        dst[0] = &op, dst[1] = &host, dst[2] = &peer, dst[3] = &bytes;
        dst[4] = &x->u.link.repeats;
        nkeys = 5, expect = "\"op=O host=H peer=P bytes=Y repeats=R\" for a link experiment";
    }
    keys[nkeys] = "carveout", dst[nkeys] = &carveout;
    /* A chase may name its together group (since backend 2.10). */
    size_t nopt = 1;
    if (x->kind == MT_KIND_CHASE)
        keys[nkeys + 1] = "together", dst[nkeys + 1] = &together, nopt = 2;
    /* A stream may be balanced (since backend 2.11). */
    if (x->kind == MT_KIND_STREAM)
        keys[nkeys + 1] = "balanced", dst[nkeys + 1] = &x->u.stream.balanced, nopt = 2;
    int seen[8] = {0};
    const char *p = s;
    while (*p) {
        const char *tok = p, *end = strchr(p, ' ');
        if (!end)
            end = p + strlen(p);
        const char *eq = memchr(tok, '=', (size_t)(end - tok));
        int k = -1;
        for (size_t i = 0; eq && i < nkeys + nopt; i++)
            if ((size_t)(eq - tok) == strlen(keys[i]) && !strncmp(tok, keys[i], strlen(keys[i])))
                k = (int)i;
        if (k < 0 && nkeys == 0)
            return mt_csv_fail(c, ei,
                               "params \"%s\" for a %s, which has none (but carveout=P%s)", s,
                               mt_kind_name(x->kind), nopt > 1 ? " and together=G" : "");
        char num[16];
        size_t nl = eq ? (size_t)(end - eq - 1) : 0;
        char *nend = NULL;
        unsigned long long v = 0;
        if (k >= 0 && nl > 0 && nl < sizeof num) {
            memcpy(num, eq + 1, nl);
            num[nl] = '\0';
            errno = 0;
            v = (num[0] >= '0' && num[0] <= '9') ? strtoull(num, &nend, 10) : 0;
        }
        if (k < 0 || seen[k] || !nend || *nend || errno || v > UINT32_MAX ||
            (dst[k] == &carveout && v > 100) || (dst[k] == &together && (v == 0 || v > INT_MAX)))
            return mt_csv_fail(c, ei, "params \"%s\": expected %s%scarveout=P (P 0..100) optional", s,
                               expect, nkeys ? ", " : "");
        seen[k] = 1;
        *dst[k] = (uint32_t)v;
        p = *end ? end + 1 : end;
    }
    for (size_t i = 0; i < nkeys; i++)
        if (!seen[i])
            return mt_csv_fail(c, ei, "params \"%s\": expected %s", s, expect);
    if (seen[nkeys]) {
        x->set_carveout = 1;
        x->carveout_percent = (int)carveout;
    }
    if (nopt > 1 && seen[nkeys + 1])
        x->together = (int)together;
    if (x->kind == MT_KIND_STREAM) {
        if (op > MT_STREAM_CHASE)
            return mt_csv_fail(c, ei, "params \"%s\": op %u is not a stream op (0..%d)", s, op,
                               (int)MT_STREAM_CHASE);
        x->u.stream.op = (mt_stream_op)op;
    }
    if (x->kind == MT_KIND_CLUSTER) {
        if (op >= MT_CLUSTER_OP_COUNT)
            return mt_csv_fail(c, ei, "params \"%s\": op %u is not a cluster op (0..%d)", s, op,
                               (int)MT_CLUSTER_OP_COUNT - 1);
        x->u.cluster.op = (mt_cluster_op)op;
        x->u.cluster.bytes = bytes;
    }
    if (x->kind == MT_KIND_LINK) {
        if (op >= MT_LINK_OP_COUNT || host > 1 || peer > MT_LINK_MAX_PEER || (host && peer))
            return mt_csv_fail(c, ei,
                               "params \"%s\": op 0..%d, host 0 or 1, peer 0..%d (0 with host=1)",
                               s, (int)MT_LINK_OP_COUNT - 1, MT_LINK_MAX_PEER);
        x->u.link.op = (mt_link_op)op;
        x->u.link.peer = host ? MT_LINK_HOST : (int32_t)peer;
        x->u.link.bytes = bytes;
    }
    return MT_OK;
}

/* Parses one row into x (experiment fields and chain `*chain`). */
static mt_err parse_row(const mt_csv *c, int version, uint64_t *id, int64_t *batch, int *chain,
                        mt_experiment *x, int *sm_ran, mt_errinfo *ei)
{
    mt_err e = mt_csv_expect_fields(c, version == 1 ? C_COUNT_V1 : C_COUNT, ei);
    int64_t v, nch, ch;
    uint64_t u;
    if (!e)
        e = mt_csv_u64(c, C_ID, "id", id, ei);
    if (!e)
        e = mt_csv_int(c, C_BATCH, "batch", 0, UINT32_MAX, batch, ei);
    if (!e)
        e = mt_csv_int(c, C_NCHAINS, "n_chains", 1, MT_MAX_CHAINS, &nch, ei);
    if (!e)
        e = mt_csv_int(c, C_CHAIN, "chain", 0, nch - 1, &ch, ei);
    if (e)
        return e;
    x->n_chains = (int)nch;
    *chain = (int)ch;
    mt_chain *k = &x->chain[ch];
    if ((e = mt_csv_int(c, C_THREAD, "thread", 0, INT_MAX, &v, ei)))
        return e;
    k->thread = (int)v;
    mt_path p;
    if (mt_path_from_name(c->field[C_PATH], &p) != 0)
        return mt_csv_fail(c, ei, "unknown path \"%s\" (ca, cg, nc, tex, const, shared, none)",
                           c->field[C_PATH]);
    k->path = p;
    if ((e = mt_csv_u64(c, C_FOOTPRINT, "footprint", &u, ei)))
        return e;
    k->footprint = u;
    if ((e = mt_csv_int(c, C_STRIDE, "stride", 0, UINT32_MAX, &v, ei)))
        return e;
    k->stride = (uint32_t)v;
    if ((e = mt_csv_u64(c, C_OFFSET, "offset", &u, ei)))
        return e;
    k->offset = u;
    mt_order o;
    if (mt_order_from_name(c->field[C_ORDER], &o) != 0)
        return mt_csv_fail(c, ei, "unknown order \"%s\" (sequential, random)", c->field[C_ORDER]);
    x->order = o;
    if ((e = mt_csv_int(c, C_SEED, "order_seed", 0, UINT32_MAX, &v, ei)))
        return e;
    x->order_seed = (uint32_t)v;
    if ((e = mt_csv_int(c, C_WARMUP, "warmup_laps", 0, UINT32_MAX, &v, ei)))
        return e;
    x->warmup_laps = (uint32_t)v;
    if ((e = mt_csv_int(c, C_LOADS, "loads", 0, UINT32_MAX, &v, ei)))
        return e;
    x->loads = (uint32_t)v;
    mt_mode m;
    if (mt_mode_from_name(c->field[C_MODE], &m) != 0)
        return mt_csv_fail(c, ei, "unknown mode \"%s\" (fine, aggregate)", c->field[C_MODE]);
    x->mode = m;
    if ((e = mt_csv_int(c, C_SM, "sm", -1, INT_MAX, &v, ei)))
        return e;
    x->sm = (int)v;
    if (version == 1) {
        /* exclusive = 1 was "runs alone": GPU scope. */
        if ((e = mt_csv_int(c, C_SCOPE, "exclusive", 0, 1, &v, ei)))
            return e;
        x->scope = v ? MT_SCOPE_GPU : MT_SCOPE_SM;
    } else {
        mt_scope sc;
        if (mt_scope_from_name(c->field[C_SCOPE], &sc) != 0)
            return mt_csv_fail(c, ei, "unknown scope \"%s\" (sm, gpu)", c->field[C_SCOPE]);
        x->scope = sc;
    }
    if ((e = mt_csv_int(c, C_SMRAN, "sm_ran", -1, INT_MAX, &v, ei)))
        return e;
    *sm_ran = (int)v;
    x->kind = MT_KIND_CHASE; /* version 1's only kind */
    if (version == 1)
        return MT_OK;
    mt_exp_kind kind;
    if (mt_kind_from_name(c->field[C_KIND], &kind) != 0 || !mt_recording_stores_kind(kind))
        return mt_csv_fail(c, ei, "unknown kind \"%s\" (chase, sequence, clock, stream, banks, cluster, icache, access, link, evict)", c->field[C_KIND]);
    x->kind = kind;
    if ((e = parse_params(c, x, ei)))
        return e;
    /* A stream's bytes and repeats are its chain's span and its loads
     * (backend.h); the row has parsed the chain it describes. */
    if (kind == MT_KIND_STREAM) {
        x->u.stream.repeats = x->loads;
        x->u.stream.bytes = x->chain[*chain].footprint /
                            (x->u.stream.op == MT_STREAM_COPY ? 2 : 1);
    }
    return MT_OK;
}

static mt_err load_experiments(replay_impl *r, const char *path, mt_errinfo *ei)
{
    mt_csv c;
    mt_err e = mt_csv_open(&c, path, ei);
    if (e)
        return e;
    e = mt_csv_expect_header(
        &c, r->version == 1 ? MT_EXPERIMENTS_CSV_HEADER_V1 : MT_EXPERIMENTS_CSV_HEADER, ei);
    int next_chain = 0;    /* chain expected in the next row of experiment r->n */
    int64_t first_batch = 0; /* batch of the experiment in progress */
    int first_sm_ran = -1;
    mt_experiment cur;
    memset(&cur, 0, sizeof cur);
    while (!e) {
        int got = mt_csv_next(&c, &e, ei);
        if (got <= 0)
            break;
        uint64_t id = 0;
        int64_t batch = 0;
        int chain = 0, sm_ran = -1;
        mt_experiment x;
        memset(&x, 0, sizeof x);
        if ((e = parse_row(&c, r->version, &id, &batch, &chain, &x, &sm_ran, ei)))
            break;
        if (id != r->n || chain != next_chain) {
            e = mt_csv_fail(&c, ei, "experiment %llu chain %d out of sequence (expected "
                            "experiment %zu chain %d)", (unsigned long long)id, chain, r->n,
                            next_chain);
            break;
        }
        if (chain == 0) {
            cur = x;
            first_batch = batch;
            first_sm_ran = sm_ran;
        } else {
            /* Experiment-level columns repeat on every chain row and must agree. */
            mt_experiment y = cur;
            y.chain[chain] = x.chain[chain];
            x.chain[0] = cur.chain[0];
            if (!exp_equal(&x, &y) || batch != first_batch || sm_ran != first_sm_ran) {
                e = mt_csv_fail(&c, ei, "experiment %zu: chain %d row disagrees with chain 0 on "
                                "an experiment-level column", r->n, chain);
                break;
            }
            cur.chain[chain] = x.chain[chain];
        }
        if (chain + 1 < cur.n_chains) {
            next_chain = chain + 1;
            continue;
        }
        /* Experiment complete: it must be one a backend would accept (a
         * sequence once its indices are read, in load_sequences). */
        mt_errinfo why;
        if (!mt_kind_has_index_list(cur.kind) && mt_experiment_check(&cur, &r->dev, &why) != MT_OK) {
            e = mt_csv_fail(&c, ei, "experiment %zu invalid for the recorded device: %s", r->n,
                            why.msg);
            break;
        }
        if ((e = grow(r, ei)))
            break;
        r->exps[r->n] = cur;
        r->res[r->n].sm_ran = first_sm_ran;
        r->n++;
        next_chain = 0;
    }
    if (!e && next_chain != 0)
        e = mt_csv_fail(&c, ei, "file ends inside experiment %zu (chain %d missing)", r->n,
                        next_chain);
    mt_csv_close(&c);
    return e;
}

/* The first sequence experiment from i on that has entries, or r->n. */
static size_t next_sequence(const replay_impl *r, size_t i)
{
    while (i < r->n && !(mt_kind_has_index_list(r->exps[i].kind) && r->exps[i].u.seq.n > 0))
        i++;
    return i;
}

/* sequences.csv (version 2): the index lists of the sequence experiments,
 * in experiment order; then every sequence is checked like a request. */
static mt_err load_sequences(replay_impl *r, const char *path, mt_errinfo *ei)
{
    mt_csv c;
    mt_err e = mt_csv_open(&c, path, ei);
    if (e)
        return e;
    e = mt_csv_expect_header(&c, MT_SEQUENCES_CSV_HEADER, ei);
    size_t ex = next_sequence(r, 0); /* cursor: experiment, entries read for it */
    uint32_t k = 0, cap = 0;
    while (!e) {
        int got = mt_csv_next(&c, &e, ei);
        if (got <= 0)
            break;
        uint64_t re;
        int64_t ri, iv;
        if ((e = mt_csv_expect_fields(&c, 3, ei)) ||
            (e = mt_csv_u64(&c, 0, "experiment", &re, ei)) ||
            (e = mt_csv_int(&c, 1, "entry", 0, UINT32_MAX, &ri, ei)) ||
            (e = mt_csv_int(&c, 2, "index", 0, UINT32_MAX, &iv, ei)))
            break;
        if (ex < r->n && k == r->exps[ex].u.seq.n) { /* ex complete */
            ex = next_sequence(r, ex + 1);
            k = cap = 0;
        }
        if (ex >= r->n) {
            e = mt_csv_fail(&c, ei, "entry of experiment %llu beyond the sequence experiments "
                            "(and their lengths) in %s", (unsigned long long)re,
                            MT_EXPERIMENTS_CSV);
            break;
        }
        mt_sequence *q = &r->exps[ex].u.seq;
        if (re != ex) {
            if (k > 0)
                e = mt_csv_fail(&c, ei, "sequence length mismatch: experiment %zu has %u "
                                "entries, expected n=%u", ex, k, q->n);
            else
                e = mt_csv_fail(&c, ei, "expected an entry of sequence experiment %zu, found "
                                "experiment %llu", ex, (unsigned long long)re);
            break;
        }
        if (ri != k) {
            e = mt_csv_fail(&c, ei, "experiment %zu: entry %lld, expected %u", ex,
                            (long long)ri, k);
            break;
        }
        uint32_t *idx = (uint32_t *)q->index;
        if (k == cap) { /* grow by doubling: a garbled n cannot force a huge allocation */
            uint32_t ncap = cap ? (cap > q->n / 2 ? q->n : 2 * cap) : (q->n < 1024 ? q->n : 1024);
            idx = realloc(idx, (size_t)ncap * sizeof *idx);
            if (!idx) {
                e = mt_fail(ei, MT_ERR_NOMEM, "replay: out of memory reading %s", path);
                break;
            }
            q->index = idx;
            cap = ncap;
        }
        idx[k++] = (uint32_t)iv;
    }
    if (!e && ex < r->n && k == r->exps[ex].u.seq.n) {
        ex = next_sequence(r, ex + 1);
        k = 0;
    }
    if (!e && ex < r->n) {
        c.line++; /* point past the last line: the end of the file */
        e = mt_csv_fail(&c, ei, "sequence length mismatch: experiment %zu has %u entries, "
                        "expected n=%u; the file ends there", ex, k, r->exps[ex].u.seq.n);
    }
    mt_csv_close(&c);
    for (size_t i = 0; !e && i < r->n; i++) {
        mt_errinfo why;
        if (mt_kind_has_index_list(r->exps[i].kind) &&
            mt_experiment_check(&r->exps[i], &r->dev, &why) != MT_OK)
            e = mt_fail(ei, MT_ERR_REPLAY,
                        "%s: sequence experiment %zu invalid for the recorded device: %s", path,
                        i, why.msg);
    }
    return e;
}

static uint32_t expected_samples(const mt_experiment *x)
{
    if (x->kind == MT_KIND_STREAM) /* cycles of the slowest block, ns of the launch */
        return 2;
    if (x->kind == MT_KIND_CLUSTER) /* a chase's total; a stream's or copy's as a stream's */
        return x->u.cluster.op == MT_CLUSTER_CHASE ? 1 : 2;
    return x->mode == MT_MODE_FINE ? x->loads : 1;
}

static mt_err load_samples(replay_impl *r, const char *path, mt_errinfo *ei)
{
    mt_csv c;
    mt_err e = mt_csv_open(&c, path, ei);
    if (e)
        return e;
    e = mt_csv_expect_header(&c, MT_SAMPLES_CSV_HEADER, ei);
    size_t ex = 0;   /* cursor: experiment, chain, samples read for it */
    int ch = 0;
    uint32_t k = 0, cap = 0;
    while (!e) {
        int got = mt_csv_next(&c, &e, ei);
        if (got <= 0)
            break;
        uint64_t re, ri;
        int64_t rc, cy;
        if ((e = mt_csv_expect_fields(&c, 4, ei)) || (e = mt_csv_u64(&c, 0, "experiment", &re, ei)) ||
            (e = mt_csv_int(&c, 1, "chain", 0, MT_MAX_CHAINS - 1, &rc, ei)) ||
            (e = mt_csv_u64(&c, 2, "index", &ri, ei)) ||
            (e = mt_csv_int(&c, 3, "cycles", 0, UINT32_MAX, &cy, ei)))
            break;
        if (ex < r->n && k == expected_samples(&r->exps[ex])) { /* (ex, ch) complete */
            k = cap = 0;
            if (++ch == r->exps[ex].n_chains) {
                ch = 0;
                ex++;
            }
        }
        if (ex >= r->n) {
            e = mt_csv_fail(&c, ei, "sample of experiment %llu chain %d beyond the %zu "
                            "experiments (and their sample counts) in %s",
                            (unsigned long long)re, (int)rc, r->n, MT_EXPERIMENTS_CSV);
            break;
        }
        const mt_experiment *x = &r->exps[ex];
        if (re != ex || rc != ch) {
            if (k > 0)
                e = mt_csv_fail(&c, ei, "sample count mismatch: experiment %zu chain %d has %u "
                                "samples, expected %u (%s mode, loads=%u)", ex, ch, k,
                                expected_samples(x), mt_mode_name(x->mode), x->loads);
            else
                e = mt_csv_fail(&c, ei, "expected a sample of experiment %zu chain %d, found "
                                "experiment %llu chain %d", ex, ch, (unsigned long long)re,
                                (int)rc);
            break;
        }
        if (ri != k) {
            e = mt_csv_fail(&c, ei, "experiment %zu chain %d: index %llu, expected %u", ex, ch,
                            (unsigned long long)ri, k);
            break;
        }
        mt_result *res = &r->res[ex];
        if (k == cap) { /* grow by doubling: a garbled `loads` cannot force a huge allocation */
            uint32_t want = expected_samples(x);
            uint32_t ncap = cap ? (cap > want / 2 ? want : 2 * cap) : (want < 1024 ? want : 1024);
            uint32_t *p = realloc(res->cycles[ch], (size_t)ncap * sizeof *p);
            if (!p) {
                e = mt_fail(ei, MT_ERR_NOMEM, "replay: out of memory reading %s", path);
                break;
            }
            res->cycles[ch] = p;
            cap = ncap;
        }
        res->cycles[ch][k++] = (uint32_t)cy;
        res->n[ch] = k;
    }
    if (!e && r->n > 0) {
        /* Move past a completed (experiment, chain), as the loop does lazily. */
        if (k == expected_samples(&r->exps[ex]) &&
            !(ex == r->n - 1 && ch == r->exps[ex].n_chains - 1)) {
            k = 0;
            if (++ch == r->exps[ex].n_chains) {
                ch = 0;
                ex++;
            }
        }
        const mt_experiment *x = &r->exps[ex];
        if (k != expected_samples(x)) {
            c.line++; /* point past the last line: the end of the file */
            e = mt_csv_fail(&c, ei, "sample count mismatch: experiment %zu chain %d has %u "
                            "samples, expected %u (%s mode, loads=%u); the file ends there",
                            ex, ch, k, expected_samples(x), mt_mode_name(x->mode), x->loads);
        }
    }
    mt_csv_close(&c);
    return e;
}

static mt_err build_index(replay_impl *r, mt_errinfo *ei)
{
    size_t nb = 64;
    while (nb < 2 * r->n)
        nb *= 2;
    r->n_buckets = nb;
    r->head = malloc(nb * sizeof *r->head);
    r->next = malloc((r->n ? r->n : 1) * sizeof *r->next);
    r->used = calloc(r->n ? r->n : 1, 1);
    if (!r->head || !r->next || !r->used)
        return mt_fail(ei, MT_ERR_NOMEM, "replay: out of memory indexing %zu experiments", r->n);
    for (size_t b = 0; b < nb; b++)
        r->head[b] = NO_INDEX;
    /* Push in reverse so each bucket lists experiments in recorded order. */
    for (size_t i = r->n; i-- > 0;) {
        size_t b = (size_t)(exp_hash(&r->exps[i]) & (nb - 1));
        r->next[i] = r->head[b];
        r->head[b] = i;
    }
    return MT_OK;
}

static void impl_free(replay_impl *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n; i++)
        if (mt_kind_has_index_list(r->exps[i].kind))
            free((void *)r->exps[i].u.seq.index);
    for (size_t i = 0; i < r->cap; i++)
        mt_result_free(&r->res[i]);
    free(r->exps);
    free(r->res);
    free(r->used);
    free(r->head);
    free(r->next);
    free(r);
}

/* ---------- backend ops ---------- */

static mt_err rp_get_info(mt_backend *b, mt_device_info *out, mt_errinfo *ei)
{
    (void)ei;
    *out = ((replay_impl *)b->impl)->dev;
    return MT_OK;
}

/* Index of the first unused recorded experiment equal to e, or NO_INDEX;
 * *n_equal counts all recorded ones with those parameters. */
static size_t lookup(const replay_impl *r, const mt_experiment *e, size_t *n_equal)
{
    size_t found = NO_INDEX;
    *n_equal = 0;
    for (size_t i = r->head[exp_hash(e) & (r->n_buckets - 1)]; i != NO_INDEX; i = r->next[i])
        if (exp_equal(&r->exps[i], e)) {
            ++*n_equal;
            if (found == NO_INDEX && !r->used[i])
                found = i;
        }
    return found;
}

static mt_err rp_run_batch(mt_backend *b, const mt_experiment *exps, size_t n, mt_result *out,
                           mt_errinfo *ei)
{
    replay_impl *r = b->impl;
    /* Same argument checks as a live backend, so a replay fails alike. */
    for (size_t i = 0; i < n; i++) {
        mt_err e = mt_experiment_check(&exps[i], &r->dev, ei);
        if (e)
            return e;
    }
    size_t *idx = malloc((n ? n : 1) * sizeof *idx);
    if (!idx)
        return mt_fail(ei, MT_ERR_NOMEM, "replay: out of memory");
    mt_err e = MT_OK;
    size_t i = 0;
    for (; i < n; i++) {
        size_t n_equal;
        idx[i] = lookup(r, &exps[i], &n_equal);
        if (idx[i] == NO_INDEX) {
            char d[320];
            describe(&exps[i], d, sizeof d);
            if (r->info.interrupted[0])
                /* The recorded run stopped here: the replay stops alike
                 * and reports the same partial topology. */
                e = mt_fail(ei, MT_ERR_INTERRUPTED,
                            "replay of %s: the recording ends here (its run was interrupted by "
                            "%s); experiment %zu of the batch (%s) was not recorded",
                            r->info.dir, r->info.interrupted, i, d);
            else if (n_equal)
                e = mt_fail(ei, MT_ERR_REPLAY,
                            "replay of %s: experiment %zu of the batch (%s) was recorded only "
                            "%zu time(s), all already used",
                            r->info.dir, i, d, n_equal);
            else
                e = mt_fail(ei, MT_ERR_REPLAY,
                            "replay of %s: experiment %zu of the batch (%s) was not recorded",
                            r->info.dir, i, d);
            break;
        }
        r->used[idx[i]] = 1;
    }
    for (size_t k = 0; !e && k < n; k++) {
        const mt_result *src = &r->res[idx[k]];
        out[k].sm_ran = src->sm_ran;
        for (int c = 0; c < exps[k].n_chains && !e; c++) {
            out[k].n[c] = src->n[c];
            out[k].cycles[c] = malloc((size_t)src->n[c] * sizeof(uint32_t));
            if (!out[k].cycles[c])
                e = mt_fail(ei, MT_ERR_NOMEM, "replay: out of memory for %u samples", src->n[c]);
            else
                memcpy(out[k].cycles[c], src->cycles[c], (size_t)src->n[c] * sizeof(uint32_t));
        }
    }
    if (e) {
        /* A failed batch consumes nothing and leaves nothing to free. */
        for (size_t k = 0; k < i && k < n; k++)
            r->used[idx[k]] = 0;
        for (size_t k = 0; k < n; k++)
            mt_result_free(&out[k]);
    }
    free(idx);
    return e;
}

static void rp_destroy(mt_backend *b)
{
    impl_free(b->impl);
    free(b);
}

/* Whatever the recording holds, replay can answer the kinds the format
 * stores; an experiment that was not recorded is MT_ERR_REPLAY.  A
 * recording that holds evict experiments (since 2.9) or balanced streams
 * (since 2.11) also announces them (replay_caps).  One without (made
 * before, or by a run that needed none) does not: the L2 geometry and the
 * whole-L2 read then take the path they took when it was recorded instead
 * of asking for experiments nobody ran. */
static const mt_backend_ops replay_ops = {
    .api_version = MT_BACKEND_API_VERSION,
    .name = "replay",
    .caps = MT_CAP_CHASE | MT_CAP_SEQUENCE | MT_CAP_CLOCK | MT_CAP_CARVEOUT | MT_CAP_STREAM |
            MT_CAP_STREAM_CHASE | MT_CAP_STREAM_SHARED_DATA | MT_CAP_BANKS | MT_CAP_CLUSTER | MT_CAP_ICACHE | MT_CAP_ACCESS | MT_CAP_LINK |
            MT_CAP_TOGETHER,
    .get_info = rp_get_info,
    .run_batch = rp_run_batch,
    .destroy = rp_destroy,
};

/* The capabilities that depend on what the recording holds. */
static unsigned replay_caps(const replay_impl *r)
{
    unsigned caps = 0;
    for (size_t i = 0; i < r->n; i++) {
        if (r->exps[i].kind == MT_KIND_EVICT)
            caps |= MT_CAP_EVICT;
        if (r->exps[i].kind == MT_KIND_STREAM && r->exps[i].u.stream.balanced)
            caps |= MT_CAP_STREAM_BALANCED;
    }
    return caps;
}

mt_err mt_backend_replay_open(const char *dir, mt_backend **out, mt_errinfo *ei)
{
    *out = NULL;
    if (!dir || !dir[0])
        return mt_fail(ei, MT_ERR_INVALID_ARG, "replay: no directory given");
    replay_impl *r = calloc(1, sizeof *r);
    if (!r)
        return mt_fail(ei, MT_ERR_NOMEM, "replay: out of memory");
    snprintf(r->info.dir, sizeof r->info.dir, "%s", dir);
    size_t n_exps = 0, n_samples = 0;
    char *pe = join(dir, MT_EXPERIMENTS_CSV), *ps = join(dir, MT_SAMPLES_CSV);
    char *pq = join(dir, MT_SEQUENCES_CSV);
    mt_err e = (!pe || !ps || !pq) ? mt_fail(ei, MT_ERR_NOMEM, "replay: out of memory") : MT_OK;
    if (!e)
        e = load_manifest(r, dir, &n_exps, &n_samples, ei);
    if (!e)
        e = load_experiments(r, pe, ei);
    if (!e && r->n != n_exps)
        e = mt_fail(ei, MT_ERR_REPLAY, "%s: %zu experiments, but %s/%s says %zu", pe, r->n, dir,
                    MT_MANIFEST_JSON, n_exps);
    if (!e && r->version >= 2)
        e = load_sequences(r, pq, ei);
    if (!e)
        e = load_samples(r, ps, ei);
    if (!e) {
        size_t total = 0;
        for (size_t i = 0; i < r->n; i++)
            for (int c = 0; c < r->exps[i].n_chains; c++)
                total += r->res[i].n[c];
        if (total != n_samples)
            e = mt_fail(ei, MT_ERR_REPLAY, "%s: %zu samples, but %s/%s says %zu", ps, total, dir,
                        MT_MANIFEST_JSON, n_samples);
        r->info.n_samples = total;
    }
    if (!e)
        e = build_index(r, ei);
    free(pe);
    free(ps);
    free(pq);
    if (e) {
        impl_free(r);
        return e;
    }
    r->info.n_experiments = r->n;
    snprintf(r->info.backend, sizeof r->info.backend, "%s", r->dev.backend);
    mt_backend *b = calloc(1, sizeof *b);
    if (!b) {
        impl_free(r);
        return mt_fail(ei, MT_ERR_NOMEM, "replay: out of memory");
    }
    r->ops = replay_ops;
    r->ops.caps |= replay_caps(r);
    b->ops = &r->ops;
    b->impl = r;
    *out = b;
    return MT_OK;
}

mt_err mt_replay_recording_info(const mt_backend *replay, mt_recording_info *out,
                                mt_errinfo *ei)
{
    if (!replay || replay->ops->run_batch != rp_run_batch)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "not a replay backend");
    *out = ((const replay_impl *)replay->impl)->info;
    return MT_OK;
}

int mt_recording_has_probe(const mt_recording_info *ri, const char *name)
{
    if (!ri->probes_known)
        return 1;
    for (int i = 0; i < ri->n_probes; i++)
        if (strcmp(ri->probes[i], name) == 0)
            return 1;
    return 0;
}

static mt_err replay_entry_open(const mt_backend_args *a, mt_backend **out, mt_errinfo *ei)
{
    return mt_backend_replay_open(a ? a->target : NULL, out, ei);
}

/* The registry entry (tools/gen_registry.sh finds this line). */
const mt_backend_entry mt_backend_entry_replay = {
    "replay", "answers from a recording made by --record or --raw (target: the directory)",
    replay_entry_open, NULL};

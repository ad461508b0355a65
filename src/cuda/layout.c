/* Data layout of the cuda backend: buffers, constant image, sequence
 * deltas, launch descriptors and result collection (see layout.h). */
#include <stdlib.h>
#include <string.h>

#include "../backend/chain.h"
#include "layout.h"
#include "limits.h"

static uint64_t align_up(uint64_t x, uint64_t a)
{
    return (x + a - 1) / a * a;
}

int mtc_buf_class(mt_path p)
{
    switch (p) {
    case MT_PATH_GLOBAL_CA:
    case MT_PATH_GLOBAL_CG:
    case MT_PATH_GLOBAL_NC:
    case MT_PATH_TEXTURE: return MTC_BUF_GLOBAL;
    case MT_PATH_SHARED: return MTC_BUF_SHARED;
    default: return MTC_BUF_NONE; /* constant bank, or no data */
    }
}

int mtc_path_has_buffer(mt_path p)
{
    return mtc_buf_class(p) != MTC_BUF_NONE;
}

int mtc_uses_path(const mt_experiment *e, mt_path p)
{
    for (int i = 0; i < e->n_chains; i++)
        if (e->chain[i].path == p)
            return 1;
    return 0;
}

int mtc_kernel_of(const mt_experiment *e)
{
    int smem = mtc_uses_path(e, MT_PATH_SHARED);
    if (e->kind == MT_KIND_SEQUENCE)
        return smem ? MTK_KERNEL_SEQ_B : MTK_KERNEL_SEQ_A;
    /* Only chains beyond the word reach go wide: every chain the default
     * probes use stays on kernel A or B, exactly as before. */
    if (!smem && mtc_class_span(e, MTC_BUF_GLOBAL) > MTC_WORD_REACH_BYTES)
        return MTK_KERNEL_WIDE;
    return smem ? MTK_KERNEL_B : MTK_KERNEL_A;
}

unsigned mtc_index_shift(const mt_experiment *e)
{
    return mtc_kernel_of(e) == MTK_KERNEL_WIDE ? MTK_WIDE_SHIFT : MTK_WORD_SHIFT;
}

mt_err mtc_check_wide(const mt_experiment *e, mt_errinfo *ei)
{
    if (e->kind != MT_KIND_CHASE ||
        mtc_class_span(e, MTC_BUF_GLOBAL) <= MTC_WORD_REACH_BYTES)
        return MT_OK;
    if (mtc_uses_path(e, MT_PATH_SHARED) || mtc_uses_path(e, MT_PATH_TEXTURE) ||
        mtc_uses_path(e, MT_PATH_CONSTANT))
        return mt_fail(ei, MT_ERR_UNSUPPORTED,
                       "a chase reaching beyond %llu GiB takes global (ca, cg, nc) chains only",
                       MTC_WORD_REACH_BYTES >> 30);
    if (mtc_class_span(e, MTC_BUF_GLOBAL) > MTC_WIDE_REACH_BYTES)
        return mt_fail(ei, MT_ERR_UNSUPPORTED, "a chain ends beyond the %llu GiB the cuda kernels address",
                       MTC_WIDE_REACH_BYTES >> 30);
    for (int i = 0; i < e->n_chains; i++) {
        const mt_chain *c = &e->chain[i];
        if (c->path != MT_PATH_NONE && (c->offset % MTK_WIDE_UNIT || c->stride % MTK_WIDE_UNIT))
            return mt_fail(ei, MT_ERR_UNSUPPORTED,
                           "chain %d reaches beyond %llu GiB: its offset and stride (%u B) must be "
                           "multiples of %u B",
                           i, MTC_WORD_REACH_BYTES >> 30, c->stride, MTK_WIDE_UNIT);
    }
    return MT_OK;
}

mt_order mtc_layout_order(const mt_experiment *e)
{
    return e->kind == MT_KIND_SEQUENCE ? MT_ORDER_SEQUENTIAL : e->order;
}

uint64_t mtc_class_span(const mt_experiment *e, int cls)
{
    uint64_t s = 0;
    for (int i = 0; i < e->n_chains; i++)
        if (mtc_buf_class(e->chain[i].path) == cls) {
            uint64_t end = e->chain[i].offset + mt_chain_elements(&e->chain[i]) * e->chain[i].stride;
            if (end > s)
                s = end;
        }
    return s;
}

uint64_t mtc_place_buffers(const mt_experiment *e, uint64_t cursor, uint64_t base[MTC_BUF_COUNT])
{
    for (int cls = 0; cls < MTC_BUF_COUNT; cls++) {
        base[cls] = UINT64_MAX;
        uint64_t span = mtc_class_span(e, cls);
        if (!span)
            continue;
        uint64_t b = align_up(cursor, span >= MTC_BIG_BUFFER_BYTES ? MTC_BIG_ALIGN : MTC_SMALL_ALIGN);
        base[cls] = b;
        cursor = b + span;
    }
    return cursor;
}

int mtc_same_data(const mt_chain *a, const mt_chain *b)
{
    int same_buf = a->path == MT_PATH_CONSTANT ? b->path == MT_PATH_CONSTANT
                                                : mtc_buf_class(a->path) == mtc_buf_class(b->path);
    return same_buf && a->offset == b->offset && a->stride == b->stride &&
           mt_chain_elements(a) == mt_chain_elements(b);
}

mt_err mtc_check_overlap(const mt_experiment *e, mt_errinfo *ei)
{
    if (e->n_chains < 2)
        return MT_OK;
    const mt_chain *a = &e->chain[0], *b = &e->chain[1];
    int shared_buffer = a->path == MT_PATH_CONSTANT
                            ? b->path == MT_PATH_CONSTANT
                            : mtc_path_has_buffer(a->path) &&
                                  mtc_buf_class(a->path) == mtc_buf_class(b->path);
    if (!shared_buffer)
        return MT_OK;
    if (mtc_same_data(a, b))
        return MT_OK;
    uint64_t na = mt_chain_elements(a), nb = mt_chain_elements(b);
    uint64_t a_end = a->offset + na * a->stride, b_end = b->offset + nb * b->stride;
    if (a_end <= b->offset || b_end <= a->offset)
        return MT_OK;
    const mt_chain *s = na <= nb ? a : b, *l = na <= nb ? b : a;
    uint64_t ns = na <= nb ? na : nb, l_end = na <= nb ? b_end : a_end;
    if (ns > MTC_OVERLAP_CHECK_MAX)
        return mt_fail(ei, MT_ERR_UNSUPPORTED,
                       "the %s and %s chains overlap in one buffer; use offsets that separate them",
                       mt_path_name(a->path), mt_path_name(b->path));
    for (uint64_t k = 0; k < ns; k++) {
        uint64_t x = s->offset + k * s->stride;
        if (x >= l->offset && x < l_end && (x - l->offset) % l->stride == 0)
            return mt_fail(ei, MT_ERR_UNSUPPORTED,
                           "the %s and %s chains share the word at byte %llu with different "
                           "successors; use offsets that separate them",
                           mt_path_name(a->path), mt_path_name(b->path), (unsigned long long)x);
    }
    return MT_OK;
}

uint64_t mtc_final_element(const mt_chain *c, mt_order order, const uint32_t *succ, uint32_t loads)
{
    uint64_t n = mt_chain_elements(c);
    uint64_t steps = loads % n;
    if (order == MT_ORDER_SEQUENTIAL)
        return steps;
    uint64_t k = 0;
    for (uint64_t i = 0; i < steps; i++)
        k = succ[k];
    return k;
}

/* ---- constant image ------------------------------------------------------ */

mt_err mtc_const_image_init(mtc_const_image *ci, mt_errinfo *ei)
{
    memset(ci, 0, sizeof *ci);
    ci->word = calloc(MTK_CONST_WORDS, sizeof *ci->word);
    ci->set = calloc(MTK_CONST_WORDS, 1);
    ci->tmp_succ = calloc(MTK_CONST_WORDS, sizeof *ci->tmp_succ);
    if (!ci->word || !ci->set || !ci->tmp_succ) {
        mtc_const_image_free(ci);
        return mt_fail(ei, MT_ERR_NOMEM, "out of memory for the constant image");
    }
    return MT_OK;
}

void mtc_const_image_free(mtc_const_image *ci)
{
    free(ci->word);
    free(ci->set);
    free(ci->tmp_succ);
    memset(ci, 0, sizeof *ci);
}

void mtc_const_image_reset(mtc_const_image *ci)
{
    memset(ci->set, 0, MTK_CONST_WORDS);
    ci->hi = 0;
}

mt_err mtc_const_paint(mtc_const_image *ci, const mt_experiment *e, int commit, int *fits,
                       mt_errinfo *ei)
{
    mt_err rc;
    *fits = 1;
    for (int i = 0; i < e->n_chains; i++) {
        const mt_chain *c = &e->chain[i];
        if (c->path != MT_PATH_CONSTANT)
            continue;
        uint64_t n = mt_chain_elements(c);
        if (n > MTK_CONST_WORDS)
            return mt_fail(ei, MT_ERR_INVALID_ARG, "constant chain of %llu elements exceeds %u words",
                           (unsigned long long)n, MTK_CONST_WORDS);
        if ((rc = mt_chain_successors(c, mtc_layout_order(e), e->order_seed, ci->tmp_succ, n,
                                      ei)) != MT_OK)
            return rc;
        for (uint64_t k = 0; k < n; k++) {
            uint32_t w = (uint32_t)(mt_chain_addr(c, k) / 4);
            uint32_t v = (uint32_t)(mt_chain_addr(c, ci->tmp_succ[k]) / 4);
            if (w >= MTK_CONST_WORDS)
                return mt_fail(ei, MT_ERR_INVALID_ARG,
                               "constant chain word %u outside the %u-word bank", w, MTK_CONST_WORDS);
            if (!commit) {
                if (ci->set[w] && ci->word[w] != v) {
                    *fits = 0;
                    return MT_OK;
                }
                continue;
            }
            ci->set[w] = 1;
            ci->word[w] = v;
            if ((w + 1) * 4 > ci->hi)
                ci->hi = (w + 1) * 4;
        }
    }
    return MT_OK;
}

/* ---- sequences ------------------------------------------------------------ */

uint32_t mtc_word(const mt_chain *c, uint64_t k)
{
    return (uint32_t)(mt_chain_addr(c, k) / 4);
}

uint32_t mtc_seq_value(const mt_chain *c, uint64_t k)
{
    if (c->path == MT_PATH_NONE)
        return mtc_word(c, k);
    uint64_t n = mt_chain_elements(c);
    return mtc_word(c, k + 1 == n ? 0 : k + 1);
}

uint32_t mtc_seq_deltas(const mt_experiment *e, int32_t *deltas)
{
    const mt_chain *c = &e->chain[0];
    const mt_sequence *s = &e->u.seq;
    uint32_t prev = 0;
    for (uint32_t i = 0; i < s->n; i++) {
        /* Word indices stay below 2^30 (path limits), so the difference
         * fits an int32 and the kernel's sign-extended base is exact. */
        deltas[i] = (int32_t)((int64_t)mtc_word(c, s->index[i]) - (int64_t)prev);
        prev = mtc_seq_value(c, s->index[i]);
    }
    return prev;
}

/* ---- one launch --------------------------------------------------------- */

void mtc_launch_needs(const mt_experiment *exps, const size_t *idx, size_t n, size_t *succ_words,
                      size_t *seq_words)
{
    size_t nrand = 0, nseq = 0;
    for (size_t k = 0; k < n; k++) {
        const mt_experiment *e = &exps[idx[k]];
        if (e->kind == MT_KIND_SEQUENCE) {
            nseq += e->u.seq.n;
            continue;
        }
        for (int i = 0; i < e->n_chains; i++)
            if (e->order == MT_ORDER_RANDOM && mtc_path_has_buffer(e->chain[i].path))
                nrand += (size_t)mt_chain_elements(&e->chain[i]);
    }
    *succ_words = nrand;
    *seq_words = nseq;
}

/* The chain-build job of a buffer chain, its indices in units of
 * 1 << shift bytes. */
static void add_build(mtc_launch_plan *p, uint64_t buf, uint64_t succ_dev, const mt_chain *c,
                      uint64_t n, unsigned shift)
{
    mtk_build *bd = &p->build[p->n_build++];
    memset(bd, 0, sizeof *bd);
    bd->buf = buf;
    bd->succ = succ_dev;
    bd->start_w = (uint32_t)(c->offset >> shift);
    bd->stride_w = c->stride >> shift;
    bd->n = (uint32_t)n;
    bd->shift = shift;
    if (bd->n > p->max_build_n)
        p->max_build_n = bd->n;
}

static void widen_block(mtc_launch_plan *p, int thread)
{
    if ((unsigned)thread + 1 > p->block)
        p->block = (unsigned)thread + 1;
}

/* The wide kernel warms the global paths only (a texture chain never
 * reaches its sizes). */
int mtc_parallel_warm(const mt_experiment *e)
{
    if (e->kind != MT_KIND_CHASE || e->order != MT_ORDER_SEQUENTIAL || e->warmup_laps != 1)
        return 0;
    for (int i = 0; i < e->n_chains; i++) {
        const mt_chain *c = &e->chain[i];
        uint64_t n = mt_chain_elements(c);
        int global = c->path == MT_PATH_GLOBAL_CA || c->path == MT_PATH_GLOBAL_CG ||
                     c->path == MT_PATH_GLOBAL_NC;
        if (!global && !(c->path == MT_PATH_TEXTURE && mtc_kernel_of(e) != MTK_KERNEL_WIDE))
            return 0;
        if (n < MTK_PARALLEL_WARM_MIN_ELEMENTS)
            return 0;
        uint32_t line = c->stride < MTK_PARALLEL_WARM_SM_LINE ? c->stride : MTK_PARALLEL_WARM_SM_LINE;
        if (e->scope != MT_SCOPE_GPU && n * line < MTK_PARALLEL_WARM_SM_MIN_BYTES)
            return 0;
    }
    return 1;
}

static mt_err plan_chase(const mt_experiment *e, size_t k, const uint64_t base[MTC_BUF_COUNT],
                         mtc_launch_plan *p, mt_errinfo *ei)
{
    mt_err rc;
    mtk_exp *x = &p->descs[k].chase;
    double exp_loads = 0;
    const unsigned shift = mtc_index_shift(e);
    x->n_chains = (uint32_t)e->n_chains;
    x->mode = (uint32_t)e->mode;
    x->loads = e->loads;
    x->flags = 0;
    if (mtc_parallel_warm(e)) {
        x->flags |= MTK_EXP_PARALLEL_WARM;
        widen_block(p, MTK_WARM_THREADS - 1);
    }
    for (int i = 0; i < e->n_chains; i++) {
        const mt_chain *c = &e->chain[i];
        mtk_chain *kc = &x->c[i];
        uint64_t n = mt_chain_elements(c);
        const uint32_t *succ = NULL;
        kc->path = (uint32_t)c->path;
        kc->one = 1;
        kc->thread = (uint32_t)c->thread;
        kc->start = (uint32_t)(c->offset >> shift);
        kc->warm_loads = (uint64_t)e->warmup_laps * n;
        exp_loads += (double)kc->warm_loads + (double)e->loads;
        widen_block(p, c->thread);
        if (e->mode == MT_MODE_FINE) {
            kc->out_off = (uint32_t)p->n_samples;
            p->n_samples += e->loads;
        }
        if (c->path == MT_PATH_CONSTANT && e->order == MT_ORDER_RANDOM) {
            if ((rc = mt_chain_successors(c, e->order, e->order_seed, p->const_succ, n, ei)) != MT_OK)
                return rc;
            succ = p->const_succ;
        }
        if (mtc_path_has_buffer(c->path)) {
            int cls = mtc_buf_class(c->path);
            kc->buf = p->d_arena + base[cls];
            kc->smem_words = (uint32_t)(mtc_class_span(e, cls) / 4);
            int dup = i == 1 && mtc_same_data(c, &e->chain[0]);
            size_t at = p->n_succ;
            if (e->order == MT_ORDER_RANDOM) {
                uint32_t *s = p->succ + at;
                if ((rc = mt_chain_successors(c, e->order, e->order_seed, s, n, ei)) != MT_OK)
                    return rc;
                succ = s;
            }
            if (!dup)
                add_build(p, kc->buf, succ ? p->d_succ + at * sizeof(uint32_t) : 0, c, n, shift);
            if (succ)
                p->n_succ += (size_t)n;
        }
        p->expect[2 * k + (size_t)i] =
            c->path == MT_PATH_NONE
                ? kc->start
                : (uint32_t)(mt_chain_addr(c, mtc_final_element(c, e->order, succ, e->loads)) >> shift);
    }
    if (exp_loads > p->est_loads)
        p->est_loads = exp_loads; /* experiments run concurrently: the longest counts */
    return MT_OK;
}

static void plan_sequence(const mt_experiment *e, size_t k, const uint64_t base[MTC_BUF_COUNT],
                          mtc_launch_plan *p)
{
    const mt_chain *c = &e->chain[0];
    mtk_seq *x = &p->descs[k].seq;
    mtk_chain *kc = &x->c;
    uint64_t n = mt_chain_elements(c);
    kc->path = (uint32_t)c->path;
    kc->one = 1;
    kc->thread = (uint32_t)c->thread;
    kc->start = (uint32_t)(c->offset / 4);
    widen_block(p, c->thread);
    x->n = e->u.seq.n;
    x->untimed = e->u.seq.untimed;
    x->mode = (uint32_t)e->mode;
    if (e->mode == MT_MODE_FINE) {
        kc->out_off = (uint32_t)p->n_samples;
        p->n_samples += e->u.seq.n - e->u.seq.untimed;
    }
    if (mtc_path_has_buffer(c->path)) {
        int cls = mtc_buf_class(c->path);
        kc->buf = p->d_arena + base[cls];
        kc->smem_words = (uint32_t)(mtc_class_span(e, cls) / 4);
        add_build(p, kc->buf, 0, c, n, MTK_WORD_SHIFT); /* sequential: element k holds k+1 */
    }
    x->list = p->d_seq + p->n_seq * sizeof(int32_t);
    p->expect[2 * k] = mtc_seq_deltas(e, p->seq + p->n_seq);
    p->n_seq += e->u.seq.n;
    if ((double)e->u.seq.n > p->est_loads)
        p->est_loads = (double)e->u.seq.n;
}

mt_err mtc_plan_launch(const mt_experiment *exps, const size_t *idx, size_t n, mtc_launch_plan *p,
                       mt_errinfo *ei)
{
    mt_err rc;
    uint64_t cursor = 0;
    p->n_build = p->n_succ = p->n_seq = p->n_samples = 0;
    p->max_build_n = 0;
    p->n_any = 0;
    p->block = 32;
    p->est_loads = 0;
    for (int s = 0; s < MTK_MAX_SMID; s++)
        p->plan[s] = -1;
    for (size_t k = 0; k < n; k++) {
        const mt_experiment *e = &exps[idx[k]];
        uint64_t base[MTC_BUF_COUNT];
        memset(&p->descs[k], 0, sizeof p->descs[k]);
        p->expect[2 * k] = p->expect[2 * k + 1] = 0;
        cursor = mtc_place_buffers(e, cursor, base);
        if (e->sm >= 0)
            p->plan[e->sm] = (int32_t)k;
        else
            p->any[p->n_any++] = (int32_t)k;
        p->tex_base[k] = 0;
        p->tex_bytes[k] = 0;
        if (mtc_uses_path(e, MT_PATH_TEXTURE)) {
            /* Over the experiment's global buffer; the texture chains end
             * within the texture limit (checked), so cover at most that. */
            uint64_t span = mtc_class_span(e, MTC_BUF_GLOBAL);
            p->tex_base[k] = base[MTC_BUF_GLOBAL];
            p->tex_bytes[k] = span < p->tex_limit ? span : p->tex_limit;
        }
        if (e->kind == MT_KIND_SEQUENCE)
            plan_sequence(e, k, base, p);
        else if ((rc = plan_chase(e, k, base, p, ei)) != MT_OK)
            return rc;
    }
    p->block = (p->block + 31) / 32 * 32;
    return MT_OK;
}

void mtc_set_texture(mtk_desc *d, int kernel, uint64_t tex)
{
    if (kernel == MTK_KERNEL_SEQ_A || kernel == MTK_KERNEL_SEQ_B) {
        if (mtc_path_has_buffer((mt_path)d->seq.c.path))
            d->seq.c.tex = tex;
        return;
    }
    for (uint32_t i = 0; i < d->chase.n_chains && i < 2; i++)
        if (mtc_path_has_buffer((mt_path)d->chase.c[i].path))
            d->chase.c[i].tex = tex;
}

static mt_err copy_samples(mt_result *r, int i, const uint32_t *src, uint32_t n, mt_errinfo *ei)
{
    free(r->cycles[i]); /* a together group run again overwrites its samples */
    r->cycles[i] = malloc((size_t)(n ? n : 1) * sizeof(uint32_t));
    if (!r->cycles[i])
        return mt_fail(ei, MT_ERR_NOMEM, "out of memory for %u samples", n);
    memcpy(r->cycles[i], src, (size_t)n * sizeof(uint32_t));
    r->n[i] = n;
    return MT_OK;
}

static mt_err one_total(mt_result *r, int i, uint64_t total, size_t which, mt_errinfo *ei)
{
    if (total > UINT32_MAX)
        return mt_fail(ei, MT_ERR_UNSUPPORTED,
                       "experiment %zu: %llu cycles exceed the 32-bit aggregate sample; "
                       "measure fewer loads",
                       which, (unsigned long long)total);
    r->cycles[i] = malloc(sizeof(uint32_t));
    if (!r->cycles[i])
        return mt_fail(ei, MT_ERR_NOMEM, "out of memory for a sample");
    r->cycles[i][0] = (uint32_t)total;
    r->n[i] = 1;
    return MT_OK;
}

mt_err mtc_collect(const mt_experiment *exps, const size_t *idx, size_t n,
                   const mtc_launch_plan *p, const mtk_status *st_all, const uint32_t *samples,
                   uint64_t deadline_cycles, mt_result *out, int *claimed, mt_errinfo *ei)
{
    mt_err rc;
    for (size_t k = 0; k < n; k++) {
        const mt_experiment *e = &exps[idx[k]];
        const mtk_status *st = &st_all[k];
        mt_result *r = &out[idx[k]];
        claimed[k] = st->claimed != 0;
        if (!claimed[k])
            continue;
        if (st->aborted)
            return mt_fail(ei, MT_ERR_TIMEOUT,
                           "experiment %zu: warm-up exceeded the kernel's deadline of %llu cycles",
                           idx[k], (unsigned long long)deadline_cycles);
        if (e->sm >= 0 && st->sm_ran != e->sm)
            return mt_fail(ei, MT_ERR_DEVICE, "experiment %zu planned for SM %d ran on SM %d",
                           idx[k], e->sm, st->sm_ran);
        r->sm_ran = st->sm_ran;
        if (e->kind == MT_KIND_SEQUENCE) {
            const mtk_seq *x = &p->descs[k].seq;
            if (st->final_j[0] != p->expect[2 * k])
                return mt_fail(ei, MT_ERR_DEVICE,
                               "experiment %zu: the sequence's last load returned %u, expected %u "
                               "(layout or kernel bug)",
                               idx[k], st->final_j[0], p->expect[2 * k]);
            rc = e->mode == MT_MODE_FINE
                     ? copy_samples(r, 0, samples + x->c.out_off, x->n - x->untimed, ei)
                     : one_total(r, 0, st->total[0], idx[k], ei);
            if (rc != MT_OK)
                return rc;
            continue;
        }
        const mtk_exp *x = &p->descs[k].chase;
        for (int i = 0; i < e->n_chains; i++) {
            if (st->final_j[i] != p->expect[2 * k + (size_t)i])
                return mt_fail(ei, MT_ERR_DEVICE,
                               "experiment %zu chain %d ended at word %u, expected %u (chain layout "
                               "or kernel bug)",
                               idx[k], i, st->final_j[i], p->expect[2 * k + (size_t)i]);
            rc = e->mode == MT_MODE_FINE ? copy_samples(r, i, samples + x->c[i].out_off, e->loads, ei)
                                         : one_total(r, i, st->total[i], idx[k], ei);
            if (rc != MT_OK)
                return rc;
        }
    }
    return MT_OK;
}

/* Launch configuration and limits of the cuda backend from driver facts
 * (see limits.h). */
#include <string.h>

#include "layout.h"
#include "limits.h"

const uint32_t *mtc_carveout_table(int major, int minor, size_t *n)
{
    static const uint32_t t75[] = {32, 64};
    static const uint32_t t80[] = {0, 8, 16, 32, 64, 100, 132, 164};
    static const uint32_t t86[] = {0, 8, 16, 32, 64, 100};
    static const uint32_t t90[] = {0, 8, 16, 32, 64, 100, 132, 164, 196, 228};
    int cc = major * 10 + minor;
#define T(a) (*n = sizeof a / sizeof a[0], a)
    switch (cc) {
    case 75: return T(t75);
    case 80:
    case 87: return T(t80);
    case 86:
    case 89: return T(t86);
    case 90: return T(t90);
    default: *n = 0; return NULL;
    }
#undef T
}

int mtc_carveout_options(const mtc_device_facts *f, const mtc_launch_config *cfg, uint32_t *out)
{
    size_t ncar = 0;
    const uint32_t *tab = mtc_carveout_table(f->cc_major, f->cc_minor, &ncar);
    uint64_t need = 0;
    static const int small_kernels[] = {MTK_KERNEL_A, MTK_KERNEL_SEQ_A};
    for (size_t i = 0; i < 2; i++) {
        int k = small_kernels[i];
        uint64_t n = f->static_smem[k] + cfg->dyn_smem[k] + (uint64_t)f->reserved_smem;
        if (n > need)
            need = n;
    }
    int n = 0;
    for (size_t i = 0; tab && i < ncar && n < MT_MAX_CARVEOUTS; i++)
        if ((uint64_t)tab[i] * 1024u >= need)
            out[n++] = tab[i] * 1024u;
    return n;
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

/* Kernels A and SEQ_A: shared memory fills exactly
 * MTC_SMALL_KERNEL_SMEM_PER_SM per block (with the per-block reserve),
 * which also keeps one block per SM. */
static mt_err plan_small(const mtc_device_facts *f, int k, mtc_launch_config *out, mt_errinfo *ei)
{
    size_t need = f->static_smem[k] + (size_t)f->reserved_smem + MTK_SMEM_CHAIN;
    if (need > MTC_SMALL_KERNEL_SMEM_PER_SM || (size_t)f->smem_optin < MTK_SMEM_CHAIN)
        return mt_fail(ei, MT_ERR_UNSUPPORTED_DEVICE,
                       "kernel needs %zu bytes of shared memory per block; the GPU offers %d", need,
                       f->smem_optin);
    out->dyn_smem[k] = MTC_SMALL_KERNEL_SMEM_PER_SM - (size_t)f->reserved_smem - f->static_smem[k];
    /* The carveout preference is a percentage of smem_per_sm, rounded down
     * so the driver's round-up lands on the 16 KiB entry, not the next. */
    int pct = (int)((uint64_t)MTC_SMALL_KERNEL_SMEM_PER_SM * 100u / (uint64_t)f->smem_per_sm);
    out->carveout_percent[k] = pct < 1 ? 1 : pct;
    return MT_OK;
}

/* Kernels B and SEQ_B (shared-path data): all the opt-in shared memory, so
 * the chain can be as large as possible and one block fills an SM. */
static mt_err plan_big(const mtc_device_facts *f, int k, mtc_launch_config *out, mt_errinfo *ei)
{
    size_t optin = (size_t)f->smem_optin;
    size_t dyn = optin > f->static_smem[k] ? optin - f->static_smem[k] : 0;
    if (dyn < MTK_SMEM_CHAIN + MTC_MIN_SHARED_CHAIN)
        return mt_fail(ei, MT_ERR_UNSUPPORTED_DEVICE,
                       "only %zu bytes of shared memory per block; the shared-path kernel needs %u",
                       dyn, MTK_SMEM_CHAIN + MTC_MIN_SHARED_CHAIN);
    out->dyn_smem[k] = dyn;
    out->carveout_percent[k] = 100;
    return MT_OK;
}

mt_err mtc_plan_config(const mtc_device_facts *f, mtc_launch_config *out, mt_errinfo *ei)
{
    mt_err rc;
    memset(out, 0, sizeof *out);
    if (f->smem_per_sm <= 0)
        return mt_fail(ei, MT_ERR_UNSUPPORTED_DEVICE, "the GPU reports no shared memory per SM");
    if ((rc = plan_small(f, MTK_KERNEL_A, out, ei)) != MT_OK ||
        (rc = plan_small(f, MTK_KERNEL_SEQ_A, out, ei)) != MT_OK ||
        (rc = plan_small(f, MTK_KERNEL_WIDE, out, ei)) != MT_OK ||
        (rc = plan_big(f, MTK_KERNEL_B, out, ei)) != MT_OK ||
        (rc = plan_big(f, MTK_KERNEL_SEQ_B, out, ei)) != MT_OK)
        return rc;

    /* What kernel A's carveout gives: the smallest listed carveout that
     * holds the preference and the kernel's need. */
    size_t ncar = 0;
    const uint32_t *tab = mtc_carveout_table(f->cc_major, f->cc_minor, &ncar);
    if (tab) {
        uint64_t want = (uint64_t)out->carveout_percent[MTK_KERNEL_A] * (uint64_t)f->smem_per_sm / 100u;
        uint64_t need = f->static_smem[MTK_KERNEL_A] + out->dyn_smem[MTK_KERNEL_A] +
                        (uint64_t)f->reserved_smem;
        if (need > want)
            want = need;
        for (size_t i = 0; i < ncar; i++)
            if ((uint64_t)tab[i] * 1024u >= want) {
                out->carveout_smem_bytes = tab[i] * 1024u;
                break;
            }
    }

    /* Path limits. */
    uint64_t glob = min_u64(f->free_bytes / MTC_GLOBAL_FREE_DIVISOR, MTC_GLOBAL_LIMIT_CAP);
    glob = glob / MTC_MIB * MTC_MIB;
    uint64_t tex = (uint64_t)(f->tex1d_linear > 0 ? f->tex1d_linear : 0) * 4u;
    out->path_limit[MT_PATH_GLOBAL_CA] = glob;
    out->path_limit[MT_PATH_GLOBAL_CG] = glob;
    out->path_limit[MT_PATH_GLOBAL_NC] = glob;
    out->path_limit[MT_PATH_TEXTURE] = min_u64(tex, glob);
    out->path_limit[MT_PATH_CONSTANT] = (uint64_t)MTK_CONST_WORDS * 4u;
    uint64_t shared_b = (out->dyn_smem[MTK_KERNEL_B] - MTK_SMEM_CHAIN) / 1024u * 1024u;
    uint64_t shared_sb = (out->dyn_smem[MTK_KERNEL_SEQ_B] - MTK_SMEM_CHAIN) / 1024u * 1024u;
    out->path_limit[MT_PATH_SHARED] = min_u64(shared_b, shared_sb);
    out->path_limit[MT_PATH_NONE] = 0; /* no buffer */

    out->max_fine_loads = MTK_FINE_MAX;
    /* The list (and the aggregate loop's over-read) must fit SEQ_A's
     * dynamic shared memory after the header; SEQ_B keeps the list before
     * its chain, so MTK_SEQ_MAX fits there by the layout. */
    uint64_t room = (out->dyn_smem[MTK_KERNEL_SEQ_A] - MTK_SMEM_SAMPLES) / 4u;
    room = room > MTK_SEQ_OVERREAD_WORDS ? room - MTK_SEQ_OVERREAD_WORDS : 0;
    out->max_sequence = (uint32_t)min_u64(MTK_SEQ_MAX, room);
    out->max_threads_per_experiment =
        f->max_threads_per_block < MTK_MAX_THREADS ? f->max_threads_per_block : MTK_MAX_THREADS;
    /* Two buffers of the largest size per experiment plus alignment. */
    out->arena_max = 2 * glob + 2 * MTC_BIG_ALIGN;
    /* A sparse chain writes only its elements but its arena spans the
     * footprint: what the device had free, less the margin, within what
     * kernel WIDE addresses. */
    out->sparse_limit = min_u64(mt_sparse_limit(f->free_bytes), MTC_WIDE_REACH_BYTES) / MTC_MIB * MTC_MIB;
    if (out->sparse_limit <= glob)
        out->sparse_limit = 0; /* the path limit holds for sparse chains too */
    return MT_OK;
}

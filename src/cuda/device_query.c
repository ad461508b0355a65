/* Device query of the cuda backend: driver attributes -> mt_device_info,
 * kernel resources, and the kernels' shared-memory attributes (carveout);
 * limits.c decides, this file asks the driver and applies. */
#include <stdio.h>
#include <string.h>

#include "cuda_impl.h"

static mt_err get_attr(int *v, enum cudaDeviceAttr a, int dev, const char *name, mt_errinfo *ei)
{
    cudaError_t e = cudaDeviceGetAttribute(v, a, dev);
    if (e != cudaSuccess)
        return mtc_cuda_err(ei, e, name, __FILE__, __LINE__);
    return MT_OK;
}
#define ATTR(var, a)                                                                               \
    do {                                                                                           \
        if ((rc = get_attr(&(var), a, dev, "cudaDeviceGetAttribute(" #a ")", ei)) != MT_OK)        \
            goto out;                                                                              \
    } while (0)

static void version_string(char *buf, size_t n, int v)
{
    snprintf(buf, n, "%d.%d", v / 1000, (v % 1000) / 10);
}

mt_err mtc_query_device(cuda_impl *im, mt_errinfo *ei)
{
    mt_err rc = MT_OK;
    const int dev = im->dev;
    mt_device_info *d = &im->info;
    mtc_launch_config *cfg = &im->cfg;
    struct cudaDeviceProp prop;
    mtc_device_facts f;
    mtk_func_info fi[MTK_KERNEL_COUNT];
    int v = 0, l2 = 0, persist = 0, smem_blk = 0;
    size_t free_b = 0, total_b = 0;

    memset(d, 0, sizeof *d);
    memset(&f, 0, sizeof f);
    CK(cudaGetDeviceProperties(&prop, dev)); /* name only: CUDA 13 dropped the clock fields */
    prop.name[sizeof d->name - 1] = '\0'; /* names are short; keep what fits */
    memcpy(d->name, prop.name, sizeof d->name);
    snprintf(d->backend, sizeof d->backend, "cuda");
    d->ordinal = dev;
    ATTR(d->cc_major, cudaDevAttrComputeCapabilityMajor);
    ATTR(d->cc_minor, cudaDevAttrComputeCapabilityMinor);
    ATTR(d->sm_count, cudaDevAttrMultiProcessorCount);
    ATTR(d->clock_khz, cudaDevAttrClockRate);
    ATTR(d->mem_clock_khz, cudaDevAttrMemoryClockRate);
    ATTR(d->bus_width_bits, cudaDevAttrGlobalMemoryBusWidth);
    ATTR(l2, cudaDevAttrL2CacheSize);
    ATTR(persist, cudaDevAttrMaxPersistingL2CacheSize);
    ATTR(smem_blk, cudaDevAttrMaxSharedMemoryPerBlock);
    ATTR(f.smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin);
    ATTR(f.smem_per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor);
    ATTR(f.reserved_smem, cudaDevAttrReservedSharedMemoryPerBlock);
    {
        int cmem = 0;
        ATTR(cmem, cudaDevAttrTotalConstantMemory);
        d->const_mem_bytes = (uint32_t)cmem;
    }
    ATTR(d->max_threads_per_block, cudaDevAttrMaxThreadsPerBlock);
    ATTR(d->max_threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor);
    ATTR(d->warp_size, cudaDevAttrWarpSize);
    ATTR(d->regs_per_sm, cudaDevAttrMaxRegistersPerMultiprocessor);
    ATTR(f.tex1d_linear, cudaDevAttrMaxTexture1DLinearWidth);
    CK(cudaMemGetInfo(&free_b, &total_b));
    d->global_mem_bytes = total_b ? total_b : prop.totalGlobalMem;
    d->l2_bytes = (uint64_t)l2;
    d->persisting_l2_max_bytes = (uint64_t)persist;
    d->smem_per_block = (uint32_t)smem_blk;
    d->smem_per_block_optin = (uint32_t)f.smem_optin;
    d->smem_per_sm = (uint32_t)f.smem_per_sm;
    CK(cudaDriverGetVersion(&v));
    version_string(d->driver_version, sizeof d->driver_version, v);
    CK(cudaRuntimeGetVersion(&v));
    version_string(d->runtime_version, sizeof d->runtime_version, v);
    im->nsm = d->sm_count;

    /* Kernel resources; a missing kernel image surfaces here. */
    for (int k = 0; k < MTK_KERNEL_COUNT; k++) {
        CK(mtk_family_of(k)->info(mtk_kernel_smem(k), &fi[k]));
        f.static_smem[k] = fi[k].static_smem;
    }
    f.cc_major = d->cc_major;
    f.cc_minor = d->cc_minor;
    f.max_threads_per_block = d->max_threads_per_block;
    f.free_bytes = free_b;
    if ((rc = mtc_plan_config(&f, cfg, ei)) != MT_OK)
        goto out;
    for (int k = 0; k < MTK_KERNEL_COUNT; k++) {
        CK(mtk_family_of(k)->set_attrs(mtk_kernel_smem(k), cfg->carveout_percent[k],
                                       (int)cfg->dyn_smem[k]));
        im->carveout_now[k] = cfg->carveout_percent[k];
        im->stats.static_smem[k] = (uint32_t)fi[k].static_smem;
        im->stats.dyn_smem[k] = (uint32_t)cfg->dyn_smem[k];
        im->stats.regs[k] = fi[k].regs;
    }
    im->stats.reserved_smem = (uint32_t)f.reserved_smem;
    CK(mtk_family_chase.occupancy(0, 32, cfg->dyn_smem[MTK_KERNEL_A], &im->stats.blocks_per_sm_a));
    CK(mtk_family_sequence.occupancy(0, 32, cfg->dyn_smem[MTK_KERNEL_SEQ_A],
                                     &im->stats.blocks_per_sm_seq_a));

    d->carveout_percent = cfg->carveout_percent[MTK_KERNEL_A];
    d->carveout_smem_bytes = cfg->carveout_smem_bytes;
    d->n_carveouts = mtc_carveout_options(&f, cfg, d->carveout_smem_options);
    for (int p = 0; p < MT_NUM_PATHS; p++)
        d->path_limit_bytes[p] = cfg->path_limit[p];
    d->sparse_limit_bytes = cfg->sparse_limit;
    d->max_fine_loads = cfg->max_fine_loads;
    d->max_threads_per_experiment = cfg->max_threads_per_experiment;
    d->concurrent_experiments = d->sm_count; /* SM-scope: one per SM per launch */
    d->max_sequence = cfg->max_sequence;
    rc = mtc_cluster_limits(d, ei);
out:
    return rc;
}

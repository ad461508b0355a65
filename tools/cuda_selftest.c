/* Self-test of the cuda backend on a real GPU: prints the device info, then
 * runs representative experiments of every path and the checks the backend
 * must pass (placement on planned SMs, warm-up really warms, cold chains
 * miss, chain end positions verified inside the backend), and the explicit
 * sequences (MT_KIND_SEQUENCE) against chases of the same accesses: same
 * timer overhead, revisits hit, the untimed prefix is honoured, a sequence
 * sees the chase's L1, limits and unimplemented kinds are refused.
 *
 *   build/cuda_selftest [device] [quick]
 *
 * "quick" runs only the representative and sequence batches (for
 * compute-sanitizer: every CHECK on timing may fail under it, the
 * sanitizer's own summary is what counts there).
 *
 * Exit status 0 when every experiment ran and every printed CHECK passed. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend/backend.h"
#include "cuda/backend_cuda.h"

#define KIB 1024ull
#define MIB (1024ull * 1024ull)

static int failures;

static void check(int ok, const char *what)
{
    printf("CHECK %-4s %s\n", ok ? "ok" : "FAIL", what);
    if (!ok)
        failures++;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A chase (mt_exp_chase) with its scope given: the self-test places some
 * ca experiments with L2-resident data alone, as the L2 probe does. */
static mt_experiment chase(mt_path p, uint64_t footprint, uint32_t stride, uint32_t warm,
                           uint32_t loads, mt_mode mode, mt_scope scope)
{
    mt_experiment e = mt_exp_chase(p, footprint, stride, warm, loads, mode);
    e.scope = scope;
    return e;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

typedef struct {
    uint32_t med, min, max;
    double mean;
} stats;

static stats summarize(const uint32_t *v, size_t n)
{
    stats s = {0, 0, 0, 0};
    if (!n)
        return s;
    uint32_t *c = malloc(n * sizeof *c);
    if (!c)
        exit(2);
    memcpy(c, v, n * sizeof *c);
    qsort(c, n, sizeof *c, cmp_u32);
    s.med = c[n / 2];
    s.min = c[0];
    s.max = c[n - 1];
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += c[i];
    s.mean = sum / (double)n;
    free(c);
    return s;
}

/* Loads slower than this over the hit median count as misses. */
#define MISS_MARGIN_CYCLES 20u

static size_t count_above(const uint32_t *v, size_t n, uint32_t thr)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += v[i] > thr;
    return k;
}

static void print_result(const char *name, const mt_experiment *e, const mt_result *r)
{
    for (int i = 0; i < e->n_chains; i++) {
        const mt_chain *c = &e->chain[i];
        if (e->mode == MT_MODE_FINE) {
            stats s = summarize(r->cycles[i], r->n[i]);
            printf("%-26s ch%d %-6s fine fp=%-9llu st=%-5u n=%-5u med=%-5u min=%-5u max=%-6u "
                   "mean=%-8.1f sm=%d\n",
                   name, i, mt_path_name(c->path), (unsigned long long)c->footprint, c->stride,
                   r->n[i], s.med, s.min, s.max, s.mean, r->sm_ran);
        } else {
            printf("%-26s ch%d %-6s agg  fp=%-9llu st=%-5u loads=%-6u total=%-9u per_load=%.2f "
                   "sm=%d\n",
                   name, i, mt_path_name(c->path), (unsigned long long)c->footprint, c->stride,
                   e->loads, r->cycles[i][0], (double)r->cycles[i][0] / e->loads, r->sm_ran);
        }
    }
}

static int run(mt_backend *b, const mt_experiment *e, size_t n, mt_result *r, const char *what,
               double *secs)
{
    mt_errinfo ei = {{0}};
    double t0 = now_s();
    mt_err rc = mt_backend_run(b, e, n, r, &ei);
    double t1 = now_s();
    if (secs)
        *secs = t1 - t0;
    if (rc != MT_OK) {
        printf("ERROR %s: %s: %s\n", what, mt_strerror(rc), ei.msg);
        failures++;
        return -1;
    }
    printf("# %s: %zu experiments in %.3f ms\n", what, n, (t1 - t0) * 1e3);
    return 0;
}

static void print_info(const mt_device_info *d)
{
    printf("device: %s (cuda %d), cc %d.%d, %d SMs, clock %d kHz, mem clock %d kHz, bus %d bit\n",
           d->name, d->ordinal, d->cc_major, d->cc_minor, d->sm_count, d->clock_khz,
           d->mem_clock_khz, d->bus_width_bits);
    printf("global %llu B, L2 %llu B, persisting L2 max %llu B, const %u B\n",
           (unsigned long long)d->global_mem_bytes, (unsigned long long)d->l2_bytes,
           (unsigned long long)d->persisting_l2_max_bytes, d->const_mem_bytes);
    printf("smem/block %u, opt-in %u, /SM %u; carveout %d%% -> %u B shared per SM\n",
           d->smem_per_block, d->smem_per_block_optin, d->smem_per_sm, d->carveout_percent,
           d->carveout_smem_bytes);
    printf("threads/block %d, /SM %d, warp %d, regs/SM %d, driver %s, runtime %s\n",
           d->max_threads_per_block, d->max_threads_per_sm, d->warp_size, d->regs_per_sm,
           d->driver_version, d->runtime_version);
    printf("limits:");
    for (int p = 0; p < MT_PATH_COUNT; p++)
        printf(" %s=%llu", mt_path_name((mt_path)p), (unsigned long long)d->path_limit_bytes[p]);
    printf(" fine_loads=%u threads=%d\n", d->max_fine_loads, d->max_threads_per_experiment);
    printf("concurrent experiments %d, longest sequence %u\n", d->concurrent_experiments,
           d->max_sequence);
}

static void free_all(mt_result *r, size_t n)
{
    for (size_t i = 0; i < n; i++)
        mt_result_free(&r[i]);
}

/* ---- 1: one batch of representative experiments ------------------------- */

enum {
    X_NONE_F, X_NONE_A,
    X_CA_F, X_CA_A, X_NC_F, X_NC_A, X_TEX_F, X_TEX_A,
    X_CA_L2_F, X_CA_L2_A, X_CG_WARM_F, X_CG_COLD_F, X_CG_COLD_A,
    X_CONST1_F, X_CONST32_F, X_CONST1_A,
    X_SHARED_F, X_SHARED_A,
    X_CA160_F, X_TEX160_F, X_SHARE2_F,
    X_CA_COLD4_F, X_WARM64_F, X_CA_RAND_F,
    X_NC_COLD4_F, X_TEX_COLD4_F, X_CONST_COLD4_F, X_SHARED2_F, X_EXCL_SM7_A,
    X_COUNT
};

static void batch_representative(mt_backend *b)
{
    mt_experiment e[X_COUNT];
    mt_result r[X_COUNT];
    const char *name[X_COUNT];
#define E(id, label, ...) (e[id] = chase(__VA_ARGS__), name[id] = label)
    E(X_NONE_F, "none", MT_PATH_NONE, 4, 4, 1, 512, MT_MODE_FINE, MT_SCOPE_SM);
    E(X_NONE_A, "none", MT_PATH_NONE, 4, 4, 1, 4096, MT_MODE_AGGREGATE, MT_SCOPE_SM);
    E(X_CA_F, "ca 8K warm", MT_PATH_GLOBAL_CA, 8 * KIB, 32, 1, 256, MT_MODE_FINE, MT_SCOPE_SM);
    E(X_CA_A, "ca 8K warm", MT_PATH_GLOBAL_CA, 8 * KIB, 32, 1, 4096, MT_MODE_AGGREGATE, MT_SCOPE_SM);
    E(X_NC_F, "nc 8K warm", MT_PATH_GLOBAL_NC, 8 * KIB, 32, 1, 256, MT_MODE_FINE, MT_SCOPE_SM);
    E(X_NC_A, "nc 8K warm", MT_PATH_GLOBAL_NC, 8 * KIB, 32, 1, 4096, MT_MODE_AGGREGATE, MT_SCOPE_SM);
    E(X_TEX_F, "tex 8K warm", MT_PATH_TEXTURE, 8 * KIB, 32, 1, 256, MT_MODE_FINE, MT_SCOPE_SM);
    E(X_TEX_A, "tex 8K warm", MT_PATH_TEXTURE, 8 * KIB, 32, 1, 4096, MT_MODE_AGGREGATE, MT_SCOPE_SM);
    E(X_CA_L2_F, "ca 1M warm (L1 miss)", MT_PATH_GLOBAL_CA, 1 * MIB, 128, 1, 2048, MT_MODE_FINE, MT_SCOPE_GPU);
    E(X_CA_L2_A, "ca 1M warm (L1 miss)", MT_PATH_GLOBAL_CA, 1 * MIB, 128, 1, 4096,
      MT_MODE_AGGREGATE, MT_SCOPE_GPU);
    E(X_CG_WARM_F, "cg 1M warm (L2)", MT_PATH_GLOBAL_CG, 1 * MIB, 128, 1, 2048, MT_MODE_FINE, MT_SCOPE_GPU);
    E(X_CG_COLD_F, "cg 64M cold (DRAM)", MT_PATH_GLOBAL_CG, 64 * MIB, 4096, 0, 1024, MT_MODE_FINE,
      MT_SCOPE_GPU);
    E(X_CG_COLD_A, "cg 64M cold (DRAM)", MT_PATH_GLOBAL_CG, 64 * MIB, 4096, 0, 1024,
      MT_MODE_AGGREGATE, MT_SCOPE_GPU);
    E(X_CONST1_F, "const 1K warm", MT_PATH_CONSTANT, 1 * KIB, 64, 1, 512, MT_MODE_FINE, MT_SCOPE_SM);
    E(X_CONST32_F, "const 32K warm", MT_PATH_CONSTANT, 32 * KIB, 64, 1, 512, MT_MODE_FINE, MT_SCOPE_SM);
    E(X_CONST1_A, "const 1K warm", MT_PATH_CONSTANT, 1 * KIB, 64, 1, 4096, MT_MODE_AGGREGATE, MT_SCOPE_SM);
    E(X_SHARED_F, "shared 4K", MT_PATH_SHARED, 4 * KIB, 32, 1, 512, MT_MODE_FINE, MT_SCOPE_SM);
    E(X_SHARED_A, "shared 4K", MT_PATH_SHARED, 4 * KIB, 32, 1, 4096, MT_MODE_AGGREGATE, MT_SCOPE_SM);
    E(X_CA160_F, "ca 160K alone", MT_PATH_GLOBAL_CA, 160 * KIB, 128, 1, 1280, MT_MODE_FINE, MT_SCOPE_SM);
    E(X_TEX160_F, "tex 160K alone", MT_PATH_TEXTURE, 160 * KIB, 128, 1, 1280, MT_MODE_FINE, MT_SCOPE_SM);
    /* Sharing test: ca by thread 0 and tex by thread 32, 160 KiB each; if
     * the two share one 240 KiB cache, chain 0 misses after chain 1 warms. */
    E(X_SHARE2_F, "share ca+tex 160K", MT_PATH_GLOBAL_CA, 160 * KIB, 128, 1, 1280, MT_MODE_FINE, MT_SCOPE_SM);
    e[X_SHARE2_F].n_chains = 2;
    e[X_SHARE2_F].chain[1] = e[X_SHARE2_F].chain[0];
    e[X_SHARE2_F].chain[1].path = MT_PATH_TEXTURE;
    e[X_SHARE2_F].chain[1].thread = 32;
    e[X_SHARE2_F].chain[1].offset = 160 * KIB; /* global paths share one buffer: keep apart */
    E(X_CA_COLD4_F, "ca 4K stride 4 cold", MT_PATH_GLOBAL_CA, 4 * KIB, 4, 0, 1024, MT_MODE_FINE, MT_SCOPE_SM);
    E(X_WARM64_F, "ca 64K st32 warm 1 lap", MT_PATH_GLOBAL_CA, 64 * KIB, 32, 1, 3456, MT_MODE_FINE,
      MT_SCOPE_SM);
    E(X_CA_RAND_F, "ca 8K random warm", MT_PATH_GLOBAL_CA, 8 * KIB, 32, 1, 256, MT_MODE_FINE, MT_SCOPE_SM);
    e[X_CA_RAND_F].order = MT_ORDER_RANDOM;
    e[X_CA_RAND_F].order_seed = 7;
    E(X_NC_COLD4_F, "nc 4K stride 4 cold", MT_PATH_GLOBAL_NC, 4 * KIB, 4, 0, 512, MT_MODE_FINE, MT_SCOPE_SM);
    E(X_TEX_COLD4_F, "tex 4K stride 4 cold", MT_PATH_TEXTURE, 4 * KIB, 4, 0, 512, MT_MODE_FINE, MT_SCOPE_SM);
    E(X_CONST_COLD4_F, "const 2K stride 4 cold", MT_PATH_CONSTANT, 2 * KIB, 4, 0, 512, MT_MODE_FINE,
      MT_SCOPE_SM);
    /* Two shared-memory chains (kernel B), disjoint offsets, two threads. */
    E(X_SHARED2_F, "shared x2 (thread 0, 1)", MT_PATH_SHARED, 4 * KIB, 32, 1, 256, MT_MODE_FINE, MT_SCOPE_SM);
    e[X_SHARED2_F].n_chains = 2;
    e[X_SHARED2_F].chain[1] = e[X_SHARED2_F].chain[0];
    e[X_SHARED2_F].chain[1].thread = 1;
    e[X_SHARED2_F].chain[1].offset = 16 * KIB;
    E(X_EXCL_SM7_A, "GPU scope on SM 7", MT_PATH_GLOBAL_CG, 1 * MIB, 128, 1, 4096,
      MT_MODE_AGGREGATE, MT_SCOPE_GPU);
    e[X_EXCL_SM7_A].sm = 7;
#undef E
    if (run(b, e, X_COUNT, r, "representative batch", NULL))
        return;
    for (int i = 0; i < X_COUNT; i++)
        print_result(name[i], &e[i], &r[i]);

    /* Latency estimates, overhead subtracted (what a probe would do). */
    stats none_f = summarize(r[X_NONE_F].cycles[0], r[X_NONE_F].n[0]);
    double none_a = (double)r[X_NONE_A].cycles[0][0] / e[X_NONE_A].loads;
    printf("overhead: fine %u cycles/sample, aggregate %.2f cycles/load\n", none_f.med, none_a);
    static const int lat_ids[][2] = {
        {X_CA_F, X_CA_A}, {X_NC_F, X_NC_A}, {X_TEX_F, X_TEX_A}, {X_CA_L2_F, X_CA_L2_A},
        {X_CG_COLD_F, X_CG_COLD_A}, {X_CONST1_F, X_CONST1_A}, {X_SHARED_F, X_SHARED_A},
    };
    for (size_t i = 0; i < sizeof lat_ids / sizeof lat_ids[0]; i++) {
        int f = lat_ids[i][0], a = lat_ids[i][1];
        stats s = summarize(r[f].cycles[0], r[f].n[0]);
        printf("latency %-22s fine median-overhead %5d   aggregate per load-overhead %7.2f\n",
               name[f], (int)s.med - (int)none_f.med,
               (double)r[a].cycles[0][0] / e[a].loads - none_a);
    }
    stats cg_warm = summarize(r[X_CG_WARM_F].cycles[0], r[X_CG_WARM_F].n[0]);
    printf("latency %-22s fine median-overhead %5d\n", name[X_CG_WARM_F],
           (int)cg_warm.med - (int)none_f.med);
    stats const32 = summarize(r[X_CONST32_F].cycles[0], r[X_CONST32_F].n[0]);
    printf("latency %-22s fine median-overhead %5d\n", name[X_CONST32_F],
           (int)const32.med - (int)none_f.med);

    stats ca = summarize(r[X_CA_F].cycles[0], r[X_CA_F].n[0]);
    stats cgc = summarize(r[X_CG_COLD_F].cycles[0], r[X_CG_COLD_F].n[0]);
    stats l2 = summarize(r[X_CA_L2_F].cycles[0], r[X_CA_L2_F].n[0]);
    check(ca.med < l2.med && l2.med < cgc.med, "L1 hit < L2 hit < DRAM (ca 8K < ca 1M < cg cold)");
    check(r[X_CG_COLD_F].sm_ran >= 0 && r[X_CA_F].sm_ran >= 0, "sm_ran reported");
    check(r[X_EXCL_SM7_A].sm_ran == 7, "GPU-scope experiment ran on its planned SM 7");
    static const int cold_ids[] = {X_NC_COLD4_F, X_TEX_COLD4_F, X_CONST_COLD4_F};
    for (size_t i = 0; i < 3; i++) {
        const mt_result *x = &r[cold_ids[i]];
        printf("%s, first 48 samples:", name[cold_ids[i]]);
        for (int k = 0; k < 48; k++)
            printf("%s%u", k % 16 ? " " : "\n  ", x->cycles[0][k]);
        printf("\n");
    }

    /* Sharing protocol. */
    stats a160 = summarize(r[X_CA160_F].cycles[0], r[X_CA160_F].n[0]);
    stats t160 = summarize(r[X_TEX160_F].cycles[0], r[X_TEX160_F].n[0]);
    size_t ca_alone_miss = count_above(r[X_CA160_F].cycles[0], r[X_CA160_F].n[0],
                                       a160.med + MISS_MARGIN_CYCLES);
    size_t tex_alone_miss = count_above(r[X_TEX160_F].cycles[0], r[X_TEX160_F].n[0],
                                        t160.med + MISS_MARGIN_CYCLES);
    size_t sh0 = count_above(r[X_SHARE2_F].cycles[0], r[X_SHARE2_F].n[0], a160.med + MISS_MARGIN_CYCLES);
    size_t sh1 = count_above(r[X_SHARE2_F].cycles[1], r[X_SHARE2_F].n[1], t160.med + MISS_MARGIN_CYCLES);
    printf("sharing: misses ca alone %zu/%u, tex alone %zu/%u; together ca %zu/%u, tex %zu/%u\n",
           ca_alone_miss, r[X_CA160_F].n[0], tex_alone_miss, r[X_TEX160_F].n[0], sh0,
           r[X_SHARE2_F].n[0], sh1, r[X_SHARE2_F].n[1]);

    /* Cold stride-4 chain: misses every 32 B sector (8 loads) expected. */
    printf("ca 4K stride 4 cold, first 64 samples:");
    for (int k = 0; k < 64; k++)
        printf("%s%u", k % 16 ? " " : "\n  ", r[X_CA_COLD4_F].cycles[0][k]);
    printf("\n");
    {
        const uint32_t *v = r[X_CA_COLD4_F].cycles[0];
        stats s = summarize(v, r[X_CA_COLD4_F].n[0]);
        uint32_t thr = s.med + MISS_MARGIN_CYCLES;
        int period_hits[5] = {0}; /* misses at index multiple of 8/16/32/64 */
        size_t misses = 0;
        for (uint32_t k = 0; k < r[X_CA_COLD4_F].n[0]; k++)
            if (v[k] > thr) {
                misses++;
                period_hits[0] += k % 8 == 0;
                period_hits[1] += k % 32 == 0;
            }
        printf("cold stride 4: %zu misses in %u loads (%d at multiples of 8, %d at multiples of 32)\n",
               misses, r[X_CA_COLD4_F].n[0], period_hits[0], period_hits[1]);
        check(misses > 0, "cold chain shows misses");
    }

    /* Warm-up really warms: lap 1 (first 2048 samples) vs lap 2. */
    {
        const uint32_t *v = r[X_WARM64_F].cycles[0];
        uint32_t lap = (uint32_t)(e[X_WARM64_F].chain[0].footprint / e[X_WARM64_F].chain[0].stride);
        stats s1 = summarize(v, lap), s2 = summarize(v + lap, r[X_WARM64_F].n[0] - lap);
        size_t slow1 = count_above(v, lap, s2.max);
        printf("warm-up check (ca 64K st32, 1 warm lap): lap1 med %u max %u; lap2 med %u max %u; "
               "lap1 samples above lap2 max: %zu\n",
               s1.med, s1.max, s2.med, s2.max, slow1);
        check(s1.med <= s2.med + 1 && slow1 <= lap / 100, "first measured lap is as warm as the second");
    }
    free_all(r, X_COUNT);
}

/* ---- 2: L1 size sweep (ca and tex, stride 128, one lap each) -------------- */

static void batch_l1_sweep(mt_backend *b, const mt_device_info *d)
{
    enum { NFP = 15 };
    mt_experiment e[2 * NFP];
    mt_result r[2 * NFP];
    for (int p = 0; p < 2; p++)
        for (int i = 0; i < NFP; i++) {
            uint64_t fp = (200 + 8 * (uint64_t)i) * KIB;
            e[p * NFP + i] = chase(p ? MT_PATH_TEXTURE : MT_PATH_GLOBAL_CA, fp, 128, 1,
                                  (uint32_t)(fp / 128), MT_MODE_FINE, MT_SCOPE_SM);
        }
    if (run(b, e, 2 * NFP, r, "L1 size sweep", NULL))
        return;
    uint64_t expect = 256 * KIB - d->carveout_smem_bytes;
    for (int p = 0; p < 2; p++) {
        uint64_t first_missing = 0;
        stats hit = summarize(r[p * NFP].cycles[0], r[p * NFP].n[0]);
        for (int i = 0; i < NFP; i++) {
            const mt_result *x = &r[p * NFP + i];
            size_t m = count_above(x->cycles[0], x->n[0], hit.med + MISS_MARGIN_CYCLES);
            stats s = summarize(x->cycles[0], x->n[0]);
            printf("sweep %-3s fp=%3llu KiB: misses %4zu/%-4u med %u max %u sm %d\n",
                   p ? "tex" : "ca", (unsigned long long)(e[p * NFP + i].chain[0].footprint / KIB),
                   m, x->n[0], s.med, s.max, x->sm_ran);
            if (!first_missing && m > x->n[0] / 10)
                first_missing = e[p * NFP + i].chain[0].footprint;
        }
        printf("sweep %s: first footprint with >10%% misses: %llu KiB (256 KiB - carveout %u KiB = "
               "%llu KiB)\n",
               p ? "tex" : "ca", (unsigned long long)(first_missing / KIB),
               d->carveout_smem_bytes / 1024, (unsigned long long)(expect / KIB));
    }
    free_all(r, 2 * NFP);
}

/* ---- 3: placement on planned SMs ------------------------------------------ */

static void batch_placement(mt_backend *b, const mt_device_info *d)
{
    size_t n = (size_t)d->sm_count;
    mt_experiment *e = calloc(n, sizeof *e);
    mt_result *r = calloc(n, sizeof *r);
    mt_cuda_stats s0, s1, s2;
    double t_all = 0, t_one = 0, t_seq = 0;
    if (!e || !r)
        exit(2);
    for (size_t i = 0; i < n; i++) {
        e[i] = chase(MT_PATH_GLOBAL_CA, 8 * KIB, 32, 1, 1024, MT_MODE_AGGREGATE, MT_SCOPE_SM);
        e[i].sm = (int)i;
    }
    mt_cuda_get_stats(b, &s0);
    if (run(b, e, n, r, "placement: one experiment per SM", &t_all) == 0) {
        mt_cuda_get_stats(b, &s1);
        size_t ok = 0;
        for (size_t i = 0; i < n; i++)
            ok += r[i].sm_ran == e[i].sm;
        printf("placement: %zu/%zu ran on the planned SM, %llu launches, %llu requeued\n", ok, n,
               (unsigned long long)(s1.launches - s0.launches),
               (unsigned long long)(s1.requeued - s0.requeued));
        check(ok == n, "every experiment ran on its planned SM");
        free_all(r, n);
    }
    /* One experiment alone, then the same experiments one batch each. */
    if (run(b, &e[5], 1, r, "placement: one experiment alone", &t_one) == 0)
        free_all(r, 1);
    double t0 = now_s();
    size_t seq_n = 16;
    for (size_t i = 0; i < seq_n; i++) {
        mt_errinfo ei = {{0}};
        if (mt_backend_run(b, &e[i], 1, &r[i], &ei) != MT_OK) {
            printf("ERROR sequential placement: %s\n", ei.msg);
            failures++;
            break;
        }
        mt_result_free(&r[i]);
    }
    t_seq = (now_s() - t0) / (double)seq_n;
    printf("placement timing: %zu SMs in one batch %.3f ms; one alone %.3f ms; mean of %zu single "
           "batches %.3f ms; speed-up vs sequential %.1fx\n",
           n, t_all * 1e3, t_one * 1e3, seq_n, t_seq * 1e3, t_seq * (double)n / t_all);
    /* "Any SM" experiments beyond the SM count need a second launch. */
    size_t m = n + n / 2;
    mt_experiment *ea = calloc(m, sizeof *ea);
    mt_result *ra = calloc(m, sizeof *ra);
    if (!ea || !ra)
        exit(2);
    for (size_t i = 0; i < m; i++)
        ea[i] = chase(MT_PATH_GLOBAL_CA, 8 * KIB, 32, 1, 256, MT_MODE_FINE, MT_SCOPE_SM);
    mt_cuda_get_stats(b, &s1);
    if (run(b, ea, m, ra, "any-SM experiments (1.5 x SMs)", NULL) == 0) {
        mt_cuda_get_stats(b, &s2);
        int distinct = 0;
        unsigned char seen[1024] = {0};
        for (size_t i = 0; i < n && i < m; i++)
            if (ra[i].sm_ran >= 0 && ra[i].sm_ran < 1024 && !seen[ra[i].sm_ran]++)
                distinct++;
        printf("any-SM: %llu launches, %llu requeued, first %zu ran on %d distinct SMs\n",
               (unsigned long long)(s2.launches - s1.launches),
               (unsigned long long)(s2.requeued - s1.requeued), n, distinct);
        free_all(ra, m);
    }
    free(ea);
    free(ra);
    free(e);
    free(r);
}

/* ---- 4: refusals ----------------------------------------------------------- */

static void batch_errors(mt_backend *b, const mt_device_info *d)
{
    mt_experiment e = chase(MT_PATH_GLOBAL_CA, 8 * KIB, 32, 1, d->max_fine_loads + 1, MT_MODE_FINE, MT_SCOPE_SM);
    mt_result r;
    mt_errinfo ei = {{0}};
    mt_err rc = mt_backend_run(b, &e, 1, &r, &ei);
    printf("refusal (too many fine loads): %s: %s\n", mt_strerror(rc), ei.msg);
    check(rc == MT_ERR_INVALID_ARG, "too many fine loads refused");
    e = chase(MT_PATH_GLOBAL_CA, 8 * KIB, 32, 1, 64, MT_MODE_FINE, MT_SCOPE_SM);
    e.n_chains = 2;
    e.chain[1] = e.chain[0];
    e.chain[1].stride = 64;
    e.chain[1].thread = 1;
    rc = mt_backend_run(b, &e, 1, &r, &ei);
    printf("refusal (overlapping chains): %s: %s\n", mt_strerror(rc), ei.msg);
    check(rc == MT_ERR_UNSUPPORTED, "overlapping different chains refused");
    /* Interleaved chains that share no word are fine. */
    e.chain[1].stride = 32;
    e.chain[1].offset = 16;
    e.chain[1].footprint = 8 * KIB - 16;
    rc = mt_backend_run(b, &e, 1, &r, &ei);
    check(rc == MT_OK, "interleaved disjoint chains accepted");
    if (rc == MT_OK) {
        print_result("interleaved ca+ca", &e, &r);
        mt_result_free(&r);
    } else {
        printf("  %s\n", ei.msg);
    }
}

/* ---- 5: explicit sequences ---------------------------------------------- */

static mt_experiment sequence(mt_path p, uint64_t footprint, uint32_t stride, const uint32_t *index,
                              uint32_t n, uint32_t untimed, mt_mode mode, mt_scope scope)
{
    mt_experiment e = mt_exp_chase(p, footprint, stride, 0, n - untimed, mode);
    e.kind = MT_KIND_SEQUENCE;
    e.u.seq.index = index;
    e.u.seq.n = n;
    e.u.seq.untimed = untimed;
    e.scope = scope;
    return e;
}

/* list[0..n-1] = laps x (0 .. m-1). */
static uint32_t *laps_list(uint32_t m, uint32_t laps)
{
    uint32_t *v = malloc((size_t)m * laps * sizeof *v);
    if (!v)
        exit(2);
    for (uint32_t l = 0; l < laps; l++)
        for (uint32_t k = 0; k < m; k++)
            v[l * m + k] = k;
    return v;
}

static int near(double a, double b, double abs_tol, double rel_tol)
{
    double d = a > b ? a - b : b - a;
    return d <= abs_tol || d <= rel_tol * (a > b ? a : b);
}

enum {
    Q_C_NONE, Q_S_NONE, Q_C_CA, Q_S_CA, Q_S_REVISIT_CA, Q_S_UNTIMED,
    Q_C_CA_COLD4, Q_S_CA_COLD4, Q_C_CG_COLD, Q_S_CG_COLD,
    Q_S_REVISIT_NC, Q_S_REVISIT_TEX, Q_S_REVISIT_CONST, Q_S_REVISIT_CG,
    Q_C_SHARED, Q_S_SHARED, Q_C_CA_AGG, Q_S_CA_AGG, Q_C_NONE_AGG, Q_S_NONE_AGG, Q_S_SM5,
    Q_C_FILL224, Q_S_FILL224, Q_C_FILL288, Q_S_FILL288,
    Q_COUNT
};

static void batch_sequence(mt_backend *b, const mt_device_info *d)
{
    mt_experiment e[Q_COUNT];
    mt_result r[Q_COUNT];
    const char *name[Q_COUNT];
    mt_cuda_stats s0, s1;
    uint32_t *zeros = calloc(3073, sizeof *zeros); /* the none chain has one element */
    uint32_t *twice16 = laps_list(16, 2);   /* 0..15 0..15 */
    uint32_t *warm256 = laps_list(256, 2);  /* a warm lap, then the measured one */
    uint32_t *seq1024 = laps_list(1024, 1); /* the cold chase's order */
    uint32_t *shared512 = laps_list(128, 4);
    uint32_t *agg = laps_list(256, 13);     /* one untimed lap + 12 timed */
    uint32_t *fill224 = malloc((1792 + 64) * sizeof *fill224);
    uint32_t *fill288 = malloc((2304 + 64) * sizeof *fill288);
    if (!zeros || !fill224 || !fill288)
        exit(2);
    for (uint32_t k = 0; k < 1792 + 64; k++)
        fill224[k] = k < 1792 ? k : k - 1792;
    for (uint32_t k = 0; k < 2304 + 64; k++)
        fill288[k] = k < 2304 ? k : k - 2304;
    const mt_mode F = MT_MODE_FINE, A = MT_MODE_AGGREGATE;
    const mt_scope SM = MT_SCOPE_SM, GPU = MT_SCOPE_GPU;
#define C(id, label, ...) (e[id] = chase(__VA_ARGS__), name[id] = label)
#define S(id, label, ...) (e[id] = sequence(__VA_ARGS__), name[id] = label)
    C(Q_C_NONE, "chase none", MT_PATH_NONE, 4, 4, 1, 512, F, SM);
    S(Q_S_NONE, "seq none", MT_PATH_NONE, 4, 4, zeros, 512, 0, F, SM);
    C(Q_C_CA, "chase ca 8K warm", MT_PATH_GLOBAL_CA, 8 * KIB, 32, 1, 256, F, SM);
    S(Q_S_CA, "seq ca 8K lap+lap", MT_PATH_GLOBAL_CA, 8 * KIB, 32, warm256, 512, 256, F, SM);
    S(Q_S_REVISIT_CA, "seq ca 16 lines twice", MT_PATH_GLOBAL_CA, 8 * KIB, 128, twice16, 32, 0, F,
      SM);
    S(Q_S_UNTIMED, "seq ca 16 untimed+16", MT_PATH_GLOBAL_CA, 8 * KIB, 128, twice16, 32, 16, F, SM);
    C(Q_C_CA_COLD4, "chase ca 4K st4 cold", MT_PATH_GLOBAL_CA, 4 * KIB, 4, 0, 1024, F, SM);
    S(Q_S_CA_COLD4, "seq ca 4K st4 cold", MT_PATH_GLOBAL_CA, 4 * KIB, 4, seq1024, 1024, 0, F, SM);
    C(Q_C_CG_COLD, "chase cg 64M cold", MT_PATH_GLOBAL_CG, 64 * MIB, 4096, 0, 1024, F, GPU);
    S(Q_S_CG_COLD, "seq cg 64M cold", MT_PATH_GLOBAL_CG, 64 * MIB, 4096, seq1024, 1024, 0, F, GPU);
    S(Q_S_REVISIT_NC, "seq nc 16 lines twice", MT_PATH_GLOBAL_NC, 2 * KIB, 128, twice16, 32, 0, F,
      SM);
    S(Q_S_REVISIT_TEX, "seq tex 16 lines twice", MT_PATH_TEXTURE, 2 * KIB, 128, twice16, 32, 0, F,
      SM);
    S(Q_S_REVISIT_CONST, "seq const 16 lines twice", MT_PATH_CONSTANT, 1 * KIB, 64, twice16, 32, 0,
      F, SM);
    S(Q_S_REVISIT_CG, "seq cg 16 lines twice", MT_PATH_GLOBAL_CG, 2 * KIB, 128, twice16, 32, 0, F,
      GPU);
    C(Q_C_SHARED, "chase shared 4K", MT_PATH_SHARED, 4 * KIB, 32, 1, 512, F, SM);
    S(Q_S_SHARED, "seq shared 4K", MT_PATH_SHARED, 4 * KIB, 32, shared512, 512, 0, F, SM);
    C(Q_C_CA_AGG, "chase ca 8K agg", MT_PATH_GLOBAL_CA, 8 * KIB, 32, 1, 3072, A, SM);
    S(Q_S_CA_AGG, "seq ca 8K agg", MT_PATH_GLOBAL_CA, 8 * KIB, 32, agg, 256 * 13, 256, A, SM);
    C(Q_C_NONE_AGG, "chase none agg", MT_PATH_NONE, 4, 4, 1, 3072, A, SM);
    S(Q_S_NONE_AGG, "seq none agg", MT_PATH_NONE, 4, 4, zeros, 3072 + 1, 1, A, SM);
    S(Q_S_SM5, "seq ca on SM 5", MT_PATH_GLOBAL_CA, 8 * KIB, 128, twice16, 32, 16, F, SM);
    e[Q_S_SM5].sm = 5;
    /* The same accesses as a chase's warm lap + first 64 measured loads. */
    C(Q_C_FILL224, "chase ca 224K st128", MT_PATH_GLOBAL_CA, 224 * KIB, 128, 1, 64, F, SM);
    S(Q_S_FILL224, "seq ca 224K fill+64", MT_PATH_GLOBAL_CA, 224 * KIB, 128, fill224, 1792 + 64,
      1792, F, SM);
    C(Q_C_FILL288, "chase ca 288K st128", MT_PATH_GLOBAL_CA, 288 * KIB, 128, 1, 64, F, SM);
    S(Q_S_FILL288, "seq ca 288K fill+64", MT_PATH_GLOBAL_CA, 288 * KIB, 128, fill288, 2304 + 64,
      2304, F, SM);
#undef C
#undef S
    mt_cuda_get_stats(b, &s0);
    if (run(b, e, Q_COUNT, r, "sequences mixed with chases", NULL) == 0) {
        mt_cuda_get_stats(b, &s1);
        for (int i = 0; i < Q_COUNT; i++)
            print_result(name[i], &e[i], &r[i]);
        printf("sequence batch: %llu launches\n", (unsigned long long)(s1.launches - s0.launches));
        check(s1.launches - s0.launches >= 2, "chases and sequences ran in separate launches");

        stats cn = summarize(r[Q_C_NONE].cycles[0], r[Q_C_NONE].n[0]);
        stats sn = summarize(r[Q_S_NONE].cycles[0], r[Q_S_NONE].n[0]);
        check(near(sn.med, cn.med, 1, 0), "sequence fine overhead (none) equals the chase's");
        stats cca = summarize(r[Q_C_CA].cycles[0], r[Q_C_CA].n[0]);
        stats sca = summarize(r[Q_S_CA].cycles[0], r[Q_S_CA].n[0]);
        check(r[Q_S_CA].n[0] == 256, "sequence returns one sample per timed entry");
        check(near(sca.med, cca.med, 2, 0), "sequence = warm chase: same L1 hit latency");
        uint32_t hit = cca.med + MISS_MARGIN_CYCLES;

        const uint32_t *v = r[Q_S_REVISIT_CA].cycles[0];
        stats first = summarize(v, 16), second = summarize(v + 16, 16);
        printf("ca revisit: first visits med %u min %u, second visits med %u max %u\n", first.med,
               first.min, second.med, second.max);
        check(second.max < first.min, "ca: every revisit faster than every first (cold) visit");
        check(second.max <= hit, "ca: revisits are L1 hits");
        stats unt = summarize(r[Q_S_UNTIMED].cycles[0], r[Q_S_UNTIMED].n[0]);
        check(r[Q_S_UNTIMED].n[0] == 16 && unt.max <= hit,
              "untimed prefix honoured: 16 samples, all hits after an untimed fill");
        check(r[Q_S_SM5].sm_ran == 5, "sequence ran on its planned SM 5");

        size_t cm = count_above(r[Q_C_CA_COLD4].cycles[0], r[Q_C_CA_COLD4].n[0], hit);
        size_t sm = count_above(r[Q_S_CA_COLD4].cycles[0], r[Q_S_CA_COLD4].n[0], hit);
        printf("cold ca stride 4: misses chase %zu, sequence %zu of 1024\n", cm, sm);
        check(cm > 0 && near((double)sm, (double)cm, 4, 0.1),
              "cold stride-4 sequence misses like the cold chase");
        stats ccg = summarize(r[Q_C_CG_COLD].cycles[0], r[Q_C_CG_COLD].n[0]);
        stats scg = summarize(r[Q_S_CG_COLD].cycles[0], r[Q_S_CG_COLD].n[0]);
        check(near(scg.med, ccg.med, 10, 0.1), "cold cg (DRAM) sequence = cold cg chase");

        static const int rev[] = {Q_S_REVISIT_NC, Q_S_REVISIT_TEX, Q_S_REVISIT_CONST,
                                  Q_S_REVISIT_CG};
        for (size_t i = 0; i < sizeof rev / sizeof rev[0]; i++) {
            const uint32_t *x = r[rev[i]].cycles[0];
            stats a = summarize(x, 16), c2 = summarize(x + 16, 16);
            char what[96];
            snprintf(what, sizeof what, "%s: revisits faster than first visits", name[rev[i]]);
            printf("%s: first med %u min %u, second med %u max %u\n", name[rev[i]], a.med, a.min,
                   c2.med, c2.max);
            check(c2.med < a.med, what);
        }
        stats csh = summarize(r[Q_C_SHARED].cycles[0], r[Q_C_SHARED].n[0]);
        stats ssh = summarize(r[Q_S_SHARED].cycles[0], r[Q_S_SHARED].n[0]);
        check(near(ssh.med, csh.med, 2, 0), "shared sequence = shared chase latency");

        double c_agg = (double)r[Q_C_CA_AGG].cycles[0][0] / e[Q_C_CA_AGG].loads;
        double s_agg = (double)r[Q_S_CA_AGG].cycles[0][0] / e[Q_S_CA_AGG].loads;
        double c_none = (double)r[Q_C_NONE_AGG].cycles[0][0] / e[Q_C_NONE_AGG].loads;
        double s_none = (double)r[Q_S_NONE_AGG].cycles[0][0] / e[Q_S_NONE_AGG].loads;
        printf("aggregate per load: chase ca %.2f none %.2f; sequence ca %.2f none %.2f\n", c_agg,
               c_none, s_agg, s_none);
        check(near(s_agg - s_none, c_agg - c_none, 3, 0.1),
              "aggregate sequence minus its overhead = aggregate chase minus its overhead");

        static const int fill[][2] = {{Q_C_FILL224, Q_S_FILL224}, {Q_C_FILL288, Q_S_FILL288}};
        for (int i = 0; i < 2; i++) {
            size_t mc = count_above(r[fill[i][0]].cycles[0], 64, hit);
            size_t ms = count_above(r[fill[i][1]].cycles[0], 64, hit);
            char what[96];
            printf("%s / %s: misses in the first 64 revisits: chase %zu, sequence %zu\n",
                   name[fill[i][0]], name[fill[i][1]], mc, ms);
            snprintf(what, sizeof what, "L1 after a %s fill: sequence sees the chase's L1",
                     i ? "288 KiB" : "224 KiB");
            check(near((double)ms, (double)mc, 6, 0), what);
        }
        free_all(r, Q_COUNT);
    }

    /* Refusals. */
    mt_experiment x = sequence(MT_PATH_GLOBAL_CA, 8 * KIB, 32, warm256, 16, 0, F, SM);
    mt_result rr;
    mt_errinfo ei = {{0}};
    static const mt_exp_kind later[] = {MT_KIND_STREAM, MT_KIND_BANKS, MT_KIND_CLUSTER};
    for (size_t i = 0; i < 3; i++) {
        mt_experiment y = mt_exp_chase(MT_PATH_GLOBAL_CA, 8 * KIB, 32, 1, 16, F);
        y.kind = later[i];
        mt_err rc = mt_backend_run(b, &y, 1, &rr, &ei);
        printf("refusal (%s kind): %s: %s\n", mt_kind_name(later[i]), mt_strerror(rc), ei.msg);
        check(rc == MT_ERR_UNSUPPORTED, "unimplemented kind refused (MT_ERR_UNSUPPORTED)");
        memset(&rr, 0, sizeof rr);
        rc = b->ops->run_batch(b, &y, 1, &rr, &ei);
        check(rc == MT_ERR_UNSUPPORTED && strstr(ei.msg, "not implemented by the cuda backend"),
              "the backend itself refuses an unimplemented kind");
    }
    uint32_t *big = calloc((size_t)d->max_sequence + 1, sizeof *big);
    if (!big)
        exit(2);
    x = sequence(MT_PATH_GLOBAL_CA, 8 * KIB, 32, big, d->max_sequence + 1, 100, F, SM);
    mt_err rc = mt_backend_run(b, &x, 1, &rr, &ei);
    printf("refusal (sequence of %u): %s: %s\n", d->max_sequence + 1, mt_strerror(rc), ei.msg);
    check(rc == MT_ERR_INVALID_ARG, "sequence longer than max_sequence refused");
    x = sequence(MT_PATH_GLOBAL_CA, 8 * KIB, 32, big, d->max_sequence, 0, A, SM);
    rc = mt_backend_run(b, &x, 1, &rr, &ei);
    check(rc == MT_OK, "sequence of exactly max_sequence entries runs (aggregate)");
    if (rc == MT_OK)
        mt_result_free(&rr);
    x = sequence(MT_PATH_GLOBAL_CA, 8 * KIB, 32, big, d->max_sequence, d->max_sequence - 64, F,
                 SM);
    rc = mt_backend_run(b, &x, 1, &rr, &ei);
    check(rc == MT_OK && rr.n[0] == 64, "sequence of max_sequence entries runs (fine)");
    if (rc == MT_OK)
        mt_result_free(&rr);
    big[7] = 256; /* the chain has 256 elements */
    x = sequence(MT_PATH_GLOBAL_CA, 8 * KIB, 32, big, 16, 0, F, SM);
    rc = mt_backend_run(b, &x, 1, &rr, &ei);
    check(rc == MT_ERR_INVALID_ARG, "sequence index outside the chain refused");
    free(big);
    free(zeros);
    free(twice16);
    free(warm256);
    free(seq1024);
    free(shared512);
    free(agg);
    free(fill224);
    free(fill288);
}

/* ---- 6: watchdogs (last: the host-side one leaves the backend unusable) -- */

static void batch_watchdog(mt_backend *b)
{
    mt_result r;
    mt_errinfo ei = {{0}};
    /* Kernel-side deadline: ~1.6e10 warm-up loads at L2 latency would take
     * minutes; with a 2 s watchdog the kernel stops itself after ~1 s. */
    mt_experiment e = chase(MT_PATH_GLOBAL_CG, 1 * MIB, 128, 2000000, 64, MT_MODE_FINE, MT_SCOPE_GPU);
    mt_cuda_set_watchdog(b, 2.0);
    double t0 = now_s();
    mt_err rc = mt_backend_run(b, &e, 1, &r, &ei);
    printf("kernel deadline: %s after %.2f s: %s\n", mt_strerror(rc), now_s() - t0, ei.msg);
    check(rc == MT_ERR_TIMEOUT, "runaway warm-up stopped by the kernel's own deadline");
    e = chase(MT_PATH_GLOBAL_CA, 8 * KIB, 32, 1, 64, MT_MODE_FINE, MT_SCOPE_SM);
    rc = mt_backend_run(b, &e, 1, &r, &ei);
    check(rc == MT_OK, "backend usable after a kernel-side timeout");
    if (rc == MT_OK)
        mt_result_free(&r);
    /* Host-side watchdog: 2e7 measured loads at L2 latency (~3 s) are not
     * bounded by the kernel; a 1 s watchdog fires first. */
    e = chase(MT_PATH_GLOBAL_CG, 1 * MIB, 128, 0, 20000000, MT_MODE_AGGREGATE, MT_SCOPE_GPU);
    mt_cuda_set_watchdog(b, 1.0);
    t0 = now_s();
    rc = mt_backend_run(b, &e, 1, &r, &ei);
    printf("host watchdog: %s after %.2f s: %s\n", mt_strerror(rc), now_s() - t0, ei.msg);
    check(rc == MT_ERR_TIMEOUT, "runaway measured loop stopped by the host watchdog");
    e = chase(MT_PATH_GLOBAL_CA, 8 * KIB, 32, 1, 64, MT_MODE_FINE, MT_SCOPE_SM);
    rc = mt_backend_run(b, &e, 1, &r, &ei);
    printf("after host timeout: %s: %s\n", mt_strerror(rc), ei.msg);
    check(rc == MT_ERR_TIMEOUT, "backend refuses work after a host-side timeout");
}

/* The stream kernel's round path (kernels_stream.cu): an L1 read of 32 KiB
 * per SM by 1024 threads, 4-byte loads, 8 in flight (one round a repeat)
 * at R, 2R and 4R repeats.  Loads hoisted out of the repeat loop (what
 * ptxas did to session 8's fixed-round loop) would leave the cycles flat
 * and the rate far above the L1's 128 B per cycle per SM. */
static void batch_stream_round(mt_backend *b, const mt_device_info *d)
{
    enum { N = 3 };
    const uint32_t R = 256, share = 32 * KIB;
    mt_experiment e[N];
    mt_result r[N];
    for (int i = 0; i < N; i++)
        e[i] = mt_exp_stream(MT_STREAM_READ, MT_PATH_GLOBAL_CA, (uint32_t)d->sm_count, 1024, 4, 8,
                             (uint64_t)share * (uint32_t)d->sm_count, R << i, 0);
    memset(r, 0, sizeof r);
    if (run(b, e, N, r, "stream round kernel (L1 read)", NULL) != 0)
        return;
    double c[N];
    for (int i = 0; i < N; i++) {
        c[i] = r[i].cycles[0][0];
        printf("stream round: %u repeats, %.0f cycles (slowest block), %.1f B/clk/SM\n", R << i,
               c[i], (double)share * (R << i) / c[i]);
    }
    /* Each doubling adds at least 80% of the cycles (a fixed launch cost
     * makes it less than 100%). */
    check(c[1] - c[0] >= 0.8 * c[0] && c[2] - c[1] >= 0.8 * c[1],
          "stream round kernel: cycles grow with the repeats (no load hoisted)");
    double rate = (double)share * (4 * R - 2 * R) / (c[2] - c[1]);
    check(rate > 0 && rate <= 128 * 1.05, "stream round kernel: at most the L1's 128 B/clk/SM");
    for (int i = 0; i < N; i++)
        mt_result_free(&r[i]);
}

int main(int argc, char **argv)
{
    int dev = argc > 1 ? atoi(argv[1]) : 0;
    mt_backend *b = NULL;
    mt_errinfo ei = {{0}};
    mt_device_info d;
    double t0 = now_s();
    mt_err rc = mt_backend_cuda_open(dev, &b, &ei);
    if (rc != MT_OK) {
        printf("open failed: %s: %s\n", mt_strerror(rc), ei.msg);
        return 3;
    }
    printf("# open %.3f s\n", now_s() - t0);
    if ((rc = mt_backend_info(b, &d, &ei)) != MT_OK) {
        printf("info failed: %s\n", ei.msg);
        mt_backend_destroy(b);
        return 3;
    }
    print_info(&d);
    {
        mt_cuda_stats c;
        mt_cuda_get_stats(b, &c);
        static const char *const kname[MT_CUDA_KERNELS] = {"A", "B", "SEQ_A", "SEQ_B", "WIDE"};
        for (int k = 0; k < MT_CUDA_KERNELS; k++)
            printf("kernel %-5s: static smem %u, dynamic %u, regs %d\n", kname[k],
                   c.static_smem[k], c.dyn_smem[k], c.regs[k]);
        printf("reserved smem/block %u; blocks/SM (occupancy, 32 threads): A %d, SEQ_A %d\n",
               c.reserved_smem, c.blocks_per_sm_a, c.blocks_per_sm_seq_a);
        check(c.blocks_per_sm_a == 1, "kernel A fits one block per SM (16 KiB carveout in effect)");
        check(c.blocks_per_sm_seq_a == 1, "kernel SEQ_A fits one block per SM (same carveout)");
        check(c.static_smem[MT_CUDA_KERNEL_SEQ_A] + c.dyn_smem[MT_CUDA_KERNEL_SEQ_A] ==
                  c.static_smem[MT_CUDA_KERNEL_A] + c.dyn_smem[MT_CUDA_KERNEL_A],
              "sequence kernel has the chase kernel's shared memory per block (same L1 size)");
        check(d.max_sequence > 0 && d.concurrent_experiments == d.sm_count,
              "sequence limit and concurrency announced");
    }
    batch_representative(b);
    if (!(argc > 2 && strcmp(argv[2], "quick") == 0)) {
        batch_l1_sweep(b, &d);
        batch_placement(b, &d);
        batch_errors(b, &d);
        batch_stream_round(b, &d);
    }
    batch_sequence(b, &d);
    if (!(argc > 2 && strcmp(argv[2], "quick") == 0))
        batch_watchdog(b);
    mt_cuda_stats st;
    mt_cuda_get_stats(b, &st);
    printf("stats: %llu launches, %llu requeued, %llu L2 flushes, %llu constant uploads\n",
           (unsigned long long)st.launches, (unsigned long long)st.requeued,
           (unsigned long long)st.l2_flushes, (unsigned long long)st.const_uploads);
    mt_backend_destroy(b);
    printf("%s: %d failure(s), total %.2f s\n", failures ? "FAILED" : "PASSED", failures,
           now_s() - t0);
    return failures ? 1 : 0;
}

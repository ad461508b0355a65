/* Self-test of the cuda backend on a real GPU: prints the device info, then
 * runs representative experiments of every path and the checks the backend
 * must pass (placement on planned SMs, warm-up really warms, cold chains
 * miss, chain end positions verified inside the backend).
 *
 *   build/cuda_selftest [device] [quick]
 *
 * "quick" runs only the representative batch (for compute-sanitizer).
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

static mt_experiment exp1(mt_path p, uint64_t footprint, uint32_t stride, uint32_t warm,
                          uint32_t loads, mt_mode mode, int exclusive)
{
    mt_experiment e;
    memset(&e, 0, sizeof e);
    e.n_chains = 1;
    e.chain[0].path = p;
    e.chain[0].footprint = footprint;
    e.chain[0].stride = stride;
    e.order = MT_ORDER_SEQUENTIAL;
    e.warmup_laps = warm;
    e.loads = loads;
    e.mode = mode;
    e.sm = -1;
    e.exclusive = exclusive;
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
#define E(id, label, ...) (e[id] = exp1(__VA_ARGS__), name[id] = label)
    E(X_NONE_F, "none", MT_PATH_NONE, 4, 4, 1, 512, MT_MODE_FINE, 0);
    E(X_NONE_A, "none", MT_PATH_NONE, 4, 4, 1, 4096, MT_MODE_AGGREGATE, 0);
    E(X_CA_F, "ca 8K warm", MT_PATH_GLOBAL_CA, 8 * KIB, 32, 1, 256, MT_MODE_FINE, 0);
    E(X_CA_A, "ca 8K warm", MT_PATH_GLOBAL_CA, 8 * KIB, 32, 1, 4096, MT_MODE_AGGREGATE, 0);
    E(X_NC_F, "nc 8K warm", MT_PATH_GLOBAL_NC, 8 * KIB, 32, 1, 256, MT_MODE_FINE, 0);
    E(X_NC_A, "nc 8K warm", MT_PATH_GLOBAL_NC, 8 * KIB, 32, 1, 4096, MT_MODE_AGGREGATE, 0);
    E(X_TEX_F, "tex 8K warm", MT_PATH_TEXTURE, 8 * KIB, 32, 1, 256, MT_MODE_FINE, 0);
    E(X_TEX_A, "tex 8K warm", MT_PATH_TEXTURE, 8 * KIB, 32, 1, 4096, MT_MODE_AGGREGATE, 0);
    E(X_CA_L2_F, "ca 1M warm (L1 miss)", MT_PATH_GLOBAL_CA, 1 * MIB, 128, 1, 2048, MT_MODE_FINE, 1);
    E(X_CA_L2_A, "ca 1M warm (L1 miss)", MT_PATH_GLOBAL_CA, 1 * MIB, 128, 1, 4096,
      MT_MODE_AGGREGATE, 1);
    E(X_CG_WARM_F, "cg 1M warm (L2)", MT_PATH_GLOBAL_CG, 1 * MIB, 128, 1, 2048, MT_MODE_FINE, 1);
    E(X_CG_COLD_F, "cg 64M cold (DRAM)", MT_PATH_GLOBAL_CG, 64 * MIB, 4096, 0, 1024, MT_MODE_FINE,
      1);
    E(X_CG_COLD_A, "cg 64M cold (DRAM)", MT_PATH_GLOBAL_CG, 64 * MIB, 4096, 0, 1024,
      MT_MODE_AGGREGATE, 1);
    E(X_CONST1_F, "const 1K warm", MT_PATH_CONSTANT, 1 * KIB, 64, 1, 512, MT_MODE_FINE, 0);
    E(X_CONST32_F, "const 32K warm", MT_PATH_CONSTANT, 32 * KIB, 64, 1, 512, MT_MODE_FINE, 0);
    E(X_CONST1_A, "const 1K warm", MT_PATH_CONSTANT, 1 * KIB, 64, 1, 4096, MT_MODE_AGGREGATE, 0);
    E(X_SHARED_F, "shared 4K", MT_PATH_SHARED, 4 * KIB, 32, 1, 512, MT_MODE_FINE, 0);
    E(X_SHARED_A, "shared 4K", MT_PATH_SHARED, 4 * KIB, 32, 1, 4096, MT_MODE_AGGREGATE, 0);
    E(X_CA160_F, "ca 160K alone", MT_PATH_GLOBAL_CA, 160 * KIB, 128, 1, 1280, MT_MODE_FINE, 0);
    E(X_TEX160_F, "tex 160K alone", MT_PATH_TEXTURE, 160 * KIB, 128, 1, 1280, MT_MODE_FINE, 0);
    /* Sharing test: ca by thread 0 and tex by thread 32, 160 KiB each; if
     * the two share one 240 KiB cache, chain 0 misses after chain 1 warms. */
    E(X_SHARE2_F, "share ca+tex 160K", MT_PATH_GLOBAL_CA, 160 * KIB, 128, 1, 1280, MT_MODE_FINE, 0);
    e[X_SHARE2_F].n_chains = 2;
    e[X_SHARE2_F].chain[1] = e[X_SHARE2_F].chain[0];
    e[X_SHARE2_F].chain[1].path = MT_PATH_TEXTURE;
    e[X_SHARE2_F].chain[1].thread = 32;
    e[X_SHARE2_F].chain[1].offset = 160 * KIB; /* global paths share one buffer: keep apart */
    E(X_CA_COLD4_F, "ca 4K stride 4 cold", MT_PATH_GLOBAL_CA, 4 * KIB, 4, 0, 1024, MT_MODE_FINE, 0);
    E(X_WARM64_F, "ca 64K st32 warm 1 lap", MT_PATH_GLOBAL_CA, 64 * KIB, 32, 1, 3456, MT_MODE_FINE,
      0);
    E(X_CA_RAND_F, "ca 8K random warm", MT_PATH_GLOBAL_CA, 8 * KIB, 32, 1, 256, MT_MODE_FINE, 0);
    e[X_CA_RAND_F].order = MT_ORDER_RANDOM;
    e[X_CA_RAND_F].order_seed = 7;
    E(X_NC_COLD4_F, "nc 4K stride 4 cold", MT_PATH_GLOBAL_NC, 4 * KIB, 4, 0, 512, MT_MODE_FINE, 0);
    E(X_TEX_COLD4_F, "tex 4K stride 4 cold", MT_PATH_TEXTURE, 4 * KIB, 4, 0, 512, MT_MODE_FINE, 0);
    E(X_CONST_COLD4_F, "const 2K stride 4 cold", MT_PATH_CONSTANT, 2 * KIB, 4, 0, 512, MT_MODE_FINE,
      0);
    /* Two shared-memory chains (kernel B), disjoint offsets, two threads. */
    E(X_SHARED2_F, "shared x2 (thread 0, 1)", MT_PATH_SHARED, 4 * KIB, 32, 1, 256, MT_MODE_FINE, 0);
    e[X_SHARED2_F].n_chains = 2;
    e[X_SHARED2_F].chain[1] = e[X_SHARED2_F].chain[0];
    e[X_SHARED2_F].chain[1].thread = 1;
    e[X_SHARED2_F].chain[1].offset = 16 * KIB;
    E(X_EXCL_SM7_A, "exclusive on SM 7", MT_PATH_GLOBAL_CG, 1 * MIB, 128, 1, 4096,
      MT_MODE_AGGREGATE, 1);
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
    check(r[X_EXCL_SM7_A].sm_ran == 7, "exclusive experiment ran on its planned SM 7");
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
            e[p * NFP + i] = exp1(p ? MT_PATH_TEXTURE : MT_PATH_GLOBAL_CA, fp, 128, 1,
                                  (uint32_t)(fp / 128), MT_MODE_FINE, 0);
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
        e[i] = exp1(MT_PATH_GLOBAL_CA, 8 * KIB, 32, 1, 1024, MT_MODE_AGGREGATE, 0);
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
        ea[i] = exp1(MT_PATH_GLOBAL_CA, 8 * KIB, 32, 1, 256, MT_MODE_FINE, 0);
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
    mt_experiment e = exp1(MT_PATH_GLOBAL_CA, 8 * KIB, 32, 1, d->max_fine_loads + 1, MT_MODE_FINE, 0);
    mt_result r;
    mt_errinfo ei = {{0}};
    mt_err rc = mt_backend_run(b, &e, 1, &r, &ei);
    printf("refusal (too many fine loads): %s: %s\n", mt_strerror(rc), ei.msg);
    check(rc == MT_ERR_INVALID_ARG, "too many fine loads refused");
    e = exp1(MT_PATH_GLOBAL_CA, 8 * KIB, 32, 1, 64, MT_MODE_FINE, 0);
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

/* ---- 5: watchdogs (last: the host-side one leaves the backend unusable) -- */

static void batch_watchdog(mt_backend *b)
{
    mt_result r;
    mt_errinfo ei = {{0}};
    /* Kernel-side deadline: ~1.6e10 warm-up loads at L2 latency would take
     * minutes; with a 2 s watchdog the kernel stops itself after ~1 s. */
    mt_experiment e = exp1(MT_PATH_GLOBAL_CG, 1 * MIB, 128, 2000000, 64, MT_MODE_FINE, 1);
    mt_cuda_set_watchdog(b, 2.0);
    double t0 = now_s();
    mt_err rc = mt_backend_run(b, &e, 1, &r, &ei);
    printf("kernel deadline: %s after %.2f s: %s\n", mt_strerror(rc), now_s() - t0, ei.msg);
    check(rc == MT_ERR_TIMEOUT, "runaway warm-up stopped by the kernel's own deadline");
    e = exp1(MT_PATH_GLOBAL_CA, 8 * KIB, 32, 1, 64, MT_MODE_FINE, 0);
    rc = mt_backend_run(b, &e, 1, &r, &ei);
    check(rc == MT_OK, "backend usable after a kernel-side timeout");
    if (rc == MT_OK)
        mt_result_free(&r);
    /* Host-side watchdog: 2e7 measured loads at L2 latency (~3 s) are not
     * bounded by the kernel; a 1 s watchdog fires first. */
    e = exp1(MT_PATH_GLOBAL_CG, 1 * MIB, 128, 0, 20000000, MT_MODE_AGGREGATE, 1);
    mt_cuda_set_watchdog(b, 1.0);
    t0 = now_s();
    rc = mt_backend_run(b, &e, 1, &r, &ei);
    printf("host watchdog: %s after %.2f s: %s\n", mt_strerror(rc), now_s() - t0, ei.msg);
    check(rc == MT_ERR_TIMEOUT, "runaway measured loop stopped by the host watchdog");
    e = exp1(MT_PATH_GLOBAL_CA, 8 * KIB, 32, 1, 64, MT_MODE_FINE, 0);
    rc = mt_backend_run(b, &e, 1, &r, &ei);
    printf("after host timeout: %s: %s\n", mt_strerror(rc), ei.msg);
    check(rc == MT_ERR_TIMEOUT, "backend refuses work after a host-side timeout");
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
        printf("kernel A: static smem %u, dynamic %u, reserved/block %u, regs %d, blocks/SM "
               "(occupancy, 32 threads) %d; kernel B: static %u, dynamic %u, regs %d\n",
               c.static_smem[0], c.dyn_smem[0], c.reserved_smem, c.regs[0], c.blocks_per_sm_a,
               c.static_smem[1], c.dyn_smem[1], c.regs[1]);
        check(c.blocks_per_sm_a == 1, "kernel A fits one block per SM (16 KiB carveout in effect)");
    }
    batch_representative(b);
    if (!(argc > 2 && strcmp(argv[2], "quick") == 0)) {
        batch_l1_sweep(b, &d);
        batch_placement(b, &d);
        batch_errors(b, &d);
    }
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

/* The cuda backend's pure host logic, without a GPU: launch configuration
 * and limits (limits.c), buffer layout, constant image, sequence deltas,
 * launch descriptors and result collection (layout.c), and which
 * experiments share a launch (schedule.c).  The sequence deltas are checked
 * by running a host model of the kernel's address arithmetic over a host
 * copy of the element array, so a wrong delta, a wrong expected value or a
 * sign-extension bug in the global path's address formation fails here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backend/backend.h"
#include "backend/chain.h"
#include "cuda/kernel_abi.h"
#include "cuda/layout.h"
#include "cuda/limits.h"
#include "cuda/schedule.h"

#define KIB 1024ull
#define MIB (1024ull * 1024ull)
#define GIB (1024ull * MIB)

/* ---- fixtures --------------------------------------------------------------- */

/* What an H100 SXM5 reports (cc 9.0, 228 KiB shared per SM, 227 KiB
 * opt-in, 1 KiB reserved per block), with sm_90 cubins listing 1 KiB of
 * static shared memory per kernel. */
static mtc_device_facts h100_facts(void)
{
    mtc_device_facts f;
    memset(&f, 0, sizeof f);
    f.cc_major = 9;
    f.cc_minor = 0;
    f.smem_per_sm = 233472;
    f.smem_optin = 232448;
    f.reserved_smem = 1024;
    f.tex1d_linear = 1 << 27;
    f.max_threads_per_block = 1024;
    f.free_bytes = 80 * GIB;
    for (int k = 0; k < MTK_KERNEL_COUNT; k++)
        f.static_smem[k] = 1024;
    return f;
}

static mt_device_info dev_info(int nsm)
{
    mtc_device_facts f = h100_facts();
    mtc_launch_config cfg;
    mt_errinfo ei = {{0}};
    if (mtc_plan_config(&f, &cfg, &ei))
        fail_msg("%s", ei.msg);
    mt_device_info d;
    memset(&d, 0, sizeof d);
    d.sm_count = nsm;
    for (int p = 0; p < MT_NUM_PATHS; p++)
        d.path_limit_bytes[p] = cfg.path_limit[p];
    d.max_fine_loads = cfg.max_fine_loads;
    d.max_threads_per_experiment = cfg.max_threads_per_experiment;
    d.concurrent_experiments = nsm;
    d.max_sequence = cfg.max_sequence;
    return d;
}

static mt_experiment seq_exp(mt_path p, uint64_t footprint, uint32_t stride, const uint32_t *index,
                             uint32_t n, uint32_t untimed, mt_mode mode)
{
    mt_experiment e = mt_exp_chase(p, footprint, stride, 0, n - untimed, mode);
    e.kind = MT_KIND_SEQUENCE;
    e.u.seq.index = index;
    e.u.seq.n = n;
    e.u.seq.untimed = untimed;
    return e;
}

/* Host arrays for one launch plan of up to `n` experiments. */
typedef struct {
    mtc_launch_plan p;
    mtk_desc descs[16];
    mtk_build build[32];
    uint32_t succ[4096];
    int32_t seq[4096];
    int32_t plan[MTK_MAX_SMID];
    int32_t any[16];
    uint32_t expect[32];
    uint64_t tex_base[16], tex_bytes[16];
    uint32_t const_succ[MTK_CONST_WORDS];
} plan_bufs;

#define D_ARENA 0x7f0000000000ull
#define D_SUCC 0x7e0000000000ull
#define D_SEQ 0x7d0000000000ull

static void plan_init(plan_bufs *b)
{
    memset(b, 0, sizeof *b);
    b->p.d_arena = D_ARENA;
    b->p.d_succ = D_SUCC;
    b->p.d_seq = D_SEQ;
    b->p.descs = b->descs;
    b->p.build = b->build;
    b->p.succ = b->succ;
    b->p.seq = b->seq;
    b->p.plan = b->plan;
    b->p.any = b->any;
    b->p.expect = b->expect;
    b->p.tex_base = b->tex_base;
    b->p.tex_bytes = b->tex_bytes;
    b->p.const_succ = b->const_succ;
    b->p.tex_limit = 512 * MIB;
}

static void plan_all(plan_bufs *b, const mt_experiment *e, size_t n)
{
    size_t idx[16];
    mt_errinfo ei = {{0}};
    assert_true(n <= 16);
    for (size_t k = 0; k < n; k++)
        idx[k] = k;
    if (mtc_plan_launch(e, idx, n, &b->p, &ei))
        fail_msg("%s", ei.msg);
}

/* ---- limits.c ------------------------------------------------------------------ */

static void test_limits_h100(void **state)
{
    (void)state;
    mtc_device_facts f = h100_facts();
    mtc_launch_config c;
    mt_errinfo ei = {{0}};
    assert_int_equal(mtc_plan_config(&f, &c, &ei), MT_OK);
    /* Kernel A and SEQ_A: exactly 16 KiB per block with reserve and static. */
    assert_int_equal(c.dyn_smem[MTK_KERNEL_A], 16384 - 1024 - 1024);
    assert_int_equal(c.dyn_smem[MTK_KERNEL_SEQ_A], c.dyn_smem[MTK_KERNEL_A]);
    /* 16384 * 100 / 233472 = 7.01 -> 7 %: the driver rounds up to 16 KiB. */
    assert_int_equal(c.carveout_percent[MTK_KERNEL_A], 7);
    assert_int_equal(c.carveout_percent[MTK_KERNEL_SEQ_A], 7);
    assert_int_equal(c.carveout_smem_bytes, 16 * 1024);
    /* B and SEQ_B: all of the opt-in. */
    assert_int_equal(c.dyn_smem[MTK_KERNEL_B], 232448 - 1024);
    assert_int_equal(c.carveout_percent[MTK_KERNEL_B], 100);
    assert_int_equal(c.carveout_percent[MTK_KERNEL_SEQ_B], 100);
    /* Global: 80 GiB free / 4 capped at 4 GiB. */
    assert_int_equal(c.path_limit[MT_PATH_GLOBAL_CA], 4 * GIB);
    assert_int_equal(c.path_limit[MT_PATH_GLOBAL_CG], 4 * GIB);
    assert_int_equal(c.path_limit[MT_PATH_TEXTURE], 512 * MIB); /* 2^27 texels of 4 bytes */
    assert_int_equal(c.path_limit[MT_PATH_CONSTANT], 64 * KIB);
    assert_int_equal(c.path_limit[MT_PATH_SHARED], (232448 - 1024 - MTK_SMEM_CHAIN) / 1024 * 1024);
    assert_int_equal(c.path_limit[MT_PATH_NONE], 0);
    assert_int_equal(c.max_fine_loads, MTK_FINE_MAX);
    assert_int_equal(c.max_sequence, MTK_SEQ_MAX);
    assert_int_equal(c.max_threads_per_experiment, 1024);
    assert_int_equal(c.arena_max, 2 * 4 * GIB + 2 * MTC_BIG_ALIGN);
}

static void test_limits_small_memory_and_unknown_arch(void **state)
{
    (void)state;
    mtc_device_facts f = h100_facts();
    mtc_launch_config c;
    mt_errinfo ei = {{0}};
    f.cc_major = 12; /* no carveout table */
    f.free_bytes = 6 * GIB + 123;
    f.tex1d_linear = 1 << 20;
    f.max_threads_per_block = 512;
    assert_int_equal(mtc_plan_config(&f, &c, &ei), MT_OK);
    assert_int_equal(c.carveout_smem_bytes, 0);
    assert_int_equal(c.path_limit[MT_PATH_GLOBAL_CA], 1536 * MIB); /* 6 GiB / 4, MiB granular */
    assert_int_equal(c.path_limit[MT_PATH_TEXTURE], 4 * MIB);
    assert_int_equal(c.max_threads_per_experiment, 512);
}

static void test_limits_refuse_and_shrink(void **state)
{
    (void)state;
    mt_errinfo ei = {{0}};
    mtc_launch_config c;
    /* Kernel A's static shared memory leaves no room for the samples. */
    mtc_device_facts f = h100_facts();
    f.static_smem[MTK_KERNEL_A] = 3000;
    assert_int_equal(mtc_plan_config(&f, &c, &ei), MT_ERR_UNSUPPORTED_DEVICE);
    assert_non_null(strstr(ei.msg, "shared memory"));
    /* Too little opt-in shared memory for the shared-path kernel. */
    f = h100_facts();
    f.smem_optin = (int)MTK_SMEM_CHAIN + 512;
    assert_int_equal(mtc_plan_config(&f, &c, &ei), MT_ERR_UNSUPPORTED_DEVICE);
    /* SEQ_A with exactly the samples area: the list loses the over-read. */
    f = h100_facts();
    f.static_smem[MTK_KERNEL_SEQ_A] = 16384 - 1024 - MTK_SMEM_CHAIN;
    assert_int_equal(mtc_plan_config(&f, &c, &ei), MT_OK);
    assert_int_equal(c.dyn_smem[MTK_KERNEL_SEQ_A], MTK_SMEM_CHAIN);
    assert_int_equal(c.max_sequence, MTK_FINE_MAX - MTK_SEQ_OVERREAD_WORDS);
}

static void test_carveout_tables(void **state)
{
    (void)state;
    size_t n = 0;
    const uint32_t *t = mtc_carveout_table(9, 0, &n);
    assert_non_null(t);
    assert_int_equal(n, 10);
    assert_int_equal(t[n - 1], 228);
    for (size_t i = 1; i < n; i++)
        assert_true(t[i] > t[i - 1]);
    t = mtc_carveout_table(8, 6, &n);
    assert_int_equal(t[n - 1], 100);
    assert_null(mtc_carveout_table(7, 0, &n));
    assert_int_equal(n, 0);
}

/* ---- layout.c: buffers ------------------------------------------------------- */

static void test_kernel_choice(void **state)
{
    (void)state;
    uint32_t idx[1] = {0};
    mt_experiment e = mt_exp_chase(MT_PATH_GLOBAL_CA, 4 * KIB, 64, 1, 16, MT_MODE_FINE);
    assert_int_equal(mtc_kernel_of(&e), MTK_KERNEL_A);
    e.n_chains = 2;
    e.chain[1] = e.chain[0];
    e.chain[1].path = MT_PATH_SHARED;
    assert_int_equal(mtc_kernel_of(&e), MTK_KERNEL_B);
    e = seq_exp(MT_PATH_TEXTURE, 4 * KIB, 64, idx, 1, 0, MT_MODE_FINE);
    assert_int_equal(mtc_kernel_of(&e), MTK_KERNEL_SEQ_A);
    e.order = MT_ORDER_RANDOM; /* ignored by sequences */
    assert_int_equal(mtc_layout_order(&e), MT_ORDER_SEQUENTIAL);
    e.chain[0].path = MT_PATH_SHARED;
    assert_int_equal(mtc_kernel_of(&e), MTK_KERNEL_SEQ_B);
}

static void test_place_buffers_alignment(void **state)
{
    (void)state;
    uint64_t base[MTC_BUF_COUNT];
    /* Small global buffer: 64 KiB aligned; no shared buffer. */
    mt_experiment a = mt_exp_chase(MT_PATH_GLOBAL_CA, 8 * KIB, 32, 1, 16, MT_MODE_FINE);
    uint64_t end = mtc_place_buffers(&a, 100, base);
    assert_int_equal(base[MTC_BUF_GLOBAL], 64 * KIB);
    assert_int_equal(base[MTC_BUF_SHARED], UINT64_MAX);
    assert_int_equal(end, 72 * KIB);
    /* A 1 MiB buffer: 2 MiB aligned. */
    mt_experiment b = mt_exp_chase(MT_PATH_GLOBAL_CG, 1 * MIB, 128, 1, 16, MT_MODE_FINE);
    end = mtc_place_buffers(&b, end, base);
    assert_int_equal(base[MTC_BUF_GLOBAL], 2 * MIB);
    assert_int_equal(end, 3 * MIB);
    /* Two classes in one experiment; the span is offset + elements * stride. */
    mt_experiment c = mt_exp_chase(MT_PATH_TEXTURE, 4 * KIB, 64, 1, 16, MT_MODE_FINE);
    c.n_chains = 2;
    c.chain[0].offset = 16 * KIB;
    c.chain[1] = c.chain[0];
    c.chain[1].path = MT_PATH_SHARED;
    c.chain[1].offset = 0;
    assert_int_equal(mtc_class_span(&c, MTC_BUF_GLOBAL), 20 * KIB);
    assert_int_equal(mtc_class_span(&c, MTC_BUF_SHARED), 4 * KIB);
    end = mtc_place_buffers(&c, 3 * MIB + 1, base);
    assert_int_equal(base[MTC_BUF_GLOBAL], 3 * MIB + 64 * KIB);
    assert_int_equal(base[MTC_BUF_SHARED], 3 * MIB + 128 * KIB);
    assert_int_equal(end, 3 * MIB + 132 * KIB);
}

static void test_overlap_rules(void **state)
{
    (void)state;
    mt_errinfo ei = {{0}};
    mt_experiment e = mt_exp_chase(MT_PATH_GLOBAL_CA, 8 * KIB, 32, 1, 64, MT_MODE_FINE);
    e.n_chains = 2;
    e.chain[1] = e.chain[0];
    e.chain[1].thread = 1;
    /* Same data twice: fine (one chain, two readers). */
    assert_int_equal(mtc_check_overlap(&e, &ei), MT_OK);
    /* Same buffer, different stride over the same words: refused. */
    e.chain[1].stride = 64;
    assert_int_equal(mtc_check_overlap(&e, &ei), MT_ERR_UNSUPPORTED);
    assert_non_null(strstr(ei.msg, "share the word"));
    /* Interleaved, no word in common: fine. */
    e.chain[1].stride = 32;
    e.chain[1].offset = 16;
    e.chain[1].footprint = 8 * KIB - 16;
    assert_int_equal(mtc_check_overlap(&e, &ei), MT_OK);
    /* Texture and ca share the global buffer: overlap refused too. */
    e.chain[1] = e.chain[0];
    e.chain[1].path = MT_PATH_TEXTURE;
    e.chain[1].stride = 64;
    assert_int_equal(mtc_check_overlap(&e, &ei), MT_ERR_UNSUPPORTED);
    /* ca and shared live in different buffers: no overlap possible. */
    e.chain[1].path = MT_PATH_SHARED;
    assert_int_equal(mtc_check_overlap(&e, &ei), MT_OK);
}

static void test_const_image(void **state)
{
    (void)state;
    mt_errinfo ei = {{0}};
    mtc_const_image ci;
    int fits = 0;
    assert_int_equal(mtc_const_image_init(&ci, &ei), MT_OK);
    mt_experiment a = mt_exp_chase(MT_PATH_CONSTANT, 1 * KIB, 64, 1, 16, MT_MODE_FINE);
    assert_int_equal(mtc_const_paint(&ci, &a, 1, &fits, &ei), MT_OK);
    assert_int_equal(ci.hi, 1 * KIB - 64 + 4);
    assert_int_equal(ci.word[0], 16);   /* element 0 -> element 1 at byte 64 */
    assert_int_equal(ci.word[240], 0);  /* the last element wraps to 0 */
    /* The same chain again fits; a random order over the same words does not. */
    assert_int_equal(mtc_const_paint(&ci, &a, 0, &fits, &ei), MT_OK);
    assert_int_equal(fits, 1);
    mt_experiment b = a;
    b.order = MT_ORDER_RANDOM;
    b.order_seed = 3;
    assert_int_equal(mtc_const_paint(&ci, &b, 0, &fits, &ei), MT_OK);
    assert_int_equal(fits, 0);
    /* A sequence's elements are sequential whatever its order says. */
    uint32_t idx[2] = {3, 1};
    mt_experiment s = seq_exp(MT_PATH_CONSTANT, 1 * KIB, 64, idx, 2, 0, MT_MODE_FINE);
    s.order = MT_ORDER_RANDOM;
    assert_int_equal(mtc_const_paint(&ci, &s, 0, &fits, &ei), MT_OK);
    assert_int_equal(fits, 1);
    /* After a reset everything fits again. */
    mtc_const_image_reset(&ci);
    assert_int_equal(ci.hi, 0);
    assert_int_equal(mtc_const_paint(&ci, &b, 0, &fits, &ei), MT_OK);
    assert_int_equal(fits, 1);
    mtc_const_image_free(&ci);
}

/* ---- layout.c: sequences -------------------------------------------------------- */

/* The kernel's arithmetic on the host: load i reads word v + d[i] (v = the
 * value of load i-1, 0 first) of a memory holding the element array as
 * built on the device; the global paths form the address as
 * (base + 4 * (int64)d) + 4 * (uint64)v.  Returns the last value and
 * checks every address against the index list. */
static uint32_t run_model(const mt_experiment *e, const int32_t *d)
{
    const mt_chain *c = &e->chain[0];
    uint64_t n_el = mt_chain_elements(c);
    uint64_t words = (c->offset + n_el * c->stride) / 4;
    uint32_t *mem = calloc(words, sizeof *mem);
    assert_non_null(mem);
    for (uint64_t k = 0; k < n_el; k++) /* the build kernel, sequential order */
        mem[mtc_word(c, k)] = mtc_word(c, k + 1 == n_el ? 0 : k + 1);
    const uint64_t g = 0x7f0000000000ull; /* a device base address */
    uint32_t v = 0;
    for (uint32_t i = 0; i < e->u.seq.n; i++) {
        uint64_t addr = (g + 4 * (uint64_t)(int64_t)d[i]) + 4 * (uint64_t)v;
        uint32_t j = v + (uint32_t)d[i];
        assert_int_equal(addr, g + 4 * (uint64_t)mtc_word(c, e->u.seq.index[i]));
        assert_int_equal(j, mtc_word(c, e->u.seq.index[i]));
        v = c->path == MT_PATH_NONE ? j : mem[j];
    }
    free(mem);
    return v;
}

static void test_sequence_deltas_follow_the_list(void **state)
{
    (void)state;
    /* Revisits, backwards jumps (negative deltas), the last element (whose
     * value wraps to element 0), and an offset. */
    uint32_t idx[] = {5, 5, 0, 63, 2, 63, 1, 1, 40, 7};
    const uint32_t n = sizeof idx / sizeof idx[0];
    int32_t d[sizeof idx / sizeof idx[0]];
    mt_path paths[] = {MT_PATH_GLOBAL_CA, MT_PATH_SHARED, MT_PATH_CONSTANT, MT_PATH_NONE};
    for (size_t p = 0; p < sizeof paths / sizeof paths[0]; p++) {
        mt_experiment e = seq_exp(paths[p], 64 * 128, 128, idx, n, 3, MT_MODE_FINE);
        e.chain[0].offset = 256;
        uint32_t last = mtc_seq_deltas(&e, d);
        assert_int_equal(d[0], (int32_t)mtc_word(&e.chain[0], 5));
        assert_int_equal(run_model(&e, d), last);
        assert_int_equal(last, mtc_seq_value(&e.chain[0], 7));
        if (paths[p] == MT_PATH_NONE)
            assert_int_equal(last, mtc_word(&e.chain[0], 7));
        else
            assert_int_equal(last, mtc_word(&e.chain[0], 8));
    }
    /* The wrap: the value of the last element is element 0's word. */
    mt_experiment e = seq_exp(MT_PATH_GLOBAL_CG, 64 * 128, 128, idx, 4, 0, MT_MODE_FINE);
    assert_int_equal(mtc_seq_deltas(&e, d), mtc_word(&e.chain[0], 0));
}

static void test_sequence_deltas_far_apart(void **state)
{
    (void)state;
    /* Word indices near the 4 GiB path cap: deltas of almost +-2^30 words
     * must survive the int32 and the sign extension. */
    uint32_t idx[] = {0, 262138, 1, 262137, 0}; /* the chain has 262140 elements */
    int32_t d[5];
    mt_experiment e = seq_exp(MT_PATH_GLOBAL_CA, 4 * GIB - 64 * KIB, 16 * KIB, idx, 5, 0,
                              MT_MODE_AGGREGATE);
    e.chain[0].offset = 32 * KIB;
    uint32_t last = mtc_seq_deltas(&e, d);
    assert_true(d[1] > (1 << 29));
    assert_true(d[2] < -(1 << 29));
    /* Model without materialising 4 GiB: the values of a sequential chain. */
    uint32_t v = 0;
    const uint64_t g = 0x7f0000000000ull;
    for (int i = 0; i < 5; i++) {
        uint64_t addr = (g + 4 * (uint64_t)(int64_t)d[i]) + 4 * (uint64_t)v;
        assert_int_equal(addr, g + mt_chain_addr(&e.chain[0], idx[i]));
        v = mtc_seq_value(&e.chain[0], idx[i]);
    }
    assert_int_equal(v, last);
}

/* ---- layout.c: one launch ------------------------------------------------------- */

static void test_plan_chase_descriptors(void **state)
{
    (void)state;
    static plan_bufs b;
    plan_init(&b);
    mt_experiment e[4];
    /* 0: ca fine on SM 3, 1 warm lap. */
    e[0] = mt_exp_chase(MT_PATH_GLOBAL_CA, 8 * KIB, 32, 1, 100, MT_MODE_FINE);
    e[0].sm = 3;
    /* 1: random tex aggregate, any SM, run by thread 40. */
    e[1] = mt_exp_chase(MT_PATH_TEXTURE, 4 * KIB, 64, 2, 1000, MT_MODE_AGGREGATE);
    e[1].order = MT_ORDER_RANDOM;
    e[1].order_seed = 9;
    e[1].chain[0].thread = 40;
    /* 2: two readers of the same ca chain (built once). */
    e[2] = mt_exp_chase(MT_PATH_GLOBAL_CA, 2 * KIB, 128, 1, 20, MT_MODE_FINE);
    e[2].n_chains = 2;
    e[2].chain[1] = e[2].chain[0];
    e[2].chain[1].thread = 1;
    /* 3: none. */
    e[3] = mt_exp_chase(MT_PATH_NONE, 4, 4, 1, 50, MT_MODE_FINE);
    plan_all(&b, e, 4);
    mtc_launch_plan *p = &b.p;

    assert_int_equal(p->plan[3], 0);
    assert_int_equal(p->n_any, 3);
    assert_int_equal(p->any[0], 1);
    assert_int_equal(p->any[2], 3);
    assert_int_equal(p->plan[0], -1);
    assert_int_equal(p->block, 64); /* thread 40 -> 41 threads -> two warps */
    /* Samples: 100 + (aggregate: none) + 20 + 20 + 50. */
    assert_int_equal(b.descs[0].chase.c[0].out_off, 0);
    assert_int_equal(b.descs[2].chase.c[0].out_off, 100);
    assert_int_equal(b.descs[2].chase.c[1].out_off, 120);
    assert_int_equal(b.descs[3].chase.c[0].out_off, 140);
    assert_int_equal(p->n_samples, 190);
    /* Buffers in launch order from arena offset 0 (64 KiB aligned). */
    assert_int_equal(b.descs[0].chase.c[0].buf, D_ARENA);
    assert_int_equal(b.descs[1].chase.c[0].buf, D_ARENA + 64 * KIB);
    assert_int_equal(b.descs[2].chase.c[0].buf, D_ARENA + 128 * KIB);
    assert_int_equal(b.descs[2].chase.c[1].buf, D_ARENA + 128 * KIB);
    assert_int_equal(b.descs[3].chase.c[0].buf, 0);
    assert_int_equal(b.descs[1].chase.c[0].warm_loads, 2 * 64);
    /* Builds: ca, tex (random, with successors), one for the dup pair. */
    assert_int_equal(p->n_build, 3);
    assert_int_equal(b.build[0].succ, 0);
    assert_int_equal(b.build[1].succ, D_SUCC);
    assert_int_equal(b.build[1].n, 64);
    assert_int_equal(b.build[1].stride_w, 16);
    assert_int_equal(p->n_succ, 64);
    assert_int_equal(p->max_build_n, 256);
    /* Texture request over experiment 1's global buffer only. */
    assert_int_equal(b.tex_bytes[0], 0);
    assert_int_equal(b.tex_base[1], 64 * KIB);
    assert_int_equal(b.tex_bytes[1], 4 * KIB);
    /* Expected ends: ca 100 loads of 256 elements -> element 100; none stays. */
    assert_int_equal(b.expect[0], 100 * 32 / 4);
    uint32_t k = 0;
    for (uint32_t s = 0; s < 1000 % 64; s++)
        k = b.succ[k];
    assert_int_equal(b.expect[2], k * 64 / 4);
    assert_int_equal(b.expect[4], (20 % 16) * 128 / 4);
    assert_int_equal(b.expect[5], b.expect[4]);
    assert_int_equal(b.expect[6], 0);
    /* Loads of the longest experiment: tex 2 laps of 64 + 1000. */
    assert_true(p->est_loads == 1128.0);
    /* Texture objects go to buffer chains only. */
    mtc_set_texture(&b.descs[1], MTK_KERNEL_A, 77);
    mtc_set_texture(&b.descs[3], MTK_KERNEL_A, 78);
    assert_int_equal(b.descs[1].chase.c[0].tex, 77);
    assert_int_equal(b.descs[3].chase.c[0].tex, 0);
}

/* MTK_EXP_PARALLEL_WARM: GPU-scope one-lap sequential chains, and SM-scope
 * ones only when they fill MTK_PARALLEL_WARM_SM_MIN_BYTES of any L1
 * (elements x min(stride, 32 B)); texture chains too; never a random
 * chain, two laps or a short chain.  The block widens to the warm threads. */
static uint32_t warm_flags(mt_experiment e, unsigned *block)
{
    static plan_bufs b;
    plan_init(&b);
    plan_all(&b, &e, 1);
    *block = b.p.block;
    return b.descs[0].chase.flags;
}

static void test_parallel_warm_rules(void **state)
{
    (void)state;
    unsigned block = 0;
    mt_experiment gpu = mt_exp_chase(MT_PATH_GLOBAL_CG, 8 * MIB, 128, 1, 100, MT_MODE_FINE);
    assert_int_equal(warm_flags(gpu, &block), MTK_EXP_PARALLEL_WARM);
    assert_int_equal(block, MTK_WARM_THREADS);
    /* The H100's miss chains: 1-4 MiB at 32 B, ~6 MB at 128 B. */
    mt_path paths[3] = {MT_PATH_GLOBAL_CA, MT_PATH_GLOBAL_NC, MT_PATH_TEXTURE};
    for (int i = 0; i < 3; i++) {
        mt_experiment e = mt_exp_chase(paths[i], 1 * MIB, 32, 1, 3456, MT_MODE_FINE);
        assert_int_equal(e.scope, MT_SCOPE_SM);
        assert_int_equal(warm_flags(e, &block), MTK_EXP_PARALLEL_WARM);
        assert_int_equal(block, MTK_WARM_THREADS);
        e = mt_exp_chase(paths[i], 5990400, 128, 1, 2048, MT_MODE_FINE);
        assert_int_equal(warm_flags(e, &block), MTK_EXP_PARALLEL_WARM);
        /* Half a MiB of 32 B elements fills an L1 only twice: dependent lap. */
        e = mt_exp_chase(paths[i], 512 * KIB, 32, 1, 3456, MT_MODE_FINE);
        assert_int_equal(warm_flags(e, &block), 0);
        assert_int_equal(block, 32);
    }
    /* 4 MiB of 4 B elements: 1 Mi elements, each at least 4 B of a line. */
    mt_experiment e = mt_exp_chase(MT_PATH_GLOBAL_CA, 4 * MIB, 4, 1, 100, MT_MODE_FINE);
    assert_int_equal(warm_flags(e, &block), MTK_EXP_PARALLEL_WARM);
    /* 512 KiB of 4 B elements fill half a MiB of any cache: dependent lap. */
    e = mt_exp_chase(MT_PATH_GLOBAL_CA, 512 * KIB, 4, 1, 100, MT_MODE_FINE);
    assert_int_equal(warm_flags(e, &block), 0);
    /* Too few elements (a sparse chain), two laps, random order. */
    e = mt_exp_chase(MT_PATH_GLOBAL_CA, 4 * MIB, 2048, 1, 100, MT_MODE_FINE);
    assert_int_equal(warm_flags(e, &block), 0);
    e = mt_exp_chase(MT_PATH_GLOBAL_CA, 4 * MIB, 32, 2, 100, MT_MODE_FINE);
    assert_int_equal(warm_flags(e, &block), 0);
    e = mt_exp_chase(MT_PATH_GLOBAL_CG, 4096 * 128, 128, 1, 100, MT_MODE_FINE);
    assert_int_equal(warm_flags(e, &block), MTK_EXP_PARALLEL_WARM);
    e.order = MT_ORDER_RANDOM;
    assert_int_equal(warm_flags(e, &block), 0);
}

static void test_plan_sequence_descriptors(void **state)
{
    (void)state;
    static plan_bufs b;
    plan_init(&b);
    uint32_t i0[] = {1, 2, 1, 0, 3};
    uint32_t i1[] = {9, 9, 9};
    mt_experiment e[2];
    e[0] = seq_exp(MT_PATH_GLOBAL_CA, 4 * KIB, 256, i0, 5, 2, MT_MODE_FINE);
    e[1] = seq_exp(MT_PATH_TEXTURE, 8 * KIB, 512, i1, 3, 0, MT_MODE_FINE);
    e[1].sm = 7;
    plan_all(&b, e, 2);
    const mtk_seq *x0 = &b.descs[0].seq, *x1 = &b.descs[1].seq;
    assert_int_equal(x0->n, 5);
    assert_int_equal(x0->untimed, 2);
    assert_int_equal(x0->mode, MT_MODE_FINE);
    assert_int_equal(x0->list, D_SEQ);
    assert_int_equal(x1->list, D_SEQ + 5 * 4);
    assert_int_equal(b.p.n_seq, 8);
    assert_int_equal(x0->c.out_off, 0);
    assert_int_equal(x1->c.out_off, 3);
    assert_int_equal(b.p.n_samples, 6);
    assert_int_equal(x0->c.warm_loads, 0);
    assert_int_equal(b.p.plan[7], 1);
    assert_int_equal(b.p.n_any, 1);
    /* Element arrays are built sequentially, never from successors. */
    assert_int_equal(b.p.n_build, 2);
    assert_int_equal(b.build[0].succ, 0);
    assert_int_equal(b.build[1].succ, 0);
    assert_int_equal(b.build[1].n, 16);
    assert_int_equal(b.tex_bytes[1], 8 * KIB);
    /* The deltas staged are the list's, the expected value the last one's. */
    assert_int_equal(b.seq[0], 256 / 4);
    assert_int_equal(b.seq[5], (int32_t)(9 * 512 / 4));
    assert_int_equal(b.seq[6], (int32_t)(9 * 512 / 4) - (int32_t)(10 * 512 / 4));
    assert_int_equal(b.expect[0], 4 * 256 / 4);
    assert_int_equal(b.expect[2], 10 * 512 / 4);
    assert_true(b.p.est_loads == 5.0);
    mtc_set_texture(&b.descs[1], MTK_KERNEL_SEQ_A, 55);
    assert_int_equal(b.descs[1].seq.c.tex, 55);
}

static void test_collect_results(void **state)
{
    (void)state;
    static plan_bufs b;
    plan_init(&b);
    uint32_t idx[] = {3, 1, 2};
    mt_experiment e[3];
    e[0] = mt_exp_chase(MT_PATH_GLOBAL_CA, 8 * KIB, 32, 1, 4, MT_MODE_FINE);
    e[0].sm = 2;
    e[1] = mt_exp_chase(MT_PATH_GLOBAL_NC, 8 * KIB, 32, 1, 64, MT_MODE_AGGREGATE);
    e[2] = seq_exp(MT_PATH_SHARED, 1 * KIB, 32, idx, 3, 1, MT_MODE_FINE);
    plan_all(&b, e, 3);
    uint32_t samples[16];
    for (int s = 0; s < 16; s++)
        samples[s] = 100 + (uint32_t)s;
    mtk_status st[3];
    memset(st, 0, sizeof st);
    st[0].claimed = 1;
    st[0].sm_ran = 2;
    st[0].final_j[0] = b.expect[0];
    st[1].claimed = 0; /* not placed: requeued by the scheduler */
    st[2].claimed = 1;
    st[2].sm_ran = 5;
    st[2].final_j[0] = b.expect[4];
    size_t order[3] = {0, 1, 2};
    mt_result out[3];
    int claimed[3];
    mt_errinfo ei = {{0}};
    memset(out, 0, sizeof out);
    assert_int_equal(mtc_collect(e, order, 3, &b.p, st, samples, 1000, out, claimed, &ei), MT_OK);
    assert_int_equal(claimed[0], 1);
    assert_int_equal(claimed[1], 0);
    assert_int_equal(claimed[2], 1);
    assert_int_equal(out[0].n[0], 4);
    assert_int_equal(out[0].cycles[0][0], 100);
    assert_int_equal(out[0].sm_ran, 2);
    assert_null(out[1].cycles[0]);
    assert_int_equal(out[2].n[0], 2); /* 3 entries, 1 untimed */
    assert_int_equal(out[2].cycles[0][0], 104);
    assert_int_equal(out[2].cycles[0][1], 105);
    for (int i = 0; i < 3; i++)
        mt_result_free(&out[i]);

    /* Aggregate total and its 32-bit limit. */
    st[1].claimed = 1;
    st[1].final_j[0] = b.expect[2];
    st[1].total[0] = 12345;
    assert_int_equal(mtc_collect(e, order, 3, &b.p, st, samples, 1000, out, claimed, &ei), MT_OK);
    assert_int_equal(out[1].n[0], 1);
    assert_int_equal(out[1].cycles[0][0], 12345);
    for (int i = 0; i < 3; i++)
        mt_result_free(&out[i]);
    st[1].total[0] = 1ull << 33;
    assert_int_equal(mtc_collect(e, order, 3, &b.p, st, samples, 1000, out, claimed, &ei),
                     MT_ERR_UNSUPPORTED);
    for (int i = 0; i < 3; i++)
        mt_result_free(&out[i]);
    st[1].total[0] = 5;

    /* Wrong end of a chain, of a sequence; wrong SM; aborted warm-up. */
    st[0].final_j[0]++;
    assert_int_equal(mtc_collect(e, order, 3, &b.p, st, samples, 1000, out, claimed, &ei),
                     MT_ERR_DEVICE);
    assert_non_null(strstr(ei.msg, "chain 0 ended"));
    for (int i = 0; i < 3; i++)
        mt_result_free(&out[i]);
    st[0].final_j[0]--;
    st[2].final_j[0]++;
    assert_int_equal(mtc_collect(e, order, 3, &b.p, st, samples, 1000, out, claimed, &ei),
                     MT_ERR_DEVICE);
    assert_non_null(strstr(ei.msg, "sequence"));
    for (int i = 0; i < 3; i++)
        mt_result_free(&out[i]);
    st[2].final_j[0]--;
    st[0].sm_ran = 4;
    assert_int_equal(mtc_collect(e, order, 3, &b.p, st, samples, 1000, out, claimed, &ei),
                     MT_ERR_DEVICE);
    assert_non_null(strstr(ei.msg, "planned for SM 2"));
    for (int i = 0; i < 3; i++)
        mt_result_free(&out[i]);
    st[0].sm_ran = 2;
    st[1].aborted = 1;
    assert_int_equal(mtc_collect(e, order, 3, &b.p, st, samples, 1000, out, claimed, &ei),
                     MT_ERR_TIMEOUT);
    for (int i = 0; i < 3; i++)
        mt_result_free(&out[i]);
}

/* ---- schedule.c ------------------------------------------------------------------ */

typedef struct {
    mtc_group g;
    size_t idx[64];
    mtc_const_image ci;
} sched_fixture;

static void sched_init(sched_fixture *f)
{
    mt_errinfo ei = {{0}};
    memset(f, 0, sizeof *f);
    f->g.idx = f->idx;
    if (mtc_const_image_init(&f->ci, &ei))
        fail_msg("%s", ei.msg);
}

/* Runs the batch loop with every experiment claimed: the launches, as
 * lists of batch indices, in launch[k][0..len[k]-1]. */
static int form_all(sched_fixture *f, const mtc_sched_limits *lim, const mt_experiment *e, size_t n,
                    size_t launch[][64], size_t *len, int *kernel)
{
    size_t pending[64], tries[64] = {0}, npend = n;
    int claimed[64];
    uint64_t requeued = 0;
    mt_errinfo ei = {{0}};
    int launches = 0;
    for (size_t i = 0; i < n; i++)
        pending[i] = i;
    while (npend) {
        if (mtc_group_form(lim, e, pending, npend, &f->g, &f->ci, &ei))
            fail_msg("%s", ei.msg);
        assert_true(f->g.n >= 1);
        len[launches] = f->g.n;
        kernel[launches] = f->g.kernel;
        for (size_t k = 0; k < f->g.n; k++) {
            launch[launches][k] = f->g.idx[k];
            claimed[k] = 1;
        }
        if (mtc_group_retire(e, &f->g, claimed, pending, &npend, tries, &requeued, &ei))
            fail_msg("%s", ei.msg);
        launches++;
    }
    assert_int_equal(requeued, 0);
    return launches;
}

/* The capacity search's doubling (2 KiB .. 4 MiB at 32 B): the chains
 * warmed in parallel (1, 2 and 4 MiB) take a launch of their own, so the
 * others keep the one-warp block they had without them. */
static void test_schedule_parallel_warm_apart(void **state)
{
    (void)state;
    static sched_fixture f;
    sched_init(&f);
    const mtc_sched_limits lim = {132, 1 * GIB};
    mt_experiment e[12];
    for (int i = 0; i < 12; i++) {
        e[i] = mt_exp_chase(MT_PATH_GLOBAL_CA, (2 * KIB) << i, 32, 1, 3456, MT_MODE_FINE);
        assert_int_equal(mtc_parallel_warm(&e[i]), i >= 9);
    }
    size_t launch[16][64], len[16];
    int kernel[16];
    int n = form_all(&f, &lim, e, 12, launch, len, kernel);
    assert_int_equal(n, 2);
    assert_int_equal(len[0], 9);
    for (size_t k = 0; k < 9; k++)
        assert_int_equal(launch[0][k], k);
    assert_int_equal(len[1], 3);
    for (size_t k = 0; k < 3; k++)
        assert_int_equal(launch[1][k], 9 + k);
}

static void test_schedule_packing(void **state)
{
    (void)state;
    static sched_fixture f;
    sched_init(&f);
    const mtc_sched_limits lim = {4, 1 * GIB};
    uint32_t idx[] = {0, 1};
    mt_experiment e[9];
    for (int i = 0; i < 5; i++) /* SM-scope chases: 4 per launch */
        e[i] = mt_exp_chase(MT_PATH_GLOBAL_CA, 8 * KIB, 32, 1, 16, MT_MODE_FINE);
    e[5] = mt_exp_chase(MT_PATH_GLOBAL_CG, 1 * MIB, 128, 1, 16, MT_MODE_FINE); /* GPU scope */
    e[6] = seq_exp(MT_PATH_GLOBAL_CA, 8 * KIB, 32, idx, 2, 0, MT_MODE_FINE);    /* other kernel */
    e[7] = mt_exp_chase(MT_PATH_SHARED, 4 * KIB, 32, 1, 16, MT_MODE_FINE);       /* kernel B */
    e[8] = seq_exp(MT_PATH_GLOBAL_NC, 8 * KIB, 32, idx, 2, 0, MT_MODE_FINE);
    size_t launch[16][64], len[16];
    int kernel[16];
    int n = form_all(&f, &lim, e, 9, launch, len, kernel);
    assert_int_equal(n, 5);
    /* 1: the first four chases (A).  2: the GPU-scope cg alone.  3: the two
     * sequences.  4: the last chase.  5: the shared-path chase (B). */
    assert_int_equal(len[0], 4);
    assert_int_equal(kernel[0], MTK_KERNEL_A);
    for (size_t k = 0; k < 4; k++)
        assert_int_equal(launch[0][k], k);
    /* After the first launch, pending is 4 5 6 7 8: e[4] leads. */
    assert_int_equal(len[1], 1);
    assert_int_equal(launch[1][0], 4);
    assert_int_equal(len[2], 1);
    assert_int_equal(launch[2][0], 5);
    assert_int_equal(len[3], 2);
    assert_int_equal(kernel[3], MTK_KERNEL_SEQ_A);
    assert_int_equal(launch[3][0], 6);
    assert_int_equal(launch[3][1], 8);
    assert_int_equal(len[4], 1);
    assert_int_equal(kernel[4], MTK_KERNEL_B);
    mtc_const_image_free(&f.ci);
}

static void test_schedule_gpu_scope_alone_and_cold(void **state)
{
    (void)state;
    static sched_fixture f;
    sched_init(&f);
    const mtc_sched_limits lim = {8, 1 * GIB};
    uint32_t idx[] = {0, 1};
    mt_experiment e[3];
    e[0] = mt_exp_chase(MT_PATH_GLOBAL_CA, 1 * MIB, 128, 1, 16, MT_MODE_FINE);
    e[0].scope = MT_SCOPE_GPU; /* the probe says: L2 data, even through ca */
    e[1] = mt_exp_chase(MT_PATH_GLOBAL_CA, 8 * KIB, 32, 1, 16, MT_MODE_FINE);
    e[2] = seq_exp(MT_PATH_GLOBAL_CA, 8 * KIB, 32, idx, 2, 0, MT_MODE_FINE);
    size_t pending[3] = {0, 1, 2};
    mt_errinfo ei = {{0}};
    assert_int_equal(mtc_group_form(&lim, e, pending, 3, &f.g, &f.ci, &ei), MT_OK);
    assert_int_equal(f.g.n, 1);
    assert_int_equal(f.g.gpu_scope, 1);
    assert_int_equal(f.g.cold, 0); /* warm-up lap: no flush */
    /* An SM-scope chase never joins a GPU-scope one, and vice versa. */
    pending[0] = 1;
    pending[1] = 0;
    assert_int_equal(mtc_group_form(&lim, e, pending, 2, &f.g, &f.ci, &ei), MT_OK);
    assert_int_equal(f.g.n, 1);
    assert_int_equal(f.g.idx[0], 1);
    assert_int_equal(f.g.gpu_scope, 0);
    /* Sequences have no warm-up laps: their launch flushes the L2. */
    pending[0] = 2;
    assert_int_equal(mtc_group_form(&lim, e, pending, 1, &f.g, &f.ci, &ei), MT_OK);
    assert_int_equal(f.g.cold, 1);
    assert_int_equal(f.g.kernel, MTK_KERNEL_SEQ_A);
    mtc_const_image_free(&f.ci);
}

static void test_schedule_sm_plans_arena_and_constants(void **state)
{
    (void)state;
    static sched_fixture f;
    sched_init(&f);
    mt_errinfo ei = {{0}};
    /* Two experiments planned for SM 1 cannot share a launch. */
    const mtc_sched_limits lim = {8, 1 * GIB};
    mt_experiment e[4];
    for (int i = 0; i < 4; i++)
        e[i] = mt_exp_chase(MT_PATH_GLOBAL_CA, 8 * KIB, 32, 1, 16, MT_MODE_FINE);
    e[0].sm = 1;
    e[1].sm = 1;
    e[2].sm = 2;
    size_t pending[4] = {0, 1, 2, 3};
    assert_int_equal(mtc_group_form(&lim, e, pending, 4, &f.g, &f.ci, &ei), MT_OK);
    assert_int_equal(f.g.n, 3);
    assert_int_equal(f.g.idx[0], 0);
    assert_int_equal(f.g.idx[1], 2);
    assert_int_equal(f.g.idx[2], 3);
    assert_int_equal(f.g.n_planned, 2);
    assert_int_equal(f.g.sm_taken[1], 1);
    assert_int_equal(f.g.arena_used, 128 * KIB + 8 * KIB);

    /* The arena limit closes a launch (the first experiment always fits). */
    const mtc_sched_limits small = {8, 1 * MIB};
    mt_experiment big[3];
    for (int i = 0; i < 3; i++)
        big[i] = mt_exp_chase(MT_PATH_GLOBAL_CA, 600 * KIB, 128, 1, 16, MT_MODE_FINE);
    assert_int_equal(mtc_group_form(&small, big, pending, 3, &f.g, &f.ci, &ei), MT_OK);
    assert_int_equal(f.g.n, 1);

    /* Constant chains that disagree go to different launches. */
    mt_experiment c[3];
    c[0] = mt_exp_chase(MT_PATH_CONSTANT, 1 * KIB, 64, 1, 16, MT_MODE_FINE);
    c[1] = c[0];
    c[1].order = MT_ORDER_RANDOM;
    c[1].order_seed = 5;
    c[2] = mt_exp_chase(MT_PATH_CONSTANT, 1 * KIB, 64, 1, 16, MT_MODE_FINE); /* beside c[0] */
    c[2].chain[0].offset = 1 * KIB;
    assert_int_equal(mtc_group_form(&lim, c, pending, 3, &f.g, &f.ci, &ei), MT_OK);
    assert_int_equal(f.g.n, 2);
    assert_int_equal(f.g.idx[0], 0);
    assert_int_equal(f.g.idx[1], 2);
    assert_int_equal(f.ci.hi, 2 * KIB - 64 + 4);
    mtc_const_image_free(&f.ci);
}

static void test_schedule_requeue_and_give_up(void **state)
{
    (void)state;
    static sched_fixture f;
    sched_init(&f);
    const mtc_sched_limits lim = {4, 1 * GIB};
    mt_errinfo ei = {{0}};
    mt_experiment e[3];
    for (int i = 0; i < 3; i++)
        e[i] = mt_exp_chase(MT_PATH_GLOBAL_CA, 8 * KIB, 32, 1, 16, MT_MODE_FINE);
    e[1].sm = 3;
    size_t pending[3] = {0, 1, 2}, npend = 3, tries[3] = {0};
    uint64_t requeued = 0;
    int claimed[3] = {1, 0, 1}; /* SM 3 busy */
    assert_int_equal(mtc_group_form(&lim, e, pending, npend, &f.g, &f.ci, &ei), MT_OK);
    assert_int_equal(f.g.n, 3);
    assert_int_equal(mtc_group_retire(e, &f.g, claimed, pending, &npend, tries, &requeued, &ei),
                     MT_OK);
    assert_int_equal(npend, 1);
    assert_int_equal(pending[0], 1);
    assert_int_equal(requeued, 1);
    claimed[0] = 0;
    for (int t = 1; t < MTC_MAX_PLACEMENT_TRIES - 1; t++) {
        assert_int_equal(mtc_group_form(&lim, e, pending, npend, &f.g, &f.ci, &ei), MT_OK);
        assert_int_equal(mtc_group_retire(e, &f.g, claimed, pending, &npend, tries, &requeued,
                                          &ei),
                         MT_OK);
    }
    assert_int_equal(mtc_group_form(&lim, e, pending, npend, &f.g, &f.ci, &ei), MT_OK);
    assert_int_equal(mtc_group_retire(e, &f.g, claimed, pending, &npend, tries, &requeued, &ei),
                     MT_ERR_DEVICE);
    assert_non_null(strstr(ei.msg, "SM 3"));
    assert_int_equal(requeued, MTC_MAX_PLACEMENT_TRIES);
    mtc_const_image_free(&f.ci);
}

/* A together group (backend 2.10) is one launch of its members, each on
 * its planned SM, their buffers one after another, nothing else beside
 * them; a member whose SM no block reached sends the whole group back. */
static void test_schedule_together(void **state)
{
    (void)state;
    static sched_fixture f;
    sched_init(&f);
    const mtc_sched_limits lim = {8, 1 * GIB};
    mt_errinfo ei = {{0}};
    mt_experiment e[4];
    e[0] = mt_exp_chase(MT_PATH_GLOBAL_CA, 8 * KIB, 32, 1, 16, MT_MODE_FINE);
    for (int i = 1; i < 3; i++) {
        e[i] = mt_exp_chase(MT_PATH_GLOBAL_CG, 64 * MIB, 2 * MIB, 1, 16, MT_MODE_FINE);
        e[i].together = 3;
        e[i].sm = i == 1 ? 0 : 5;
    }
    e[3] = mt_exp_chase(MT_PATH_GLOBAL_CG, 1 * MIB, 128, 1, 16, MT_MODE_FINE);
    size_t pending[4] = {1, 0, 3, 2}, npend = 4, tries[4] = {0};
    uint64_t requeued = 0;
    assert_int_equal(mtc_group_form(&lim, e, pending, npend, &f.g, &f.ci, &ei), MT_OK);
    assert_int_equal(f.g.n, 2);
    assert_int_equal(f.g.gpu_scope, 1);
    assert_int_equal(f.g.idx[0], 1);
    assert_int_equal(f.g.idx[1], 2);
    assert_int_equal(f.g.n_planned, 2);
    assert_true(f.g.sm_taken[0] && f.g.sm_taken[5]);
    assert_true(f.g.arena_used >= 128 * MIB); /* both members' buffers */
    int claimed[2] = {1, 0};
    assert_int_equal(mtc_group_retire(e, &f.g, claimed, pending, &npend, tries, &requeued, &ei),
                     MT_OK);
    assert_int_equal(npend, 4); /* SM 5 not reached: both members again */
    assert_int_equal(requeued, 2);
    claimed[1] = 1;
    assert_int_equal(mtc_group_form(&lim, e, pending, npend, &f.g, &f.ci, &ei), MT_OK);
    assert_int_equal(f.g.n, 2);
    assert_int_equal(mtc_group_retire(e, &f.g, claimed, pending, &npend, tries, &requeued, &ei),
                     MT_OK);
    assert_int_equal(npend, 2);
    assert_int_equal(pending[0], 0);
    assert_int_equal(pending[1], 3);
    mtc_const_image_free(&f.ci);
}

/* The carveouts an experiment can get on an H100: the cc 9.0 list from 16
 * KiB up (kernels A and SEQ_A hold 16 KiB of shared memory, so the driver
 * never picks 0 or 8), and what a preference gives on that list. */
static void test_carveout_options_h100(void **state)
{
    (void)state;
    mtc_device_facts f = h100_facts();
    mtc_launch_config c;
    mt_errinfo ei = {{0}};
    assert_int_equal(mtc_plan_config(&f, &c, &ei), MT_OK);
    mt_device_info d;
    memset(&d, 0, sizeof d);
    d.smem_per_sm = (uint32_t)f.smem_per_sm;
    d.n_carveouts = mtc_carveout_options(&f, &c, d.carveout_smem_options);
    static const uint32_t kib[] = {16, 32, 64, 100, 132, 164, 196, 228};
    assert_int_equal(d.n_carveouts, 8);
    for (int i = 0; i < 8; i++)
        assert_int_equal(d.carveout_smem_options[i], kib[i] * 1024);
    /* The default preference (7%) lands where plan_config says it does. */
    assert_int_equal(mt_carveout_smem(&d, c.carveout_percent[MTK_KERNEL_A]), c.carveout_smem_bytes);
    assert_int_equal(mt_carveout_smem(&d, 0), 16 * 1024);
    assert_int_equal(mt_carveout_smem(&d, 100), 228 * 1024);
    /* 64 KiB = 28.07% of 228 KiB: 28% gives 63.8 KiB, rounded up to 64. */
    assert_int_equal(mt_carveout_percent(&d, 64 * 1024), 15);
    assert_int_equal(mt_carveout_smem(&d, 28), 64 * 1024);
    assert_int_equal(mt_carveout_smem(&d, 29), 100 * 1024);
    assert_int_equal(mt_carveout_percent(&d, 8 * 1024), -1);
    /* No list for an unknown architecture. */
    f.cc_major = 12;
    assert_int_equal(mtc_carveout_options(&f, &c, d.carveout_smem_options), 0);
}

/* Experiments asking for different carveouts never share a launch. */
static void test_schedule_carveouts_apart(void **state)
{
    (void)state;
    static sched_fixture f;
    sched_init(&f);
    const mtc_sched_limits lim = {8, 1 * GIB};
    mt_experiment base = mt_exp_chase(MT_PATH_GLOBAL_CA, 8 * KIB, 32, 1, 16, MT_MODE_FINE);
    mt_experiment e[5] = {base, mt_exp_with_carveout(base, 50), base, mt_exp_with_carveout(base, 50),
                          mt_exp_with_carveout(base, 0)};
    size_t launch[16][64], len[16];
    int kernel[16];
    assert_int_equal(form_all(&f, &lim, e, 5, launch, len, kernel), 3);
    assert_int_equal(len[0], 2); /* the two without a request */
    assert_int_equal(launch[0][1], 2);
    assert_int_equal(len[1], 2); /* the two at 50% */
    assert_int_equal(launch[1][0], 1);
    assert_int_equal(launch[1][1], 3);
    assert_true(f.g.set_carveout && f.g.carveout_percent == 0); /* the last launch: 0% */
    mtc_const_image_free(&f.ci);
}

static void test_validate(void **state)
{
    (void)state;
    mt_device_info d = dev_info(132);
    mt_errinfo ei = {{0}};
    uint32_t *idx = calloc(MTK_SEQ_MAX + 1, sizeof *idx);
    assert_non_null(idx);
    mt_experiment e = mt_exp_chase(MT_PATH_GLOBAL_CA, 8 * KIB, 32, 1, 16, MT_MODE_FINE);
    assert_int_equal(mtc_validate(&e, 0, &d, &ei), MT_OK);
    /* A carveout request: fine for global loads, refused for the shared
     * path (its kernels need all of shared memory). */
    d.n_carveouts = 1;
    d.carveout_smem_options[0] = 233472;
    mt_experiment c = mt_exp_with_carveout(e, 50);
    assert_int_equal(mtc_validate(&c, 0, &d, &ei), MT_OK);
    c = mt_exp_with_carveout(mt_exp_chase(MT_PATH_SHARED, 4 * KIB, 32, 1, 16, MT_MODE_FINE), 50);
    assert_int_equal(mtc_validate(&c, 3, &d, &ei), MT_ERR_UNSUPPORTED);
    assert_non_null(strstr(ei.msg, "their carveout cannot be chosen"));
    d.n_carveouts = 0;
    /* Streams run (stream.c) after the generic check of their shape. */
    e.kind = MT_KIND_STREAM;
    assert_int_equal(mtc_validate(&e, 4, &d, &ei), MT_ERR_INVALID_ARG);
    assert_non_null(strstr(ei.msg, "stream"));
    e.kind = MT_KIND_CLUSTER;
    assert_int_equal(mtc_validate(&e, 4, &d, &ei), MT_ERR_UNSUPPORTED);
    /* Sequences: the limit, and the list's shape through the generic check. */
    e = seq_exp(MT_PATH_GLOBAL_CA, 8 * KIB, 32, idx, MTK_SEQ_MAX, 100, MT_MODE_FINE);
    assert_int_equal(mtc_validate(&e, 0, &d, &ei), MT_OK);
    e = seq_exp(MT_PATH_GLOBAL_CA, 8 * KIB, 32, idx, MTK_SEQ_MAX + 1, 100, MT_MODE_FINE);
    assert_int_equal(mtc_validate(&e, 0, &d, &ei), MT_ERR_INVALID_ARG);
    d.max_sequence = 0; /* "no limit" for the generic check, none for the kernel */
    e = seq_exp(MT_PATH_GLOBAL_CA, 8 * KIB, 32, idx, 4, 0, MT_MODE_FINE);
    assert_int_equal(mtc_validate(&e, 0, &d, &ei), MT_ERR_INVALID_ARG);
    d = dev_info(132);
    idx[2] = 256; /* the chain has 256 elements */
    assert_int_equal(mtc_validate(&e, 0, &d, &ei), MT_ERR_INVALID_ARG);
    idx[2] = 255;
    assert_int_equal(mtc_validate(&e, 0, &d, &ei), MT_OK);
    e.warmup_laps = 1;
    assert_int_equal(mtc_validate(&e, 0, &d, &ei), MT_ERR_INVALID_ARG);
    /* Chases: thread range, overlap. */
    e = mt_exp_chase(MT_PATH_GLOBAL_CA, 8 * KIB, 32, 1, 16, MT_MODE_FINE);
    e.chain[0].thread = -1;
    assert_int_equal(mtc_validate(&e, 0, &d, &ei), MT_ERR_INVALID_ARG);
    e.chain[0].thread = 0;
    e.n_chains = 2;
    e.chain[1] = e.chain[0];
    e.chain[1].stride = 64;
    assert_int_equal(mtc_validate(&e, 0, &d, &ei), MT_ERR_UNSUPPORTED);
    free(idx);
}

/* ---- sparse chains beyond the word reach (kernel WIDE) ------------------------- */

static void test_sparse_limit_h100(void **state)
{
    (void)state;
    mtc_device_facts f = h100_facts();
    mtc_launch_config c;
    mt_errinfo ei = {{0}};
    assert_int_equal(mtc_plan_config(&f, &c, &ei), MT_OK);
    /* 80 GiB free less a sixteenth: 75 GiB, MiB granular. */
    assert_int_equal(c.sparse_limit, 75 * GIB);
    assert_int_equal(c.dyn_smem[MTK_KERNEL_WIDE], c.dyn_smem[MTK_KERNEL_A]);
    assert_int_equal(c.carveout_percent[MTK_KERNEL_WIDE], c.carveout_percent[MTK_KERNEL_A]);
    /* Little memory: the margin is at least 512 MiB, and a sparse limit
     * at or below the path limit is none. */
    assert_int_equal(mt_sparse_limit(4 * GIB), 4 * GIB - 512 * MIB);
    assert_int_equal(mt_sparse_limit(256 * MIB), 0);
    f.free_bytes = 2 * GIB; /* path limit 512 MiB, sparse 1.5 GiB */
    assert_int_equal(mtc_plan_config(&f, &c, &ei), MT_OK);
    assert_int_equal(c.sparse_limit, 1536 * MIB);
    f.free_bytes = 600 * MIB; /* path limit 150 MiB, sparse 88 MiB: none */
    assert_int_equal(mtc_plan_config(&f, &c, &ei), MT_OK);
    assert_int_equal(c.sparse_limit, 0);
}

/* A sparse cg chain of 20 GiB: kernel WIDE, element indices in 64-byte
 * units, successors and the expected end in those units; one of 15 GiB
 * stays on kernel A with word indices. */
static void test_wide_chain_plan(void **state)
{
    (void)state;
    static plan_bufs b;
    plan_init(&b);
    const uint32_t stride = (4u << 20) + 3 * 128;
    uint64_t n = (20 * GIB) / stride;
    mt_experiment e = mt_exp_chase(MT_PATH_GLOBAL_CG, n * stride, stride, 1, 100, MT_MODE_FINE);
    e.chain[0].offset = 128;
    assert_int_equal(mtc_kernel_of(&e), MTK_KERNEL_WIDE);
    assert_int_equal(mtc_index_shift(&e), MTK_WIDE_SHIFT);
    mt_errinfo ei = {{0}};
    assert_int_equal(mtc_check_wide(&e, &ei), MT_OK);
    plan_all(&b, &e, 1);
    assert_int_equal(b.p.n_build, 1);
    assert_int_equal(b.build[0].shift, MTK_WIDE_SHIFT);
    assert_int_equal(b.build[0].stride_w, stride / 64);
    assert_int_equal(b.build[0].start_w, 2);
    assert_int_equal(b.descs[0].chase.c[0].start, 2);
    /* 100 loads from element 0: element 100, at unit 2 + 100 x stride / 64. */
    assert_int_equal(b.expect[0], 2 + 100 * (stride / 64));
    /* The last element's unit index still fits 32 bits; its word index
     * would not. */
    uint64_t last = 128 + (n - 1) * stride;
    assert_true((last >> MTK_WIDE_SHIFT) < (1ull << 32));
    assert_true((last >> MTK_WORD_SHIFT) >= (1ull << 32));

    mt_experiment a = mt_exp_chase(MT_PATH_GLOBAL_CG, (15 * GIB) / stride * stride, stride, 1, 100,
                                   MT_MODE_FINE);
    assert_int_equal(mtc_kernel_of(&a), MTK_KERNEL_A);
    plan_init(&b);
    plan_all(&b, &a, 1);
    assert_int_equal(b.build[0].shift, MTK_WORD_SHIFT);
    assert_int_equal(b.build[0].stride_w, stride / 4);
}

static void test_wide_chain_refusals(void **state)
{
    (void)state;
    mt_errinfo ei = {{0}};
    mt_device_info d = dev_info(132);
    d.sparse_limit_bytes = 75 * GIB;
    /* Misaligned stride beyond the word reach: refused in one line. */
    uint32_t stride = (4u << 20) + 36;
    mt_experiment e = mt_exp_chase(MT_PATH_GLOBAL_CG, (20 * GIB) / stride * stride, stride, 1, 100,
                                   MT_MODE_FINE);
    assert_int_equal(mtc_validate(&e, 0, &d, &ei), MT_ERR_UNSUPPORTED);
    assert_non_null(strstr(ei.msg, "multiples of 64"));
    assert_null(strchr(ei.msg, '\n'));
    /* Aligned: accepted up to the sparse limit, refused beyond it. */
    stride = 4u << 20;
    e = mt_exp_chase(MT_PATH_GLOBAL_CG, 70 * GIB, stride, 1, 100, MT_MODE_FINE);
    assert_int_equal(mtc_validate(&e, 0, &d, &ei), MT_OK);
    e = mt_exp_chase(MT_PATH_GLOBAL_CG, 76 * GIB, stride, 1, 100, MT_MODE_FINE);
    assert_int_equal(mtc_validate(&e, 0, &d, &ei), MT_ERR_INVALID_ARG);
    /* A sparse sequence beyond the 4 GiB cap: its int32 deltas cannot. */
    uint32_t idx[2] = {0, 1};
    e = seq_exp(MT_PATH_GLOBAL_CA, 8 * GIB, stride, idx, 2, 0, MT_MODE_FINE);
    assert_int_equal(mtc_validate(&e, 0, &d, &ei), MT_ERR_INVALID_ARG);
    assert_non_null(strstr(ei.msg, "sequence"));
}

static void test_watchdog(void **state)
{
    (void)state;
    assert_true(mtc_watchdog_s(1e6, 1980000, 2.5) == 2.5);
    double s = mtc_watchdog_s(1e6, 2000000, 0);
    /* 20 s + 4 x 1e6 loads x 4000 cycles / 2 GHz = 28 s. */
    assert_true(s > 27.999 && s < 28.001);
    assert_int_equal(mtc_deadline_cycles(2.0, 1000000), 1000000000ull);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_limits_h100),
        cmocka_unit_test(test_limits_small_memory_and_unknown_arch),
        cmocka_unit_test(test_limits_refuse_and_shrink),
        cmocka_unit_test(test_carveout_tables),
        cmocka_unit_test(test_kernel_choice),
        cmocka_unit_test(test_place_buffers_alignment),
        cmocka_unit_test(test_overlap_rules),
        cmocka_unit_test(test_const_image),
        cmocka_unit_test(test_sequence_deltas_follow_the_list),
        cmocka_unit_test(test_sequence_deltas_far_apart),
        cmocka_unit_test(test_plan_chase_descriptors),
        cmocka_unit_test(test_plan_sequence_descriptors),
        cmocka_unit_test(test_parallel_warm_rules),
        cmocka_unit_test(test_collect_results),
        cmocka_unit_test(test_schedule_packing),
        cmocka_unit_test(test_schedule_parallel_warm_apart),
        cmocka_unit_test(test_schedule_gpu_scope_alone_and_cold),
        cmocka_unit_test(test_schedule_sm_plans_arena_and_constants),
        cmocka_unit_test(test_schedule_requeue_and_give_up),
        cmocka_unit_test(test_schedule_together),
        cmocka_unit_test(test_validate),
        cmocka_unit_test(test_carveout_options_h100),
        cmocka_unit_test(test_schedule_carveouts_apart),
        cmocka_unit_test(test_watchdog),
        cmocka_unit_test(test_sparse_limit_h100),
        cmocka_unit_test(test_wide_chain_plan),
        cmocka_unit_test(test_wide_chain_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

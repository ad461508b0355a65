/* Spec parser: every preset parses, every class of malformed input is
 * MT_ERR_SPEC_PARSE with the right "FILE:LINE:", sizes and units, preset
 * and file loading, and the device info derived from a spec. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include <cmocka.h>

#include "backend/backend.h"
#include "sim/presets.h"
#include "sim/sim.h"
#include "sim/spec.h"

/* A small valid spec; line numbers matter to the tests below. */
static const char *const base_lines[] = {
    "# test spec",                  /* 1 */
    "[device]",                     /* 2 */
    "name = Test GPU",              /* 3 */
    "compute_capability = 9.0",     /* 4 */
    "sm_count = 4",                 /* 5 */
    "clock_mhz = 1000",             /* 6 */
    "mem_clock_mhz = 1000",         /* 7 */
    "bus_width_bits = 256",         /* 8 */
    "global_mem = 1 GiB",           /* 9 */
    "l2_size = 256 KiB",            /* 10 */
    "smem_per_sm = 64 KiB",         /* 11 */
    "smem_per_block = 48 KiB",      /* 12 */
    "smem_per_block_optin = 64 KiB",/* 13 */
    "const_mem = 64 KiB",           /* 14 */
    "max_threads_per_block = 1024", /* 15 */
    "max_threads_per_sm = 2048",    /* 16 */
    "warp_size = 32",               /* 17 */
    "seed = 7",                     /* 18 */
    "timer_overhead = 10",          /* 19 */
    "loop_overhead = 8",            /* 20 */
    "",                             /* 21 */
    "[cache l1]",                   /* 22 */
    "serves = l1d tex ro",          /* 23 */
    "size = 16 KiB",                /* 24 */
    "line = 128",                   /* 25 */
    "sector = 32",                  /* 26 */
    "ways = 4",                     /* 27 */
    "latency = 30",                 /* 28 */
    "",                             /* 29 */
    "[cache l2]",                   /* 30 */
    "serves = all",                 /* 31 */
    "size = 256 KiB",               /* 32 */
    "line = 128",                   /* 33 */
    "ways = 16",                    /* 34 */
    "latency = 200",                /* 35 */
    "",                             /* 36 */
    "[dram]",                       /* 37 */
    "latency = 400",                /* 38 */
    "",                             /* 39 */
    "[shared]",                     /* 40 */
    "latency = 25",                 /* 41 */
};
#define BASE_N (sizeof base_lines / sizeof base_lines[0])

/* The base spec with line `at` (1-based) replaced by `repl` (NULL: deleted,
 * or inserted before line `at` when insert is set). */
static char *variant(int at, const char *repl, int insert)
{
    size_t cap = 8192;
    char *buf = malloc(cap);
    assert_non_null(buf);
    buf[0] = '\0';
    for (size_t i = 0; i < BASE_N; i++) {
        int line = (int)i + 1;
        if (line == at && repl) {
            strcat(buf, repl);
            strcat(buf, "\n");
        }
        if (line == at && !insert)
            continue;
        strcat(buf, base_lines[i]);
        strcat(buf, "\n");
    }
    return buf;
}

static mt_err parse(const char *text, mt_sim_spec *s, mt_errinfo *ei)
{
    return mt_sim_spec_parse(text, "test.spec", s, ei);
}

static void test_base_parses(void **state)
{
    (void)state;
    char *t = variant(0, NULL, 0);
    mt_sim_spec s;
    mt_errinfo ei = {{0}};
    mt_err err = parse(t, &s, &ei);
    if (err)
        fail_msg("%s", ei.msg);
    assert_string_equal(s.name, "Test GPU");
    assert_int_equal(s.cc_major, 9);
    assert_int_equal(s.n_caches, 2);
    assert_int_equal(s.l2, 1);
    assert_int_equal(s.cache[0].size, 16384);
    assert_int_equal(s.cache[0].sector, 32);
    assert_int_equal(s.cache[0].fill, 32); /* defaults to the sector */
    assert_int_equal(s.cache[1].sector, 128); /* defaults to the line */
    assert_int_equal(s.cache[0].ways, 4);
    assert_int_equal(s.cache[0].repl, MT_SIM_REPL_LRU);
    assert_int_equal(s.cache[0].slices, 1);
    assert_true(s.cache[1].is_l2);
    assert_int_equal(s.cache[1].partitions, 1);
    assert_int_equal(s.carveout_percent, -1);
    assert_int_equal(s.regs_per_sm, 65536);
    assert_true(s.outlier_rate == 0.0);
    free(t);
}

static void test_every_preset_parses(void **state)
{
    (void)state;
    int n = 0;
    for (const mt_preset *p = mt_presets; p->name; p++, n++) {
        mt_sim_spec s;
        mt_errinfo ei = {{0}};
        mt_err err = mt_sim_spec_load(p->name, &s, &ei);
        if (err)
            fail_msg("preset %s: %s", p->name, ei.msg);
        assert_true(s.l2 >= 0);
        assert_true(s.sm_count > 0);
        /* the file the preset came from, for messages */
        char want[64];
        snprintf(want, sizeof want, "presets/%s.spec", p->name);
        assert_string_equal(s.source, want);
    }
    /* h100 a100 v100 turing pascal maxwell kepler */
    assert_int_equal(n, 7);
    const char *names[] = {"h100", "a100", "v100", "turing", "pascal", "maxwell", "kepler"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        assert_non_null(mt_sim_preset_text(names[i]));
}

/* Expect MT_ERR_SPEC_PARSE with "test.spec:LINE:" and a substring. */
static void expect_error(const char *text, int line, const char *needle)
{
    mt_sim_spec s;
    mt_errinfo ei = {{0}};
    mt_err err = parse(text, &s, &ei);
    if (err != MT_ERR_SPEC_PARSE)
        fail_msg("expected a parse error at line %d (%s), got %d: %s", line, needle, err, ei.msg);
    char prefix[64];
    snprintf(prefix, sizeof prefix, "test.spec:%d: ", line);
    if (strncmp(ei.msg, prefix, strlen(prefix)) != 0)
        fail_msg("expected '%s...', got '%s'", prefix, ei.msg);
    if (!strstr(ei.msg, needle))
        fail_msg("expected '%s' in '%s'", needle, ei.msg);
    for (const char *p = ei.msg; *p; p++) /* one printable line */
        if ((unsigned char)*p < 0x20 || (unsigned char)*p == 0x7f)
            fail_msg("control byte 0x%02x in '%s'", (unsigned char)*p, ei.msg);
}

static void expect_replace(int at, const char *repl, int line, const char *needle)
{
    char *t = variant(at, repl, 0);
    expect_error(t, line, needle);
    free(t);
}

static void expect_insert(int at, const char *repl, int line, const char *needle)
{
    char *t = variant(at, repl, 1);
    expect_error(t, line, needle);
    free(t);
}

/* The base spec with lines at[i] replaced by repl[i] (ascending lines). */
static char *variant_lines(const int *at, const char *const *repl, int n)
{
    char *buf = calloc(1, 8192);
    assert_non_null(buf);
    for (size_t i = 0; i < BASE_N; i++) {
        const char *line = base_lines[i];
        for (int j = 0; j < n; j++)
            if (at[j] == (int)i + 1)
                line = repl[j];
        strcat(buf, line);
        strcat(buf, "\n");
    }
    return buf;
}

static void expect_lines(const int *at, const char *const *repl, int n, int line,
                         const char *needle)
{
    char *t = variant_lines(at, repl, n);
    expect_error(t, line, needle);
    free(t);
}

static void test_syntax_errors(void **state)
{
    (void)state;
    expect_insert(2, "name = early", 2, "before the first [section]");
    expect_replace(21, "this is not a key value line", 21, "expected 'key = value'");
    expect_replace(21, "[device", 21, "without closing ']'");
    expect_replace(21, "[]", 21, "empty section header");
    expect_replace(21, "= 5", 21, "missing key");
    expect_replace(21, "Size = 5", 21, "bad key");
    expect_replace(28, "latency =", 28, "has no value");
    expect_replace(21, "x = \001", 21, "control character");
}

static void test_unknown_and_duplicate(void **state)
{
    (void)state;
    expect_replace(21, "[bogus]", 21, "unknown section [bogus]");
    expect_replace(22, "[cache]", 22, "needs a name");
    expect_replace(22, "[cache l-1]", 22, "cache name");
    expect_replace(21, "sise = 4", 21, "unknown key 'sise' in [device]");
    expect_insert(29, "latency.bogus = 3", 29, "unknown key 'latency.bogus'");
    expect_insert(29, "far_latency.tex = 3", 29, "needs partitions > 1");
    expect_insert(41, "latency.tex = 3", 41, "unknown key 'latency.tex' in [shared]");
    expect_insert(29, "size = 32 KiB", 29, "duplicate key 'size' in [cache l1] (first at line 24)");
    expect_replace(29, "[cache l1]", 29, "duplicate section [cache l1] (first at line 22)");
    expect_replace(39, "[device]", 39, "duplicate section [device]");
}

static void test_bad_values(void **state)
{
    (void)state;
    expect_replace(5, "sm_count = four", 5, "not a plain decimal integer");
    expect_replace(5, "sm_count = -4", 5, "not a plain decimal integer");
    expect_replace(5, "sm_count = 4x", 5, "not a plain decimal integer");
    expect_replace(5, "sm_count = 0", 5, "out of range");
    expect_replace(5, "sm_count = 99999999999999999999999", 5, "not a plain decimal integer");
    expect_replace(19, "timer_overhead = fast", 19, "not a number");
    expect_replace(19, "timer_overhead = nan", 19, "not a number");
    expect_replace(19, "timer_overhead = -1", 19, "not a number");
    expect_replace(24, "size = 16 KB", 24, "unknown unit 'KB'");
    expect_replace(24, "size = 1.3 KiB", 24, "not a whole number of bytes");
    expect_replace(24, "size = KiB", 24, "not a size");
    expect_replace(4, "compute_capability = nine", 4, "MAJOR.MINOR");
    expect_replace(27, "ways = many", 27, "not a plain decimal integer");
    expect_replace(23, "serves = l1d bogus", 23, "unknown path 'bogus'");
    expect_replace(23, "serves = l1d cg", 23, "bypass");
    expect_replace(23, "serves = l1d l1d", 23, "listed twice");
    expect_replace(31, "serves = all l1d", 31, "cannot be combined");
    expect_insert(29, "index = sideways", 29, "unknown value 'sideways'");
    expect_insert(29, "replacement = mru", 29, "unknown value 'mru'");
    expect_insert(29, "slice_map = diagonal", 29, "slice_map");
    expect_insert(29, "outlier_rate = 0.1", 29, "unknown key 'outlier_rate' in [cache l1]");
    expect_insert(21, "outlier_rate = 1.5", 21, "out of range");
}

static void test_missing(void **state)
{
    (void)state;
    expect_replace(24, NULL, 22, "[cache l1]: missing required key 'size'");
    expect_replace(5, NULL, 2, "[device]: missing required key 'sm_count'");
    expect_replace(38, NULL, 37, "[dram]: missing required key 'latency'");
    expect_replace(3, NULL, 2, "missing required key 'name'");
    /* a whole missing section points at the last line */
    char *t = variant(0, NULL, 0);
    char *cut = strstr(t, "[shared]");
    *cut = '\0';
    expect_error(t, 39, "missing [shared] section");
    free(t);
    t = variant(0, NULL, 0);
    char *l2 = strstr(t, "serves = all");
    memcpy(l2, "serves=const", 12);
    expect_error(t, 41, "missing the L2");
    free(t);
}

static void test_geometry_errors(void **state)
{
    (void)state;
    expect_replace(24, "size = 1000", 24, "not a multiple of the line size");
    expect_replace(27, "ways = 3", 27, "not divisible into 3 ways");
    expect_replace(25, "line = 96", 25, "not a power of two");
    expect_replace(26, "sector = 256", 26, "out of range"); /* sector > line */
    expect_replace(26, "sector = 48", 26, "not a power of two");
    expect_insert(29, "fill = 16", 29, "out of range"); /* below the sector */
    expect_insert(29, "fermi_way = 1", 29, "needs replacement = fermi");
    expect_insert(29, "latency.const = 40", 29, "does not serve 'const'");
    expect_insert(29, "partitions = 2", 29, "only the L2");
    expect_insert(36, "far_latency = 300", 36, "needs partitions > 1");
    expect_insert(36, "partitions = 2", 30, "missing required key 'far_latency'");
    expect_insert(36, "slices = 2", 36, "one GPU-wide structure");
    expect_insert(36, "level = 2", 36, "always the last level");
    expect_insert(29, "slices = 65", 29, "out of range");
}

static void test_full_assoc_ok(void **state)
{
    (void)state;
    char *t = variant(27, "ways = full", 0);
    mt_sim_spec s;
    mt_errinfo ei = {{0}};
    if (parse(t, &s, &ei))
        fail_msg("%s", ei.msg);
    assert_true(s.cache[0].fully_assoc);
    assert_int_equal(s.cache[0].ways, 128);
    free(t);
}

static void test_cross_section_errors(void **state)
{
    (void)state;
    /* a second cache serving l1d at the same level */
    expect_insert(30, "[cache l1b]\nserves = l1d\nsize = 8 KiB\nline = 32\nways = 4\nlatency = 40", 30,
                  "both serve 'l1d' at level 1");
    /* ... is fine at another level */
    char *t = variant(30, "[cache l1b]\nserves = l1d\nlevel = 1.5\nsize = 8 KiB\nline = 32\n"
                          "ways = 4\nlatency = 40",
                      1);
    mt_sim_spec s;
    mt_errinfo ei = {{0}};
    if (parse(t, &s, &ei))
        fail_msg("%s", ei.msg);
    free(t);
    /* a second L2 */
    expect_insert(37, "[cache l3]\nserves = all\nsize = 1 MiB\nline = 128\nways = 16\nlatency = 300", 37,
                  "a second cache with serves = all");
    expect_replace(13, "smem_per_block_optin = 128 KiB", 13, "exceeds smem_per_sm");
    expect_replace(12, "smem_per_block = 96 KiB", 12, "exceeds smem_per_block_optin");
    expect_insert(21, "const_reserved = 64 KiB", 21, "below const_mem");
    expect_insert(21, "outlier_rate = 0.01", 21, "needs outlier_cycles");
}

/* Sizes that would make the model allocate absurd amounts are parse
 * errors, not allocation failures. */
static void test_memory_blowups_rejected(void **state)
{
    (void)state;
    expect_replace(32, "size = 2 GiB", 32, "out of range");
    /* 512 MiB of 32 B lines: 16M lines, twice the per-cache limit */
    char *big = variant(32, "size = 512 MiB", 0);
    char *ln = strstr(strstr(big, "[cache l2]"), "line = 128");
    memcpy(ln, "line = 32 ", 10); /* same length: line numbers unchanged */
    expect_error(big, 32, "exceed the simulator's limit");
    free(big);
    expect_replace(27, "ways = 2048", 27, "out of range");
    /* 2048 lines fully associative: each lookup would scan 2048 ways */
    char *v = variant(27, "ways = full", 0);
    char *sz = strstr(v, "size = 16 KiB");
    memcpy(sz, "size = 256KiB", 13); /* same length: line numbers unchanged */
    expect_error(v, 27, "at most 1024 ways");
    free(v);
    /* each slice is fine, 64 of them are not: 64 x 512K lines */
    v = variant(29, "slices = 64", 1);
    sz = strstr(v, "size = 16 KiB");
    memcpy(sz, "size = 64 MiB", 13);
    expect_error(v, 42, "lines in all");
    free(v);
}

static void test_sizes_and_units(void **state)
{
    (void)state;
    /* global_mem: the size key with the loosest cross-checks (>= 2 MiB here) */
    struct {
        const char *text;
        uint64_t bytes;
    } cases[] = {
        {"global_mem = 52428800", 52428800}, {"global_mem = 50 MiB", 52428800},
        {"global_mem = 2.25 MiB", 2359296},  {"global_mem = 12288KiB", 12582912},
        {"global_mem = 4194304 B", 4194304}, {"global_mem = 0.5 GiB", 536870912},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *t = variant(9, cases[i].text, 0);
        mt_sim_spec s;
        mt_errinfo ei = {{0}};
        if (parse(t, &s, &ei))
            fail_msg("%s: %s", cases[i].text, ei.msg);
        assert_int_equal(s.global_mem, cases[i].bytes);
        free(t);
    }
}

static void test_comments_and_quotes(void **state)
{
    (void)state;
    char *t = variant(3, "name = \"Quoted GPU\"   # trailing comment", 0);
    mt_sim_spec s;
    mt_errinfo ei = {{0}};
    if (parse(t, &s, &ei))
        fail_msg("%s", ei.msg);
    assert_string_equal(s.name, "Quoted GPU");
    free(t);
}

static void test_latency_overrides(void **state)
{
    (void)state;
    char *t = variant(29, "latency.tex = 86", 1);
    mt_sim_spec s;
    mt_errinfo ei = {{0}};
    if (parse(t, &s, &ei))
        fail_msg("%s", ei.msg);
    assert_true(s.cache[0].latency[MT_SIM_LP_TEX] == 86.0);
    assert_true(s.cache[0].latency[MT_SIM_LP_L1D] == 30.0);
    assert_true(s.cache[0].latency[MT_SIM_LP_RO] == 30.0);
    free(t);
    /* far latency keeps the near/far gap for a path with its own latency */
    t = variant(36, "partitions = 2\nfar_latency = 300\nlatency.tex = 250", 1);
    if (parse(t, &s, &ei))
        fail_msg("%s", ei.msg);
    assert_true(s.cache[1].far_latency[MT_SIM_LP_CG] == 300.0);
    assert_true(s.cache[1].far_latency[MT_SIM_LP_TEX] == 350.0);
    free(t);
}

static void test_carveout_derivation(void **state)
{
    (void)state;
    char *t = variant(21, "carveout_smem = 32 KiB", 1);
    mt_sim_spec s;
    mt_errinfo ei = {{0}};
    if (parse(t, &s, &ei))
        fail_msg("%s", ei.msg);
    assert_int_equal(s.carveout_smem, 32768);
    assert_int_equal(s.carveout_percent, 50); /* of smem_per_sm = 64 KiB */
    free(t);
}

static void test_load_unknown_and_file(void **state)
{
    (void)state;
    mt_sim_spec s;
    mt_errinfo ei = {{0}};
    assert_int_equal(mt_sim_spec_load("no-such-preset-or-file", &s, &ei), MT_ERR_INVALID_ARG);
    assert_non_null(strstr(ei.msg, "h100"));
    assert_non_null(strstr(ei.msg, "kepler"));
    /* a directory is not a spec file either */
    assert_int_equal(mt_sim_spec_load("/tmp", &s, &ei), MT_ERR_INVALID_ARG);

    char path[] = "/tmp/test_sim_spec_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    char *t = variant(18, "seed = 12345", 0);
    assert_int_equal(write(fd, t, strlen(t)), (ssize_t)strlen(t));
    close(fd);
    free(t);
    if (mt_sim_spec_load(path, &s, &ei))
        fail_msg("%s", ei.msg);
    assert_int_equal(s.seed, 12345);

    /* errors in a file name the file */
    fd = open(path, O_WRONLY | O_TRUNC);
    assert_true(fd >= 0);
    const char *bad = "[device]\nbogus = 1\n";
    assert_int_equal(write(fd, bad, strlen(bad)), (ssize_t)strlen(bad));
    close(fd);
    assert_int_equal(mt_sim_spec_load(path, &s, &ei), MT_ERR_SPEC_PARSE);
    char want[128];
    snprintf(want, sizeof want, "%s:2: ", path);
    assert_memory_equal(ei.msg, want, strlen(want));
    unlink(path);

    /* the backend constructor with a seed override */
    mt_backend *b = NULL;
    if (mt_backend_sim_open("v100", 1, 99, &b, &ei))
        fail_msg("%s", ei.msg);
    assert_int_equal(mt_backend_sim_spec(b)->seed, 99);
    mt_backend_destroy(b);
    assert_int_equal(mt_backend_sim_open("nope", 0, 0, &b, &ei), MT_ERR_INVALID_ARG);
    assert_null(b);
}

static void test_device_info(void **state)
{
    (void)state;
    mt_backend *b = NULL;
    mt_errinfo ei = {{0}};
    if (mt_backend_sim_open("h100", 0, 0, &b, &ei))
        fail_msg("%s", ei.msg);
    mt_device_info d;
    assert_int_equal(mt_backend_info(b, &d, &ei), MT_OK);
    assert_string_equal(d.backend, "sim");
    assert_int_equal(d.cc_major, 9);
    assert_int_equal(d.cc_minor, 0);
    assert_int_equal(d.sm_count, 132);
    assert_int_equal(d.clock_khz, 1980000);
    assert_int_equal(d.l2_bytes, 52428800);
    assert_int_equal(d.smem_per_block_optin, 227 * 1024);
    assert_int_equal(d.carveout_smem_bytes, 16 * 1024);
    assert_int_equal(d.carveout_percent, 7);
    assert_int_equal(d.path_limit_bytes[MT_PATH_GLOBAL_CA], 4ull << 30);
    assert_int_equal(d.path_limit_bytes[MT_PATH_GLOBAL_CG], 4ull << 30);
    assert_int_equal(d.path_limit_bytes[MT_PATH_TEXTURE], 512ull << 20);
    assert_int_equal(d.path_limit_bytes[MT_PATH_CONSTANT], 65536);
    assert_int_equal(d.path_limit_bytes[MT_PATH_SHARED], 227 * 1024);
    assert_int_equal(d.path_limit_bytes[MT_PATH_NONE], 0);
    assert_int_equal(d.max_fine_loads, 8192);
    assert_int_equal(d.max_threads_per_experiment, 1024);
    mt_backend_destroy(b);

    /* maxwell: 2005 MiB of memory -> global paths limited to half of it */
    if (mt_backend_sim_open("maxwell", 0, 0, &b, &ei))
        fail_msg("%s", ei.msg);
    assert_int_equal(mt_backend_info(b, &d, &ei), MT_OK);
    assert_int_equal(d.path_limit_bytes[MT_PATH_GLOBAL_CA], 2005ull << 19);
    assert_int_equal(d.carveout_percent, -1);
    mt_backend_destroy(b);

    /* const_reserved lowers the constant path's limit */
    char *t = variant(21, "const_reserved = 1.5 KiB", 1);
    if (mt_backend_sim_open_text(t, "test.spec", &b, &ei))
        fail_msg("%s", ei.msg);
    assert_int_equal(mt_backend_info(b, &d, &ei), MT_OK);
    assert_int_equal(d.path_limit_bytes[MT_PATH_CONSTANT], 64 * 1024 - 1536);
    mt_backend_destroy(b);
    free(t);
}

/* The complete example in docs/spec-format.md must stay valid.  The test
 * binaries run from the repository root (tests/run_all.sh); elsewhere the
 * file is not found and the test is skipped. */
static void test_doc_example_parses(void **state)
{
    (void)state;
    FILE *f = fopen("docs/spec-format.md", "r");
    if (!f)
        skip();
    static char doc[65536];
    size_t n = fread(doc, 1, sizeof doc - 1, f);
    fclose(f);
    doc[n] = '\0';
    char *sec = strstr(doc, "## A complete example");
    assert_non_null(sec);
    char *b = strstr(sec, "```ini\n");
    assert_non_null(b);
    b += 7;
    char *e = strstr(b, "```");
    assert_non_null(e);
    *e = '\0';
    mt_sim_spec s;
    mt_errinfo ei = {{0}};
    if (mt_sim_spec_parse(b, "docs/spec-format.md", &s, &ei))
        fail_msg("%s", ei.msg);
    assert_int_equal(s.n_caches, 5);
    assert_int_equal(s.cache[s.l2].partitions, 2);
    assert_int_equal(s.cache[1].slices, 2);
    assert_true(s.cache[1].fully_assoc);
    assert_int_equal(s.carveout_smem, 100 * 1024);
}


/* Numbers are read strictly: decimal digits, no sign, no leading zeros,
 * no hex, no trailing junk, no overflow (docs/spec-format.md, value types). */
static void test_strict_numbers(void **state)
{
    (void)state;
    const char *bad_ints[] = {"sm_count = 04", "sm_count = +4", "sm_count = 0x10",
                              "sm_count = 4.0", "sm_count = 1e1"};
    for (size_t i = 0; i < sizeof bad_ints / sizeof bad_ints[0]; i++)
        expect_replace(5, bad_ints[i], 5, "not a plain decimal integer");
    expect_replace(18, "seed = 18446744073709551616", 18, "not a plain decimal integer");
    const char *bad_nums[] = {"timer_overhead = 010",  "timer_overhead = .5",
                              "timer_overhead = 5.",   "timer_overhead = 0x1p3",
                              "timer_overhead = inf",  "timer_overhead = +5",
                              "timer_overhead = 1e999", "timer_overhead = 1e-999",
                              "timer_overhead = 1e1000", "timer_overhead = 5e",
                              "timer_overhead = 5 e2", "timer_overhead = 1,5"};
    for (size_t i = 0; i < sizeof bad_nums / sizeof bad_nums[0]; i++)
        expect_replace(19, bad_nums[i], 19, "not a number");
    expect_replace(24, "size = 016 KiB", 24, "leading zeros");
    expect_replace(24, "size = 16  KiB", 24, "unknown unit");
    expect_replace(24, "size = 16. KiB", 24, "no digits after the decimal point");
    expect_replace(24, "size = .5 KiB", 24, "not a size");
    expect_replace(24, "size = 0x4000", 24, "unknown unit");
    expect_replace(24, "size = 99999999999999999999 B", 24, "too large");
    const char *bad_cc[] = {"compute_capability = 09.0", "compute_capability = 9.0.1",
                            "compute_capability = 9.+0", "compute_capability = 9.10",
                            "compute_capability = 100.0", "compute_capability = 9"};
    for (size_t i = 0; i < sizeof bad_cc / sizeof bad_cc[0]; i++)
        expect_replace(4, bad_cc[i], 4, "MAJOR.MINOR");
    expect_insert(29, "slice_map = group 064", 29, "slice_map");
    expect_insert(29, "slice_map = group +4", 29, "slice_map");
    expect_insert(29, "slice_map = group  4", 29, "slice_map");
    /* what the format documents stays accepted */
    const char *good[] = {"timer_overhead = 0.5", "timer_overhead = 1e-4", "timer_overhead = 0",
                          "timer_overhead = 2.5E+1"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        char *t = variant(19, good[i], 0);
        mt_sim_spec s;
        mt_errinfo ei = {{0}};
        if (parse(t, &s, &ei))
            fail_msg("%s: %s", good[i], ei.msg);
        free(t);
    }
}

/* Control bytes never reach a message raw: CR (other than CRLF line ends),
 * other control bytes anywhere and TAB inside a value are refused without
 * echoing them, and a file name holding one is escaped. */
static void test_control_characters(void **state)
{
    (void)state;
    expect_replace(5, "sm_count = 4\r5", 5, "control character 0x0d");
    expect_replace(3, "name = My\rGPU", 3, "a CR may only end a line");
    expect_replace(3, "name = My\tGPU", 3, "TAB inside the value of 'name'");
    expect_replace(3, "name = My\177GPU", 3, "control character 0x7f");
    expect_replace(21, "# a comment with \001 in it", 21, "control character 0x01");
    /* CRLF line ends and TABs around '=' are fine */
    char *t = variant(5, "sm_count\t=\t4", 0);
    size_t n = strlen(t);
    char *crlf = malloc(2 * n + 1);
    assert_non_null(crlf);
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (t[i] == '\n')
            crlf[o++] = '\r';
        crlf[o++] = t[i];
    }
    crlf[o] = '\0';
    mt_sim_spec s;
    mt_errinfo ei = {{0}};
    if (parse(crlf, &s, &ei))
        fail_msg("%s", ei.msg);
    assert_int_equal(s.sm_count, 4);
    assert_string_equal(s.name, "Test GPU");
    free(crlf);
    free(t);
    /* a file name with control bytes is escaped in the message */
    t = variant(5, "sm_count = x", 0);
    assert_int_equal(mt_sim_spec_parse(t, "evil\r\nname.spec", &s, &ei), MT_ERR_SPEC_PARSE);
    assert_memory_equal(ei.msg, "evil\\r\\nname.spec:5: ", strlen("evil\\r\\nname.spec:5: "));
    free(t);
}

/* Values every key accepts alone that a run could not measure, or that
 * would make it take minutes, are refused at parse time at the key's line. */
static void test_unmeasurable_rejected(void **state)
{
    (void)state;
    expect_replace(14, "const_mem = 4", 14, "constant-cache probe");
    expect_replace(14, "const_mem = 2 MiB", 14, "above 1048576 B");
    expect_insert(21, "const_reserved = 57 KiB", 14, "constant-cache probe");
    expect_replace(9, "global_mem = 4 KiB", 9, "global path");
    expect_replace(9, "global_mem = 1", 9, "global path");
    expect_replace(9, "global_mem = 1 MiB", 9, "below 4x the L2's 262144 B");
    expect_replace(10, "l2_size = 1", 10, "below 65536 B");
    expect_replace(10, "l2_size = 1 MiB", 10, "differ by more than a factor of 2");
    expect_replace(10, "l2_size = 64 KiB", 10, "differ by more than a factor of 2");
    expect_replace(12, "smem_per_block = 0", 12, "below 4096 B");
    expect_replace(12, "smem_per_block = 2 KiB", 12, "shared-memory probe");
    /* the 1 GiB 1024-way L2 that ran for ten minutes, and its slower
     * smaller cousins */
    const int at[] = {9, 10, 32, 33, 34};
    const char *huge[] = {"global_mem = 8 GiB", "l2_size = 1 GiB", "size = 1 GiB", "line = 256",
                          "ways = 1024"};
    expect_lines(at, huge, 5, 32, "a run would take minutes");
    const char *big[] = {"global_mem = 8 GiB", "l2_size = 256 MiB", "size = 256 MiB",
                         "line = 128", "ways = 8"};
    expect_lines(at, big, 5, 32, "above 134217728 B");
    const char *wide[] = {"global_mem = 8 GiB", "l2_size = 64 MiB", "size = 64 MiB",
                          "line = 128", "ways = 64"};
    expect_lines(at, wide, 5, 34, "every lookup scans the ways");
    const char *fine[] = {"global_mem = 8 GiB", "l2_size = 64 MiB", "size = 64 MiB",
                          "line = 128", "ways = 32"};
    char *t = variant_lines(at, fine, 5);
    mt_sim_spec s;
    mt_errinfo ei = {{0}};
    if (parse(t, &s, &ei))
        fail_msg("%s", ei.msg);
    free(t);
    /* the largest L2 accepted: 500x a 256 KiB L1, a B200's 126 MB */
    const char *largest[] = {"global_mem = 8 GiB", "l2_size = 128 MiB", "size = 128 MiB",
                             "line = 128", "ways = 16"};
    t = variant_lines(at, largest, 5);
    if (parse(t, &s, &ei))
        fail_msg("%s", ei.msg);
    free(t);
}

/* Documented noise limits (another test draws random noise up to them):
 * outlier_rate <= 0.01, outlier_cycles <= 10000, each level's noise <= 1/8
 * of each of its latencies, per-path overrides and the far L2 included. */
static void test_noise_limits(void **state)
{
    (void)state;
    expect_insert(21, "outlier_rate = 0.02\noutlier_cycles = 900", 21, "above 0.01");
    expect_insert(21, "outlier_rate = 0.01\noutlier_cycles = 10001", 22, "above 10000");
    expect_insert(29, "noise = 3.76", 29, "above 1/8 of its latency for 'l1d' loads (30 cycles)");
    expect_insert(29, "latency.tex = 20\nnoise = 3", 30, "for 'tex' loads (20 cycles)");
    expect_insert(36, "partitions = 2\nfar_latency = 300\nnoise = 25.1", 38,
                  "above 1/8 of its latency for 'l1d' loads (200 cycles)");
    expect_insert(39, "noise = 50.5", 39, "[dram] is above 1/8");
    char *sh = variant(0, NULL, 0);
    sh = realloc(sh, strlen(sh) + 64);
    assert_non_null(sh);
    strcat(sh, "noise = 3.2\n"); /* line 42, in [shared] */
    expect_error(sh, 42, "[shared] is above 1/8 of its latency (25 cycles)");
    free(sh);
    /* exactly at every limit: accepted */
    const char *ok = "outlier_rate = 0.01\noutlier_cycles = 10000";
    char *t = variant(21, ok, 1);
    size_t len = strlen(t);
    t = realloc(t, len + 64);
    assert_non_null(t);
    strcat(t, "noise = 3.125\n"); /* [shared]: 25 / 8 */
    mt_sim_spec s;
    mt_errinfo ei = {{0}};
    if (parse(t, &s, &ei))
        fail_msg("%s", ei.msg);
    assert_true(s.outlier_rate == 0.01 && s.shared.noise == 3.125);
    free(t);
    t = variant(29, "noise = 3.75", 1);
    if (parse(t, &s, &ei))
        fail_msg("%s", ei.msg);
    free(t);
}

/* Latencies grow outwards along every path; a level no slower than the one
 * before it would turn the misses the probes look for into hits. */
/* replacement = plru: accepted for power-of-two ways (full included when
 * the line count is one), refused with the line otherwise. */
static void test_plru_ways(void **state)
{
    (void)state;
    char *t = variant(29, "replacement = plru", 1);
    mt_sim_spec s;
    mt_errinfo ei = {{0}};
    if (parse(t, &s, &ei))
        fail_msg("%s", ei.msg);
    assert_int_equal(s.cache[0].repl, MT_SIM_REPL_PLRU);
    free(t);
    static const int at[] = {24, 27, 28};
    static const char *const bad[] = {"size = 12 KiB", "ways = 3", "latency = 30\nreplacement = plru"};
    expect_lines(at, bad, 3, 29, "plru needs a power-of-two number of ways (ways = 3)");
    static const char *const full_bad[] = {"size = 12 KiB", "ways = full",
                                           "latency = 30\nreplacement = plru"};
    expect_lines(at, full_bad, 3, 29, "(ways = 96)");
}

/* index = hash with index_masks: the L1 of the base spec has 32 sets, so 5
 * masks. */
static void test_hash_masks(void **state)
{
    (void)state;
    char *t = variant(29, "index = hash\nindex_masks = 0x1 0x2, 0x4 0x8 0X30", 1);
    mt_sim_spec s;
    mt_errinfo ei = {{0}};
    if (parse(t, &s, &ei))
        fail_msg("%s", ei.msg);
    free(t);
    assert_int_equal(s.cache[0].index, MT_SIM_INDEX_HASH);
    assert_int_equal(s.cache[0].n_index_masks, 5);
    assert_true(s.cache[0].index_mask[4] == 0x30);
    expect_insert(29, "index = hash\nindex_masks = 0x1 0x2 0x4 0x8", 30, "need exactly 5 masks");
    expect_insert(29, "index = hash\nindex_masks = 0x1 0x2 0x4 0x8 0x0", 30, "mask 4 is zero");
    expect_insert(29, "index = hash\nindex_masks = 0x1 0x2 0x3 0x8 0x10", 30,
                  "not linearly independent");
    expect_insert(29, "index = hash\nindex_masks = 0x1 0x2 0x4 0x8 0x1g", 30, "'0x1g' is not a mask");
    expect_insert(29, "index = hash\nindex_masks = 0x1 0x2 0x4 0x8 16", 30, "'16' is not a mask");
    expect_insert(29, "index = hash\nindex_masks = 0x1 0x2 0x4 0x8 0x12345678901234567", 30,
                  "is not a mask");
    expect_insert(29, "index_masks = 0x1 0x2 0x4 0x8 0x10", 29, "needs index = hash");
    /* global_mem = 1 GiB: the global path reaches 512 MiB, line addresses
     * below 2^22; a mask of bit 40 alone makes its set bit constant there. */
    expect_insert(29, "index = hash\nindex_masks = 0x1 0x2 0x4 0x8 0x10000000000", 30,
                  "bits 0..21), the masks are not independent");
    expect_insert(29, "index = hash", 22, "missing required key 'index_masks'");
    static const int at[] = {24, 28};
    static const char *const odd[] = {"size = 12 KiB", "latency = 30\nindex = hash"};
    expect_lines(at, odd, 2, 29, "power-of-two number of sets, at least 2 (24)");
    /* A partitioned L2 hashes within a partition: 128 sets / 2 = 64, 6 masks. */
    t = variant(36, "partitions = 2\nfar_latency = 300\nindex = hash\n"
                    "index_masks = 0x41 0x2 0x4 0x8 0x10 0x20", 1);
    if (parse(t, &s, &ei))
        fail_msg("%s", ei.msg);
    free(t);
    assert_int_equal(s.cache[1].n_index_masks, 6);
    expect_insert(36, "partitions = 2\nfar_latency = 300\nindex = hash\n"
                      "index_masks = 0x1 0x2 0x4 0x8 0x10 0x20 0x40", 39, "64 sets per partition need exactly 6");
}

/* partition_of_sm: the L2's per-SM partition map (N*P repeats P). */
static void test_partition_map(void **state)
{
    (void)state;
    char *t = variant(36, "partitions = 2\nfar_latency = 300\npartition_of_sm = 3*1 0", 1);
    mt_sim_spec s;
    mt_errinfo ei = {{0}};
    if (parse(t, &s, &ei))
        fail_msg("%s", ei.msg);
    free(t);
    const mt_sim_cache_spec *l2 = &s.cache[1];
    assert_int_equal(l2->partition_map_len, 4);
    static const uint32_t want[] = {1, 1, 1, 0, 1 /* SM 4 wraps to entry 0 */};
    for (int sm = 0; sm < 5; sm++)
        assert_int_equal(mt_sim_partition_of_sm(l2, sm), want[sm]);
    assert_int_equal(mt_sim_partition_of_sm(l2, -1), 1); /* "any" SM runs on SM 0 */
    /* the default stays sm mod partitions */
    t = variant(36, "partitions = 2\nfar_latency = 300", 1);
    if (parse(t, &s, &ei))
        fail_msg("%s", ei.msg);
    free(t);
    assert_int_equal(mt_sim_partition_of_sm(&s.cache[1], 3), 1);
    assert_int_equal(mt_sim_partition_of_sm(&s.cache[1], 4), 0);
    expect_insert(36, "partitions = 2\nfar_latency = 300\npartition_of_sm = 0 2", 38,
                  "'2' is not a partition number 0..1");
    expect_insert(36, "partitions = 2\nfar_latency = 300\npartition_of_sm = 0 1 0 1 0", 38,
                  "5 entries for 4 SMs");
    expect_insert(36, "partitions = 2\nfar_latency = 300\npartition_of_sm = 0*2", 38,
                  "needs a count >= 1");
    expect_insert(36, "partition_of_sm = 0", 36, "needs the L2 (serves = all) with partitions > 1");
    expect_insert(29, "partition_of_sm = 0", 29, "needs the L2");
}

/* unified: an L1 sharing its array with shared memory; [device]
 * carveouts_kib lists the carveouts (base smem_per_sm = 64 KiB). */
static void test_unified_and_carveouts(void **state)
{
    (void)state;
    static const int at[] = {21, 24};
    static const char *const ok[] = {"carveouts_kib = 0 16 32 64\ncarveout_smem = 16 KiB",
                                     "unified = 80 KiB"};
    char *t = variant_lines(at, ok, 2);
    mt_sim_spec s;
    mt_errinfo ei = {{0}};
    if (parse(t, &s, &ei))
        fail_msg("%s", ei.msg);
    free(t);
    assert_int_equal(s.n_carveouts, 4);
    assert_int_equal(s.carveouts[0], 0);
    assert_int_equal(s.carveouts[3], 65536);
    assert_int_equal(s.carveout_percent, 25);
    assert_true(s.cache[0].unified == 80 << 10);
    assert_true(s.cache[0].size == 64 << 10); /* at the default 16 KiB carveout */
    assert_int_equal(mt_sim_carveout_smem(&s, -1), 16384);
    assert_int_equal(mt_sim_carveout_smem(&s, 0), 0);
    assert_int_equal(mt_sim_carveout_smem(&s, 25), 16384);
    assert_int_equal(mt_sim_carveout_smem(&s, 26), 32768); /* rounded up to a carveout */
    assert_int_equal(mt_sim_carveout_smem(&s, 100), 65536);
    assert_true(mt_sim_cache_size(&s.cache[0], 65536) == 16 << 10);
    assert_true(mt_sim_cache_size(&s.cache[1], 65536) == 256 << 10); /* not unified */

    static const int at3[] = {21, 23, 24};
    static const char *const both[] = {ok[0], "serves = l1d tex ro\nunified = 80 KiB",
                                       "size = 16 KiB"};
    expect_lines(at3, both, 3, 26, "size: not allowed with unified");
    expect_replace(24, "unified = 80 KiB", 24, "give [device] carveout_percent or carveout_smem");
    static const char *const no_l1[] = {ok[0], "unified = 64 KiB"};
    expect_lines(at, no_l1, 2, 25, "a 64 KiB carveout leaves no L1");
    static const int at4[] = {21, 24, 27};
    static const char *const partial[] = {"carveouts_kib = 0 1 16 32 64\ncarveout_smem = 16 KiB",
                                          "unified = 80 KiB", "ways = 16"};
    expect_lines(at4, partial, 3, 25, "a 1 KiB carveout leaves 80896 B, not a whole number of sets");
    static const char *const full[] = {ok[0], "unified = 80 KiB", "ways = full"};
    expect_lines(at4, full, 3, 28, "ways = full: a cache sharing its array");
    static const char *const hash[] = {ok[0], "unified = 80 KiB",
                                       "ways = 4\nindex = hash\nindex_masks = 0x1"};
    expect_lines(at4, hash, 3, 29, "changes its set count with the carveout");
    expect_replace(32, "unified = 256 KiB", 32, "the L2 does not share its array");
    expect_replace(21, "carveouts_kib = 0 16 32 64\ncarveout_smem = 8 KiB", 22,
                   "the default carveout (8192 B) is not one of carveouts_kib");
    expect_replace(21, "carveouts_kib = 0 32 16 64", 21, "not in ascending order (16 after 32)");
    expect_replace(21, "carveouts_kib = 0 16 32", 21, "the largest (32 KiB) must equal smem_per_sm");
    expect_replace(21, "carveouts_kib = 0 16 x 64", 21, "'x' is not a plain decimal KiB count");
    expect_replace(21, "carveouts_kib = 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 64", 21,
                   "more than 16 carveouts");
}

/* carveout_takes = ways: the carveout takes ways from the sets of the
 * whole array (unified = 128 KiB: 256 sets of 4 ways of 128 B lines). */
static void test_carveout_takes_ways(void **state)
{
    (void)state;
    static const int at[] = {21, 24};
    static const char *const ok[] = {"carveouts_kib = 0 16 32 64\ncarveout_smem = 16 KiB",
                                     "unified = 128 KiB\ncarveout_takes = ways"};
    char *t = variant_lines(at, ok, 2);
    mt_sim_spec s;
    mt_errinfo ei = {{0}};
    if (parse(t, &s, &ei))
        fail_msg("%s", ei.msg);
    free(t);
    const mt_sim_cache_spec *l1 = &s.cache[0];
    assert_int_equal(l1->carveout_ways, 1);
    assert_true(l1->size == 112 << 10); /* the capacity left at the default 16 KiB */
    /* 16 KiB = 128 lines: sets 128..255 lose one way */
    assert_int_equal(mt_sim_set_ways(l1, 16384, 0), 4);
    assert_int_equal(mt_sim_set_ways(l1, 16384, 127), 4);
    assert_int_equal(mt_sim_set_ways(l1, 16384, 128), 3);
    assert_int_equal(mt_sim_set_ways(l1, 16384, 255), 3);
    assert_int_equal(mt_sim_set_ways(l1, 0, 5), 4);
    assert_int_equal(mt_sim_set_ways(l1, 65536, 255), 2); /* 512 lines: 2 from every set */
    assert_int_equal(mt_sim_set_ways(&s.cache[1], 16384, 0), 16); /* the L2: its ways */

    /* the set count stays, so a hash index may be given */
    static const int at4[] = {21, 24, 27};
    static const char *const hash[] = {ok[0], ok[1],
                                       "ways = 4\nindex = hash\n"
                                       "index_masks = 0x1 0x2 0x4 0x8 0x10 0x20 0x40 0x81"};
    t = variant_lines(at4, hash, 3);
    if (parse(t, &s, &ei))
        fail_msg("%s", ei.msg);
    free(t);
    assert_int_equal(s.cache[0].n_index_masks, 8);

    expect_insert(29, "carveout_takes = ways", 29, "carveout_takes needs unified");
    static const char *const word[] = {ok[0], "unified = 128 KiB\ncarveout_takes = lines"};
    expect_lines(at, word, 2, 26, "carveout_takes");
    static const char *const plru[] = {ok[0], ok[1], "ways = 4\nreplacement = plru"};
    expect_lines(at4, plru, 3, 26, "replacement = plru does not define");
    static const char *const fermi[] = {ok[0], ok[1], "ways = 4\nreplacement = fermi"};
    expect_lines(at4, fermi, 3, 26, "replacement = fermi does not define");
    /* 72 KiB: 144 sets; the 64 KiB carveout leaves 64 lines */
    static const char *const empty[] = {ok[0], "unified = 72 KiB\ncarveout_takes = ways"};
    expect_lines(at, empty, 2, 25, "leaves 64 lines for 144 sets; every set must keep a way");
    static const int at5[] = {21, 24, 25, 26};
    static const char *const part[] = {"carveouts_kib = 0 1 16 32 64\ncarveout_smem = 16 KiB",
                                       ok[1], "line = 2048", "sector = 128"};
    expect_lines(at5, part, 4, 25, "a 1024 B carveout is not a whole number of 2048 B lines");
}

static void test_latency_order(void **state)
{
    (void)state;
    /* the later level is named, at its latency */
    expect_replace(28, "latency = 200", 35, "the L2 [cache l2] is no slower than [cache l1]");
    expect_insert(29, "latency.ro = 250", 36, "for 'ro' loads (200 <= 250 cycles)");
    expect_replace(38, "latency = 200", 38, "[dram] latency 200 for 'l1d' loads is not above");
    expect_insert(36, "partitions = 2\nfar_latency = 190", 37, "below its near latency");
    expect_insert(36, "partitions = 2\nfar_latency = 401", 40, "not above the L2's");
    expect_insert(30, "[cache l1b]\nserves = l1d\nlevel = 2\nsize = 8 KiB\nline = 32\nways = 4\n"
                      "latency = 30",
                  36, "[cache l1b] is no slower than [cache l1]");
    /* a far hit as slow as DRAM is still an L2 hit: accepted */
    char *t = variant(36, "partitions = 2\nfar_latency = 400", 1);
    mt_sim_spec s;
    mt_errinfo ei = {{0}};
    if (parse(t, &s, &ei))
        fail_msg("%s", ei.msg);
    free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_base_parses),
        cmocka_unit_test(test_every_preset_parses),
        cmocka_unit_test(test_syntax_errors),
        cmocka_unit_test(test_unknown_and_duplicate),
        cmocka_unit_test(test_bad_values),
        cmocka_unit_test(test_missing),
        cmocka_unit_test(test_geometry_errors),
        cmocka_unit_test(test_full_assoc_ok),
        cmocka_unit_test(test_cross_section_errors),
        cmocka_unit_test(test_memory_blowups_rejected),
        cmocka_unit_test(test_sizes_and_units),
        cmocka_unit_test(test_comments_and_quotes),
        cmocka_unit_test(test_latency_overrides),
        cmocka_unit_test(test_carveout_derivation),
        cmocka_unit_test(test_load_unknown_and_file),
        cmocka_unit_test(test_device_info),
        cmocka_unit_test(test_doc_example_parses),
        cmocka_unit_test(test_strict_numbers),
        cmocka_unit_test(test_control_characters),
        cmocka_unit_test(test_unmeasurable_rejected),
        cmocka_unit_test(test_noise_limits),
        cmocka_unit_test(test_latency_order),
        cmocka_unit_test(test_plru_ways),
        cmocka_unit_test(test_hash_masks),
        cmocka_unit_test(test_partition_map),
        cmocka_unit_test(test_unified_and_carveouts),
        cmocka_unit_test(test_carveout_takes_ways),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The model's input parsers: .kd, the ncu raw CSV, the SASS source page
 * and the CSV records under them (src/model). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model/model.h"

static void csv_quotes_and_separators(void **state)
{
    (void)state;
    const char *p = "\"a,b\",\"say \"\"hi\"\"\",3\r\nnext";
    char **c;
    size_t n;
    assert_int_equal(mt_model_csv_record(&p, &c, &n), 1);
    assert_int_equal(n, 3);
    assert_string_equal(c[0], "a,b");
    assert_string_equal(c[1], "say \"hi\"");
    assert_string_equal(c[2], "3");
    mt_model_csv_free(c, n);
    assert_string_equal(p, "next");
    double v;
    assert_true(mt_model_number("1,234,567.5", &v) && v == 1234567.5);
    assert_false(mt_model_number("n/a", &v));
    assert_false(mt_model_number("", &v));
}

static const char kd_good[] = "# a stream\n"
                              "name = s\n"
                              "grid = 10\nblock = 64\n"
                              "inst = 100   # per warp\n"
                              "ld_global = 10\nld_sectors = 4\nld_level = l2\n"
                              "ld_per_interval = 5\n"
                              "dep_distance = 2\ndep_fraction = 0.5\n";

static void kd_reads_a_kernel(void **state)
{
    (void)state;
    mt_model_kernel k;
    mt_errinfo ei;
    assert_int_equal(mt_model_kd_parse(kd_good, "s.kd", &k, &ei), MT_OK);
    assert_string_equal(k.name, "s");
    assert_true(k.grid_blocks == 10 && k.block_threads == 64 && k.inst == 100);
    assert_true(k.l1_hit == 0 && k.l2_hit == 1);
    assert_true(k.ld_intervals == 2);
    assert_true(k.alu_dep[2] == 0.5 * 90);
    assert_true(k.dram_read_bytes < 0);
}

static void kd_errors_name_the_line(void **state)
{
    (void)state;
    mt_model_kernel k;
    mt_errinfo ei;
    struct {
        const char *text, *want;
    } bad[] = {
        {"grid = 1\nblock = 32\ncolour = 3\ninst = 9\n", "x.kd:3: unknown key \"colour\""},
        {"grid = 1\nblock = 32\ninst = 9\nl1_hit = 1.5\n", "x.kd:4: l1_hit is a rate"},
        {"grid = 1\nblock = 32\ninst = ten\n", "x.kd:3: inst wants a number"},
        {"grid = 1\ngrid = 2\n", "x.kd:2: grid given twice"},
        {"grid 1\n", "x.kd:1: expected key = value"},
        {"grid = 1\nblock = 32\n", "x.kd: missing key inst"},
        {"grid = 1\nblock = 0\ninst = 3\n", "x.kd:2: block must be at least 1"},
        {"grid = 1\nblock = 32\ninst = 3\nld_global = 9\n", "exceed inst"},
        {"grid = 1\nblock = 32\ninst = 3\nld_level = l3\n", "x.kd:4: ld_level is l1, l2 or dram"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(mt_model_kd_parse(bad[i].text, "x.kd", &k, &ei), MT_ERR_SPEC_PARSE);
        if (!strstr(ei.msg, bad[i].want))
            fail_msg("case %zu: \"%s\" lacks \"%s\"", i, ei.msg, bad[i].want);
        assert_null(strchr(ei.msg, '\n'));
    }
}

/* The program's own output around the CSV, a units row (sizes in Kbyte,
 * which ncu scales by 1000), thousands separators, two launches. */
static const char ncu_good[] =
    "==PROF== Connected to process 1\n"
    "copy 1.0 ms\n"
    "\"ID\",\"Kernel Name\",\"launch__grid_size\",\"launch__block_size\",\"smsp__inst_executed.sum\","
    "\"smsp__sass_inst_executed_op_global_ld.sum\",\"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum\","
    "\"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum\",\"lts__t_sector_op_read_hit_rate.pct\","
    "\"dram__bytes_read.sum\",\"gpu__time_duration.sum\"\n"
    "\"\",\"\",\"\",\"\",\"inst\",\"inst\",\"\",\"sector\",\"%\",\"Kbyte\",\"ns\"\n"
    "\"0\",\"copy(float *)\",\"1,000\",\"64\",\"20,000\",\"4,000\",\"4,000\",\"16,000\",\"25.5\",\"128.000000\",\"999\"\n"
    "\"1\",\"fma(int)\",\"2\",\"32\",\"300\",\"0\",\"0\",\"0\",\"0\",\"0\",\"5\"\n"
    "==PROF== Disconnected\n";

static void ncu_reads_launches(void **state)
{
    (void)state;
    mt_model_kernel *k;
    size_t n;
    mt_errinfo ei;
    assert_int_equal(mt_model_ncu_parse(ncu_good, "p.csv", &k, &n, &ei), MT_OK);
    assert_int_equal(n, 2);
    assert_string_equal(k[0].name, "0:copy(float *)");
    /* 1000 blocks of 2 warps. */
    assert_true(k[0].inst == 10);
    assert_true(k[0].ld_global == 2);
    assert_true(k[0].ld_sectors == 4);
    assert_true(fabs(k[0].l2_hit - 0.255) < 1e-12);
    assert_true(k[0].dram_read_bytes == 64);
    assert_true(k[0].dram_write_bytes < 0);
    assert_true(k[1].inst == 150);
    free(k);
}

static void ncu_errors(void **state)
{
    (void)state;
    mt_model_kernel *k;
    size_t n;
    mt_errinfo ei;
    assert_int_equal(mt_model_ncu_parse("just output\n", "p.csv", &k, &n, &ei), MT_ERR_INVALID_ARG);
    assert_non_null(strstr(ei.msg, "no ncu raw CSV header"));
    assert_int_equal(mt_model_ncu_parse("\"ID\",\"Kernel Name\",\"launch__grid_size\"\n\"0\",\"k\",\"4\"\n",
                                        "p.csv", &k, &n, &ei),
                     MT_ERR_INVALID_ARG);
    assert_non_null(strstr(ei.msg, "launch__block_size"));
    assert_null(k);
    assert_int_equal(mt_model_ncu_parse("\"ID\",\"Kernel Name\",\"x\"\n\"\",\"\",\"u\"\n", "p.csv",
                                        &k, &n, &ei),
                     MT_ERR_INVALID_ARG);
    assert_non_null(strstr(ei.msg, "no kernel rows"));
}

/* Two loads issued together, used 3 and 4 instructions later; an FFMA
 * chain at distance 1. */
static const char sass_good[] =
    "\"Kernel Name\",\"copy(float *)\",\n"
    "\"Address\",\"Source\",\"Instructions Executed\"\n"
    "\"0x0\",\"      LDG.E R4, desc[UR4][R2.64]\",\"2,000\"\n"
    "\"0x10\",\"      LDG.E R5, desc[UR4][R6.64]\",\"2,000\"\n"
    "\"0x20\",\"      IADD3 R8, R9, 0x1, RZ\",\"2,000\"\n"
    "\"0x30\",\"      FADD R10, R4, R5\",\"2,000\"\n"
    "\"0x40\",\"      FFMA R10, R10, R10, 1\",\"2,000\"\n"
    "\"0x50\",\"@P0   BAR.SYNC.DEFER_BLOCKING 0x0\",\"2,000\"\n"
    "\"0x60\",\"      MUFU.RCP R11, R10\",\"2,000\"\n";

static void sass_intervals_and_dependences(void **state)
{
    (void)state;
    mt_model_kernel *k;
    size_t n;
    mt_errinfo ei;
    assert_int_equal(mt_model_ncu_parse(ncu_good, "p.csv", &k, &n, &ei), MT_OK);
    assert_int_equal(mt_model_sass_apply(sass_good, "s.csv", k, n, &ei), MT_OK);
    assert_string_equal(k[0].source, "ncu+sass");
    /* 2000 executions over 2000 warps: one group of two loads per warp,
     * ended 3 instructions after the group opened. */
    assert_true(fabs(k[0].ld_intervals - 1) < 1e-12);
    assert_true(fabs(k[0].use_distance - 3) < 1e-12);
    /* FFMA reads the FADD just before it; MUFU the FFMA two back (the
     * barrier between them). */
    assert_true(fabs(k[0].alu_dep[1] - 1) < 1e-12);
    assert_true(fabs(k[0].alu_dep[2] - 1) < 1e-12);
    assert_true(fabs(k[0].barriers - 1) < 1e-12);
    assert_true(fabs(k[0].inst_sfu - 1) < 1e-12);
    assert_true(k[0].has_dep);
    assert_false(k[1].has_dep); /* no listing of fma */
    assert_int_equal(mt_model_sass_apply("nothing here\n", "s.csv", k, n, &ei), MT_ERR_INVALID_ARG);
    free(k);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(csv_quotes_and_separators),
        cmocka_unit_test(kd_reads_a_kernel),
        cmocka_unit_test(kd_errors_name_the_line),
        cmocka_unit_test(ncu_reads_launches),
        cmocka_unit_test(ncu_errors),
        cmocka_unit_test(sass_intervals_and_dependences),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The simulator's instruction caches (issue 10 part 5): the [icache NAME]
 * sections of the spec format (values, limits, rules across levels,
 * FILE:LINE errors), the level that serves a block, the samples of an
 * icache experiment, the capability, and icache experiments through a
 * recording (record from the sim, replay). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backend/backend.h"
#include "recording/recording.h"
#include "sim/icache_model.h"
#include "sim/sim.h"
#include "sim/spec.h"
#include "spec_error.h"
#include "tmpdir_fixture.h"

/* The h100 preset without its own [icache] sections, then `extra`. */
static char *spec_with(const char *extra)
{
    const char *base = mt_sim_preset_text("h100");
    assert_non_null(base);
    const char *cut = strstr(base, "# Instruction caches");
    assert_non_null(cut);
    size_t n = (size_t)(cut - base);
    char *s = malloc(n + strlen(extra) + 1);
    assert_non_null(s);
    memcpy(s, base, n);
    strcpy(s + n, extra);
    return s;
}

static mt_err parse(const char *extra, mt_sim_spec *out, mt_errinfo *ei)
{
    char *text = spec_with(extra);
    mt_err err = mt_sim_spec_parse(text, "t.spec", out, ei);
    free(text);
    return err;
}

static void expect_error(const char *extra, const char *part)
{
    expect_spec_error(parse, "t.spec", extra, part);
}

static const char two_levels[] = "[icache a]\nsize = 16 KiB\nlatency = 2\nnoise = 0.1\n"
                                 "[icache b]\nsize = 2 MiB\nlatency = 6\n";

static void test_parse_levels(void **state)
{
    (void)state;
    mt_sim_spec *s = malloc(sizeof *s);
    assert_non_null(s);
    mt_errinfo ei = {{0}};
    assert_int_equal(parse(two_levels, s, &ei), MT_OK);
    assert_int_equal(s->n_icaches, 2);
    assert_string_equal(s->icache[0].name, "a");
    assert_int_equal(s->icache[0].size, 16384);
    assert_true(s->icache[0].latency == 2.0 && s->icache[0].noise == 0.1);
    assert_int_equal(s->icache[1].size, 2u << 20);
    assert_true(s->icache[1].noise == 0.0);
    /* Which level serves a block: the first that holds all of it. */
    assert_int_equal(mt_sim_icache_level(s, 1024), 0);
    assert_int_equal(mt_sim_icache_level(s, 16384), 0);
    assert_int_equal(mt_sim_icache_level(s, 16400), 1);
    assert_int_equal(mt_sim_icache_level(s, 2u << 20), 1);
    assert_int_equal(mt_sim_icache_level(s, (2u << 20) + 16), -1);
    /* The preset's own levels parse too. */
    assert_int_equal(mt_sim_spec_load("h100", s, &ei), MT_OK);
    assert_int_equal(s->n_icaches, 3);
    free(s);
}

static void test_parse_errors(void **state)
{
    (void)state;
    expect_error("[icache a]\nlatency = 2\n", "size");
    expect_error("[icache a]\nsize = 2 MiB\n", "latency");
    expect_error("[icache a]\nsize = 512 B\nlatency = 2\n", "size");
    expect_error("[icache a]\nsize = 2 MiB\nlatency = 0.25\n", "latency");
    expect_error("[icache a]\nsize = 2 MiB\nlatency = 2000\n", "latency");
    expect_error("[icache a]\nsize = 2 MiB\nlatency = 2\nnoise = 0.3\n", "latency / 8");
    expect_error("[icache a]\nsize = 2 MiB\nlatency = 2\nways = 4\n", "ways");
    expect_error("[icache a]\nsize = 2 MiB\nlatency = 2\nlatency.tex = 3\n", "latency.tex");
    expect_error("[icache]\nsize = 2 MiB\nlatency = 2\n", "needs a name");
    expect_error("[icache a]\nsize = 2 MiB\nlatency = 2\n[icache a]\nsize = 4 MiB\nlatency = 3\n",
                 "duplicate section [icache a]");
    /* The last level holds the largest block an experiment runs. */
    expect_error("[icache a]\nsize = 512 KiB\nlatency = 2\n", "the last level");
    /* Each level at least twice the one before, and 0.5 cycles slower. */
    expect_error("[icache a]\nsize = 16 KiB\nlatency = 2\n[icache b]\nsize = 24 KiB\nlatency = 3\n"
                 "[icache c]\nsize = 4 MiB\nlatency = 9\n",
                 "below 2 x [icache a]");
    expect_error("[icache a]\nsize = 16 KiB\nlatency = 2\n[icache b]\nsize = 4 MiB\nlatency = 2.4\n",
                 "less than 0.5 cycles");
    expect_error("[icache a]\nsize = 2 KiB\nlatency = 1\n[icache b]\nsize = 8 KiB\nlatency = 2\n"
                 "[icache c]\nsize = 32 KiB\nlatency = 3\n[icache d]\nsize = 1 MiB\nlatency = 4\n"
                 "[icache e]\nsize = 4 MiB\nlatency = 5\n",
                 "more than 4 [icache] sections");
}

static mt_backend *open_spec(const char *extra)
{
    mt_sim_spec *s = malloc(sizeof *s);
    assert_non_null(s);
    mt_errinfo ei = {{0}};
    assert_int_equal(parse(extra, s, &ei), MT_OK);
    mt_backend *b = NULL;
    assert_int_equal(mt_backend_sim_from_spec(s, &b, &ei), MT_OK);
    free(s);
    return b;
}

static void test_samples_and_caps(void **state)
{
    (void)state;
    mt_backend *b = open_spec("[icache a]\nsize = 16 KiB\nlatency = 2\n"
                              "[icache b]\nsize = 2 MiB\nlatency = 6\n");
    assert_true(mt_backend_supports(b, MT_KIND_ICACHE));
    const mt_sim_spec *s = mt_backend_sim_spec(b);
    assert_non_null(s);
    mt_experiment e[2] = {mt_exp_icache(16384, 5), mt_exp_icache(32768, 5)};
    mt_result r[2];
    mt_errinfo ei = {{0}};
    assert_int_equal(mt_backend_run(b, e, 2, r, &ei), MT_OK);
    /* Without noise: instructions x the level's cycles plus the timer
     * overhead (outliers aside: the median lap). */
    for (int i = 0; i < 2; i++) {
        assert_int_equal(r[i].n[0], 5);
        double instr = e[i].u.icache.code_bytes / 16.0;
        double want = instr * (i == 0 ? 2.0 : 6.0) + s->timer_overhead;
        int exact = 0;
        for (uint32_t k = 0; k < 5; k++)
            exact += r[i].cycles[0][k] == (uint32_t)(want + 0.5);
        assert_true(exact >= 4);
        mt_result_free(&r[i]);
    }
    mt_backend_destroy(b);
    /* A spec without [icache] sections does not announce the kind, and
     * refuses it. */
    b = open_spec("");
    assert_false(mt_backend_supports(b, MT_KIND_ICACHE));
    assert_int_equal(mt_backend_run(b, e, 1, r, &ei), MT_ERR_UNSUPPORTED);
    mt_backend_destroy(b);
}

static void test_record_replay(void **state)
{
    (void)state;
    char dir[128];
    snprintf(dir, sizeof dir, "%s/icache", tmpdir);
    mt_backend *sim = open_spec(two_levels);
    mt_backend *rec = NULL;
    mt_errinfo ei = {{0}};
    assert_int_equal(mt_backend_record_wrap(sim, dir, &rec, &ei), MT_OK);
    assert_true(mt_backend_supports(rec, MT_KIND_ICACHE));
    mt_experiment e[2] = {mt_exp_icache(4096, 7), mt_exp_icache(65536, 3)};
    mt_result a[2], b[2];
    assert_int_equal(mt_backend_run(rec, e, 2, a, &ei), MT_OK);
    assert_int_equal(mt_record_flush(rec, &ei), MT_OK);
    mt_backend_destroy(rec);
    mt_backend *rep = NULL;
    assert_int_equal(mt_backend_replay_open(dir, &rep, &ei), MT_OK);
    assert_true(mt_backend_supports(rep, MT_KIND_ICACHE));
    assert_int_equal(mt_backend_run(rep, e, 2, b, &ei), MT_OK);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(a[i].n[0], b[i].n[0]);
        assert_memory_equal(a[i].cycles[0], b[i].cycles[0], a[i].n[0] * sizeof(uint32_t));
        mt_result_free(&a[i]);
        mt_result_free(&b[i]);
    }
    /* A size that was not recorded is not made up. */
    mt_experiment other = mt_exp_icache(8192, 7);
    mt_result r;
    assert_int_equal(mt_backend_run(rep, &other, 1, &r, &ei), MT_ERR_REPLAY);
    mt_backend_destroy(rep);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_levels),
        cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_samples_and_caps),
        cmocka_unit_test(test_record_replay),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

/* Global access experiments (MT_KIND_ACCESS) in the simulator and through
 * a recording: the [access] keys (defaults, limits, FILE:LINE errors), the
 * model's cost of a pattern, the experiment's checked shape, and a
 * recording replayed with the same samples (a pattern not recorded is
 * refused). */
#include <math.h>
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
#include "sim/engine.h"
#include "sim/sim.h"
#include "sim/spec.h"
#include "spec_error.h"
#include "tmpdir_fixture.h"

/* The a100 preset with `section` appended. */
static mt_err parse_with(const char *section, mt_sim_spec *out, mt_errinfo *ei)
{
    const char *base = mt_sim_preset_text("a100");
    assert_non_null(base);
    size_t n = strlen(base) + strlen(section) + 2;
    char *text = malloc(n);
    assert_non_null(text);
    snprintf(text, n, "%s\n%s", base, section);
    mt_err err = mt_sim_spec_parse(text, "access.spec", out, ei);
    free(text);
    return err;
}

static void keys_defaults_and_errors(void **state)
{
    (void)state;
    mt_sim_spec *s = calloc(1, sizeof *s);
    mt_errinfo ei = {{0}};
    assert_int_equal(parse_with("", s, &ei), MT_OK);
    assert_false(s->access.present);
    /* Derived: a pass per line at [shared]'s conflict cost, free sectors. */
    assert_true(s->access.line_cycles[0] == s->banks.conflict_cycles);
    assert_true(s->access.line_cycles[1] == s->banks.conflict_cycles);
    assert_true(s->access.sector_cycles[0] == 0 && s->access.sector_cycles[1] == 0);
    assert_int_equal(s->access.bank_passes[0], 0);
    assert_int_equal(parse_with("[access]\nca_sector_cycles = 1.5\nca_line_cycles = 4\n"
                                "cg_passes = banks\n",
                                s, &ei),
                     MT_OK);
    assert_true(s->access.present);
    assert_true(s->access.sector_cycles[0] == 1.5);
    assert_true(s->access.line_cycles[0] == 4);
    assert_true(s->access.line_cycles[1] == 4); /* cg follows ca's line cost */
    assert_int_equal(s->access.bank_passes[1], 1);
    static const struct {
        const char *text, *want;
    } bad[] = {
        {"[access]\nca_line_cycles = 0.5\n", "neither 0 nor at least 1"},
        {"[access]\ncg_sector_cycles = 65\n", "cg_sector_cycles"},
        {"[access]\nca_passes = sectors\n", "ca_passes"},
        {"[access]\nca_lines = 2\n", "ca_lines"},
        {"[access]\n[access]\n", "duplicate section [access]"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        expect_spec_error(parse_with, "access.spec", bad[i].text, bad[i].want);
    free(s);
}

/* Tag groups and the partial warp: defaults, limits, the rule that keeps a
 * tag group measurable, and what the model charges. */
static void tag_and_partial_keys(void **state)
{
    (void)state;
    mt_sim_spec *s = malloc(sizeof *s);
    assert_non_null(s);
    mt_errinfo ei = {{0}};
    assert_int_equal(parse_with("[access]\nca_line_cycles = 2\n", s, &ei), MT_OK);
    assert_int_equal(s->access.tag_group[0], 1);
    assert_true(s->access.tag_cycles[0] == 0 && s->access.partial_cycles[1] == 0);
    assert_int_equal(parse_with("[access]\nca_line_cycles = 2\nca_passes = banks\n"
                                "ca_tag_cycles = 1\nca_tag_group = 4\nca_partial_cycles = 3\n",
                                s, &ei),
                     MT_OK);
    assert_int_equal(s->access.tag_group[0], 4);
    /* A warp at a stride of 9 words: one wavefront, 9 lines of 128 B in 3
     * groups of 4: 2 extra groups; 16 threads of it: a partial warp too. */
    mt_banks x = {.word_bytes = 4, .n_threads = 32};
    for (uint32_t t = 0; t < 32; t++)
        x.word_index[t] = 9 * t;
    double extra = mt_sim_access_extra(&s->access, 0, &s->banks, &x, 32, 128);
    assert_true(fabs(extra - 2.0) < 1e-9);
    x.n_threads = 16; /* 5 lines: 1 extra group, and the partial warp */
    extra = mt_sim_access_extra(&s->access, 0, &s->banks, &x, 32, 128);
    assert_true(fabs(extra - 4.0) < 1e-9);
    static const struct {
        const char *text, *want;
    } bad[] = {
        {"[access]\nca_tag_group = 3\n", "ca_tag_group = 3 is not a power of two"},
        {"[access]\ncg_tag_group = 16\n", "cg_tag_group"},
        {"[access]\nca_partial_cycles = 0.2\n", "neither 0 nor at least 1"},
        {"[access]\nca_tag_cycles = 1\n", "ca_tag_cycles needs ca_passes = banks"},
        {"[access]\nca_passes = banks\nca_sector_cycles = 1\nca_tag_cycles = 1\n",
         "no ca_sector_cycles"},
        {"[access]\ncg_passes = banks\ncg_line_cycles = 0\ncg_tag_cycles = 2\n",
         "nonzero cg_line_cycles"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        expect_spec_error(parse_with, "access.spec", bad[i].text, bad[i].want);
    free(s);
}

static mt_experiment stride(mt_path p, uint32_t s, uint32_t offset_words, uint32_t loads)
{
    uint32_t idx[32];
    for (uint32_t t = 0; t < 32; t++)
        idx[t] = offset_words + t * s;
    return mt_exp_access(p, idx, 32, loads);
}

static void experiments_cost_the_model(void **state)
{
    (void)state;
    mt_backend *be = NULL;
    mt_errinfo ei = {{0}};
    assert_int_equal(mt_backend_sim_open("h100", 0, 0, &be, &ei), MT_OK);
    assert_true(mt_backend_supports(be, MT_KIND_ACCESS));
    const mt_sim_spec *s = mt_backend_sim_spec(be);
    const mt_sim_cache_spec *l1 = &s->cache[mt_sim_access_cache(s, MT_PATH_GLOBAL_CA)];
    mt_experiment e[2] = {stride(MT_PATH_GLOBAL_CA, 1, 0, 8),
                          stride(MT_PATH_GLOBAL_CA, 32, 0, 8)};
    mt_result r[2];
    assert_int_equal(mt_backend_run(be, e, 2, r, &ei), MT_OK);
    double base = s->timer_overhead + l1->latency[MT_SIM_LP_L1D];
    uint32_t passes = mt_sim_access_passes(&s->access, 0, &s->banks, &e[1].u.access, l1->line);
    assert_int_equal(passes, 32);
    double extra = mt_sim_access_extra(&s->access, 0, &s->banks, &e[1].u.access, l1->sector,
                                       l1->line);
    for (int k = 0; k < 8; k++) {
        assert_true(fabs(r[0].cycles[0][k] - base) <= 0.5 + 6 * l1->noise);
        assert_true(fabs(r[1].cycles[0][k] - base - extra) <= 0.5 + 6 * l1->noise);
    }
    mt_result_free(&r[0]);
    mt_result_free(&r[1]);
    /* the shape is checked */
    e[0].chain[0].path = MT_PATH_SHARED;
    assert_int_equal(mt_backend_run(be, e, 1, r, &ei), MT_ERR_INVALID_ARG);
    assert_non_null(strstr(ei.msg, "ca or cg chain"));
    e[0] = stride(MT_PATH_GLOBAL_CA, 1, 0, 8);
    e[0].chain[0].offset = 64;
    assert_int_equal(mt_backend_run(be, e, 1, r, &ei), MT_ERR_INVALID_ARG);
    e[0] = stride(MT_PATH_GLOBAL_CG, 4096, 0, 8); /* 496 KiB: beyond the span limit */
    assert_int_equal(mt_backend_run(be, e, 1, r, &ei), MT_ERR_INVALID_ARG);
    assert_non_null(strstr(ei.msg, "spans"));
    mt_backend_destroy(be);
}

static void replays_what_was_recorded(void **state)
{
    (void)state;
    char dir[128];
    snprintf(dir, sizeof dir, "%s/access", tmpdir);
    mt_errinfo ei = {{0}};
    mt_backend *sim = NULL, *rec = NULL, *rep = NULL;
    assert_int_equal(mt_backend_sim_open("h100", 0, 0, &sim, &ei), MT_OK);
    assert_int_equal(mt_backend_record_wrap(sim, dir, &rec, &ei), MT_OK);
    assert_true(mt_backend_supports(rec, MT_KIND_ACCESS));
    mt_experiment e[3] = {stride(MT_PATH_GLOBAL_CA, 1, 1, 16), stride(MT_PATH_GLOBAL_CG, 8, 0, 16),
                          stride(MT_PATH_GLOBAL_CA, 33, 0, 16)};
    mt_result live[3], back[3];
    assert_int_equal(mt_backend_run(rec, e, 3, live, &ei), MT_OK);
    assert_int_equal(mt_record_flush(rec, &ei), MT_OK);
    mt_backend_destroy(rec);
    if (mt_backend_replay_open(dir, &rep, &ei) != MT_OK)
        fail_msg("%s", ei.msg);
    assert_true(mt_backend_supports(rep, MT_KIND_ACCESS));
    assert_int_equal(mt_backend_run(rep, e, 3, back, &ei), MT_OK);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(back[i].n[0], live[i].n[0]);
        assert_memory_equal(back[i].cycles[0], live[i].cycles[0],
                            live[i].n[0] * sizeof *live[i].cycles[0]);
        mt_result_free(&live[i]);
        mt_result_free(&back[i]);
    }
    /* The same words as a banks pattern are another experiment. */
    mt_experiment other = e[0];
    other.kind = MT_KIND_BANKS;
    other.chain[0].path = MT_PATH_SHARED;
    other.warmup_laps = 0;
    assert_int_equal(mt_backend_run(rep, &other, 1, back, &ei), MT_ERR_REPLAY);
    /* One thread's word different: not recorded. */
    other = e[1];
    other.u.access.word_index[3] += 1;
    assert_int_equal(mt_backend_run(rep, &other, 1, back, &ei), MT_ERR_REPLAY);
    assert_non_null(strstr(ei.msg, "not recorded"));
    mt_backend_destroy(rep);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(keys_defaults_and_errors),
        cmocka_unit_test(tag_and_partial_keys),
        cmocka_unit_test(experiments_cost_the_model),
        cmocka_unit_test(replays_what_was_recorded),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

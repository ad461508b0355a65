/* The simulator's shared-memory banks (src/sim/banks.c, docs/spec-format.md
 * "Shared-memory banks"): the [shared] bank keys, the pass model and the
 * MT_KIND_BANKS experiments it answers. */
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
#include "sim/banks.h"
#include "sim/sim.h"
#include "sim/spec.h"

/* The a100 preset with `keys` added to its [shared] section. */
static mt_err parse_with(const char *keys, mt_sim_spec *out, mt_errinfo *ei)
{
    const char *base = mt_sim_preset_text("a100");
    assert_non_null(base);
    /* The preset's own bank lines go: the test's keys replace them. */
    char *own = malloc(strlen(base) + 1);
    assert_non_null(own);
    own[0] = '\0';
    for (const char *l = base; *l;) {
        const char *e = strchr(l, '\n');
        size_t len = e ? (size_t)(e - l + 1) : strlen(l);
        if (strncmp(l, "banks", 5) && strncmp(l, "bank_width", 10) &&
            strncmp(l, "conflict_cycles", 15) && strncmp(l, "broadcast", 9))
            strncat(own, l, len);
        l += len;
    }
    base = own;
    const char *at = strstr(base, "[shared]\n");
    assert_non_null(at);
    size_t head = (size_t)(at - base) + strlen("[shared]\n");
    size_t n = strlen(base) + strlen(keys) + 1;
    char *text = malloc(n);
    assert_non_null(text);
    snprintf(text, n, "%.*s%s%s", (int)head, base, keys, base + head);
    mt_err err = mt_sim_spec_parse(text, "banks.spec", out, ei);
    free(text);
    free(own);
    return err;
}

static void defaults_and_keys(void **state)
{
    (void)state;
    mt_sim_spec *s = calloc(1, sizeof *s);
    mt_errinfo ei = {{0}};
    assert_int_equal(parse_with("", s, &ei), MT_OK);
    assert_int_equal(s->banks.count, 32);
    assert_int_equal(s->banks.width, 4);
    assert_true(s->banks.conflict_cycles == 2.0);
    assert_true(s->banks.broadcast);
    assert_int_equal(parse_with("banks = 16\nbank_width = 8\nconflict_cycles = 1.5\n"
                                "broadcast = no\n",
                                s, &ei),
                     MT_OK);
    assert_int_equal(s->banks.count, 16);
    assert_int_equal(s->banks.width, 8);
    assert_true(s->banks.conflict_cycles == 1.5);
    assert_false(s->banks.broadcast);
    free(s);
}

static void parse_errors_name_the_line(void **state)
{
    (void)state;
    mt_sim_spec *s = calloc(1, sizeof *s);
    mt_errinfo ei = {{0}};
    static const struct {
        const char *keys, *msg;
    } bad[] = {
        {"banks = 24\n", "banks: 24 is not 16, 32 or 64"},
        {"banks = 128\n", "banks"},
        {"banks = 8\n", "banks"},
        {"bank_width = 6\n", "bank_width: 6 B is not 4 or 8"},
        {"bank_width = 16\n", "bank_width"},
        {"banks = 16\n", "banks x bank_width = 64 B is below 128 B"},
        {"conflict_cycles = 0.5\n", "conflict_cycles"},
        {"conflict_cycles = 65\n", "conflict_cycles"},
        {"broadcast = maybe\n", "unknown value 'maybe'"},
        {"bank = 32\n", "unknown key 'bank'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        assert_int_equal(parse_with(bad[i].keys, s, &ei), MT_ERR_SPEC_PARSE);
        if (!strstr(ei.msg, bad[i].msg) || !strstr(ei.msg, "banks.spec:"))
            fail_msg("'%s': %s", bad[i].keys, ei.msg);
    }
    free(s);
}

static mt_banks strided(uint32_t word_bytes, uint32_t stride)
{
    mt_banks x = {.word_bytes = word_bytes, .n_threads = 32};
    for (uint32_t t = 0; t < 32; t++)
        x.word_index[t] = t * stride;
    return x;
}

static uint32_t passes(const mt_sim_bank_spec *b, uint32_t word_bytes, uint32_t stride)
{
    mt_banks x = strided(word_bytes, stride);
    return mt_sim_bank_wavefronts(b, &x);
}

/* Mei and Chu's strides on 32 x 4 B banks: gcd(stride, 32) ways; a
 * Kepler-like 8 B bank makes stride 2 free. */
static void passes_of_strides(void **state)
{
    (void)state;
    mt_sim_bank_spec b = {.count = 32, .width = 4, .conflict_cycles = 2, .broadcast = 1};
    assert_int_equal(passes(&b, 4, 1), 1);
    assert_int_equal(passes(&b, 4, 2), 2);
    assert_int_equal(passes(&b, 4, 3), 1);
    assert_int_equal(passes(&b, 4, 16), 16);
    assert_int_equal(passes(&b, 4, 32), 32);
    assert_int_equal(passes(&b, 4, 64), 32);
    /* broadcast: one word for everyone is one pass; without, 32 */
    mt_banks same = strided(4, 0);
    assert_int_equal(mt_sim_bank_wavefronts(&b, &same), 1);
    b.broadcast = 0;
    assert_int_equal(mt_sim_bank_wavefronts(&b, &same), 32);
    b.broadcast = 1;
    /* 64- and 128-bit words: half- and quarter-warp phases, one pass each */
    assert_int_equal(mt_sim_bank_phase_threads(&b, 8), 16);
    assert_int_equal(mt_sim_bank_phase_threads(&b, 16), 8);
    assert_int_equal(passes(&b, 8, 1), 2);
    assert_int_equal(passes(&b, 16, 1), 4);
    /* 8 B words at a stride of 2 (16 B apart): 2 ways in each half-warp */
    assert_int_equal(passes(&b, 8, 2), 4);
    b.width = 8;
    assert_int_equal(passes(&b, 4, 2), 1);
    assert_int_equal(passes(&b, 4, 4), 2);
    assert_int_equal(passes(&b, 8, 1), 1);
    assert_int_equal(passes(&b, 16, 1), 2);
    /* fewer threads: only theirs count */
    mt_banks two = strided(4, 64);
    two.n_threads = 2;
    assert_int_equal(mt_sim_bank_wavefronts(&b, &two), 2);
}

/* The engine: each sample is timer overhead + latency + cost x (passes - 1). */
static void experiments_cost_their_passes(void **state)
{
    (void)state;
    mt_backend *be = NULL;
    mt_errinfo ei = {{0}};
    assert_int_equal(mt_backend_sim_open("h100", 0, 0, &be, &ei), MT_OK);
    assert_true(mt_backend_supports(be, MT_KIND_BANKS));
    const mt_sim_spec *s = mt_backend_sim_spec(be);
    mt_banks a = strided(4, 1), c = strided(4, 32);
    mt_experiment e[2] = {mt_exp_banks(4, a.word_index, 32, 8),
                          mt_exp_banks(4, c.word_index, 32, 8)};
    mt_result r[2];
    assert_int_equal(mt_backend_run(be, e, 2, r, &ei), MT_OK);
    double base = s->timer_overhead + s->shared.latency[0];
    assert_int_equal(r[0].n[0], 8);
    for (int k = 0; k < 8; k++) {
        assert_true(fabs(r[0].cycles[0][k] - base) <= 0.5 + 6 * s->shared.noise);
        assert_true(fabs(r[1].cycles[0][k] - base - 31 * s->banks.conflict_cycles) <=
                    0.5 + 6 * s->shared.noise);
    }
    mt_result_free(&r[0]);
    mt_result_free(&r[1]);
    /* the shape is checked */
    e[0].u.banks.word_bytes = 12;
    assert_int_equal(mt_backend_run(be, e, 1, r, &ei), MT_ERR_INVALID_ARG);
    assert_non_null(strstr(ei.msg, "word of 12 B"));
    e[0] = mt_exp_banks(4, a.word_index, 32, 8);
    e[0].chain[0].footprint = 64; /* 16 words: thread 16 reads beyond */
    assert_int_equal(mt_backend_run(be, e, 1, r, &ei), MT_ERR_INVALID_ARG);
    assert_non_null(strstr(ei.msg, "thread 16 reads word 16"));
    e[0] = mt_exp_banks(4, a.word_index, 33, 8);
    assert_int_equal(mt_backend_run(be, e, 1, r, &ei), MT_ERR_INVALID_ARG);
    e[0] = mt_exp_banks(4, a.word_index, 32, 8);
    e[0].mode = MT_MODE_AGGREGATE;
    assert_int_equal(mt_backend_run(be, e, 1, r, &ei), MT_ERR_INVALID_ARG);
    mt_backend_destroy(be);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(defaults_and_keys),
        cmocka_unit_test(parse_errors_name_the_line),
        cmocka_unit_test(passes_of_strides),
        cmocka_unit_test(experiments_cost_their_passes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Banks experiments (MT_KIND_BANKS) through a recording: recorded from the
 * simulator, written, read back and replayed with the same samples; a
 * pattern that was not recorded is refused; and the params column
 * (src/recording/banks_params.c) is read strictly. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backend/backend.h"
#include "recording/banks_params.h"
#include "recording/recording.h"
#include "sim/sim.h"
#include "tmpdir_fixture.h"

static mt_experiment pattern(uint32_t word_bytes, uint32_t stride, uint32_t n)
{
    uint32_t idx[32];
    for (uint32_t t = 0; t < 32; t++)
        idx[t] = t * stride;
    return mt_exp_banks(word_bytes, idx, n, 16);
}

static void replays_what_was_recorded(void **state)
{
    (void)state;
    char dir[128];
    snprintf(dir, sizeof dir, "%s/banks", tmpdir);
    mt_errinfo ei = {{0}};
    mt_backend *sim = NULL, *rec = NULL, *rep = NULL;
    assert_int_equal(mt_backend_sim_open("h100", 0, 0, &sim, &ei), MT_OK);
    assert_int_equal(mt_backend_record_wrap(sim, dir, &rec, &ei), MT_OK);
    assert_true(mt_backend_supports(rec, MT_KIND_BANKS));
    mt_experiment e[3] = {pattern(4, 32, 32), pattern(8, 1, 32), pattern(16, 3, 5)};
    mt_result live[3], back[3];
    assert_int_equal(mt_backend_run(rec, e, 3, live, &ei), MT_OK);
    assert_int_equal(mt_record_flush(rec, &ei), MT_OK);
    mt_backend_destroy(rec);

    if (mt_backend_replay_open(dir, &rep, &ei) != MT_OK)
        fail_msg("%s", ei.msg);
    assert_true(mt_backend_supports(rep, MT_KIND_BANKS));
    assert_int_equal(mt_backend_run(rep, e, 3, back, &ei), MT_OK);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(back[i].n[0], live[i].n[0]);
        assert_memory_equal(back[i].cycles[0], live[i].cycles[0],
                            live[i].n[0] * sizeof *live[i].cycles[0]);
        mt_result_free(&live[i]);
        mt_result_free(&back[i]);
    }
    /* one word of one thread different: not recorded */
    mt_experiment other = e[2];
    other.u.banks.word_index[4] += 1;
    other.chain[0].footprint += 16;
    assert_int_equal(mt_backend_run(rep, &other, 1, back, &ei), MT_ERR_REPLAY);
    assert_non_null(strstr(ei.msg, "not recorded"));
    mt_backend_destroy(rep);
}

static void params_round_trip_and_refusals(void **state)
{
    (void)state;
    mt_banks b = {.word_bytes = 8, .n_threads = 3, .word_index = {0, 64, 4294967295u}};
    char text[MT_BANKS_PARAMS_MAX], why[600];
    mt_banks_params_format(&b, text, sizeof text);
    assert_string_equal(text, "word_bytes=8 words=0:64:4294967295");
    mt_banks got;
    int carveout;
    assert_int_equal(mt_banks_params_parse(text, &got, &carveout, why, sizeof why), 0);
    assert_int_equal(got.word_bytes, 8);
    assert_int_equal(got.n_threads, 3);
    assert_int_equal(got.word_index[2], 4294967295u);
    assert_int_equal(carveout, -1);
    assert_int_equal(mt_banks_params_parse("word_bytes=4 words=1 carveout=50", &got, &carveout,
                                           why, sizeof why),
                     0);
    assert_int_equal(carveout, 50);
    static const char *const bad[] = {
        "",
        "word_bytes=4",
        "words=1:2",
        "word_bytes=4 words=",
        "word_bytes=4 words=1::2",
        "word_bytes=4 words=1:x",
        "word_bytes=4 words=1 words=2",
        "word_bytes=4 words=4294967296",
        "word_bytes=4 words=1 carveout=101",
        "word_bytes=4 words=1 n=2",
        "word_bytes=4  words=1",
        "word_bytes=4 words=0:1:2:3:4:5:6:7:8:9:10:11:12:13:14:15:16:17:18:19:20:21:22:23:24:"
        "25:26:27:28:29:30:31:32",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        if (mt_banks_params_parse(bad[i], &got, &carveout, why, sizeof why) == 0)
            fail_msg("accepted \"%s\"", bad[i]);
    assert_non_null(strstr(why, "expected \"word_bytes=W words=I0:I1:...\""));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(replays_what_was_recorded),
        cmocka_unit_test(params_round_trip_and_refusals),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

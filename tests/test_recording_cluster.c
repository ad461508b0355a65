/* Cluster experiments (MT_KIND_CLUSTER, since backend 2.3) through a
 * recording: recorded from the simulator, written, read back and replayed
 * with the same samples, every op; an experiment that differs in one
 * parameter is not recorded; the params column is read strictly. */
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
#include "sim/sim.h"
#include "tmpdir_fixture.h"

#define N_EXPS 4

static void experiments(mt_experiment *e)
{
    e[0] = mt_exp_cluster_chase(4, 3, 4096, 4, 1, 512, MT_MODE_AGGREGATE);
    e[1] = mt_exp_cluster_stream(2, 1, 1024, 32 << 10, 64);
    e[2] = mt_exp_cluster_copy(MT_CLUSTER_BULK_COPY, 1, 32, 8192, 16);
    e[3] = mt_exp_cluster_copy(MT_CLUSTER_PLAIN_COPY, 2, 256, 1024, 16);
}

static void record(const char *dir, mt_experiment *e, mt_result *live)
{
    mt_errinfo ei = {{0}};
    mt_backend *sim = NULL, *rec = NULL;
    assert_int_equal(mt_backend_sim_open("h100", 0, 0, &sim, &ei), MT_OK);
    assert_int_equal(mt_backend_record_wrap(sim, dir, &rec, &ei), MT_OK);
    assert_true(mt_backend_supports(rec, MT_KIND_CLUSTER));
    experiments(e);
    assert_int_equal(mt_backend_run(rec, e, N_EXPS, live, &ei), MT_OK);
    assert_int_equal(mt_record_flush(rec, &ei), MT_OK);
    mt_backend_destroy(rec);
}

static void replays_what_was_recorded(void **state)
{
    (void)state;
    char dir[128];
    snprintf(dir, sizeof dir, "%s/cluster", tmpdir);
    mt_experiment e[N_EXPS];
    mt_result live[N_EXPS], back[N_EXPS];
    record(dir, e, live);
    mt_errinfo ei = {{0}};
    mt_backend *rep = NULL;
    if (mt_backend_replay_open(dir, &rep, &ei) != MT_OK)
        fail_msg("%s", ei.msg);
    mt_device_info d;
    assert_int_equal(mt_backend_info(rep, &d, &ei), MT_OK);
    assert_int_equal(d.max_cluster_size, 16); /* the device's limits are recorded too */
    assert_int_equal(d.max_cluster_size_portable, 8);
    assert_int_equal(mt_backend_run(rep, e, N_EXPS, back, &ei), MT_OK);
    for (int i = 0; i < N_EXPS; i++) {
        assert_int_equal(back[i].n[0], live[i].n[0]);
        assert_int_equal(back[i].n[0], i == 0 ? 1 : 2);
        assert_memory_equal(back[i].cycles[0], live[i].cycles[0],
                            live[i].n[0] * sizeof *live[i].cycles[0]);
        mt_result_free(&live[i]);
        mt_result_free(&back[i]);
    }
    /* Each parameter on its own makes another experiment. */
    for (int k = 0; k < 5; k++) {
        mt_experiment other = e[k < 2 ? 0 : 1];
        if (k == 0)
            other.u.cluster.target_rank = 2;
        else if (k == 1)
            other.u.cluster.cluster_size = 8;
        else if (k == 2)
            other.u.cluster.threads = 512;
        else if (k == 3)
            other.u.cluster.op = MT_CLUSTER_CHASE;
        else
            other.u.cluster.repeats = 65, other.loads = 65;
        assert_int_equal(mt_backend_run(rep, &other, 1, back, &ei), MT_ERR_REPLAY);
        assert_non_null(strstr(ei.msg, "not recorded"));
    }
    mt_backend_destroy(rep);
}

/* A params column that is not the writer's is refused with its line. */
static void params_read_strictly(void **state)
{
    (void)state;
    char dir[128], path[256];
    snprintf(dir, sizeof dir, "%s/cluster-bad", tmpdir);
    mt_experiment e[N_EXPS];
    mt_result live[N_EXPS];
    record(dir, e, live);
    for (int i = 0; i < N_EXPS; i++)
        mt_result_free(&live[i]);
    snprintf(path, sizeof path, "%s/experiments.csv", dir);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    static char text[8192];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    static const char *const bad[] = {" repeats=64", "op=1 ", "op=1", " bytes=32768"};
    static const char *const repl[] = {"", "", "op=9", " bytes=x"};
    for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
        char *at = strstr(text, bad[b]);
        assert_non_null(at);
        static char edited[8192];
        snprintf(edited, sizeof edited, "%.*s%s%s", (int)(at - text), text, repl[b],
                 at + strlen(bad[b]));
        f = fopen(path, "w");
        assert_non_null(f);
        fputs(edited, f);
        fclose(f);
        mt_errinfo ei = {{0}};
        mt_backend *rep = NULL;
        assert_int_equal(mt_backend_replay_open(dir, &rep, &ei), MT_ERR_REPLAY);
        if (!strstr(ei.msg, "experiments.csv:"))
            fail_msg("case %zu: '%s' names no line", b, ei.msg);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(replays_what_was_recorded),
        cmocka_unit_test(params_read_strictly),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

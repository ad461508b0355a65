/* End to end: the opt-in bandwidth probe (--bandwidth, probe_bandwidth.c)
 * on the simulator's throughput model.  The h100 preset must give every
 * level's read/write/copy bandwidth within 3% of the model's best and the
 * MLP within one load (e2e_truth_bandwidth.c, exact mode: every figure
 * present); the spec files with a [throughput] section under the
 * contract; a recording of the streams replays to the same figures. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "e2e_truth.c"
#include "probes/probe.h"
#include "recording/recording.h"
#include "sim/sim.h"
#include "e2e_measure.h"
#include "spec_dir.h"

static void with_bandwidth(const mt_device_info *d, mt_probe_options *o)
{
    (void)d;
    o->bandwidth = true;
}

static void check(const char *spec, mt_truth_mode mode, mt_topology **keep)
{
    mt_backend *be;
    mt_topology *t = e2e_measure(spec, with_bandwidth, &be);
    char msg[4096];
    int bad = mt_truth_check_mode(mt_backend_sim_spec(be), t, mode, msg, sizeof msg);
    if (bad)
        fail_msg("%s: %d mismatches:\n%s", spec, bad, msg);
    mt_backend_destroy(be);
    if (keep)
        *keep = t;
    else
        mt_topology_free(t);
}

static void assert_value(const mt_topology *t, const char *key, const char *name)
{
    const mt_finding *f = mt_topology_get(t, key, name);
    if (!f || f->kind != MT_FIND_VALUE)
        fail_msg("%s.%s: want a value, got %s", key, name, f ? mt_finding_kind_name(f->kind) : "none");
}

static void h100_every_level(void **state)
{
    (void)state;
    mt_topology *t;
    check("h100", MT_TRUTH_EXACT, &t);
    static const char *const all[] = {"l1d", "shared", "l2", "dram"};
    static const char *const ops[] = {"bw_read", "gbps_read", "bw_write", "gbps_write", "bw_copy",
                                      "gbps_copy"};
    for (size_t i = 0; i < 4; i++)
        for (size_t k = 0; k < 6; k++)
            assert_value(t, all[i], ops[k]);
    assert_value(t, "texture", "bw_read");
    assert_value(t, "readonly", "bw_read");
    assert_value(t, "l2", "mlp");
    assert_value(t, "dram", "mlp");
    assert_value(t, "dram", "peak_gbps");
    assert_true(mt_topology_get(t, "dram", "peak_gbps")->value > 3352 &&
                mt_topology_get(t, "dram", "peak_gbps")->value < 3353);
    /* The floors for the H100 hold in its model too. */
    assert_true(mt_topology_get(t, "dram", "gbps_read")->value >= 3000);
    assert_true(mt_topology_get(t, "l2", "gbps_read")->value >= 9000);
    assert_true(mt_topology_get(t, "l1d", "bw_read")->value >= 125);
    assert_true(mt_topology_get(t, "shared", "bw_read")->value >= 125);
    mt_topology_free(t);
}

/* Without --bandwidth the probe does not run; without [throughput] it
 * says nothing. */
static void opt_in_only(void **state)
{
    (void)state;
    mt_backend *be;
    mt_topology *t = e2e_measure("h100", NULL, &be);
    const mt_finding *f = mt_topology_get(t, "dram", "bw_read");
    assert_true(f == NULL || f->kind == MT_FIND_NONE);
    mt_topology_free(t);
    mt_backend_destroy(be);
    t = e2e_measure("a100", with_bandwidth, &be);
    f = mt_topology_get(t, "l1d", "bw_read");
    assert_true(f == NULL || f->kind == MT_FIND_NONE);
    mt_topology_free(t);
    mt_backend_destroy(be);
}

static void spec_file(const char *path, void *user)
{
    mt_sim_spec *s = malloc(sizeof *s);
    assert_non_null(s);
    mt_errinfo ei = {{0}};
    assert_int_equal(mt_sim_spec_load(path, s, &ei), MT_OK);
    int has = s->tp.present;
    free(s);
    if (!has)
        return;
    print_message("spec %s\n", path);
    mt_topology *t;
    check(path, MT_TRUTH_CONTRACT, &t);
    /* Our own specs must be measured, not just pass by saying nothing. */
    assert_value(t, "dram", "bw_read");
    assert_value(t, "shared", "bw_copy");
    assert_value(t, "l1d", "bw_copy");
    assert_value(t, "dram", "mlp");
    mt_topology_free(t);
    ++*(int *)user;
}

static void spec_files(void **state)
{
    (void)state;
    int with_tp = 0;
    assert_true(for_each_spec("tests/specs", spec_file, &with_tp) > 0);
    assert_true(with_tp >= 3);
}

/* tests/specs-bandwidth: contract specs of the bandwidth probe that need
 * not measure every level (so not in tests/specs, see spec_file), each
 * judged by the contract.  Those named *rising* are there for kernels that
 * cannot reach a level's ceiling (too little data, or bytes in flight, for
 * it) and must show it: a figure still rising given as a lower bound, not
 * as a value under the ceiling. */
static void rising_spec(const char *path, void *user)
{
    print_message("spec %s\n", path);
    mt_topology *t;
    check(path, MT_TRUTH_CONTRACT, &t);
    ++*(int *)user;
    if (!strstr(path, "rising")) {
        mt_topology_free(t);
        return;
    }
    static const char *const levels[] = {"l1d", "texture", "readonly", "shared", "l2", "dram"};
    static const char *const names[] = {"bw_read", "bw_write", "bw_copy", "bw_read_whole"};
    int bounds = 0;
    for (size_t i = 0; i < sizeof levels / sizeof *levels; i++)
        for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
            const mt_finding *f = mt_topology_get(t, levels[i], names[k]);
            bounds += f && f->kind == MT_FIND_LOWER_BOUND && strstr(f->note, "still rising");
        }
    if (bounds == 0)
        fail_msg("%s: no bandwidth still rising as a lower bound", path);
    mt_topology_free(t);
}

static void rising_specs(void **state)
{
    (void)state;
    int n = 0;
    for_each_spec("tests/specs-bandwidth", rising_spec, &n);
    assert_true(n >= 3);
}

static void recording_replays_the_streams(void **state)
{
    (void)state;
    char dir[] = "/tmp/mt-bw-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char rec_dir[64];
    snprintf(rec_dir, sizeof rec_dir, "%s/rec", dir);
    mt_errinfo ei = {{0}};
    mt_backend *sim, *rec, *rp;
    assert_int_equal(mt_backend_sim_open("h100", 0, 0, &sim, &ei), MT_OK);
    if (mt_backend_record_wrap(sim, rec_dir, &rec, &ei))
        fail_msg("%s", ei.msg);
    mt_probe_options o;
    mt_probe_options_default(&o);
    o.bandwidth = true;
    assert_int_equal(mt_probe_parse_only("shared", &o, &ei), MT_OK);
    mt_topology *a = mt_topology_new(), *b = mt_topology_new();
    assert_int_equal(mt_backend_info(rec, &a->dev, &ei), MT_OK);
    if (mt_probe_run_all(rec, &o, a, &ei))
        fail_msg("%s", ei.msg);
    if (mt_record_flush(rec, &ei))
        fail_msg("%s", ei.msg);
    mt_backend_destroy(rec);
    if (mt_backend_replay_open(rec_dir, &rp, &ei))
        fail_msg("%s", ei.msg);
    assert_true(mt_backend_supports(rp, MT_KIND_STREAM));
    assert_int_equal(mt_backend_info(rp, &b->dev, &ei), MT_OK);
    if (mt_probe_run_all(rp, &o, b, &ei))
        fail_msg("replay: %s", ei.msg);
    static const char *const f[][2] = {{"dram", "bw_copy"}, {"l2", "mlp"}, {"shared", "gbps_write"}};
    for (size_t i = 0; i < 3; i++) {
        const mt_finding *x = mt_topology_get(a, f[i][0], f[i][1]);
        const mt_finding *y = mt_topology_get(b, f[i][0], f[i][1]);
        assert_non_null(x);
        assert_non_null(y);
        assert_int_equal(x->kind, MT_FIND_VALUE);
        assert_true(x->value == y->value);
    }
    mt_topology_free(a);
    mt_topology_free(b);
    mt_backend_destroy(rp);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(h100_every_level),
        cmocka_unit_test(opt_in_only),
        cmocka_unit_test(spec_files),
        cmocka_unit_test(rising_specs),
        cmocka_unit_test(recording_replays_the_streams),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

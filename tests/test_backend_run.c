/* mt_backend_run and mt_backend_supports (backend.h, backend_common.c):
 * version 2's enforcement of the interface version and of the kinds a
 * backend announces, with a tiny fake backend that counts its calls. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backend/backend.h"

typedef struct {
    int batches;    /* run_batch calls */
    size_t seen;    /* experiments passed to run_batch */
    int destroyed;
} fake_state;

static mt_err fake_info(mt_backend *b, mt_device_info *out, mt_errinfo *ei)
{
    (void)b;
    (void)ei;
    snprintf(out->backend, sizeof out->backend, "fake");
    out->sm_count = 2;
    out->concurrent_experiments = 2;
    return MT_OK;
}

static mt_err fake_run(mt_backend *b, const mt_experiment *exps, size_t n, mt_result *out,
                       mt_errinfo *ei)
{
    (void)exps;
    (void)ei;
    fake_state *s = b->impl;
    s->batches++;
    s->seen += n;
    for (size_t i = 0; i < n; i++) {
        out[i].cycles[0] = calloc(1, sizeof(uint32_t));
        out[i].cycles[0][0] = 7;
        out[i].n[0] = 1;
    }
    return MT_OK;
}

static void fake_destroy(mt_backend *b)
{
    ((fake_state *)b->impl)->destroyed++;
}

static mt_backend_ops chase_only_ops = {
    .api_version = MT_BACKEND_API_VERSION,
    .name = "fake",
    .caps = MT_CAP_CHASE,
    .get_info = fake_info,
    .run_batch = fake_run,
    .destroy = fake_destroy,
};

static mt_experiment seq_exp(const uint32_t *idx, uint32_t n)
{
    mt_experiment e = mt_exp_chase(MT_PATH_GLOBAL_CA, 4096, 128, 0, n, MT_MODE_FINE);
    e.kind = MT_KIND_SEQUENCE;
    e.u.seq = (mt_sequence){idx, n, 0};
    return e;
}

static void test_announced_kind_runs(void **state)
{
    (void)state;
    fake_state s = {0};
    mt_backend b = {&chase_only_ops, &s};
    mt_experiment e[2] = {mt_exp_chase(MT_PATH_GLOBAL_CA, 4096, 128, 1, 4, MT_MODE_FINE),
                          mt_exp_chase(MT_PATH_GLOBAL_CG, 4096, 128, 1, 4, MT_MODE_FINE)};
    mt_result r[2];
    mt_errinfo ei = {{0}};
    assert_int_equal(mt_backend_run(&b, e, 2, r, &ei), MT_OK);
    assert_int_equal(s.batches, 1);
    assert_int_equal(s.seen, 2);
    assert_int_equal(r[1].cycles[0][0], 7);
    mt_result_free(&r[0]);
    mt_result_free(&r[1]);
    mt_device_info d;
    assert_int_equal(mt_backend_info(&b, &d, &ei), MT_OK);
    assert_string_equal(d.backend, "fake");
    assert_int_equal(d.concurrent_experiments, 2);
}

static void test_unannounced_kind_refused(void **state)
{
    (void)state;
    fake_state s = {0};
    mt_backend b = {&chase_only_ops, &s};
    static const uint32_t idx[] = {0, 1, 0};
    /* a sequence alone, and one hidden behind a valid chase */
    mt_experiment e[2] = {mt_exp_chase(MT_PATH_GLOBAL_CA, 4096, 128, 1, 4, MT_MODE_FINE),
                          seq_exp(idx, 3)};
    mt_result r[2];
    memset(r, 0x5a, sizeof r); /* garbage: the refusal must leave nothing to free */
    mt_errinfo ei = {{0}};
    assert_int_equal(mt_backend_run(&b, &e[1], 1, r, &ei), MT_ERR_UNSUPPORTED);
    assert_non_null(strstr(ei.msg, "fake"));
    assert_non_null(strstr(ei.msg, "sequence"));
    assert_null(strchr(ei.msg, '\n'));
    assert_null(r[0].cycles[0]);
    mt_result_free(&r[0]);

    memset(&ei, 0, sizeof ei);
    assert_int_equal(mt_backend_run(&b, e, 2, r, &ei), MT_ERR_UNSUPPORTED);
    assert_non_null(strstr(ei.msg, "experiment 1"));
    assert_int_equal(s.batches, 0); /* refused before the backend saw anything */
    mt_result_free(&r[0]);
    mt_result_free(&r[1]);

    /* kinds that do not exist at all */
    e[1] = e[0];
    e[1].kind = MT_KIND_COUNT;
    assert_int_equal(mt_backend_run(&b, e, 2, r, &ei), MT_ERR_UNSUPPORTED);
    assert_non_null(strstr(ei.msg, "unknown experiment kind"));
    assert_int_equal(s.batches, 0);

    /* the same sequence on a backend that announces it */
    mt_backend_ops with_seq = chase_only_ops;
    with_seq.caps |= MT_CAP_SEQUENCE;
    mt_backend c = {&with_seq, &s};
    assert_int_equal(mt_backend_run(&c, e, 1, r, &ei), MT_OK);
    mt_result_free(&r[0]);
    e[1] = seq_exp(idx, 3);
    assert_int_equal(mt_backend_run(&c, e, 2, r, &ei), MT_OK);
    assert_int_equal(s.batches, 2);
    mt_result_free(&r[0]);
    mt_result_free(&r[1]);
}

static void test_wrong_interface_version_refused(void **state)
{
    (void)state;
    fake_state s = {0};
    mt_backend_ops v1 = chase_only_ops;
    v1.api_version = 1;
    mt_backend b = {&v1, &s};
    mt_experiment e = mt_exp_chase(MT_PATH_GLOBAL_CA, 4096, 128, 1, 4, MT_MODE_FINE);
    mt_result r;
    mt_errinfo ei = {{0}};
    assert_int_equal(mt_backend_run(&b, &e, 1, &r, &ei), MT_ERR_UNSUPPORTED);
    assert_non_null(strstr(ei.msg, "version 1"));
    assert_null(strchr(ei.msg, '\n'));
    assert_int_equal(s.batches, 0);
    assert_false(mt_backend_supports(&b, MT_KIND_CHASE));
    v1.api_version = 0; /* an ops table that never set it */
    assert_int_equal(mt_backend_run(&b, &e, 1, &r, &ei), MT_ERR_UNSUPPORTED);
    assert_int_equal(s.batches, 0);
}

static void test_supports(void **state)
{
    (void)state;
    fake_state s = {0};
    mt_backend_ops ops = chase_only_ops;
    ops.caps = MT_CAP_CHASE | MT_CAP_BANKS;
    mt_backend b = {&ops, &s};
    assert_true(mt_backend_supports(&b, MT_KIND_CHASE));
    assert_false(mt_backend_supports(&b, MT_KIND_SEQUENCE));
    assert_false(mt_backend_supports(&b, MT_KIND_STREAM));
    assert_true(mt_backend_supports(&b, MT_KIND_BANKS));
    assert_false(mt_backend_supports(&b, MT_KIND_CLUSTER));
    assert_false(mt_backend_supports(&b, MT_KIND_COUNT));
    ops.caps = ~0u; /* bits beyond the known kinds mean nothing */
    assert_false(mt_backend_supports(&b, MT_KIND_COUNT));
    assert_false(mt_backend_supports(NULL, MT_KIND_CHASE));
    /* destroy goes to the backend; NULL is fine */
    mt_backend_destroy(&b);
    assert_int_equal(s.destroyed, 1);
    mt_backend_destroy(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_announced_kind_runs),
        cmocka_unit_test(test_unannounced_kind_refused),
        cmocka_unit_test(test_wrong_interface_version_refused),
        cmocka_unit_test(test_supports),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

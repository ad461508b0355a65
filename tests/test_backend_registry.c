/* The backend registry (backend.h, backend_registry.c): find and open by
 * name over a registry this test defines itself (the real one is generated
 * from the backend sources that are built), and MT_ERR_NOT_BUILT for a
 * backend this binary does not have. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "backend/backend.h"

static mt_backend_args last_args;
static int opened;
static mt_backend dummy;

static mt_err open_alpha(const mt_backend_args *a, mt_backend **out, mt_errinfo *ei)
{
    (void)ei;
    last_args = *a;
    opened++;
    *out = &dummy;
    return MT_OK;
}

static mt_err open_beta(const mt_backend_args *a, mt_backend **out, mt_errinfo *ei)
{
    (void)a;
    *out = NULL;
    return mt_fail(ei, MT_ERR_NO_DEVICE, "beta: no device");
}

/* alpha has three devices; beta's driver is missing; gamma opens targets
 * (no count_devices), as the sim and replay backends do. */
static mt_err count_alpha(int *n, mt_errinfo *ei)
{
    (void)ei;
    *n = 3;
    return MT_OK;
}

static mt_err count_beta(int *n, mt_errinfo *ei)
{
    *n = 7; /* whatever a failing count leaves, the caller sees 0 */
    return mt_fail(ei, MT_ERR_NO_DEVICE, "beta: no driver");
}

static const mt_backend_entry alpha = {"alpha", "the first test backend", open_alpha, count_alpha};
static const mt_backend_entry beta = {"beta", "the second test backend", open_beta, count_beta};
static const mt_backend_entry gamma_ = {"gamma", "the third test backend", open_beta, NULL};

/* What tools/gen_registry.sh would generate for three backend files. */
const mt_backend_entry *const mt_backend_registry[] = {&alpha, &beta, &gamma_, NULL};

static void test_find(void **state)
{
    (void)state;
    assert_ptr_equal(mt_backend_find("alpha"), &alpha);
    assert_ptr_equal(mt_backend_find("beta"), &beta);
    assert_null(mt_backend_find("Alpha"));
    assert_null(mt_backend_find("alph"));
    assert_null(mt_backend_find("cuda"));
    assert_null(mt_backend_find(""));
    assert_null(mt_backend_find(NULL));
}

static void test_open_passes_args(void **state)
{
    (void)state;
    mt_backend_args a = {.target = "h100", .device = 3, .has_seed = 1, .seed = 99};
    mt_backend *b = NULL;
    mt_errinfo ei = {{0}};
    opened = 0;
    assert_int_equal(mt_backend_open("alpha", &a, &b, &ei), MT_OK);
    assert_ptr_equal(b, &dummy);
    assert_int_equal(opened, 1);
    assert_string_equal(last_args.target, "h100");
    assert_int_equal(last_args.device, 3);
    assert_int_equal(last_args.has_seed, 1);
    assert_int_equal(last_args.seed, 99);
    /* no args: the constructor sees zeroes, never NULL */
    assert_int_equal(mt_backend_open("alpha", NULL, &b, &ei), MT_OK);
    assert_null(last_args.target);
    assert_int_equal(last_args.has_seed, 0);
    /* a constructor's own failure comes back unchanged */
    b = &dummy;
    assert_int_equal(mt_backend_open("beta", &a, &b, &ei), MT_ERR_NO_DEVICE);
    assert_null(b);
    assert_string_equal(ei.msg, "beta: no device");
}

static void test_not_built(void **state)
{
    (void)state;
    mt_backend *b = &dummy;
    mt_errinfo ei = {{0}};
    opened = 0;
    assert_int_equal(mt_backend_open("cuda", NULL, &b, &ei), MT_ERR_NOT_BUILT);
    assert_null(b);
    assert_int_equal(opened, 0);
    assert_non_null(strstr(ei.msg, "cuda"));
    assert_non_null(strstr(ei.msg, "alpha, beta, gamma")); /* what this binary has */
    /* one line, and no CLI hints: those are the CLI's, chosen by error code */
    assert_null(strchr(ei.msg, '\n'));
    assert_null(strstr(ei.msg, "--"));
    assert_null(strstr(ei.msg, "use "));
    assert_int_equal(mt_backend_open(NULL, NULL, &b, &ei), MT_ERR_NOT_BUILT);
    assert_null(b);
}

static void test_entries_are_well_formed(void **state)
{
    (void)state;
    int n = 0;
    for (const mt_backend_entry *const *p = mt_backend_registry; *p; p++, n++) {
        assert_non_null((*p)->name);
        assert_non_null((*p)->summary);
        assert_non_null((*p)->open);
        assert_ptr_equal(mt_backend_find((*p)->name), *p);
    }
    assert_int_equal(n, 3);
}

/* --device all asks the registry how many devices a backend has. */
static void test_count_devices(void **state)
{
    (void)state;
    mt_errinfo ei = {{0}};
    int n = -1;
    assert_int_equal(mt_backend_count_devices("alpha", &n, &ei), MT_OK);
    assert_int_equal(n, 3);
    n = -1;
    assert_int_equal(mt_backend_count_devices("beta", &n, &ei), MT_ERR_NO_DEVICE);
    assert_int_equal(n, 0);
    assert_string_equal(ei.msg, "beta: no driver");
    n = -1;
    assert_int_equal(mt_backend_count_devices("gamma", &n, &ei), MT_ERR_UNSUPPORTED);
    assert_int_equal(n, 0);
    assert_non_null(strstr(ei.msg, "gamma"));
    n = -1;
    assert_int_equal(mt_backend_count_devices("cuda", &n, &ei), MT_ERR_NOT_BUILT);
    assert_int_equal(n, 0);
    assert_non_null(strstr(ei.msg, "alpha, beta, gamma"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_find),
        cmocka_unit_test(test_open_passes_args),
        cmocka_unit_test(test_not_built),
        cmocka_unit_test(test_entries_are_well_formed),
        cmocka_unit_test(test_count_devices),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

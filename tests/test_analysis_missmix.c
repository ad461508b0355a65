/* The two corrections to a miss chain's mean (miss_mixture.c): misses
 * that reach below a wide hit threshold, and the standard error over the
 * few lines a short chain samples. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "analysis/analysis.h"
#include "analysis/thresholds.h"

/* Hits spread around 100 (90..110), near misses at 150..170 and far misses
 * at 250, hit threshold 160 (a wide hit class): the near misses up to 160
 * count as hits in the plain mean, which then leans far.  The mirrored
 * bands see them, and the mixture mean is the true one. */
static void leak_found_and_mixture_mean_right(void **state)
{
    (void)state;
    enum { N = 6 * 21 * 20 }; /* whole cycles of the hit pattern: symmetric */
    double x[N];
    size_t n_hit = 0;
    double miss_sum = 0;
    size_t n_miss = 0;
    for (int i = 0; i < N; i++) {
        int k = i % 6;
        if (k == 0) { /* hits, symmetric about 100 */
            x[i] = 100 + (i / 6 % 21) - 10;
            n_hit++;
        } else {
            x[i] = k % 2 ? 150 + (i / 6 % 21) : 250;
            miss_sum += x[i];
            n_miss++;
        }
    }
    mt_miss_mean mm;
    assert_int_equal(mt_miss_mean_latency(x, N, 160, &mm), MT_OK);
    double truth = miss_sum / (double)n_miss;
    assert_true(mm.mean > truth + 5); /* the plain mean leans far */
    mt_miss_leak lk;
    assert_int_equal(mt_miss_leak_test(x, N, 100, 160, mm.cut, 1e-3, &lk), MT_OK);
    assert_true(lk.leaks);
    assert_true(lk.p < 1e-10);
    assert_float_equal(lk.hits, (double)n_hit, 0.5);
    assert_float_equal(lk.mean, truth, 0.5);
}

/* Hits alone with a wide spread and misses far above the threshold: the
 * bands are balanced, no leak; the mixture mean still agrees with the
 * plain one. */
static void no_leak_when_separated(void **state)
{
    (void)state;
    enum { N = 4 * 41 * 12 };
    double x[N];
    for (int i = 0; i < N; i++)
        x[i] = i % 4 == 0 ? 100 + (i / 4 % 41) - 20 : 300 + (i % 3);
    mt_miss_mean mm;
    assert_int_equal(mt_miss_mean_latency(x, N, 130, &mm), MT_OK);
    mt_miss_leak lk;
    assert_int_equal(mt_miss_leak_test(x, N, 100, 130, mm.cut, 1e-3, &lk), MT_OK);
    assert_false(lk.leaks);
    assert_float_equal(lk.mean, mm.mean, 0.5);
    /* A tight hit class (threshold one class gap above the median) has no
     * bands at all: nothing can be tested. */
    assert_int_equal(mt_miss_leak_test(x, N, 100, 100 + MT_MIN_CLASS_GAP_CYCLES, mm.cut, 1e-3,
                                       &lk),
                     MT_OK);
    assert_int_equal(lk.upper_band + lk.lower_band, 0);
    assert_false(lk.leaks);
    assert_int_equal(mt_miss_leak_test(x, 0, 100, 130, 400, 1e-3, &lk), MT_ERR_INVALID_ARG);
    assert_int_equal(mt_miss_leak_test(x, N, 100, 90, 400, 1e-3, &lk), MT_OK);
    assert_false(lk.leaks);
    assert_int_equal(mt_miss_leak_test(x, N, 100, 130, 400, 0, &lk), MT_ERR_INVALID_ARG);
}

/* A chain of 32 elements, each homed near (200) or far (300), sampled
 * 64 laps with no noise: the standard error is the spread of the element
 * means over sqrt(32).  Pairs of elements sharing one home (an L2 line of
 * two elements) are seen only with blocks of 2. */
static void chain_se_over_elements(void **state)
{
    (void)state;
    enum { E = 32, LAPS = 64, N = E * LAPS };
    static double x[N];
    /* Homes: 12 near, 20 far, in an irregular order. */
    int home[E];
    for (int j = 0; j < E; j++)
        home[j] = (j * 7) % 8 < 3 ? 200 : 300;
    double m = 0, ss = 0;
    for (int j = 0; j < E; j++)
        m += home[j];
    m /= E;
    for (int j = 0; j < E; j++)
        ss += (home[j] - m) * (home[j] - m);
    double want = sqrt(ss / (E - 1) / E);
    for (int i = 0; i < N; i++)
        x[i] = home[i % E];
    x[5] = 1e6; /* an outlier above the cut is left out */
    mt_chain_se cse;
    assert_int_equal(mt_chain_mean_se(x, N, 1, E, 1000, 1, &cse), MT_OK);
    assert_int_equal(cse.elements, E);
    assert_int_equal(cse.block, 1);
    assert_float_equal(cse.se, want, 1e-9);
    /* Elements in pairs sharing a home: with blocks of 2 allowed, the
     * honest (larger) standard error over 16 homes is found. */
    for (int i = 0; i < N; i++)
        x[i] = home[(i % E) / 2];
    mt_chain_se one, two;
    assert_int_equal(mt_chain_mean_se(x, N, 1, E, 1000, 1, &one), MT_OK);
    assert_int_equal(mt_chain_mean_se(x, N, 1, E, 1000, 2, &two), MT_OK);
    assert_true(two.se > one.se * 1.2);
    assert_int_equal(two.block, 2);
    /* Fewer elements than MT_SE_MIN_BLOCKS: unknown. */
    assert_int_equal(mt_chain_mean_se(x, N, 1, MT_SE_MIN_BLOCKS - 1, 1000, 1, &cse), MT_OK);
    assert_true(isnan(cse.se));
    /* A partial lap (more elements than loads) visits the first n. */
    assert_int_equal(mt_chain_mean_se(x, 100, 1, 100000, 1000, 1, &cse), MT_OK);
    assert_int_equal(cse.elements, 100);
    assert_int_equal(mt_chain_mean_se(x, N, 1, 0, 1000, 1, &cse), MT_ERR_INVALID_ARG);
    assert_int_equal(mt_chain_mean_se(x, N - 1, 2, E, 1000, 1, &cse), MT_ERR_INVALID_ARG);
}

/* Runs of a chain at places of their own count as elements of their own:
 * 4 runs of a 4-element chain (too few blocks alone) give 16 elements, and
 * the standard error over them falls as the runs' homes average out. */
static void chain_se_over_runs(void **state)
{
    (void)state;
    enum { E = 4, RUNS = 4, PER = E * 8, N = RUNS * PER };
    double x[N];
    for (int r = 0; r < RUNS; r++)
        for (int k = 0; k < PER; k++)
            x[r * PER + k] = (r * E + k % E) % 3 ? 300 : 200; /* element r*E + k%E */
    mt_chain_se one, all;
    assert_int_equal(mt_chain_mean_se(x, PER, 1, E, 1000, 1, &one), MT_OK);
    assert_true(isnan(one.se));
    assert_int_equal(mt_chain_mean_se(x, N, RUNS, E, 1000, 1, &all), MT_OK);
    assert_int_equal(all.elements, RUNS * E);
    /* 16 elements, 6 at 200 (indices divisible by 3) and 10 at 300. */
    double m = (6 * 200.0 + 10 * 300.0) / 16, ss = 6 * (200 - m) * (200 - m) + 10 * (300 - m) * (300 - m);
    assert_float_equal(all.se, sqrt(ss / 15 / 16), 1e-9);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(leak_found_and_mixture_mean_right),
        cmocka_unit_test(no_leak_when_separated),
        cmocka_unit_test(chain_se_over_elements),
        cmocka_unit_test(chain_se_over_runs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

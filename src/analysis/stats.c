/* Descriptive statistics of one latency sample (what reports print next to
 * every level: mean, spread, median and the 5/95 % nearest-rank points). */
#include <math.h>
#include <stdlib.h>

#include "analysis.h"
#include "analysis_internal.h"

static double median_of_sorted(const double *s, size_t n)
{
    return (n % 2) ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

/* Up to this many values a median sorts a copy on the stack by insertion:
 * the L2 map takes the median of each line's few laps for every line of
 * every SM (57,000 medians of 8), where a heap copy and qsort cost more
 * than the sort itself. */
#define SMALL_MEDIAN_N 32

double mt_median(const double *x, size_t n)
{
    if (!x || n == 0)
        return 0.0;
    if (n <= SMALL_MEDIAN_N) {
        double c[SMALL_MEDIAN_N];
        for (size_t i = 0; i < n; i++) {
            size_t j = i;
            for (; j > 0 && c[j - 1] > x[i]; j--)
                c[j] = c[j - 1];
            c[j] = x[i];
        }
        return median_of_sorted(c, n);
    }
    /* Selection, not a sort: the L2 map and the sharing probe take
     * thousands of medians of a few hundred values (a sort made them
     * ~40 ms of the H100's one-second report). */
    double m;
    if (mt_an_median_select(x, n, &m) == MT_OK)
        return m;
    /* No memory for a copy: the allocation-free selection gives the same
     * value (slower, 64 passes), so the result never depends on malloc. */
    if (n % 2)
        return mt_an_select_kth(x, n, n / 2);
    return 0.5 * (mt_an_select_kth(x, n, n / 2 - 1) + mt_an_select_kth(x, n, n / 2));
}

double mt_pooled_sd(const double *x, size_t groups, size_t per_group)
{
    if (!x || groups == 0 || per_group < 2)
        return NAN;
    double ss = 0.0;
    for (size_t g = 0; g < groups; g++) {
        const double *y = x + g * per_group;
        double mean = 0.0;
        for (size_t i = 0; i < per_group; i++)
            mean += y[i];
        mean /= (double)per_group;
        /* Two passes, as mt_describe: nearly equal large latencies. */
        for (size_t i = 0; i < per_group; i++)
            ss += (y[i] - mean) * (y[i] - mean);
    }
    return sqrt(ss / (double)(groups * (per_group - 1)));
}

mt_stats mt_describe(const double *x, size_t n)
{
    mt_stats st = {0};
    if (!x || n == 0)
        return st;
    st.n = n;
    double sum = 0.0, mn = x[0], mx = x[0];
    for (size_t i = 0; i < n; i++) {
        sum += x[i];
        mn = x[i] < mn ? x[i] : mn;
        mx = x[i] > mx ? x[i] : mx;
    }
    st.mean = sum / (double)n;
    st.min = mn;
    st.max = mx;
    /* Two-pass sample standard deviation (n - 1): latencies are large and
     * nearly equal, where the one-pass formula loses all digits. */
    if (n > 1) {
        double ss = 0.0;
        for (size_t i = 0; i < n; i++)
            ss += (x[i] - st.mean) * (x[i] - st.mean);
        st.stddev = sqrt(ss / (double)(n - 1));
    }
    double *s = NULL;
    if (mt_an_sorted_copy(x, n, &s) == MT_OK) {
        st.median = median_of_sorted(s, n);
        st.p05 = mt_an_nearest_rank(s, n, 0.05);
        st.p95 = mt_an_nearest_rank(s, n, 0.95);
        free(s);
    } else {
        st.median = mt_median(x, n);
        size_t r05 = (size_t)ceil(0.05 * (double)n), r95 = (size_t)ceil(0.95 * (double)n);
        st.p05 = mt_an_select_kth(x, n, r05 ? r05 - 1 : 0);
        st.p95 = mt_an_select_kth(x, n, r95 ? r95 - 1 : 0);
    }
    return st;
}

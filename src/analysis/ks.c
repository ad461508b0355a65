/* Two-sample Kolmogorov-Smirnov test (thesis 3.3.4): does a sample come from
 * the same distribution as another?  Distribution-free, so it needs no model
 * of timer noise; sensitive to any change in location or shape. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "analysis_internal.h"

double mt_an_kolmogorov_q(double lambda)
{
    if (!(lambda > 0.0))
        return 1.0;
    const double pi = 3.14159265358979323846;
    double q;
    if (lambda < 1.18) {
        /* Dual series of the CDF, fast where the alternating one is slow:
         * K(l) = sqrt(2 pi)/l * sum_{k>=1} exp(-(2k-1)^2 pi^2 / (8 l^2)). */
        double s = 0.0, a = -pi * pi / (8.0 * lambda * lambda);
        for (int k = 1; k <= 64; k++) {
            double term = exp(a * (double)((2 * k - 1) * (2 * k - 1)));
            s += term;
            if (term <= 1e-17 * s)
                break;
        }
        q = 1.0 - sqrt(2.0 * pi) / lambda * s;
    } else {
        double s = 0.0, sign = 1.0, a = -2.0 * lambda * lambda;
        for (int k = 1; k <= 64; k++) {
            double term = exp(a * (double)k * (double)k);
            s += sign * term;
            if (term <= 1e-17 * s)
                break;
            sign = -sign;
        }
        q = 2.0 * s;
    }
    return q < 0.0 ? 0.0 : (q > 1.0 ? 1.0 : q);
}

mt_err mt_ks_two_sample(const double *a, size_t na, const double *b, size_t nb,
                        double alpha, mt_ks_result *out)
{
    if (!a || !b || !out || na == 0 || nb == 0 || !(alpha > 0.0 && alpha < 1.0))
        return MT_ERR_INVALID_ARG;
    if (na > SIZE_MAX / sizeof(double) - nb)
        return MT_ERR_NOMEM;
    double *s = malloc((na + nb) * sizeof *s);
    if (!s)
        return MT_ERR_NOMEM;
    double *sa = s, *sb = s + na;
    memcpy(sa, a, na * sizeof *sa);
    memcpy(sb, b, nb * sizeof *sb);
    mt_sort_doubles(sa, na);
    mt_sort_doubles(sb, nb);

    /* Walk both sorted samples; at each distinct value consume ALL equal
     * values of both samples before comparing the ECDFs, so ties (common:
     * latencies are integers) never create a spurious step.  The difference
     * i/na - j/nb is kept as the exact integer i*nb - j*na. */
    size_t i = 0, j = 0;
    uint64_t best = 0;
    while (i < na && j < nb) {
        double v = sa[i] < sb[j] ? sa[i] : sb[j];
        while (i < na && sa[i] <= v)
            i++;
        while (j < nb && sb[j] <= v)
            j++;
        uint64_t fi = (uint64_t)i * nb, gj = (uint64_t)j * na;
        uint64_t diff = fi > gj ? fi - gj : gj - fi;
        if (diff > best)
            best = diff;
    }
    /* Once one sample is used up its ECDF is 1 and the other's only rises
     * towards 1, so no later point can exceed the maximum found. */
    free(s);

    double n = (double)na, m = (double)nb;
    memset(out, 0, sizeof *out);
    out->n1 = na;
    out->n2 = nb;
    out->alpha = alpha;
    out->d = (double)best / (n * m);
    out->d_crit = sqrt(-log(alpha / 2.0) * (n + m) / (2.0 * n * m));
    /* Asymptotic p-value with Stephens' small-sample correction. */
    double ne = n * m / (n + m), sne = sqrt(ne);
    out->p_value = mt_an_kolmogorov_q((sne + 0.12 + 0.11 / sne) * out->d);
    out->reject = out->d > out->d_crit;
    return MT_OK;
}

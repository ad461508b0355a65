/* Replacement class from the recency and ordering tests of probe_replacement:
 * which deterministic behaviour the two miss counts fit, and how likely a
 * policy without order (random, Fermi's weighted random) would have produced
 * counts at least as close to that behaviour.  The shares alone cannot say
 * so: with 2 or 3 ways Fermi's policy evicts the oldest line 3/4 or 3/5 of
 * the time, which passes a 0.6 "evicted" threshold on one short sequence. */
#include "analysis.h"
#include "analysis_internal.h"

double mt_binom_at_least(uint64_t n, uint64_t k, double p)
{
    return mt_an_binom_upper_tail(n, k, p);
}

double mt_binom_at_most(uint64_t n, uint64_t k, double p)
{
    /* X <= k  <=>  n - X >= n - k, and n - X ~ Binomial(n, 1 - p): the
     * tail is summed directly instead of as 1 - (a tail near 1). */
    if (k >= n)
        return 1.0;
    return mt_an_binom_upper_tail(n, n - k, 1.0 - p);
}

static double share(mt_miss_count c)
{
    return c.timed ? (double)c.missed / (double)c.timed : 0.0;
}

mt_policy_verdict mt_classify_policy(mt_miss_count recency, mt_miss_count untouched,
                                     mt_miss_count ordering, const mt_policy_limits *lim)
{
    mt_policy_verdict v = {.recency_share = share(recency), .untouched_share = share(untouched),
                           .ordering_share = share(ordering), .p_unordered = 1.0,
                           .p_touch = mt_fisher_fewer(recency.missed, recency.timed,
                                                      untouched.missed, untouched.timed)};
    /* The ordering test's youngest lines: kept by both ordered policies,
     * so a policy without order shows itself only by evicting some. */
    double p_young_kept = mt_binom_at_most(ordering.timed, ordering.missed, lim->unordered_min_young_evict);
    if (v.ordering_share > lim->kept_share) {
        v.cls = MT_POLICY_UNORDERED;
        return v;
    }
    if (v.recency_share <= lim->kept_share && v.p_touch >= lim->touch_alpha) {
        /* Kept whether touched or not: the new lines went elsewhere. */
        v.cls = MT_POLICY_UNCLASSIFIED;
        v.no_contention = true;
    } else if (v.recency_share <= lim->kept_share) {
        /* Recency: an unordered policy may keep the touched lines too (few
         * new lines per set), so only the ordering test speaks against it. */
        v.cls = MT_POLICY_RECENCY;
        v.p_unordered = p_young_kept;
    } else if (v.recency_share >= lim->evicted_share) {
        v.cls = MT_POLICY_INSERTION;
        v.p_unordered = p_young_kept * mt_binom_at_least(recency.timed, recency.missed,
                                                         lim->unordered_max_oldest_evict);
    } else {
        v.cls = MT_POLICY_UNCLASSIFIED;
    }
    return v;
}

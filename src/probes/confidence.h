/* Named confidences of the built-in probes.  A confidence in [0, 1] says how
 * sure a finding is; where a statistical test decides, the probes use 1 - p
 * of that test instead of these.  These are for findings whose doubt is
 * not a p-value: the reason is given with each. */
#ifndef MT_PROBE_CONFIDENCE_H
#define MT_PROBE_CONFIDENCE_H

/* Users trust a finding at or above this confidence (docs/method.md, the
 * contract of the randomized test); checks between findings only lean on
 * trusted ones. */
#define MT_CONF_TRUSTED 0.5
/* A driver attribute is by definition what the driver reports. */
#define MT_CONF_DRIVER 1.0
/* Median of several aggregate chases over a resident chain: only a run
 * disturbed in most of its repetitions could move it. */
#define MT_CONF_AGG_MEDIAN 0.95
/* The same, over a chain that may keep a small share of faster hits or
 * slower misses (cold DRAM chain with address translation, a constant L1.5
 * chain only 3x the L1): the mean can lean a few cycles. */
#define MT_CONF_AGG_MIXED 0.9
/* Difference of two aggregate medians of one probe (miss penalty): the
 * errors of both add up. */
#define MT_CONF_DIFFERENCE 0.9
/* Difference of latencies that two different probes measured with
 * different chains (DRAM minus L2, L2 minus L1.5). */
#define MT_CONF_DIFFERENCE_ACROSS 0.85
/* Median of the faster class of a two-class (Otsu) split: the class is
 * robust, its boundary is not. */
#define MT_CONF_NEAR_CLASS 0.9
/* Median of the slower class of that split: depends on where the boundary
 * fell and on how many samples the class has. */
#define MT_CONF_FAR_CLASS 0.8
/* Slice count from a consistent set of binomial disturbance tests. */
#define MT_CONF_SLICES 0.9
/* A count or line that the tests could not pin down: the finding is a
 * range that holds the truth but says little. */
#define MT_CONF_INCONSISTENT 0.3
/* A capacity whose first-miss verdict Opt+KS did not confirm: a range over
 * the confirmation sweep that may miss the truth (timer outliers can make
 * the first-miss test fire early), so below the 0.5 users trust. */
#define MT_CONF_CAPACITY_UNCONFIRMED 0.4
/* A level found absent because its latency equals the next level's: two
 * levels a few cycles apart would look the same. */
#define MT_CONF_ABSENT_BY_LATENCY 0.8
/* A range whose ends are the measured fill unit and the path's limit: it
 * holds the truth as surely as the fill unit is right. */
#define MT_CONF_RANGE_TO_LIMIT 0.9
/* Derived findings scale the confidence of what they derive from by this:
 * the derivation adds an assumption (e.g. logical caches sharing a physical
 * cache share its line). */
#define MT_CONF_DERIVATION_FACTOR 0.9
/* A replacement class from two miss shares that fell clearly on one side
 * of their thresholds: the classes are behaviours (what was kept), and a
 * policy outside the four modelled ones could mimic one of them. */
#define MT_CONF_POLICY 0.8
/* The SM clock from a few ms of %clock64 against %globaltimer: two exact
 * hardware counters; below 1 only because the clock may change later. */
#define MT_CONF_CLOCK 0.95

/* Bank count, width, broadcast and wide-load passes read off latency
 * levels that differ by at least 16 cycles and 4 standard errors
 * (MT_BANK_*): a pattern disturbed in most of its samples could still
 * move one level. */
#define MT_CONF_BANKS 0.9

#endif

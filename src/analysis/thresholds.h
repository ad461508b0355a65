/* Every decision threshold of the analysis core, named and justified.
 * Reports print these next to the results that used them. */
#ifndef MT_THRESHOLDS_H
#define MT_THRESHOLDS_H

/* Significance level of every KS test.  A full run makes on the order of a
 * hundred tests; at 1e-3 the expected number of false "change" verdicts per
 * run is about 0.1, while a real cache miss pattern (hundreds of samples
 * with tens of percent misses) gives p-values far below 1e-10. */
#define MT_KS_ALPHA 1e-3

/* Two latency classes closer than this are one class.  The smallest real
 * gap between levels we know of (L1 hit vs. L2 hit on any NVIDIA GPU) is
 * > 20 cycles; timer jitter is 1-2 cycles. */
#define MT_MIN_CLASS_GAP_CYCLES 8.0

/* A test sample "has more misses" than its reference only if the miss
 * fraction rises by at least this much.  With fine-grained samples of
 * >= 256 loads this is >= 3 extra misses: more than noise outliers make
 * (spec noise models put them at < 1%), fewer than one eviction of a
 * 4-way set in a 1024-line cache produces. */
#define MT_MIN_MISS_FRACTION_INCREASE 0.01

/* Miss-spacing estimates need this many misses and this share of gaps at the
 * modal distance: with sector-fill caches every gap equals the sector, noise
 * outliers make the remaining few percent. */
#define MT_MIN_MISSES_FOR_SPACING 8
#define MT_MIN_SPACING_SUPPORT 0.6

/* Line from capacities: bytes per line (capacity at a sector stride over the
 * lines that fit at a large stride) must be within this relative distance of
 * a power of two.  Non-LRU replacement and uneven set use only lower the
 * line count, by a few percent at the best of the probe's strides (on an
 * H100: 0%); a stride that uses a third of the sets is off by a third and
 * must be rejected, not rounded. */
#define MT_LINE_RATIO_TOLERANCE 0.2

/* A line accepted with |L/P - 1| above this is weak evidence (an H200 gave
 * 146.3 B per line, 14% from 128 B, in runs where others gave ranges): it is
 * still reported, with a confidence below 0.5 and a note.  Real caches at
 * the probe's best stride are within a few percent (H100: 0%); 10% leaves
 * room for non-LRU replacement and half of the tolerance band beyond it. */
#define MT_LINE_RATIO_FIRM 0.1

/* Two latency classes are two populations (a near and a far L2 partition)
 * only if a two-Gaussian mixture of Otsu's classes beats one Gaussian by
 * this much in BIC (Kass and Raftery: a difference above 10 is "very strong"
 * evidence).  Otsu cuts every sample in two, even one bell curve, whose
 * halves end up ~1.6 sigma apart: with L2 noise above ~5 cycles that passes
 * MT_MIN_CLASS_GAP_CYCLES, and the BIC test is what rejects it. */
#define MT_BIMODAL_MIN_DELTA_BIC 10.0
/* Class spreads are floored at this many cycles: latencies are integers,
 * and a noise-free class would otherwise have zero variance. */
#define MT_BIMODAL_MIN_SD 0.5

#endif

/* Probe-side thresholds (used by src/probes, listed in every report). */
#ifndef MT_PROBE_THRESHOLDS
#define MT_PROBE_THRESHOLDS
/* A load is a miss when it is slower than the all-hit reference's median by
 * more than this many robust standard deviations (1.4826 * MAD), and by at
 * least MT_MIN_CLASS_GAP_CYCLES.  5 sigma keeps Gaussian timer noise below
 * one false miss per million loads. */
#define MT_HIT_MARGIN_MADS 5.0
/* A capacity search's hit threshold stays below this share of the way from
 * the reference's median to the median of the level its misses go to (the
 * presence test's cg chain).  A hit spread as wide as the step to that level
 * (texture noise of 18 cycles before an L2 45 cycles slower) puts the 5-sigma
 * margin above the level itself: its hits would count as hits here, and the
 * search would size the L2 (unseen seed 513).  Halfway is the cut that
 * misclassifies the fewest loads of two equally wide classes; the hits it
 * counts as misses are in the reference too, and the search compares
 * against the reference's share. */
#define MT_HIT_CUT_NEXT_LEVEL 0.5
/* Misses of a chain slower than their median by more than this many robust
 * standard deviations (and MT_MIN_CLASS_GAP_CYCLES) are timer outliers, not
 * misses (mt_miss_mean_latency).  Wide enough for the near/far mix of a
 * partitioned L2 (its robust spread is about 0.74 of the near/far gap, so
 * the far class lies within ~1 of them); outliers of up to 10000 cycles at
 * 1% would otherwise move the mean by up to 100 cycles. */
#define MT_MISS_OUTLIER_SDS 6.0
/* A miss chain with more than this share of its loads beyond the outlier
 * cut is not a clean set of next-level hits (it spills further, e.g. to
 * DRAM): its miss penalty is flagged (confidence MT_CONF_INCONSISTENT).
 * Timer outliers alone stay below 1% (the spec format's limit). */
#define MT_MISS_SPILL_SHARE 0.02
/* Fewest misses a mean miss latency is computed from: with fewer the chain
 * did not leave the cache often enough to say what a miss costs. */
#define MT_MISS_MIN_COUNT 100
/* A miss chain with more than this share of hits kept most of itself in
 * the cache (Fermi's fixed victim way, random replacement in a cramped
 * chain): its misses are the few lines the policy evicts, not a sample of
 * the L2, and on a partitioned L2 those few lines may all lie in the far
 * (or near) partitions.  Its miss penalty is flagged. */
#define MT_MISS_MAX_HIT_SHARE 0.5
/* Fewest blocks a standard error over a chain's elements is computed from
 * (mt_chain_mean_se): with 8 the sample standard deviation is within about
 * 25% of the truth (chi-square, 7 degrees of freedom), and the largest over
 * block sizes errs upward, which only widens a range. */
#define MT_SE_MIN_BLOCKS 8
/* A miss penalty is reported as a value only when MT_MISS_SE_Z standard
 * errors of its chain's mean (over the lines it samples: on a partitioned
 * L2 a few dozen lines may be homed mostly near or far) stay within
 * MT_MISS_PRECISION_CYCLES or MT_MISS_PRECISION_SHARE of the penalty,
 * whichever is larger; otherwise it is the range of +- that many standard
 * errors.  3 standard errors hold the truth in 99.7% of runs; 5% (at least
 * 4 cycles) is what a difference of two latencies over an L2 near/far mix
 * can promise anyway (the H100's chains give about 1 cycle). */
#define MT_MISS_SE_Z 3.0
#define MT_MISS_PRECISION_CYCLES 4.0
#define MT_MISS_PRECISION_SHARE 0.05
/* A capacity found by the first-miss test and one found by Opt+KS that
 * disagree by more than this fraction are reported as a range. */
#define MT_CAPACITY_AGREEMENT 0.03
/* Capacity tests (measure_capacity.c) time one lap of most footprints, so
 * a cache a few lines smaller than a footprint shows only the handful of
 * misses of its overflowing sets: too few for MT_KS_ALPHA against timer
 * outliers.  Where that decides a claim (a lower bound at the path limit,
 * the pigeonhole check of an edge), a p-value under this level (a 1-in-20
 * hint) reruns the footprint(s) with every load the backend times, judged
 * at MT_KS_ALPHA on the rerun alone: the hint only decides what to rerun. */
#define MT_RECHECK_HINT_ALPHA 0.05
/* A capacity search's all-hit reference with more than this share of loads
 * above the presence test's hit threshold does not fit in the cache (one of
 * a few lines, smaller than the reference): the search halves it.  Timer
 * outliers stay below 1% (the spec format's limit), so 2% is not noise. */
#define MT_CAP_REF_MAX_MISS_SHARE 0.02
/* Chains of the sharing / slices tests fill this fraction of the smaller
 * cache: small enough that a lone chain never misses, large enough that a
 * second chain in the same physical cache must evict it. */
#define MT_SHARING_FILL 0.75
/* Shared-memory banks (analysis/banks.c, probes/probe_banks.c).  Two
 * latency levels of warp loads differ when they are more than
 * MT_BANK_MIN_GAP_CYCLES apart and more than MT_BANK_SE_FACTOR combined
 * standard errors: 4 standard errors leave a false "differ" at about 6e-5
 * per comparison under normal noise, and a run makes about 40.  The gap
 * the probe must see is never below 16 cycles (16 ways more conflict at
 * a cycle or more per way: a bank delivers one word per cycle), so 4
 * cycles is a quarter of it, above the 1-2 cycles of timer jitter. */
#define MT_BANK_MIN_GAP_CYCLES 4.0
#define MT_BANK_SE_FACTOR 4.0
/* A bank level (interquartile mean) first drops samples more than
 * MT_BANK_SPIKE_SDS robust standard deviations above the median: timer
 * spikes, which normal noise reaches once in 3.5 million samples.  Spikes
 * below that in up to 1% of the samples (the rate the simulator allows,
 * well above what GPUs show) move the interquartile mean up by at most
 * 0.01 / (2 x 0.318) = 1.6% of the spread (0.318: the normal density at
 * the quartiles), which the level's standard error includes. */
#define MT_BANK_SPIKE_SDS 5.0
#define MT_BANK_SPIKE_BIAS 0.016
/* Passes of a 64/128-bit load are (its latency - the conflict-free one) /
 * the cost of a pass + 1; an estimate further than this from a whole
 * number is reported with a confidence below 0.5. */
#define MT_BANK_PASS_TOLERANCE 0.25
/* The conflict cost fit: its 95% interval (2 standard errors) times the
 * 31 extra ways of a 32-way conflict must stay within the 2 cycles per
 * degree the issue asks for, else the finding is flagged. */
#define MT_BANK_FIT_TOLERANCE_CYCLES 2.0

#endif

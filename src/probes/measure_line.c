/* Line size through capacity.  Tags are per line: a chain whose stride is at
 * least a line holds one line per element, so the number of elements that
 * fit, E(s) = capacity(s) / s, is the number of lines N, and
 * line = C / N with C the capacity at a stride of one sector.
 *
 * Set indexing can waste sets for some strides: modulo indexing with a
 * power-of-two stride touches only a fraction of the sets, and the hashed
 * indexing of real GPUs clusters some non-power-of-two strides (measured on
 * an H100: 1864 elements fit at strides 128..2048, 903 at 480).  Both only
 * ever LOWER E, so the probe measures E at a power-of-two stride and at an
 * odd multiples of the sector and keeps the largest. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "probe_internal.h"
#include "confidence.h"
#include "line_confirm.h"

/* Confidences of the inconclusive outcomes (ranges), lowest where the
 * range says least: only power-of-two strides fitted, which may alias sets
 * (0.5); a ratio that is no power of two (0.4). */
#define MT_CONF_LINE_ALIASED 0.5
#define MT_CONF_LINE_NOT_POW2 0.4
/* A line accepted inside MT_LINE_RATIO_TOLERANCE but beyond
 * MT_LINE_RATIO_FIRM: the nearest power of two is likely, not established. */
#define MT_CONF_LINE_LOOSE 0.4
/* A line (or bound) from the ratio that no pigeonhole check could test
 * (line_pigeonhole.c and line_scatter.c only time chains that fit their
 * runs: not an L2 of more than about 13000 claimed lines).  A hash that
 * pins one set bit at every stride tried halves every capacity the ratio
 * can use and doubles the line (seen in random specs whose L2 index folds
 * high address bits), and only those checks tell: likely, not established. */
#define MT_CONF_LINE_UNCHECKED 0.4
#define UNCHECKED_NOTE                                                                             \
    "; no pigeonhole check fits this cache (MT_CONF_LINE_UNCHECKED): a set index that wastes "    \
    "sets at every stride tried would make the line look larger"

/* Candidate strides.  Preferred, all >= 256 B (no GPU cache line is larger)
 * and >= 4 sectors: 2^k (spreads over hashed sets) and the two smallest odd
 * multiples of the sector above it with no factor 3, 5 or 7 (they spread
 * over modulo-indexed sets even when the set count is 3 * 2^n, 5 * 2^n...).
 * Where the path limit leaves no room for those (constant bank): 3 sectors
 * (resolves lines up to 2 sectors), then 1.5 and 1.25 sectors (only "line
 * == sector" or not).  *odd_out tells whether a non-power-of-two stride is
 * among them: only such a stride can prove "line > stride". */
static int coprime_small(uint32_t m)
{
    return m % 2 && m % 3 && m % 5 && m % 7;
}

static bool fits(uint64_t cap, double stride_in_sectors, double headroom, uint64_t limit)
{
    return (double)cap * stride_in_sectors * headroom <= (double)limit;
}

static size_t candidate_strides(uint32_t sector, uint64_t cap, uint64_t limit, uint32_t *out)
{
    uint32_t pow = 256;
    while (pow < 4 * sector)
        pow <<= 1;
    uint32_t m1 = pow / sector + 1;
    while (!coprime_small(m1))
        m1++;
    uint32_t m2 = m1 + 1;
    while (!coprime_small(m2))
        m2++;
    size_t n = 0;
    if (fits(cap, (double)pow / sector, 1.3, limit))
        out[n++] = pow;
    if (fits(cap, m1, 1.3, limit))
        out[n++] = m1 * sector;
    if (fits(cap, m2, 1.3, limit))
        out[n++] = m2 * sector;
    if (n > 1 || (n == 1 && out[0] != pow))
        return n;
    /* Every fallback that fits (the capacity at these strides doubles as a
     * bound, so 5% headroom): 1.5 sectors skips every third line and wastes
     * sets when their count is a multiple of 3, 1.25 sectors every fifth. */
    if (fits(cap, 3, 1.05, limit))
        out[n++] = 3 * sector;
    if (sector % 8 == 0 && fits(cap, 1.5, 1.05, limit))
        out[n++] = sector + sector / 2;
    if (sector % 16 == 0 && fits(cap, 1.25, 1.05, limit))
        out[n++] = sector + sector / 4;
    return n;
}

static bool is_pow2(uint32_t v) { return v && !(v & (v - 1)); }

/* Findings that check each other: the line is the ratio of the capacity at
 * a sector stride to the elements that fit at a wider stride.  When that
 * ratio is no power of two, one of the two capacities is not what the
 * cache holds (a hashed index with a set count that is no power of two, or
 * a random policy, makes a chain conflict before the cache is full), and
 * the size that fed it may be the wrong one: its confidence falls to the
 * line's, and the note says why. */
/* The finding whose capacity the line test compared: the size, or for the
 * L2 (whose size is the driver's) what one SM could use, its partition
 * size (a partition under a hashed tree pseudo-LRU that evicts early read
 * 9% low with confidence 1 while the line from it was 51.2 B per line:
 * seed w1216). */
static const char *capacity_finding(const char *key)
{
    return strcmp(key, mt_cache_key(MT_CACHE_L2)) == 0 ? "partition_size" : "size";
}

static void doubt_size_why(mt_probe_ctx *c, const char *key, double conf, const char *why)
{
    const char *name = capacity_finding(key);
    const mt_finding *size = mt_get(c, key, name);
    if (size->kind != MT_FIND_VALUE || size->confidence <= conf)
        return;
    mt_finding f = *size;
    mt_finding_doubt(&f, conf, "%s", why);
    mt_set(c, key, name, &f);
}

/* The size doubt with the line test's own numbers: which outcome of that
 * test (`what`), and the two capacities it compared, so a reader sees what
 * the doubt rests on.  Short: it is appended to the size's note. */
static void doubt_size(mt_probe_ctx *c, const char *key, double conf, const char *what,
                       uint64_t cap, uint64_t cap_s, uint32_t stride)
{
    char why[160];
    snprintf(why, sizeof why, "line test %s (%llu B at a sector stride, %llu B at %u B): "
             "conflicts may end a chain before the cache is full", what,
             (unsigned long long)cap, (unsigned long long)cap_s, stride);
    doubt_size_why(c, key, conf, why);
}

/* What the pigeonhole checks of a claimed line held: the most elements
 * resident at a stride of at least the claim (lines), its stride, whether
 * line_scatter.c's chain held them, cap / lines (line_max, INFINITY when
 * nothing was held), and whether any check that could refute the claim ran
 * (checked). */
typedef struct {
    double lines, line_max;
    uint32_t stride;
    bool scattered, checked;
} mt_held;

static void hold(mt_held *h, uint64_t cap, double lines, uint32_t stride, bool scattered)
{
    if (!(lines > h->lines))
        return;
    h->lines = lines;
    h->stride = stride;
    h->scattered = scattered;
    h->line_max = (double)cap / lines;
}

static bool refutes(const mt_held *h, uint32_t claim)
{
    return h->line_max * (1 + MT_LINE_RATIO_TOLERANCE) < claim;
}

/* Pigeonhole checks of a line of `claim` bytes (or more): at a stride of at
 * least the line every element is a line of its own, and a cache of cap /
 * line lines cannot keep more of them resident than that, whatever its
 * policy.  A stride that kept clearly more (beyond MT_LINE_RATIO_TOLERANCE)
 * proves a smaller line: the edge the ratio used was a conflict (a hashed
 * direct-mapped cache conflicts early at every wide stride), not the line
 * count.  The capacity strides count first; then, while the claim stands,
 * one chain at 1.5 claimed lines per element (line_pigeonhole.c) and one
 * whose elements no index can alias (line_scatter.c), for hashes that
 * defeat every stride.  A claim of one sector needs no check: nothing
 * smaller can be measured. */
static mt_err check_claim(mt_probe_ctx *c, mt_path path, uint64_t cap, uint32_t claim,
                          uint32_t sector, const uint32_t *strides, const double *resident,
                          size_t ns, uint64_t limit, double hit_threshold, mt_held *h)
{
    *h = (mt_held){.line_max = INFINITY, .checked = claim <= sector};
    if (!claim)
        return MT_OK;
    for (size_t i = 0; i < ns; i++)
        if (strides[i] >= claim)
            hold(h, cap, resident[i], strides[i], false);
    if (refutes(h, claim) || claim <= sector) {
        h->checked = true;
        return MT_OK;
    }
    double lines;
    uint32_t stride;
    mt_err err = mt_line_pigeonhole(c, path, cap, claim, limit, hit_threshold, &lines, &stride);
    if (err != MT_OK)
        return err;
    h->checked |= !isnan(lines);
    hold(h, cap, lines, stride, false);
    if (refutes(h, claim))
        return MT_OK;
    err = mt_line_pigeonhole_scattered(c, path, cap, claim, limit, hit_threshold, &lines);
    if (err != MT_OK)
        return err;
    h->checked |= !isnan(lines);
    hold(h, cap, lines, claim / 2, true);
    return MT_OK;
}

/* Why the capacity at the ratio's stride is no confident value (its
 * confidence is the line's: a line is no surer than the count it
 * divides).  Short: it ends a note that is already long. */
static const char *capacity_doubt(const mt_cap_result *r)
{
    if (r->placement)
        return "misses moved with placement";
    if (r->unconfirmed)
        return "edge not confirmed by Opt+KS";
    if (r->borderline)
        return "edge did not repeat";
    if (r->edge_below)
        return "outliers below the edge";
    if (r->kind == MT_FIND_RANGE)
        return "edge and Opt+KS disagree";
    return "weak edge";
}

/* When the capacity at the ratio's stride caps the line's confidence
 * below the trusted level: says so in the note, as elements at that
 * stride (with whether both ends of their range give the same line) and,
 * where both do, lets a set index that confirms the line lift it
 * (line_confirm.c). */
static void note_capacity_cap(mt_probe_ctx *c, mt_cache_id id, mt_finding *line, double cap,
                              double cap_conf, const mt_cap_result *best, uint32_t stride,
                              uint32_t sector, uint32_t line_bytes, bool loose, bool unchecked)
{
    if (line->confidence >= MT_CONF_TRUSTED || loose || unchecked)
        return; /* trusted, or capped with its reason in the note already */
    if (best->confidence >= MT_CONF_TRUSTED) {
        /* The other factor: the size (sector-stride capacity) it divides. */
        mt_finding_append_note(line, "confidence %.2f: the size's (%s.size)", cap_conf,
                               mt_cache_key(id));
        return;
    }
    const char *why = capacity_doubt(best);
    unsigned long long lo = best->lo / stride, hi = best->hi / stride;
    mt_line_estimate far = {0};
    bool range = best->kind == MT_FIND_RANGE && hi > lo &&
                 mt_line_from_capacities(cap, (double)best->hi, stride, sector, &far) == MT_OK;
    if (!range) {
        mt_finding_append_note(line, "%llu elements at %u B (%s: confidence %.2f)", lo, stride,
                               why, line->confidence);
        return;
    }
    if (!far.found || far.line_bytes != line_bytes || far.margin > MT_LINE_RATIO_FIRM) {
        mt_finding_append_note(line, "%llu-%llu elements at %u B, the top end %.1f B per line "
                               "(%s: confidence %.2f)", lo, hi, stride,
                               (double)stride / far.ratio, why, line->confidence);
        return;
    }
    /* Both ends give this line: where in the range the edge lies does not
     * matter, only that the range holds it.  An edge below the range (an
     * over-full chain that kept most of its lines) would mean a larger
     * line, which an index that puts consecutive lines in different sets
     * rules out; one above it a smaller line, which the pigeonhole checks
     * (they ran: not unchecked) did not see. */
    mt_finding_append_note(line, "%llu-%llu elements at %u B, " MT_LINE_BOTH_ENDS " %u B (%s: "
                           "confidence %.2f)", lo, hi, stride, line_bytes, why,
                           line->confidence);
    c->cs[id].line_edge_capped = true;
    c->cs[id].line_conf_confirmed = cap_conf * (1.0 - best->p_detect);
}

mt_err mt_measure_line(mt_probe_ctx *c, mt_cache_id id, mt_path path, uint64_t cap,
                       double cap_conf, uint32_t sector, uint64_t ref_min_elements, uint64_t limit,
                       int max_rounds, double hit_threshold)
{
    const char *key = mt_cache_key(id);
    mt_finding line;
    uint32_t strides[6];
    c->cs[id].line_edge_capped = false;
    size_t ns = candidate_strides(sector, cap, limit, strides);
    if (ns == 0) {
        line = mt_find_range(sector, (double)limit, "B", "capacity-ratio", MT_CONF_RANGE_TO_LIMIT,
                                  "the %llu B path limit leaves no room for the capacity test; the "
                                  "line lies between the fill unit and the limit",
                                  (unsigned long long)limit);
        mt_set(c, key, "line", &line);
        return MT_OK;
    }
    mt_cap_result best = {0};
    uint32_t best_s = 0;
    double best_e = -1;
    bool any_odd = false;
    double resident[6] = {0}; /* most elements held at strides[i] */
    double fit_at[6] = {0};   /* bytes that fitted at strides[i] (0: skipped) */
    double ref_missed_share = 0; /* a skipped stride's reference miss share */
    uint32_t ref_missed_stride = 0;
    for (size_t i = 0; i < ns; i++) {
        uint32_t s = strides[i];
        uint64_t expect = (uint64_t)((double)cap / sector * s); /* if line == sector */
        /* Two elements fit any cache of two or more ways, whatever the stride.
         * A reference of more elements than the cache can have lines, or one
         * beyond the path's limit, can never be all hits: skip the stride. */
        uint64_t ref_el = ref_min_elements > 2 ? ref_min_elements : 2;
        uint64_t ref = ref_el * (uint64_t)s;
        if (ref_el >= cap / sector || ref + s > limit)
            continue;
        uint64_t start = mt_round_down(cap > ref + s ? cap : ref + s, s);
        uint64_t lim = (uint64_t)((double)expect * (s <= 3 * sector ? 1.05 : 1.3));
        if (lim > limit)
            lim = limit;
        uint64_t gran = mt_round_down(cap / 64, s);
        mt_cap_request q = {
            .path = path, .stride = s, .start = start, .limit = mt_round_down(lim, s),
            .granule = gran < s ? s : gran, .ref_footprint = mt_round_down(ref, s),
            .hit_threshold = hit_threshold, .max_rounds = max_rounds, .quick = 1,
            /* The L2's chains are longer than a run times: its timed
             * window must hold the lines each footprint added (as the
             * capacity it is the ratio to was measured). */
            .window_at_growth = id == MT_CACHE_L2,
            /* And a conflict there must not end the count early: the
             * largest footprint that fits counts (H100: 43.0 MB missed at
             * 256 B, 46.1 and 48.7 MB fitted; the line read 156 B). */
            .seek_fit_above = id == MT_CACHE_L2,
        };
        mt_cap_result r;
        mt_progress(c, "%s line: capacity at a %u B stride", mt_cache_name(id), s);
        mt_err err = mt_capacity_search(c, &q, &r);
        if (err != MT_OK)
            return err;
        if (r.kind == MT_FIND_LOWER_BOUND) {
            /* No extra misses up to more lines than can exist: the reference
             * itself missed (this stride aliases the sets so badly that even
             * a few elements conflict).  Useless stride; try the others. */
            continue;
        }
        if (r.ref_miss_share > MT_CAP_REF_MAX_MISS_SHARE) {
            /* The reference does not fit at this stride (a line longer
             * than the stride puts its elements on more bytes of lines
             * than the cache holds: a constant L1.5 of 256 B lines kept 64%
             * of a 37248 B reference at 96 B, and the edge above it read
             * 64 B lines at confidence 1, unseen seed 2228): the footprints'
             * misses are an excess over the reference's, no capacity. */
            ref_missed_share = r.ref_miss_share;
            ref_missed_stride = s;
            continue;
        }
        resident[i] = r.most_resident;
        /* Conflicts only lower what fits: a larger footprint that fitted
         * above the first misses is the count (fit_above). */
        if (r.fit_above > r.lo) {
            r.lo = r.fit_above;
            r.hi = r.miss_above > r.lo ? r.miss_above : r.lo;
        }
        double e = (double)r.lo / s;
        fit_at[i] = (double)r.lo;
        any_odd |= !is_pow2(s);
        if (e > best_e) {
            best_e = e;
            best = r;
            best_s = s;
        }
    }
    if (best_s == 0 && ref_missed_stride) {
        /* Every stride's reference missed: a line longer than the strides
         * (or conflicts of the reference's elements); nothing bounds it
         * from above but the path. */
        mt_note_threshold(c, "MT_CAP_REF_MAX_MISS_SHARE", MT_CAP_REF_MAX_MISS_SHARE,
                          "capacity search: a reference with more misses than this share is "
                          "halved");
        line = mt_find_range(sector, (double)limit, "B", "capacity-ratio", MT_CONF_INCONSISTENT,
                             "the all-hit reference chain missed at every stride tried (%.1f%% "
                             "of its loads at %u B, over MT_CAP_REF_MAX_MISS_SHARE): its "
                             "elements cover more bytes of lines than the cache holds, so the "
                             "line may be longer than the strides",
                             100 * ref_missed_share, ref_missed_stride);
        mt_set(c, key, "line", &line);
        return MT_OK;
    }
    if (best_s == 0) {
        line = mt_find_range(sector, strides[ns - 1], "B", "capacity-ratio", MT_CONF_INCONSISTENT,
                                  "no stride gave a clean reference: the sets alias at every "
                                  "stride tried");
        mt_set(c, key, "line", &line);
        return MT_OK;
    }
    mt_line_estimate le;
    mt_err err = mt_line_from_capacities((double)cap, (double)best.lo, best_s, sector, &le);
    if (err != MT_OK)
        return mt_fail(c->ei, err, "line estimate from capacities %llu and %llu B failed",
                       (unsigned long long)cap, (unsigned long long)best.lo);
    double conf = cap_conf * best.confidence;
    mt_note_threshold(c, "MT_LINE_RATIO_FIRM", MT_LINE_RATIO_FIRM,
                      "line: bytes per line further than this from a power of two give a "
                      "confidence below 0.5");
    mt_note_threshold(c, "MT_CONF_LINE_UNCHECKED", MT_CONF_LINE_UNCHECKED,
                      "line: confidence cap of a line (or bound) that no pigeonhole check could "
                      "test (its chains would not fit the runs)");
    /* The line the checks below test: the ratio's value, or the smallest
     * power of two the bound allows (a line of at least that bounds the
     * resident elements the same way: a line of k claims holds at most k
     * of the checks' elements). */
    uint32_t claim = le.found ? le.line_bytes : 0;
    if (le.lower_bound && any_odd)
        for (claim = 8; claim < best_s; claim <<= 1)
            ;
    mt_held held;
    err = check_claim(c, path, cap, claim, sector, strides, resident, ns, limit,
                      best.hit_threshold, &held);
    if (err != MT_OK)
        return err;
    bool refuted = claim && refutes(&held, claim), unchecked = false;
    if (claim && !refuted && !held.checked) {
        if (conf > MT_CONF_LINE_UNCHECKED) {
            conf = MT_CONF_LINE_UNCHECKED;
            unchecked = true;
        }
    }
    if (refuted) {
        char claimed[96];
        if (le.found)
            snprintf(claimed, sizeof claimed, "%.1f B per line from %.0f elements at a %u B stride",
                     (double)best_s / le.ratio, best_e, best_s);
        else
            snprintf(claimed, sizeof claimed, "a line of %u B or more (as many bytes fit at that "
                     "stride as at a sector stride)", best_s);
        /* The range's top is what the resident lines allow (within the
         * tolerance the refutation used), not the refuted claim: a cache
         * sharing this physical array whose own line test read the claim
         * must not find it inside this range (derive_shared_lines.c). */
        double top = held.line_max * (1 + MT_LINE_RATIO_TOLERANCE);
        if (top > claim)
            top = claim;
        if (top < sector)
            top = sector;
        line = mt_find_range(sector, top, "B", "capacity-ratio", MT_CONF_INCONSISTENT,
                             "%s, but %.0f elements stayed resident at a %u B stride%s: a line of "
                             "at most %.1f B; the ratio's edge was a set conflict",
                             claimed, held.lines, held.stride,
                             held.scattered ? " (one per claimed line, its half at random)" : "",
                             held.line_max);
        /* More resident elements than cap / line also means the capacity
         * may be low (the conflict can end the sector-stride search too). */
        doubt_size(c, key, MT_CONF_INCONSISTENT, "refuted by resident lines", cap, best.lo,
                   best_s);
    } else if (le.found) {
        c->cs[id].line = le.line_bytes;
        /* Pigeonhole for the size: the elements held at a stride of at
         * least the line were that many lines resident at once, so a whole
         * line more than the size holds means the size is low (a contiguous
         * chain conflicts before the cache is full: an xor index over a set
         * count that is no power of two), or the line is smaller than the
         * ratio's (within the tolerance the check above leaves).  Timer
         * outliers only lower the count.  Only beyond the size's own
         * tolerance (MT_CAPACITY_AGREEMENT): an H100's L1 edge lies a part
         * of a line below the 1862 lines it holds.  Nothing says which of
         * the two: the line is doubted with the size (a hashed 8 KiB texture
         * cache of 32 B lines read 64 B from its strides, and 147 elements
         * stayed resident where 128 lines of 64 B fit: unseen seed 998). */
        bool size_or_line = held.lines >= (double)cap / le.line_bytes + 1 &&
                            held.lines * le.line_bytes > (double)cap * (1 + MT_CAPACITY_AGREEMENT);
        if (size_or_line) {
            char why[200];
            snprintf(why, sizeof why, "%.0f elements stayed resident at a %u B stride, %.1f lines "
                     "of %u B more than this size holds: the size is low or the line smaller",
                     held.lines, held.stride, held.lines - (double)cap / le.line_bytes,
                     le.line_bytes);
            doubt_size_why(c, key, MT_CONF_INCONSISTENT, why);
        }
        bool loose = le.margin > MT_LINE_RATIO_FIRM;
        if (loose && conf > MT_CONF_LINE_LOOSE)
            conf = MT_CONF_LINE_LOOSE;
        line = mt_find_value(le.line_bytes, "B", MT_SRC_MEASURED, "capacity-ratio", conf,
                                  "%llu B fit at a sector stride, %.0f elements (lines) at a %u B "
                                  "stride (best of %zu strides): %.1f B per line, %.0f%% from %u B%s%s",
                                  (unsigned long long)cap, best_e, best_s, ns,
                                  (double)best_s / le.ratio, 100 * le.margin, le.line_bytes,
                                  loose ? " (beyond MT_LINE_RATIO_FIRM: weak evidence)" : "",
                                  unchecked ? UNCHECKED_NOTE : "");
        if (size_or_line)
            mt_finding_doubt(&line, MT_CONF_INCONSISTENT,
                             "%.0f elements stayed resident at a %u B stride, more than this "
                             "size holds in lines of %u B: the line may be smaller",
                             held.lines, held.stride, le.line_bytes);
        note_capacity_cap(c, id, &line, (double)cap, cap_conf, &best, best_s, sector,
                          le.line_bytes, loose, unchecked);
        if (loose)
            doubt_size(c, key, conf, "ratio beyond MT_LINE_RATIO_FIRM", cap, best.lo, best_s);
    } else if (le.lower_bound && !any_odd) {
        /* Only power-of-two strides fitted, and those can alias sets. */
        line = mt_find_range(sector, best_s, "B", "capacity-ratio", MT_CONF_LINE_ALIASED,
                                  "%llu B fit at a %u B stride as at a sector stride: line > %u B, "
                                  "or the stride aliased sets", (unsigned long long)best.lo, best_s,
                                  best_s);
    } else if (le.lower_bound) {
        /* A fallback stride of under 4 sectors only tells "line == sector"
         * from "line > sector" while the sets spread evenly; random
         * replacement or a hashed index makes such a short chain conflict
         * early and look like fewer lines.  A bound from one is weak. */
        bool fallback = best_s < 4 * sector;
        /* Pigeonhole for the bound: were the line at least the stride, the
         * elements would share lines and no more than the capacity's bytes
         * of them could stay resident (k elements at that stride cover k x
         * stride bytes of lines).  Holding more than a sector (the capacity
         * search's resolution) beyond it means the line is smaller (the
         * stride conflicted, e.g. a set count no power of two) or the
         * capacity is low: neither is established. */
        bool overfull = best.lo > cap + sector;
        /* The other way round: were the line at least the stride, a chain
         * of cap bytes at that stride would cover the very lines the
         * sector-stride chain of cap bytes covered, and fit as it did.  A
         * first miss at or below cap means that stride lost lines the
         * sector stride kept (set conflicts, or a cache in front filtering
         * the two chains differently: constant L1.5s read "line > 256 B"
         * for 128 B lines with confidence 1), so "as many bytes fit" is
         * not what it measured. */
        bool early = best.hi > 0 && best.hi <= cap;
        /* A power-of-two stride can pin a set bit of a hashed index and
         * keep half the lines; only a stride that is no power of two,
         * reading a line the bound allows, rules that out. */
        bool odd_conflict = is_pow2(best_s) &&
                            !mt_line_bound_corroborated((double)cap, strides, fit_at, resident, ns,
                                                        claim, sector);
        if ((fallback || overfull || early || odd_conflict) && conf > MT_CONF_LINE_NOT_POW2)
            conf = MT_CONF_LINE_NOT_POW2;
        line = mt_find_bound(best_s, "B", "capacity-ratio", conf,
                                  "capacity %llu B at a %u B stride vs %llu B at %u B: every line "
                                  "holds more than one element%s%s", (unsigned long long)best.lo, best_s,
                                  (unsigned long long)cap, sector,
                                  overfull ? " (but more bytes stayed resident at that stride than "
                                             "the capacity, which a line that long forbids: the "
                                             "stride conflicted or the size is low)"
                                  : early ? " (but the capacity's own footprint already missed at "
                                            "that stride, which a line that long forbids: the "
                                            "stride conflicted, weak evidence)"
                                  : fallback ? " (a stride under 4 sectors, where conflicts also look "
                                               "like this: weak evidence)"
                                  : odd_conflict ? " (but no stride that is no power of two read a "
                                                   "line of at least that without conflicts: a "
                                                   "hashed index that pins a set bit at that "
                                                   "stride reads the same, weak evidence)" : "",
                                  unchecked ? UNCHECKED_NOTE : "");
        /* Conflicts at one short stride: maybe at the sector stride too.
         * (An overfull wide stride says so only of the line: the size's own
         * confirmation stands.) */
        if (fallback)
            doubt_size(c, key, conf, "bound from a stride under 4 sectors", cap, best.lo, best_s);
    } else {
        line = mt_find_range(sector, best_s, "B", "capacity-ratio", MT_CONF_LINE_NOT_POW2,
                                  "%.1f B per line (capacities %llu / %llu B) is not near a power "
                                  "of two", (double)best_s / le.ratio, (unsigned long long)best.lo,
                                  (unsigned long long)cap);
        doubt_size(c, key, MT_CONF_LINE_NOT_POW2, "ratio no power of two", cap, best.lo, best_s);
    }
    mt_set(c, key, "line", &line);
    return MT_OK;
}

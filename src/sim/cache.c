#include "cache.h"

#include <stdlib.h>
#include <string.h>

static uint32_t log2_floor(uint64_t v)
{
    uint32_t b = 0;
    while (v > 1) {
        v >>= 1;
        b++;
    }
    return b;
}

mt_err mt_cache_init(mt_cache *c, const mt_sim_cache_spec *cs, mt_errinfo *ei)
{
    memset(c, 0, sizeof *c);
    uint64_t lines = cs->size / cs->line;
    c->ways = cs->ways;
    c->sets = (uint32_t)(lines / cs->ways);
    c->short_from = c->sets; /* no set short */
    if (cs->unified && cs->carveout_ways) {
        /* The sets of the whole array; what the carveout took (size is
         * what it left) comes out of their ways (mt_sim_set_ways). */
        uint64_t taken = (cs->unified - cs->size) / cs->line;
        c->sets = (uint32_t)(cs->unified / cs->line / cs->ways);
        c->lost_all = (uint32_t)(taken / c->sets);
        c->short_from = c->sets - (uint32_t)(taken % c->sets);
    }
    c->line_shift = log2_floor(cs->line);
    c->sector_shift = log2_floor(cs->sector);
    c->sector_idx_mask = cs->line / cs->sector - 1;
    c->fill_sectors = cs->fill / cs->sector;
    c->index = cs->index;
    c->index_bits = log2_floor(c->sets);
    c->sets_pow2 = (c->sets & (c->sets - 1)) == 0;
    if (!c->sets_pow2)
        c->index_bits++;
    c->sets_magic = UINT64_MAX / c->sets + 1;
    /* The parser checked the mask count against this instance's sets
     * (spec_geometry.c); a mismatch here would be a caller's bug. */
    if (c->index == MT_SIM_INDEX_HASH && (!c->sets_pow2 || cs->n_index_masks != c->index_bits))
        return mt_fail(ei, MT_ERR_INVALID_ARG, "cache %s: %u index masks for %u sets", cs->name,
                       cs->n_index_masks, c->sets);
    memcpy(c->index_mask, cs->index_mask, sizeof c->index_mask);
    c->repl = cs->repl;
    c->fermi_way = cs->fermi_way;
    size_t n = (size_t)c->sets * c->ways;
    c->way = malloc(n * sizeof *c->way);
    c->set_epoch = calloc(c->sets, sizeof *c->set_epoch);
    if (c->repl == MT_SIM_REPL_PLRU)
        c->plru = malloc(n);
    if (!c->way || !c->set_epoch || (c->repl == MT_SIM_REPL_PLRU && !c->plru)) {
        mt_cache_free(c);
        return mt_fail(ei, MT_ERR_NOMEM, "out of memory for cache %s (%zu lines)", cs->name, n);
    }
    c->epoch = 1; /* set_epoch 0 everywhere: every set reads as empty */
    return MT_OK;
}

void mt_cache_free(mt_cache *c)
{
    free(c->way);
    free(c->set_epoch);
    free(c->plru);
    memset(c, 0, sizeof *c);
}

void mt_cache_reset(mt_cache *c)
{
    if (++c->epoch == 0) { /* wrapped after 2^32 resets: clear for real */
        memset(c->set_epoch, 0, (size_t)c->sets * sizeof *c->set_epoch);
        c->epoch = 1;
    }
    c->clock = 0;
}

/* XOR of the value's index_bits-wide chunks. */
static uint64_t fold(uint64_t v, uint32_t bits)
{
    uint64_t x = 0, mask = (1ull << bits) - 1;
    while (v) {
        x ^= v & mask;
        v >>= bits;
    }
    return x;
}

/* q = v / sets and r = v % sets.  Every load computes a set index and a
 * 64-bit division is the slowest instruction on the way, so line numbers
 * below 2^32 (all of global memory) use Lemire's multiply-shift instead. */
static inline void divmod_sets(const mt_cache *c, uint64_t v, uint64_t *q, uint64_t *r)
{
    if (v >> 32) {
        *q = v / c->sets;
    } else {
        *q = (uint64_t)(((unsigned __int128)c->sets_magic * v) >> 64);
        /* the magic constant is exact for 32-bit numerators; a sets_magic of
         * 0 (sets == 1) is handled by the caller */
    }
    *r = v - *q * c->sets;
}

static uint32_t set_index(const mt_cache *c, uint64_t line)
{
    if (c->sets == 1)
        return 0;
    if (c->index == MT_SIM_INDEX_HASH) { /* power-of-two sets (checked at init) */
        uint32_t set = 0;
        for (uint32_t i = 0; i < c->index_bits; i++)
            set |= (uint32_t)__builtin_parityll(line & c->index_mask[i]) << i;
        return set;
    }
    if (c->sets_pow2) {
        uint32_t low = (uint32_t)(line & (c->sets - 1));
        if (c->index == MT_SIM_INDEX_MODULO)
            return low;
        return low ^ (uint32_t)(fold(line >> c->index_bits, c->index_bits) & (c->sets - 1));
    }
    uint64_t hi, low;
    divmod_sets(c, line, &hi, &low);
    if (c->index == MT_SIM_INDEX_MODULO)
        return (uint32_t)low;
    /* xor: the low bits select the set as with modulo, perturbed by a fold
     * of the remaining (tag) bits.  Every aligned block of `sets`
     * consecutive lines still covers every set exactly once (so a cache
     * fills evenly), while power-of-two strides no longer pile into one
     * set.  For a power-of-two set count the two parts are XORed (above);
     * for any other count they are added modulo sets, the same idea. */
    uint64_t set = low + fold(hi, c->index_bits); /* < sets + 2^bits < 3 sets */
    while (set >= c->sets)
        set -= c->sets;
    return (uint32_t)set;
}

uint32_t mt_cache_set_of(const mt_cache *c, uint64_t addr)
{
    return set_index(c, addr >> c->line_shift);
}

/* Uniform integer in [0, n) by multiply-shift (Lemire): mt_rng_below's
 * 64-bit modulo is a slow division on every eviction; the bias of this
 * reduction is below n / 2^32, i.e. nil for way counts. */
static inline uint32_t below(mt_rng *rng, uint32_t n)
{
    return (uint32_t)(((mt_rng_next(rng) >> 32) * (uint64_t)n) >> 32);
}

/* Victim of the randomised policies (LRU and FIFO take the oldest stamp,
 * found during the lookup). */
static uint32_t victim(const mt_cache *c, uint32_t ways, mt_rng *rng)
{
    switch (c->repl) {
    case MT_SIM_REPL_FERMI: {
        /* Mei et al. 4.2: one designated way is replaced with 3x the
         * probability of each other way (1/2, 1/6, 1/6, 1/6 for 4 ways):
         * weights 3 and 1, total ways + 2. */
        if (ways == 1)
            return 0;
        uint32_t r = below(rng, ways + 2);
        if (r < 3)
            return c->fermi_way;
        r -= 3; /* 0 .. ways-2 over the other ways */
        return r >= c->fermi_way ? r + 1 : r;
    }
    case MT_SIM_REPL_RANDOM:
    default:
        return below(rng, ways);
    }
}

/* Valid bits of the fill block (fill_sectors aligned sectors) holding sec. */
static uint32_t fill_bits(const mt_cache *c, uint32_t sec)
{
    uint32_t k = c->fill_sectors;
    uint32_t first = sec & ~(k - 1);
    uint32_t block = k >= 32 ? 0xFFFFFFFFu : ((1u << k) - 1);
    return block << first;
}

/* Tree pseudo-LRU (power-of-two ways, checked by the spec parser): a
 * binary tree over the ways, node k's children 2k and 2k+1, leaves
 * ways..2*ways-1 standing for ways 0..ways-1.  Each node's bit says which
 * half holds the next victim (0 left, 1 right); an access to a way points
 * every node on its path away from it, and the victim is found by
 * following the bits from the root. */
static void plru_touch(uint8_t *tree, uint32_t ways, uint32_t w)
{
    for (uint32_t node = ways + w; node > 1; node >>= 1)
        tree[node >> 1] = (node & 1) ? 0 : 1; /* came from the right: victim left */
}

static uint32_t plru_victim(const uint8_t *tree, uint32_t ways)
{
    uint32_t node = 1;
    while (node < ways)
        node = 2 * node + tree[node];
    return node - ways;
}

/* The per-experiment clock ran out (2^32 accesses to one cache): keep the
 * last 2^31 accesses' order and let everything older tie at stamp 1 (0
 * marks an empty way). */
static void renormalize_stamps(mt_cache *c)
{
    uint32_t cut = c->clock - (1u << 31);
    for (uint32_t s = 0; s < c->sets; s++) {
        if (c->set_epoch[s] != c->epoch)
            continue;
        mt_cache_way *w = c->way + (size_t)s * c->ways;
        for (uint32_t k = 0; k < c->ways; k++)
            if (w[k].stamp)
                w[k].stamp = w[k].stamp > cut ? w[k].stamp - cut : 1;
    }
    c->clock -= cut;
}

/* An empty way: a tag no line address reaches (addresses stay below 2^49)
 * and stamp 0, older than any access, so the oldest-stamp scan that picks
 * LRU/FIFO victims picks the first empty way before evicting anything. */
#define EMPTY_TAG UINT64_MAX

int mt_cache_access(mt_cache *c, uint64_t addr, mt_rng *rng, int *way_out)
{
    uint64_t line = addr >> c->line_shift;
    uint32_t sec = (uint32_t)(addr >> c->sector_shift) & c->sector_idx_mask;
    uint32_t set = set_index(c, line);
    /* A set's ways lie at a stride of the tag array's; the carveout may
     * have taken its last ones (plru and fermi are refused then). */
    uint32_t ways = c->ways - c->lost_all - (set >= c->short_from ? 1u : 0u);
    mt_cache_way *way = c->way + (size_t)set * c->ways;
    if (c->set_epoch[set] != c->epoch) {
        for (uint32_t w = 0; w < c->ways; w++)
            way[w] = (mt_cache_way){.tag = EMPTY_TAG, .stamp = 0, .valid = 0};
        if (c->plru)
            memset(c->plru + (size_t)set * ways, 0, ways);
        c->set_epoch[set] = c->epoch;
    }
    uint8_t *tree = c->plru ? c->plru + (size_t)set * ways : NULL;
    if (c->clock == UINT32_MAX)
        renormalize_stamps(c);
    uint32_t now = ++c->clock;

    for (uint32_t w = 0; w < ways; w++) {
        if (way[w].tag != line)
            continue;
        if (c->repl == MT_SIM_REPL_LRU)
            way[w].stamp = now;
        if (tree)
            plru_touch(tree, ways, w);
        if (way_out)
            *way_out = (int)w;
        uint32_t v = way[w].valid;
        if (v & (1u << sec))
            return 1;
        way[w].valid = v | fill_bits(c, sec); /* sector miss on a present line */
        return 0;
    }

    /* Miss: the oldest stamp is the first empty way if there is one, else
     * the LRU (or first-filled) line. */
    uint32_t oldest = 0, oldest_stamp = way[0].stamp;
    for (uint32_t w = 1; w < ways; w++)
        if (way[w].stamp < oldest_stamp) {
            oldest_stamp = way[w].stamp;
            oldest = w;
        }
    uint32_t w = oldest;
    if (oldest_stamp != 0 && tree)
        w = plru_victim(tree, ways);
    else if (oldest_stamp != 0 && c->repl != MT_SIM_REPL_LRU && c->repl != MT_SIM_REPL_FIFO)
        w = victim(c, ways, rng);
    if (tree)
        plru_touch(tree, ways, w);
    way[w].tag = line;
    way[w].valid = fill_bits(c, sec);
    way[w].stamp = now;
    if (way_out)
        *way_out = (int)w;
    return 0;
}

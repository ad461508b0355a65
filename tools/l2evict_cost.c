/* Developer tool: what one L2 eviction set costs to find by linear group
 * testing (Vila, Koepf and Morales 2019, "Theory and practice of finding
 * eviction sets"), in one partition of a simulated L2.  docs/method.md
 * ("L2 hash beyond 2 MiB") uses its counts to decide whether the l2_geom
 * probe can find the ways of a hashed partition above 2 MiB.
 *
 * It runs the reduction on the simulator's own cache model (src/sim/
 * cache.c) rather than through a backend, because one eviction test loads
 * a pool of about a partition's lines: far more than an experiment's
 * sequence holds (3456 entries on a GPU, 65536 in the sim), which is the
 * reason the probe cannot run it.  The loads counted are those a GPU
 * kernel would issue for the same tests.
 *
 * Eviction test: from an empty cache (a GPU-scope experiment starts after
 * an L2 flush) load the target, then the list, then time the target; the
 * list evicts it when the target misses.  Under LRU and FIFO that happens
 * exactly when the list holds at least W lines of the target's set.
 * Reduction: split the pool into g groups and drop the first group whose
 * removal still evicts; when none can be dropped, double g (the ways are
 * not known in advance; g > W always leaves a group with none of the W
 * lines needed); when no single line can be dropped, the list is W lines
 * of the target's set: its length is the ways.
 *
 *   l2evict_cost SPEC [POOL_LINES]
 * SPEC: a preset name or a spec file.  POOL_LINES: the pool (default: the
 * partition's lines, the aligned block after line 0, which holds exactly
 * W lines of each set when every aligned block of `sets` lines covers
 * every set once, as modulo, xor and most hashes do); the pool doubles
 * while it does not evict the target (line 0).
 * Prints the partition's truth, the pool, the tests and loads spent, and
 * the ways found, checked against the model ("in the target's set"). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "sim/cache.h"
#include "sim/spec.h"

/* Largest pool tried: four partitions' worth of lines (a hash that puts
 * fewer than W of them in the target's set is beyond this tool). */
#define POOL_MAX_PARTITIONS 4u

typedef struct {
    mt_cache cache;
    mt_rng rng;
    uint32_t line_bytes;
    uint64_t tests, loads;
} bench;

/* Does the list evict the target line from an empty cache? */
static bool evicts(bench *b, uint32_t target, const uint32_t *list, uint32_t n)
{
    mt_cache_reset(&b->cache);
    mt_cache_access(&b->cache, (uint64_t)target * b->line_bytes, &b->rng, NULL);
    for (uint32_t i = 0; i < n; i++)
        mt_cache_access(&b->cache, (uint64_t)list[i] * b->line_bytes, &b->rng, NULL);
    bool hit = mt_cache_access(&b->cache, (uint64_t)target * b->line_bytes, &b->rng, NULL);
    b->tests++;
    b->loads += (uint64_t)n + 2;
    return !hit;
}

/* Reduces pool[0 .. *n) in place to a list none of whose lines can be
 * dropped; returns false when out of memory. */
static bool reduce(bench *b, uint32_t target, uint32_t *pool, uint32_t *n)
{
    uint32_t *rest = malloc((size_t)*n * sizeof *rest);
    if (!rest)
        return false;
    uint32_t g = 2;
    for (;;) {
        if (g > *n)
            g = *n;
        bool dropped = false;
        for (uint32_t j = 0; j < g && !dropped; j++) {
            uint64_t lo = (uint64_t)*n * j / g, hi = (uint64_t)*n * (j + 1) / g;
            uint32_t m = 0;
            for (uint32_t k = 0; k < *n; k++)
                if (k < lo || k >= hi)
                    rest[m++] = pool[k];
            if (evicts(b, target, rest, m)) {
                for (uint32_t k = 0; k < m; k++)
                    pool[k] = rest[k];
                *n = m;
                dropped = true;
            }
        }
        if (!dropped) {
            if (g == *n)
                break;
            g = 2 * g < *n ? 2 * g : *n;
        }
    }
    free(rest);
    return true;
}

static const char *const index_names[] = {"modulo", "xor", "hash"};
static const char *const repl_names[] = {"lru", "fifo", "random", "fermi", "plru"};

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: l2evict_cost SPEC [POOL_LINES]\n");
        return 2;
    }
    mt_errinfo ei = {0};
    mt_sim_spec *spec = calloc(1, sizeof *spec);
    if (!spec || mt_sim_spec_load(argv[1], spec, &ei) != MT_OK) {
        fprintf(stderr, "l2evict_cost: %s\n", spec ? ei.msg : "out of memory");
        free(spec);
        return 2;
    }
    int l2 = -1;
    for (int i = 0; i < spec->n_caches; i++)
        if (spec->cache[i].is_l2)
            l2 = i;
    if (l2 < 0) {
        fprintf(stderr, "l2evict_cost: the spec has no L2\n");
        free(spec);
        return 2;
    }
    /* One SM looks up and allocates only in its own partition
     * (src/sim/engine.c), so one partition is the cache measured. */
    mt_sim_cache_spec cs = spec->cache[l2];
    uint32_t parts = cs.partitions > 1 ? cs.partitions : 1;
    cs.size /= parts;
    free(spec);
    bench b = {.rng = {0x6c326576696374ull}, .line_bytes = cs.line};
    if (mt_cache_init(&b.cache, &cs, &ei) != MT_OK) {
        fprintf(stderr, "l2evict_cost: %s\n", ei.msg);
        return 2;
    }
    uint32_t lines = (uint32_t)(cs.size / cs.line);
    uint64_t want = argc > 2 ? strtoull(argv[2], NULL, 0) : lines;
    int rc = 1;
    uint32_t *pool = NULL;
    printf("partition: %llu B (1 of %u), %u B lines, %u sets x %u ways (%u lines), index %s, "
           "%s\n", (unsigned long long)cs.size, parts, cs.line, b.cache.sets, b.cache.ways,
           lines, index_names[cs.index], repl_names[cs.repl]);
    const uint32_t target = 0;
    uint32_t n = 0;
    for (; want >= 1 && want <= (uint64_t)lines * POOL_MAX_PARTITIONS; want *= 2) {
        free(pool);
        if (!(pool = malloc((size_t)want * sizeof *pool))) {
            fprintf(stderr, "l2evict_cost: out of memory\n");
            goto out;
        }
        for (n = 0; n < want; n++)
            pool[n] = lines + n; /* the block after the target's */
        if (evicts(&b, target, pool, n))
            break;
        printf("pool of %u lines does not evict line 0: doubled\n", n);
        n = 0;
    }
    if (!n) {
        printf("no pool of up to %u partitions' lines evicts line 0\n", POOL_MAX_PARTITIONS);
        goto out;
    }
    printf("pool: lines %u..%u (%u), target line 0\n", lines, lines + n - 1, n);
    uint64_t pool_lines = n;
    if (!reduce(&b, target, pool, &n)) {
        fprintf(stderr, "l2evict_cost: out of memory\n");
        goto out;
    }
    uint32_t same = 0, home = mt_cache_set_of(&b.cache, 0);
    for (uint32_t k = 0; k < n; k++)
        same += mt_cache_set_of(&b.cache, (uint64_t)pool[k] * cs.line) == home;
    printf("found: %u lines, %u in the target's set: ways %u (spec %u)\n", n, same, n,
           b.cache.ways);
    printf("cost: %llu tests, %llu loads (%.1f x the pool)\n", (unsigned long long)b.tests,
           (unsigned long long)b.loads, (double)b.loads / (double)pool_lines);
    rc = 0;
out:
    free(pool);
    mt_cache_free(&b.cache);
    return rc;
}

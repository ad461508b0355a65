/* Developer tool: what one L2 eviction set costs to find by linear group
 * testing (Vila, Koepf and Morales 2019, "Theory and practice of finding
 * eviction sets"), in one partition of a simulated L2.  docs/method.md
 * ("L2 eviction sets beyond 2 MiB") gives its counts: the loads one
 * noiseless pass of the l2_geom probe's eviction search issues.
 *
 * It runs the reduction on the simulator's own cache model (src/sim/
 * cache.c) rather than through a backend, with every line of the pool
 * loaded (the sim's MT_KIND_EVICT loads only the target set's), so the
 * loads counted are those a GPU kernel issues for the same tests.
 *
 * The reduction is the probe's own (src/probes/evict_reduce.c), over the
 * same lists of line intervals; only the oracle differs (the model here,
 * MT_KIND_EVICT experiments there).
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

#include "probes/evict_reduce.h"
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

/* Does the list evict the target line from an empty cache?  (The oracle
 * of the probe's reduction, src/probes/evict_reduce.h, on the model.) */
static mt_err evicts(void *ctx, const mt_line_list *l, bool *out)
{
    bench *b = ctx;
    const uint32_t target = 0;
    mt_cache_reset(&b->cache);
    mt_cache_access(&b->cache, (uint64_t)target * b->line_bytes, &b->rng, NULL);
    for (uint32_t i = 0; i < l->n; i++)
        for (uint32_t k = 0; k < l->iv[i].count; k++)
            mt_cache_access(&b->cache, (uint64_t)(l->iv[i].first + k) * b->line_bytes, &b->rng,
                            NULL);
    bool hit = mt_cache_access(&b->cache, (uint64_t)target * b->line_bytes, &b->rng, NULL);
    b->tests++;
    b->loads += l->lines + 2;
    *out = !hit;
    return MT_OK;
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
    mt_line_interval *iv = malloc(MT_EVICT_MAX_INTERVALS * sizeof *iv);
    mt_line_interval *sc = malloc(MT_EVICT_MAX_INTERVALS * sizeof *sc);
    mt_line_list pool = {.iv = iv, .cap = MT_EVICT_MAX_INTERVALS};
    mt_line_list scratch = {.iv = sc, .cap = MT_EVICT_MAX_INTERVALS};
    if (!iv || !sc) {
        fprintf(stderr, "l2evict_cost: out of memory\n");
        goto out;
    }
    printf("partition: %llu B (1 of %u), %u B lines, %u sets x %u ways (%u lines), index %s, "
           "%s\n", (unsigned long long)cs.size, parts, cs.line, b.cache.sets, b.cache.ways,
           lines, index_names[cs.index], repl_names[cs.repl]);
    bool evicted = false;
    for (; want >= 1 && want <= (uint64_t)lines * POOL_MAX_PARTITIONS; want *= 2) {
        iv[0] = (mt_line_interval){lines, (uint32_t)want}; /* the block after the target's */
        pool.n = 1;
        pool.lines = want;
        evicts(&b, &pool, &evicted);
        if (evicted)
            break;
        printf("pool of %llu lines does not evict line 0: doubled\n", (unsigned long long)want);
    }
    if (!evicted) {
        printf("no pool of up to %u partitions' lines evicts line 0\n", POOL_MAX_PARTITIONS);
        goto out;
    }
    printf("pool: lines %u..%llu (%llu), target line 0\n", lines,
           (unsigned long long)(lines + want - 1), (unsigned long long)want);
    uint64_t pool_lines = want;
    mt_evict_reduce_stats st = {0};
    mt_evict_reduce(&pool, &scratch, 0, evicts, &b, &st);
    uint32_t same = 0, home = mt_cache_set_of(&b.cache, 0);
    for (uint32_t i = 0; i < pool.n; i++)
        for (uint32_t k = 0; k < pool.iv[i].count; k++)
            same += mt_cache_set_of(&b.cache, (uint64_t)(pool.iv[i].first + k) * cs.line) == home;
    printf("found: %llu lines, %u in the target's set: ways %llu (spec %u)\n",
           (unsigned long long)pool.lines, same, (unsigned long long)pool.lines, b.cache.ways);
    printf("cost: %llu tests, %llu loads (%.1f x the pool)\n", (unsigned long long)b.tests,
           (unsigned long long)b.loads, (double)b.loads / (double)pool_lines);
    rc = 0;
out:
    free(iv);
    free(sc);
    mt_cache_free(&b.cache);
    return rc;
}

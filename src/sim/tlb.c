#include "tlb.h"

#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

static uint32_t hash_page(const mt_tlb *t, uint64_t page)
{
    page ^= page >> 31;
    page *= 0x9E3779B97F4A7C15ull;
    return (uint32_t)(page >> 32) & t->mask;
}

mt_err mt_tlb_init(mt_tlb *t, uint32_t entries, mt_errinfo *ei)
{
    memset(t, 0, sizeof *t);
    /* A table at most half full keeps linear probes short. */
    uint32_t size = 2;
    while (size < 2 * entries)
        size *= 2;
    t->entries = entries;
    t->mask = size - 1;
    t->page = malloc(entries * sizeof *t->page);
    t->prev = malloc(entries * sizeof *t->prev);
    t->next = malloc(entries * sizeof *t->next);
    t->slot = calloc(size, sizeof *t->slot);
    if (!t->page || !t->prev || !t->next || !t->slot) {
        mt_tlb_free(t);
        return mt_fail(ei, MT_ERR_NOMEM, "out of memory for a TLB of %u entries", entries);
    }
    t->head = t->tail = NONE;
    return MT_OK;
}

mt_err mt_tlb_init_sets(mt_tlb *t, uint32_t entries, uint32_t ways, mt_errinfo *ei)
{
    if (ways >= entries)
        return mt_tlb_init(t, entries, ei);
    memset(t, 0, sizeof *t);
    t->entries = entries;
    t->ways = ways;
    t->sets = entries / ways;
    t->way_page = calloc(entries, sizeof *t->way_page);
    t->way_used = calloc(entries, sizeof *t->way_used);
    if (!t->way_page || !t->way_used) {
        mt_tlb_free(t);
        return mt_fail(ei, MT_ERR_NOMEM, "out of memory for a TLB of %u entries", entries);
    }
    return MT_OK;
}

/* The set-associative lookup: the page's set scanned way by way; a miss
 * fills an empty way or the least recently used one. */
static int set_access(mt_tlb *t, uint64_t page)
{
    uint64_t *pg = t->way_page + (page % t->sets) * t->ways;
    uint64_t *used = t->way_used + (page % t->sets) * t->ways;
    uint32_t victim = 0;
    t->clock++;
    for (uint32_t w = 0; w < t->ways; w++) {
        if (pg[w] == page + 1) {
            used[w] = t->clock;
            return 1;
        }
        if (used[w] < used[victim])
            victim = w;
    }
    pg[victim] = page + 1;
    used[victim] = t->clock;
    return 0;
}

void mt_tlb_free(mt_tlb *t)
{
    free(t->way_page);
    free(t->way_used);
    free(t->page);
    free(t->prev);
    free(t->next);
    free(t->slot);
    memset(t, 0, sizeof *t);
}

void mt_tlb_reset(mt_tlb *t)
{
    if (t->sets > 1) {
        if (t->clock) {
            memset(t->way_page, 0, (size_t)t->entries * sizeof *t->way_page);
            memset(t->way_used, 0, (size_t)t->entries * sizeof *t->way_used);
        }
        t->clock = 0;
        return;
    }
    if (t->used)
        memset(t->slot, 0, ((size_t)t->mask + 1) * sizeof *t->slot);
    t->used = 0;
    t->head = t->tail = NONE;
}

static void unlink_entry(mt_tlb *t, uint32_t e)
{
    if (t->prev[e] != NONE)
        t->next[t->prev[e]] = t->next[e];
    else
        t->head = t->next[e];
    if (t->next[e] != NONE)
        t->prev[t->next[e]] = t->prev[e];
    else
        t->tail = t->prev[e];
}

static void push_front(mt_tlb *t, uint32_t e)
{
    t->prev[e] = NONE;
    t->next[e] = t->head;
    if (t->head != NONE)
        t->prev[t->head] = e;
    t->head = e;
    if (t->tail == NONE)
        t->tail = e;
}

/* Removes page's slot, shifting later members of its probe run back so
 * every remaining page stays reachable from its home slot. */
static void remove_slot(mt_tlb *t, uint32_t i)
{
    t->slot[i] = 0;
    for (uint32_t j = (i + 1) & t->mask; t->slot[j]; j = (j + 1) & t->mask) {
        uint32_t home = hash_page(t, t->page[t->slot[j] - 1]);
        /* j's page may move to i when i lies on its probe path home..j */
        if (((j - home) & t->mask) >= ((j - i) & t->mask)) {
            t->slot[i] = t->slot[j];
            t->slot[j] = 0;
            i = j;
        }
    }
}

int mt_tlb_access(mt_tlb *t, uint64_t page)
{
    if (t->sets > 1)
        return set_access(t, page);
    uint32_t i = hash_page(t, page);
    for (; t->slot[i]; i = (i + 1) & t->mask) {
        uint32_t e = t->slot[i] - 1;
        if (t->page[e] == page) {
            if (t->head != e) {
                unlink_entry(t, e);
                push_front(t, e);
            }
            return 1;
        }
    }
    uint32_t e;
    if (t->used < t->entries) {
        e = t->used++;
    } else {
        e = t->tail;
        unlink_entry(t, e);
        uint32_t j = hash_page(t, t->page[e]);
        while (t->slot[j] != e + 1)
            j = (j + 1) & t->mask;
        remove_slot(t, j);
        /* the removal may have moved the free slot found for page: look again */
        i = hash_page(t, page);
        while (t->slot[i])
            i = (i + 1) & t->mask;
    }
    t->page[e] = page;
    t->slot[i] = e + 1;
    push_front(t, e);
    return 0;
}

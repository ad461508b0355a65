/* Developer timers (phase_times.h). */
#include "phase_times.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

static bool enabled;
static mt_phase table[MT_PHASE_MAX];
static size_t used;

void mt_phase_enable(bool on)
{
    enabled = on;
}

bool mt_phase_enabled(void)
{
    return enabled;
}

double mt_phase_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void mt_phase_add(const char *name, double seconds)
{
    if (!enabled)
        return;
    size_t i = 0;
    while (i < used && strcmp(table[i].name, name) != 0)
        i++;
    if (i == used) {
        if (used == MT_PHASE_MAX) /* full: the last row collects the rest */
            i = MT_PHASE_MAX - 1, snprintf(table[i].name, sizeof table[i].name, "(other)");
        else
            snprintf(table[used++].name, sizeof table[0].name, "%s", name);
    }
    table[i].seconds += seconds;
    table[i].count++;
}

const mt_phase *mt_phase_get(size_t i)
{
    return i < used ? &table[i] : NULL;
}

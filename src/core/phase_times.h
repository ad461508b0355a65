/* Developer timers: where a run's host time goes (MT_PHASE_TIMES=1).
 *
 * Library code adds the seconds it spent in a named phase (a backend's
 * launches, waits and copies, a probe's analysis); the CLI turns the
 * timers on from the environment and prints the table on stderr at the
 * end.  Off by default, when a timer costs one branch.  One process-wide
 * table: the phases of every backend and probe add up in it, which is
 * what a breakdown of the whole run wants. */
#ifndef MT_PHASE_TIMES_H
#define MT_PHASE_TIMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Phases kept; later names are counted in the last row ("(other)"). */
#define MT_PHASE_MAX 64
#define MT_PHASE_NAME_LEN 48

typedef struct {
    char name[MT_PHASE_NAME_LEN];
    double seconds;
    uint64_t count;
} mt_phase;

void mt_phase_enable(bool on);
bool mt_phase_enabled(void);
/* CLOCK_MONOTONIC in seconds (also when the timers are off). */
double mt_phase_now(void);
/* Adds `seconds` and one occurrence to phase `name` (no-op when off). */
void mt_phase_add(const char *name, double seconds);
/* The phases in the order they first appeared; NULL beyond the last. */
const mt_phase *mt_phase_get(size_t i);

#endif

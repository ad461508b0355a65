/* MT_PHASE_TIMES=1: the developer's breakdown of a run's wall time on
 * stderr (src/core/phase_times.h): the CLI's own steps, and whatever the
 * backend and the probes add.  Printed when main is done; what CUDA does
 * after main returns (the context's teardown) is the rest of the wall time
 * measured outside. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/phase_times.h"
#include "cli.h"

/* Seconds from the process's start (its exec) to now, from the kernel's
 * start time in clock ticks (/proc; 10 ms resolution); -1 when unknown. */
static double since_exec(void)
{
    FILE *f = fopen("/proc/self/stat", "r");
    double up = -1;
    unsigned long long start = 0;
    if (f) {
        char buf[1024];
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        buf[n] = '\0';
        fclose(f);
        /* Field 22 (starttime) counts from after the command name's ')'. */
        const char *p = strrchr(buf, ')');
        for (int field = 2; p && field < 22; field++)
            p = strchr(p + 1, ' ');
        if (p)
            start = strtoull(p + 1, NULL, 10);
    }
    FILE *u = fopen("/proc/uptime", "r");
    if (u) {
        if (fscanf(u, "%lf", &up) != 1)
            up = -1;
        fclose(u);
    }
    return up >= 0 && start ? up - (double)start / 100.0 : -1;
}

static double started;

void mt_cli_phase_begin(void)
{
    const char *v = getenv("MT_PHASE_TIMES");
    mt_phase_enable(v && *v && strcmp(v, "0") != 0);
    if (mt_phase_enabled()) {
        started = mt_phase_now();
        double s = since_exec();
        if (s >= 0)
            mt_phase_add("exec to main (10 ms ticks)", s);
    }
}

void mt_cli_phase_print(void)
{
    if (!mt_phase_enabled())
        return;
    mt_phase_add("main", mt_phase_now() - started);
    fprintf(stderr, "memtopo: phase times (MT_PHASE_TIMES)\n%-44s %10s %8s\n", "phase", "seconds",
            "count");
    const mt_phase *p;
    for (size_t i = 0; (p = mt_phase_get(i)); i++)
        fprintf(stderr, "%-44s %10.6f %8llu\n", p->name, p->seconds, (unsigned long long)p->count);
}

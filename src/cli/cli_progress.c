/* The progress display (issue 13): while the probes run, one line on a
 * terminal's stderr, rewritten in place:
 *
 *   memtopo: [4/12] l1d: L1 size ... | 1.4 s, about 2.9 s left
 *
 * the probe (its place in the run's plan), the step it reports, the time
 * since the first probe started, and an estimate of the time left: the mean
 * time of the probes done so far times the probes still to run (probes
 * differ a lot, so it is only an estimate and says so).  The line is cut
 * to the terminal's width so that rewriting it never scrolls, and cleared
 * at the end.  Only on a terminal and without --quiet (the caller decides);
 * no colour, so NO_COLOR has nothing to turn off. */
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "../core/phase_times.h"
#include "../core/text.h"
#include "cli.h"

void mt_cli_progress_init(mt_cli_progress *p, const mt_probe_options *o)
{
    memset(p, 0, sizeof *p);
    const mt_probe_desc *order[MT_MAX_PROBES];
    size_t n = 0;
    if (mt_probe_plan(o, order, &n, NULL) == MT_OK)
        for (size_t i = 0; i < n; i++)
            p->names[p->n++] = order[i]->name;
    p->t0 = mt_phase_now();
}

/* The terminal's width in columns (80 when it cannot tell). */
static int term_width(void)
{
    struct winsize ws;
    if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20)
        return ws.ws_col;
    return 80;
}

void mt_cli_progress_cb(void *user, const char *probe, const char *what)
{
    mt_cli_progress *p = user;
    /* A probe that starts (again, when the interference checks re-run it)
     * becomes the current one; probes done = those before it in the plan. */
    for (size_t i = 0; i < p->n; i++)
        if (strcmp(p->names[i], probe) == 0) {
            p->current = i + 1;
            break;
        }
    double elapsed = mt_phase_now() - p->t0;
    char left[48] = "";
    if (p->current > 1) {
        double per_probe = elapsed / (double)(p->current - 1);
        snprintf(left, sizeof left, ", about %.1f s left",
                 per_probe * (double)(p->n - p->current + 1));
    }
    char raw[512], safe[512], line[600];
    snprintf(raw, sizeof raw, "%s: %s", probe, what);
    mt_escape_line(raw, safe, sizeof safe);
    char tail[80];
    snprintf(tail, sizeof tail, " | %.1f s%s", elapsed, left);
    char head[32];
    snprintf(head, sizeof head, "memtopo: [%zu/%zu] ", p->current, p->n);
    /* Cut the step so that the whole line fits on one terminal row. */
    int room = term_width() - 1 - (int)strlen(head) - (int)strlen(tail);
    if (room < 8)
        room = 8;
    if ((int)strlen(safe) > room) {
        safe[room - 3] = '\0';
        strcat(safe, "...");
    }
    snprintf(line, sizeof line, "%s%s%s", head, safe, tail);
    /* \r and "erase to end of line" (ECMA-48 EL): rewrite the same row. */
    fprintf(stderr, "\r\033[K%s", line);
    fflush(stderr);
    p->shown = true;
}

void mt_cli_progress_end(mt_cli_progress *p)
{
    if (p->shown) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
        p->shown = false;
    }
}

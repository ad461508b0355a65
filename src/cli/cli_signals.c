/* SIGINT and SIGTERM stop a run cleanly instead of killing it: the handler
 * only records the signal; the probe runner sees it between batches
 * (mt_probe_options.stop) and the CLI then writes what was measured.  The
 * handlers stay installed until the process exits, so a second signal while
 * the outputs are being written cannot cut a file short either. */
#include <signal.h>
#include <string.h>

#include "cli.h"

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
    stop_signal = sig; /* async-signal-safe: a store, nothing else */
}

volatile sig_atomic_t *mt_cli_signals_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    /* Restart interrupted system calls: a write in progress completes. */
    sa.sa_flags = SA_RESTART;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    return &stop_signal;
}

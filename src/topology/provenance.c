/* Provenance helpers that are more than a field copy. */
#include <stdarg.h>
#include <stdio.h>

#include "topology.h"

void mt_provenance_add_disturbed(mt_provenance *p, const char *fmt, ...)
{
    if (p->n_disturbed < 0)
        p->n_disturbed = 0;
    if (p->n_disturbed >= MT_MAX_DISTURBED) {
        /* Keep the count honest in the last line instead of dropping causes silently. */
        snprintf(p->disturbed[MT_MAX_DISTURBED - 1], MT_DISTURBED_LEN,
                 "... and %d more disturbed measurements", p->n_disturbed - MT_MAX_DISTURBED + 2);
        p->n_disturbed++;
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->disturbed[p->n_disturbed++], MT_DISTURBED_LEN, fmt, ap);
    va_end(ap);
}

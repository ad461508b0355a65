/* The backend registry (backend.h): name -> constructor over the generated
 * array mt_backend_registry (tools/gen_registry.sh).  Kept apart from
 * backend_common.c so that what links libmt_backend without a generated
 * registry (most tests) never pulls this file in. */
#include <stdio.h>
#include <string.h>

#include "backend.h"

const mt_backend_entry *mt_backend_find(const char *name)
{
    if (!name)
        return NULL;
    for (const mt_backend_entry *const *p = mt_backend_registry; *p; p++)
        if ((*p)->name && strcmp((*p)->name, name) == 0)
            return *p;
    return NULL;
}

/* MT_ERR_NOT_BUILT for a backend `name` this binary lacks, naming those
 * it has. */
static mt_err not_built(const char *name, mt_errinfo *ei)
{
    char built[128] = "";
    size_t len = 0;
    for (const mt_backend_entry *const *p = mt_backend_registry; *p; p++) {
        int w = snprintf(built + len, sizeof built - len, "%s%s", len ? ", " : "",
                         (*p)->name ? (*p)->name : "?");
        if (w < 0 || (size_t)w >= sizeof built - len)
            break;
        len += (size_t)w;
    }
    return mt_fail(ei, MT_ERR_NOT_BUILT,
                   "the %s backend is not built into this binary (built: %s)",
                   name ? name : "(none)", len ? built : "none");
}

mt_err mt_backend_open(const char *name, const mt_backend_args *a, mt_backend **out,
                       mt_errinfo *ei)
{
    *out = NULL;
    const mt_backend_entry *e = mt_backend_find(name);
    if (!e)
        return not_built(name, ei);
    static const mt_backend_args no_args = {0};
    return e->open(a ? a : &no_args, out, ei);
}

mt_err mt_backend_count_devices(const char *name, int *n, mt_errinfo *ei)
{
    *n = 0;
    const mt_backend_entry *e = mt_backend_find(name);
    if (!e)
        return not_built(name, ei);
    if (!e->count_devices)
        return mt_fail(ei, MT_ERR_UNSUPPORTED,
                       "the %s backend opens a target, not numbered devices", e->name);
    mt_err rc = e->count_devices(n, ei);
    if (rc != MT_OK)
        *n = 0;
    return rc;
}

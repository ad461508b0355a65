/* Banks experiments' params column (banks_params.h). */
#include "banks_params.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void mt_banks_params_format(const mt_banks *b, char *buf, size_t cap)
{
    size_t len = 0;
    int w = snprintf(buf, cap, "word_bytes=%" PRIu32 " words=", b->word_bytes);
    len = w > 0 ? (size_t)w : 0;
    for (uint32_t t = 0; t < b->n_threads && t < 32 && len < cap; t++) {
        w = snprintf(buf + len, cap - len, "%s%" PRIu32, t ? ":" : "", b->word_index[t]);
        len += w > 0 ? (size_t)w : 0;
    }
}

/* A decimal uint32 from *p up to a character of `stops` (or the end). */
static int read_u32(const char **p, const char *stops, uint32_t *out)
{
    const char *s = *p;
    if (*s < '0' || *s > '9')
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || v > UINT32_MAX || (*end && !strchr(stops, *end)))
        return -1;
    *out = (uint32_t)v;
    *p = end;
    return 0;
}

int mt_banks_params_parse(const char *s, mt_banks *b, int *carveout, char *why, size_t n)
{
    memset(b, 0, sizeof *b);
    *carveout = -1;
    const char *p = s;
    int have_words = 0, have_bytes = 0;
    while (*p) {
        uint32_t v;
        if (!strncmp(p, "word_bytes=", 11) && !have_bytes) {
            p += 11;
            if (read_u32(&p, " ", &v))
                goto bad;
            b->word_bytes = v;
            have_bytes = 1;
        } else if (!strncmp(p, "words=", 6) && !have_words) {
            p += 6;
            do {
                if (b->n_threads == 32 || read_u32(&p, ": ", &v))
                    goto bad;
                b->word_index[b->n_threads++] = v;
            } while (*p == ':' && p++);
            have_words = 1;
        } else if (!strncmp(p, "carveout=", 9) && *carveout < 0) {
            p += 9;
            if (read_u32(&p, " ", &v) || v > 100)
                goto bad;
            *carveout = (int)v;
        } else {
            goto bad;
        }
        if (*p == ' ' && p[1])
            p++;
        else if (*p)
            goto bad;
    }
    if (have_bytes && have_words)
        return 0;
bad:
    snprintf(why, n, "params \"%s\": expected \"word_bytes=W words=I0:I1:...\" (at most 32 "
                     "words), carveout=P (P 0..100) optional", s);
    return -1;
}

#include "text.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

char *mt_escape_line(const char *in, char *out, size_t n)
{
    if (n == 0)
        return out;
    size_t k = 0;
    for (const unsigned char *p = (const unsigned char *)(in ? in : ""); *p; p++) {
        char esc[5];
        size_t len;
        if (*p == '\n')
            len = (size_t)snprintf(esc, sizeof esc, "\\n");
        else if (*p == '\r')
            len = (size_t)snprintf(esc, sizeof esc, "\\r");
        else if (*p == '\t')
            len = (size_t)snprintf(esc, sizeof esc, "\\t");
        else if (*p < 0x20 || *p == 0x7f)
            len = (size_t)snprintf(esc, sizeof esc, "\\x%02x", *p);
        else
            esc[0] = (char)*p, esc[1] = '\0', len = 1;
        if (k + len >= n)
            break; /* no half escape at the end */
        memcpy(out + k, esc, len);
        k += len;
    }
    out[k] = '\0';
    return out;
}

int mt_parse_decimal(const char *s, uint64_t max, uint64_t *out)
{
    if (!s || !*s || (s[0] == '0' && s[1] != '\0'))
        return -1;
    uint64_t v = 0;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9')
            return -1;
        unsigned d = (unsigned)(*p - '0');
        if (d > max || v > (max - d) / 10)
            return -1; /* v * 10 + d would exceed max (or wrap) */
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

const char *mt_signal_name(int sig)
{
    switch (sig) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    case SIGQUIT: return "SIGQUIT";
    default: return "signal";
    }
}

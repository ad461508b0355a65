/* --carveout VALUE: its syntax when the options are parsed, and the
 * carveouts it means once the device (and so its carveout list) is known. */
#include <stdio.h>
#include <string.h>

#include "../core/text.h"
#include "cli.h"

/* Far above any GPU's shared memory per SM (228 KiB on Hopper); only
 * bounds the parse. */
#define MT_CLI_MAX_CARVEOUT_KIB (1u << 20)

mt_err mt_cli_parse_carveout(const char *arg, mt_cli_carveout *out, mt_errinfo *ei)
{
    char num[32];
    size_t len = strlen(arg);
    memset(out, 0, sizeof *out);
    if (strcmp(arg, "all") == 0) {
        out->kind = MT_CLI_CARVEOUT_ALL;
        return MT_OK;
    }
    uint64_t max = MT_CLI_MAX_CARVEOUT_KIB;
    out->kind = MT_CLI_CARVEOUT_KIB;
    if (len > 1 && arg[len - 1] == '%') {
        out->kind = MT_CLI_CARVEOUT_PERCENT;
        max = 100;
        len--;
    } else if (len > 3 && strcmp(arg + len - 3, "KiB") == 0) {
        len -= 3;
    }
    uint64_t v;
    if (len >= sizeof num)
        len = sizeof num - 1; /* too long for a number: fails below */
    memcpy(num, arg, len);
    num[len] = '\0';
    if (mt_parse_decimal(num, max, &v))
        return mt_fail(ei, MT_ERR_INVALID_ARG,
                       "--carveout: '%.40s' is not a carveout (KiB of shared memory as 100 or "
                       "100KiB, a percent 0..100 as 40%%, or all)", arg);
    out->value = (uint32_t)v;
    return MT_OK;
}

/* "0, 8, 16 KiB": the device's carveouts, for an error message. */
static void list_options(const mt_device_info *d, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    bool kib = true;
    for (int i = 0; i < d->n_carveouts; i++)
        kib = kib && d->carveout_smem_options[i] % 1024 == 0;
    for (int i = 0; i < d->n_carveouts && len < n; i++)
        len += (size_t)snprintf(buf + len, n - len, "%s%u", i ? ", " : "",
                                kib ? d->carveout_smem_options[i] / 1024 : d->carveout_smem_options[i]);
    if (len < n)
        snprintf(buf + len, n - len, " %s", kib ? "KiB" : "B");
}

mt_err mt_cli_apply_carveout(const mt_cli_carveout *req, const mt_device_info *d,
                             mt_probe_options *o, mt_errinfo *ei)
{
    if (req->kind == MT_CLI_CARVEOUT_NONE)
        return MT_OK;
    if (d->n_carveouts <= 0)
        return mt_fail(ei, MT_ERR_INVALID_ARG,
                       "--carveout: this device (%s backend) lists no shared-memory carveouts "
                       "to choose from", d->backend);
    int n = d->n_carveouts < MT_PROBE_MAX_CARVEOUTS ? d->n_carveouts : MT_PROBE_MAX_CARVEOUTS;
    o->n_carveouts = 0;
    o->carveout_sweep = false;
    switch (req->kind) {
    case MT_CLI_CARVEOUT_ALL:
        for (int i = 0; i < n; i++)
            o->carveout_smem[i] = d->carveout_smem_options[i];
        o->n_carveouts = n;
        o->carveout_sweep = true;
        return MT_OK;
    case MT_CLI_CARVEOUT_PERCENT:
        /* A preference, as CUDA takes it: the device rounds it up to one of
         * its carveouts (mt_carveout_smem), so every percent is valid. */
        o->carveout_smem[0] = mt_carveout_smem(d, (int)req->value);
        o->n_carveouts = 1;
        return MT_OK;
    default:
        for (int i = 0; i < n; i++)
            if (d->carveout_smem_options[i] == req->value * 1024u) {
                o->carveout_smem[0] = d->carveout_smem_options[i];
                o->n_carveouts = 1;
                return MT_OK;
            }
        char list[160];
        list_options(d, list, sizeof list);
        return mt_fail(ei, MT_ERR_INVALID_ARG,
                       "--carveout %u: not a carveout of this device; it supports %s of shared "
                       "memory (or a percent 0..100%%, or all)", req->value, list);
    }
}

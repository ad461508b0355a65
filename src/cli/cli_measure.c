/* One GPU measured into a topology, without writing anything: what a
 * fleet rank and each GPU of a node run (cli.h, mt_cli_measure). */
#include "cli.h"

mt_err mt_cli_measure(const mt_cli *one, volatile sig_atomic_t *stop, mt_topology **out,
                      mt_errinfo *ei)
{
    *out = NULL;
    mt_backend *be = NULL;
    mt_err e = mt_cli_open_backend(one, &be, ei);
    if (e != MT_OK)
        return e;
    mt_topology *topo = mt_topology_new();
    if (!topo) {
        mt_backend_destroy(be);
        return mt_fail(ei, MT_ERR_NOMEM, "out of memory");
    }
    char when[32];
    mt_cli_iso_time(when, sizeof when);
    mt_probe_options popt = one->probes;
    if ((e = mt_backend_info(be, &topo->dev, ei)) == MT_OK &&
        (e = mt_cli_apply_carveout(&one->carveout, &topo->dev, &popt, ei)) == MT_OK) {
        mt_cli_fill_provenance(topo, one, when);
        popt.stop = stop;
        e = mt_probe_run_all(be, &popt, topo, ei);
    }
    mt_backend_destroy(be);
    if (e != MT_OK) {
        mt_topology_free(topo);
        return e;
    }
    *out = topo;
    return MT_OK;
}


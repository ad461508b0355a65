/* The end-to-end tests' one way to measure a simulated GPU: open a preset
 * or spec file, read its device, run the real probes, failing the test on
 * any error; and whether the runner plans a probe (the opt-in tests).
 * Include after cmocka.h, probes/probe.h and sim/sim.h. */
#ifndef MT_TESTS_E2E_MEASURE_H
#define MT_TESTS_E2E_MEASURE_H

#include <stdbool.h>
#include <string.h>

/* Sets the probe options (already the defaults) from the device measured,
 * e.g. every carveout it lists. */
typedef void (*e2e_options_fn)(const mt_device_info *d, mt_probe_options *o);

/* Measures `spec` with the options `choose` sets (NULL: the default run).
 * The caller frees the topology and destroys *be. */
static inline mt_topology *e2e_measure(const char *spec, e2e_options_fn choose, mt_backend **be)
{
    mt_errinfo ei = {{0}};
    *be = NULL;
    if (mt_backend_sim_open(spec, 0, 0, be, &ei) != MT_OK)
        fail_msg("%s: %s", spec, ei.msg);
    mt_topology *t = mt_topology_new();
    assert_non_null(t);
    assert_int_equal(mt_backend_info(*be, &t->dev, &ei), MT_OK);
    mt_probe_options opt;
    mt_probe_options_default(&opt);
    if (choose)
        choose(&t->dev, &opt);
    if (mt_probe_run_all(*be, &opt, t, &ei) != MT_OK)
        fail_msg("%s: probes failed: %s", spec, ei.msg);
    return t;
}

/* Whether the runner plans the probe `name` under `opt`. */
static inline bool e2e_planned(const mt_probe_options *opt, const char *name)
{
    const mt_probe_desc *order[MT_MAX_PROBES];
    size_t n = 0;
    assert_int_equal(mt_probe_plan(opt, order, &n, NULL), MT_OK);
    bool planned = false;
    for (size_t i = 0; i < n; i++)
        planned = planned || strcmp(order[i]->name, name) == 0;
    return planned;
}

#endif

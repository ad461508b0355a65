/* End to end on the simulator: the per-set capacity map (probe_setmap.c,
 * --geometry, with --carveout all) on every spec of tests/specs-setmap/
 * and the carveout specs of tests/specs-carveout/.
 *  - Every spec passes the truth contract (e2e_truth_setmap.c judges the
 *    histogram, the short sets and the capacity at each carveout).
 *  - Where the geometry gives a modulo index, the default carveout's map
 *    must be a trusted value that is right: "not mapped" or a flagged map
 *    would pass the contract but fail the issue.
 *  - tests/specs-setmap/lru-modulo-half.spec: the map at 16 KiB names the
 *    short sets (128 sets x 3 ways, labels with b7=1) and adds up to the
 *    112 KiB the carveout leaves. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "e2e_truth.c"
#include "probes/probe.h"
#include "sim/sim.h"
#include "e2e_measure.h"
#include "spec_dir.h"

static void geometry_and_carveouts(const mt_device_info *d, mt_probe_options *o)
{
    o->only_set = true;
    o->only[0] = "l1d";
    o->geometry = true;
    for (int i = 0; i < d->n_carveouts; i++)
        o->carveout_smem[i] = d->carveout_smem_options[i];
    o->n_carveouts = d->n_carveouts;
}

static void check_spec(const char *spec, void *user)
{
    int *mapped = user;
    print_message("spec %s\n", spec);
    mt_backend *be;
    mt_topology *t = e2e_measure(spec, geometry_and_carveouts, &be);
    char msg[4096];
    const mt_sim_spec *s = mt_backend_sim_spec(be);
    if (mt_truth_check_mode(s, t, MT_TRUTH_CONTRACT, msg, sizeof msg))
        fail_msg("%s: %s", spec, msg);
    const mt_finding *ix = mt_topology_get(t, "l1d", "index");
    const mt_finding *w = mt_topology_get(t, "l1d", "set_ways");
    assert_non_null(w);
    if (ix && ix->kind == MT_FIND_TEXT && strncmp(ix->text, "modulo", 6) == 0 &&
        ix->confidence >= MT_TRUTH_TRUSTED) {
        if (w->kind != MT_FIND_TEXT || w->confidence < MT_TRUTH_TRUSTED)
            fail_msg("%s: modulo index, but set_ways is kind %d (conf %.2f): %s", spec, w->kind,
                     w->confidence, w->note);
        /* trusted and, by the contract above, right */
        (*mapped)++;
    }
    if (strstr(spec, "lru-modulo-half.spec")) {
        const mt_finding *h = mt_topology_get(t, "l1d", "set_ways_at_carveout_16KiB");
        const mt_finding *sh = mt_topology_get(t, "l1d", "short_sets_at_carveout_16KiB");
        const mt_finding *c = mt_topology_get(t, "l1d", "set_capacity_at_carveout_16KiB");
        assert_non_null(h);
        assert_non_null(sh);
        assert_non_null(c);
        assert_string_equal(h->text, "128 sets x 4 ways, 128 sets x 3 ways");
        assert_string_equal(sh->text, "128 sets: labels with b7=1");
        assert_true(c->value == 112 * 1024);
        assert_string_equal(mt_topology_get(t, "l1d", "set_ways")->text, "256 sets x 3 ways");
    }
    mt_topology_free(t);
    mt_backend_destroy(be);
}

static void setmap_specs(void **state)
{
    (void)state;
    int mapped = 0;
    for_each_spec("tests/specs-setmap", check_spec, &mapped);
    for_each_spec("tests/specs-carveout", check_spec, &mapped);
    /* lru-modulo-half and the modulo carveout specs: at least these */
    assert_true(mapped >= 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(setmap_specs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

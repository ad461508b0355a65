/* One verdict per spec file: measures each spec given on the command line
 * with the real probes on the simulator and checks the topology against the
 * spec's truth under the contract of e2e_truth.h (a wrong finding must be a
 * range or bound holding the truth, or carry a confidence below
 * MT_TRUTH_TRUSTED).  Prints "ok SPEC" or "not ok SPEC" followed by the
 * mismatches; exits 1 when any spec failed.  Built optimised (build/e2e_check)
 * for the randomized test tests/sh/test_random_specs.sh. */
#include <stdio.h>
#include <stdlib.h>

#include "e2e_truth.c"
#include "probes/probe.h"
#include "sim/sim.h"

/* --tlb: only the TLB probe (and what it requires), judged under the
 * contract; --tlb-exact: also the set-associative first level read
 * exactly (mt_truth_tlb_first_exact); --tlb-levels-exact: also every TLB level
 * exactly (tlb_check's exact mode).  Set for every spec after the flag. */
typedef enum { RUN_ALL, RUN_TLB, RUN_TLB_EXACT, RUN_TLB_LEVELS_EXACT } run_kind;

static int check_one(const char *path, run_kind kind)
{
    mt_errinfo ei = {{0}};
    mt_backend *be = NULL;
    if (mt_backend_sim_open(path, 0, 0, &be, &ei) != MT_OK) {
        printf("not ok %s: %s\n", path, ei.msg);
        return 1;
    }
    mt_topology *t = mt_topology_new();
    int bad = 1;
    mt_probe_options opt;
    mt_probe_options_default(&opt);
    /* The opt-in geometry probes too: their findings (the policy by name)
     * are judged like every other. */
    opt.geometry = true;
    /* And the opt-in bandwidth probe (a spec without [throughput] skips it). */
    opt.bandwidth = true;
    /* And the opt-in TLB probe: its levels are judged too. */
    opt.tlb = true;
    /* And the opt-in latency matrix: its cells are judged too. */
    opt.matrix = true;
    /* And the opt-in cluster probes (a spec without [cluster] must say "not
     * supported"). */
    opt.cluster = true;
    /* And the instruction caches (a spec without [icache] skips them). */
    opt.icache = true;
    /* And the global access granularity (every spec runs it). */
    opt.access = true;
    /* And the links: the host's and one to every GPU the spec links to
     * (as a node run would name them; a spec without links skips them). */
    opt.links = true;
    for (int p = 0; p <= MT_LINK_MAX_PEER; p++)
        if (mt_backend_sim_spec(be)->link[p].present)
            opt.link_peers[opt.n_link_peers++] = p;
    if (kind != RUN_ALL) {
        mt_probe_options_default(&opt);
        opt.only_set = true;
        opt.tlb = true;
    }
    if (!t || mt_backend_info(be, &t->dev, &ei) != MT_OK) {
        printf("not ok %s: no device info: %s\n", path, ei.msg);
    } else if (mt_probe_run_all(be, &opt, t, &ei) != MT_OK) {
        printf("not ok %s: probes failed: %s\n", path, ei.msg);
    } else if (t->n_thresholds >= MT_MAX_THRESHOLDS) {
        /* A full list may have dropped a threshold the report should print
         * with its result (every opt-in probe on: about 134 of 256). */
        printf("not ok %s: the threshold list is full (%d): one may be missing\n", path,
               t->n_thresholds);
        bad = 1;
    } else {
        char msg[8192];
        msg[0] = '\0';
        bad = mt_truth_check_mode(mt_backend_sim_spec(be), t, MT_TRUTH_CONTRACT, msg, sizeof msg);
        if (kind == RUN_TLB_EXACT)
            bad += mt_truth_tlb_first_exact(mt_backend_sim_spec(be), t, msg, sizeof msg);
        if (kind == RUN_TLB_LEVELS_EXACT) {
            g_mode = MT_TRUTH_EXACT;
            bad += tlb_check(mt_backend_sim_spec(be), t, msg, sizeof msg);
        }
        if (bad)
            printf("not ok %s: %d findings wrong with confidence >= %.1f\n%s", path, bad,
                   MT_TRUTH_TRUSTED, msg);
        else
            printf("ok %s\n", path);
    }
    mt_topology_free(t);
    mt_backend_destroy(be);
    return bad != 0;
}

int main(int argc, char **argv)
{
    int failed = 0;
    run_kind kind = RUN_ALL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--tlb") || !strcmp(argv[i], "--tlb-exact") ||
            !strcmp(argv[i], "--tlb-levels-exact")) {
            kind = !argv[i][5] ? RUN_TLB : argv[i][6] == 'e' ? RUN_TLB_EXACT : RUN_TLB_LEVELS_EXACT;
            continue;
        }
        failed += check_one(argv[i], kind);
        fflush(stdout);
    }
    return failed ? 1 : 0;
}

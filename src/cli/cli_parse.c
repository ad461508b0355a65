/* Option parsing for memtopo. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/text.h"
#include "../sim/presets.h"
#include "cli.h"

/* The --help text.  The probe list comes from the probe registry and the
 * preset list from the embedded presets, so they cannot go stale
 * (tests/sh/test_consistency.sh checks the README against both). */
void mt_cli_usage(FILE *f)
{
    char presets[256];
    size_t len = 0;
    presets[0] = '\0';
    for (const mt_preset *p = mt_presets; p->name && len < sizeof presets; p++)
        len += (size_t)snprintf(presets + len, sizeof presets - len, "%s%s", len ? ", " : "",
                                p->name);
    fprintf(f,
            "Usage: memtopo [OPTIONS]\n"
            "Discover the memory hierarchy of an NVIDIA GPU (or of a simulated one) by\n"
            "pointer-chasing, and report it as a table, JSON, CSV, or raw samples.\n"
            "\n"
            "Source (one of; default: the CUDA GPU 0):\n"
            "  -d, --device N|LIST|all\n"
            "                        measure CUDA device N; a list (0,2) measures each GPU\n"
            "                        on a thread of its own: one report each and a node\n"
            "                        summary (as memtopo compare; exit 7 when one differs);\n"
            "                        all: every GPU the driver lists, as a list\n"
            "  -s, --sim PRESET|FILE\n"
            "                        simulate a GPU: a preset (%s)\n"
            "                        or a spec file (docs/spec-format.md); given again,\n"
            "                        one more simulated GPU of the node (as a list)\n"
            "      --replay DIR      rerun only the analysis on samples saved by --record\n"
            "\n"
            "What to measure (-o, --only LIST: comma-separated probes; default: all):\n",
            presets);
    const mt_probe_desc *order[MT_MAX_PROBES];
    size_t n = 0;
    mt_probe_options all;
    mt_probe_options_default(&all);
    if (mt_probe_plan(&all, order, &n, NULL) == MT_OK)
        for (size_t i = 0; i < n; i++)
            if (!order[i]->always && !order[i]->requested) /* those come with their option */
                fprintf(f, "  %-12s %s\n", order[i]->name, order[i]->summary);
    fputs("      --carveout VALUE  also size the L1 data cache at a shared-memory carveout\n"
          "                        (opt-in probe carveout): VALUE is KiB of shared memory\n"
          "                        per SM, one the device lists (100 or 100KiB), a\n"
          "                        preference the device rounds up to one (40%), or 'all':\n"
          "                        every carveout it lists, and the line the sizes follow\n"
          "                        (slope, and offset = the unified L1/shared array)\n"
          "      --geometry        with --only: also measure every first-level cache's ways,\n"
          "                        sets and set index (probes geometry and cache_geom, part\n"
          "                        of the default run: stride chains, eviction sets, XOR\n"
          "                        masks of a hash) and the L1 data replacement policy by\n"
          "                        name (probe policy: sequences within single sets);\n"
          "                        also (never in the default run) the L2's ways, sets and\n"
          "                        set index of one SM's partition (probe l2_geom, seconds\n"
          "                        on a GPU, bounded by a load budget; a hashed partition\n"
          "                        over 2 MiB by eviction tests: a target, a pool read in\n"
          "                        parallel, the target timed) and the L1 data\n"
          "                        cache's usable ways of every set (probe setmap, tens\n"
          "                        of ms; again at each --carveout)\n"
          "      --bandwidth       also measure bandwidth (opt-in probe bandwidth): read,\n"
          "                        write and copy of the L1, texture, read-only, shared\n"
          "                        memory, L2 and DRAM in B/clk/SM and GB/s, the best of\n"
          "                        a search over occupancy, vector width and loads in\n"
          "                        flight; the L2 near (shared data) and whole; loads in\n"
          "                        flight per SM and per GPU (MLP) at the L2 and DRAM\n"
          "                        (adds about 1 s on an H100)\n"
          "      --tlb             also measure the TLB levels (opt-in probe tlb): entries,\n"
          "                        page size, reach and miss penalty per level, the\n"
          "                        first level's ways and which SMs share each level\n"
          "                        (SM 0 beside SM k at once), from sparse\n"
          "                        chains of one element per page up to tens of GB, strides\n"
          "                        64 KiB to 2 GiB (150-350 chases; about a second on a\n"
          "                        GPU, its own row of the timings)\n"
          "      --matrix          also measure the latency matrix (opt-in probe matrix,\n"
          "                        runs the tlb probe too): a load's latency for data in\n"
          "                        the L1, the L2's near and far partitions and DRAM, with\n"
          "                        0 to 3 TLB levels missed; cells no chain can reach are\n"
          "                        'not measurable' with the reason (its own timing row)\n"
          "      --cluster         also measure Hopper's thread-block clusters and bulk copy\n"
          "                        engine (opt-in probes dsm and tma): latency by cluster\n"
          "                        size and bandwidth of another block's shared memory,\n"
          "                        TMA copy latency and rate against plain loads and\n"
          "                        stores (\"not supported\" before compute capability\n"
          "                        9.0; about 0.05 s on an H100, their own rows of the\n"
          "                        timings)\n"
          "      --icache          also measure the instruction caches (opt-in probe icache):\n"
          "                        code size held and cycles per instruction per level, from\n"
          "                        straight-line code of 1 KiB to 512 KiB (on a GPU mostly\n"
          "                        the driver compiling it: seconds; its own row of the\n"
          "                        timings)\n"
          "      --access          also measure the global access granularity (opt-in probe\n"
          "                        access): one warp's load latency against the stride and\n"
          "                        alignment of its threads, warm in the L1 (ld.global.ca)\n"
          "                        and the L2 (ld.global.cg); the sector and line a request\n"
          "                        is counted in (sectors one by one or in groups), the cost\n"
          "                        of each extra one and of a partial warp, the coalescing\n"
          "                        rule (about 0.05 s on a GPU; its own row of the timings)\n"
          "      --links           also measure this GPU's link to the host (opt-in probe\n"
          "                        links; on in every node run, for the host link and the\n"
          "                        links to the node's other GPUs): type and width as the\n"
          "                        driver and NVML report them, load latency, SM read and\n"
          "                        write and copy-engine bandwidth (each byte moved counted\n"
          "                        once), the nominal rate (its own row of the timings)\n"
          "      --no-links        a node run (--device all or a list, --sim given again)\n"
          "                        without the links probe\n"
          "      --fleet FILE      under mpirun or srun (an MPI build): every rank measures\n"
          "                        its GPU (the node-local rank's device, or --device,\n"
          "                        --sim, --sim-per-rank), rank 0 writes one fleet report\n"
          "                        to FILE and prints the comparison (as memtopo compare);\n"
          "                        exit 7 when a rank differs or failed\n"
          "      --sim-per-rank DIR\n"
          "                        with --fleet: rank R simulates the R-th *.spec file of\n"
          "                        DIR (in name order)\n"
          "      --seed N          seed of the simulator's noise (with --sim)\n"
          "\n"
          "Output (the table goes to stdout unless --json - or --csv -):\n"
          "  -j, --json FILE|-     write the topology as JSON (schema/memtopo-report.schema.json)\n"
          "      --csv FILE|-      write every finding as one CSV row\n"
          "      --raw DIR         write raw cycle samples as CSV into DIR (with a manifest,\n"
          "                        so DIR also replays)\n"
          "      --record DIR      save everything measured into DIR for --replay\n"
          "      --plot DIR        draw plots into DIR with gnuplot (SVG, PNG, their data and\n"
          "                        script): latency against footprint and the latency\n"
          "                        distribution of each load path (with --replay: from a\n"
          "                        recording)\n"
          "      --html FILE       write one self-contained HTML page: the report and the\n"
          "                        plots\n"
          "  -q, --quiet           no progress messages on stderr\n"
          "      --list-presets    list the simulator presets and exit\n"
          "  -h, --help            this help\n"
          "  -V, --version         print the version\n"
          "\n"
          "Exit codes: 0 success; 1 internal error; 2 bad option or input (spec file,\n"
          "replay data, an output path that cannot be written); 3 no usable GPU or\n"
          "backend not built; 4 GPU error or timeout; 5 output could not be written;\n"
          "130/143 interrupted by SIGINT/SIGTERM (what was measured is written); 6 report\n"
          "degraded (GPU disturbed); 7 compare or --fleet: a member differs.\n"
          "\n"
          "memtopo compare [--json FILE|-] REPORT|DIR...  compares saved reports\n"
          "(memtopo compare --help).\n"
          "memtopo model [options] KERNEL...  predicts kernels' cycles and CPI stacks on\n"
          "a measured GPU (memtopo model --help; docs/model.md).\n",
          f);
}

/* Far above any machine's GPU count; only bounds the parse. */
#define MT_CLI_MAX_DEVICE 1024

enum { OPT_REPLAY = 256, OPT_RECORD, OPT_RAW, OPT_SEED, OPT_LIST_PRESETS, OPT_CSV, OPT_CARVEOUT,
       OPT_GEOMETRY, OPT_PLOT, OPT_HTML, OPT_BANDWIDTH, OPT_TLB, OPT_MATRIX,
       OPT_CLUSTER, OPT_ICACHE, OPT_ACCESS, OPT_LINKS, OPT_NO_LINKS,
       OPT_FLEET, OPT_SIM_PER_RANK };

/* --device N, a comma-separated list of distinct device numbers, or
 * "all" (resolved once the run starts: mt_cli_resolve_all_devices). */
static mt_err parse_devices(const char *arg, mt_cli *o, mt_errinfo *ei)
{
    if (o->device_given)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "--device given twice (a list is --device 0,2)");
    if (strcmp(arg, "all") == 0) {
        o->device_all = true;
        o->device_given = true;
        return MT_OK;
    }
    char item[32];
    const char *p = arg;
    do {
        size_t len = strcspn(p, ",");
        uint64_t v;
        snprintf(item, sizeof item, "%.*s", (int)(len < sizeof item ? len : sizeof item - 1), p);
        if (len >= sizeof item || mt_parse_decimal(item, MT_CLI_MAX_DEVICE, &v))
            return mt_fail(ei, MT_ERR_INVALID_ARG,
                           "--device: '%s' is not a device number, a list of them (decimal, no leading zero, at most %d) or 'all'",
                           arg, MT_CLI_MAX_DEVICE);
        for (int i = 0; i < o->n_devices; i++)
            if (o->devices[i] == (int)v)
                return mt_fail(ei, MT_ERR_INVALID_ARG, "--device: %d is listed twice", (int)v);
        if (o->n_devices == MT_CLI_MAX_NODE_GPUS)
            return mt_fail(ei, MT_ERR_INVALID_ARG, "--device: at most %d devices",
                           MT_CLI_MAX_NODE_GPUS);
        o->devices[o->n_devices++] = (int)v;
        p += len;
    } while (*p++ == ',');
    o->device = o->devices[0];
    o->device_given = true;
    return MT_OK;
}

mt_err mt_cli_parse(int argc, char **argv, mt_cli *o, mt_errinfo *ei)
{
    static const struct option longopts[] = {
        {"device", required_argument, 0, 'd'},     {"sim", required_argument, 0, 's'},
        {"replay", required_argument, 0, OPT_REPLAY}, {"record", required_argument, 0, OPT_RECORD},
        {"raw", required_argument, 0, OPT_RAW},    {"json", required_argument, 0, 'j'},
        {"only", required_argument, 0, 'o'},       {"seed", required_argument, 0, OPT_SEED},
        {"quiet", no_argument, 0, 'q'},            {"help", no_argument, 0, 'h'},
        {"version", no_argument, 0, 'V'},          {"list-presets", no_argument, 0, OPT_LIST_PRESETS},
        {"csv", required_argument, 0, OPT_CSV},
        {"carveout", required_argument, 0, OPT_CARVEOUT},
        {"geometry", no_argument, 0, OPT_GEOMETRY},
        {"bandwidth", no_argument, 0, OPT_BANDWIDTH},
        {"plot", required_argument, 0, OPT_PLOT},
        {"html", required_argument, 0, OPT_HTML},
        {"tlb", no_argument, 0, OPT_TLB},
        {"matrix", no_argument, 0, OPT_MATRIX},
        {"cluster", no_argument, 0, OPT_CLUSTER},
        {"icache", no_argument, 0, OPT_ICACHE},
        {"access", no_argument, 0, OPT_ACCESS},
        {"links", no_argument, 0, OPT_LINKS},
        {"no-links", no_argument, 0, OPT_NO_LINKS},
        {"fleet", required_argument, 0, OPT_FLEET},
        {"sim-per-rank", required_argument, 0, OPT_SIM_PER_RANK},
        {0, 0, 0, 0},
    };
    memset(o, 0, sizeof *o);
    mt_probe_options_default(&o->probes);
    size_t pos = 0;
    for (int i = 0; i < argc && pos < sizeof o->command_line; i++)
        pos += (size_t)snprintf(o->command_line + pos, sizeof o->command_line - pos, "%s%s",
                                i ? " " : "", argv[i]);

    opterr = 0; /* we print our own one-line errors */
    optind = 1;
    int ch;
    while ((ch = getopt_long(argc, argv, ":d:s:j:o:qhV", longopts, NULL)) != -1) {
        switch (ch) {
        case 'd': {
            mt_err e = parse_devices(optarg, o, ei);
            if (e != MT_OK)
                return e;
            break;
        }
        case 's':
            if (o->n_sims == MT_CLI_MAX_NODE_GPUS)
                return mt_fail(ei, MT_ERR_INVALID_ARG, "--sim: at most %d simulated GPUs",
                               MT_CLI_MAX_NODE_GPUS);
            o->sims[o->n_sims++] = optarg;
            o->sim = o->sims[0];
            break;
        case OPT_REPLAY: o->replay = optarg; break;
        case OPT_RECORD: o->record = optarg; break;
        case OPT_RAW: o->raw = optarg; break;
        case 'j': o->json = optarg; break;
        case OPT_CSV: o->csv = optarg; break;
        case OPT_PLOT: o->plot = optarg; break;
        case OPT_HTML: o->html = optarg; break;
        case 'o': {
            mt_err e = mt_probe_parse_only(optarg, &o->probes, ei);
            if (e != MT_OK)
                return e;
            break;
        }
        case OPT_CARVEOUT: {
            mt_err e = mt_cli_parse_carveout(optarg, &o->carveout, ei);
            if (e != MT_OK)
                return e;
            break;
        }
        case OPT_GEOMETRY: o->probes.geometry = true; break;
        case OPT_BANDWIDTH: o->probes.bandwidth = true; break;
        case OPT_TLB: o->probes.tlb = true; break;
        case OPT_MATRIX: o->probes.matrix = true; break;
        case OPT_CLUSTER: o->probes.cluster = true; break;
        case OPT_ICACHE: o->probes.icache = true; break;
        case OPT_ACCESS: o->probes.access = true; break;
        case OPT_LINKS: o->probes.links = true; break;
        case OPT_NO_LINKS: o->no_links = true; break;
        case OPT_FLEET: o->fleet = optarg; break;
        case OPT_SIM_PER_RANK: o->sim_per_rank = optarg; break;
        case OPT_SEED:
            if (mt_parse_decimal(optarg, UINT64_MAX, &o->seed))
                return mt_fail(ei, MT_ERR_INVALID_ARG,
                               "--seed: '%s' is not a decimal number (no sign, no leading zero)",
                               optarg);
            o->has_seed = true;
            break;
        case 'q': o->quiet = true; break;
        case 'h': o->help = true; break;
        case 'V': o->version = true; break;
        case OPT_LIST_PRESETS: o->list_presets = true; break;
        case ':':
            return mt_fail(ei, MT_ERR_INVALID_ARG, "option '%s' needs an argument (see --help)",
                           argv[optind - 1]);
        default:
            return mt_fail(ei, MT_ERR_INVALID_ARG, "unknown option '%s' (see --help)", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "unexpected argument '%s' (see --help)", argv[optind]);
    if (o->n_devices > 1 || o->n_sims > 1 || o->device_all) {
        if (o->record || o->raw || o->csv || o->plot || o->html || o->fleet)
            return mt_fail(ei, MT_ERR_INVALID_ARG,
                           "several GPUs in one run write one report each and a node summary "
                           "(--json FILE: the node report): --record, --raw, --csv, --plot, "
                           "--html and --fleet are for one GPU");
    }
    int sources = (o->sim != NULL) + (o->replay != NULL) + o->device_given +
                  (o->sim_per_rank != NULL);
    if (sources > 1)
        return mt_fail(ei, MT_ERR_INVALID_ARG,
                       "--device, --sim, --sim-per-rank and --replay exclude each other");
    mt_err fe = mt_cli_check_fleet_options(o, ei);
    if (fe != MT_OK)
        return fe;
    if (o->has_seed && !o->sim && !o->sim_per_rank)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "--seed only applies to --sim");
    if (o->replay && o->record)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "--record cannot be combined with --replay");
    if (o->replay && o->raw)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "--raw cannot be combined with --replay (the samples are already in the replay directory)");
    if (o->json && !*o->json)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "--json needs a file name or -");
    if (o->csv && !*o->csv)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "--csv needs a file name or -");
    if (o->plot && !*o->plot)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "--plot needs a directory name");
    if (o->html && !*o->html)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "--html needs a file name");
    if (o->csv && o->json && strcmp(o->csv, "-") == 0 && strcmp(o->json, "-") == 0)
        return mt_fail(ei, MT_ERR_INVALID_ARG, "--json - and --csv - cannot both write to stdout");
    return MT_OK;
}

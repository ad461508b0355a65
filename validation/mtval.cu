/* mtval: the validation suite's driver (validation/README.md).
 *
 *   mtval --names                         name, group, kernel, description
 *                                         of every case (no GPU needed)
 *   mtval --list                          cases.tsv on stdout
 *   mtval --time [--runs N] [--case NAME...]   times.tsv on stdout
 *   mtval --profile [--case NAME...]      each case launched once, in list
 *                                         order, between cudaProfilerStart
 *                                         and Stop (for ncu
 *                                         --profile-from-start off)
 *   mtval --verify [--case NAME...]       one launch each, checked
 *
 * Exit status: 0 every case ran and verified; 1 some case failed (setup,
 * launch or verify: reported on stderr and in its row); 2 bad usage or a
 * bad registry (a case name that is not [a-z0-9_]+ or is repeated); 3 no
 * usable GPU, or the CUDA context was lost (no later case could run). */
#include "clocks.h"
#include "flush.h"
#include "harness.h"

#include <cuda_profiler_api.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <vector>

/* Fewer timed runs than this give no stable median (issue 12 asks for at
 * least 20). */
#define MIN_RUNS 20
#define DEFAULT_RUNS 25
#define MAX_RUNS 10000

enum mode { MODE_NONE, MODE_NAMES, MODE_LIST, MODE_TIME, MODE_PROFILE, MODE_VERIFY };

struct options {
    mode m = MODE_NONE;
    int runs = DEFAULT_RUNS;
    std::vector<std::string> only;
};

static void usage(FILE *f)
{
    fprintf(f, "usage: mtval --names | --list | --time [--runs N] [--case NAME...] | "
               "--profile [--case NAME...] | --verify [--case NAME...]\n");
}

static bool parse_args(int argc, char **argv, options *o)
{
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        mode m = a == "--names" ? MODE_NAMES : a == "--list" ? MODE_LIST : a == "--time" ? MODE_TIME
               : a == "--profile" ? MODE_PROFILE : a == "--verify" ? MODE_VERIFY : MODE_NONE;
        if (m != MODE_NONE) {
            if (o->m != MODE_NONE) {
                fprintf(stderr, "mtval: one mode at a time (%s)\n", a.c_str());
                return false;
            }
            o->m = m;
        } else if ((a == "--runs" || a == "--case") && i + 1 < argc) {
            std::string v = argv[++i];
            if (a == "--case") { /* --case A B ... or --case A --case B */
                o->only.push_back(v);
                while (i + 1 < argc && strncmp(argv[i + 1], "--", 2) != 0)
                    o->only.push_back(argv[++i]);
                continue;
            }
            char *end = nullptr;
            long n = strtol(v.c_str(), &end, 10);
            if (*end || n < MIN_RUNS || n > MAX_RUNS) {
                fprintf(stderr, "mtval: --runs %s: want %d to %d\n", v.c_str(), MIN_RUNS, MAX_RUNS);
                return false;
            }
            o->runs = (int)n;
        } else if (a == "--help" || a == "-h") {
            usage(stdout);
            exit(0);
        } else {
            fprintf(stderr, "mtval: unknown or incomplete argument '%s'\n", a.c_str());
            return false;
        }
    }
    if (o->m == MODE_NONE) {
        fprintf(stderr, "mtval: no mode given\n");
        return false;
    }
    if ((o->m == MODE_LIST || o->m == MODE_NAMES) && !o->only.empty()) {
        fprintf(stderr, "mtval: --list and --names take no --case\n");
        return false;
    }
    return true;
}

static bool valid_name(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_'))
            return false;
    return true;
}

static bool valid_group(const char *g)
{
    return !strcmp(g, "synthetic") || !strcmp(g, "real") || !strcmp(g, "li");
}

/* The registry's own consistency, and the cases asked for by name. */
static bool select_cases(const options &o, std::vector<const mtv_case *> *out)
{
    std::set<std::string> seen;
    for (int i = 0; i < mtv_case_count(); i++) {
        const mtv_case *c = mtv_case_at(i);
        if (!valid_name(c->name) || !valid_group(c->group) || !seen.insert(c->name).second) {
            fprintf(stderr, "mtval: bad registry: case '%s' (group '%s'): a name is unique and "
                            "[a-z0-9_]+, a group synthetic, real or li\n", c->name, c->group);
            return false;
        }
    }
    for (const std::string &n : o.only)
        if (!seen.count(n)) {
            fprintf(stderr, "mtval: no case named '%s' (mtval --list names them)\n", n.c_str());
            return false;
        }
    for (int i = 0; i < mtv_case_count(); i++) {
        const mtv_case *c = mtv_case_at(i);
        if (o.only.empty() || std::find(o.only.begin(), o.only.end(), c->name) != o.only.end())
            out->push_back(c);
    }
    return true;
}

static void query_device(mtv_device *d)
{
    cudaDeviceProp p;
    MTV_CHECK(cudaGetDevice(&d->ordinal));
    MTV_CHECK(cudaGetDeviceProperties(&p, d->ordinal));
    d->sms = p.multiProcessorCount;
    d->cc_major = p.major;
    d->cc_minor = p.minor;
    d->max_threads_per_sm = p.maxThreadsPerMultiProcessor;
    d->max_threads_per_block = p.maxThreadsPerBlock;
    d->smem_per_sm = p.sharedMemPerMultiprocessor;
    d->smem_per_block_optin = p.sharedMemPerBlockOptin;
    d->l2_bytes = (size_t)p.l2CacheSize;
    d->global_bytes = p.totalGlobalMem;
    MTV_CHECK(cudaDeviceGetPCIBusId(d->pci_bus_id, (int)sizeof d->pci_bus_id, d->ordinal));
}

/* One case's life; what differs between the modes is what happens
 * between setup and teardown. */
struct case_run {
    const mtv_case *c;
    void *state = nullptr;
    mtv_config cfg = {};
    bool set_up = false;
};

static void run_setup(case_run *r, const mtv_device *d)
{
    r->cfg.carveout_pct = -1;
    r->state = r->c->setup(r->c, d, &r->cfg);
    r->set_up = true;
}

static void run_teardown(case_run *r)
{
    if (r->set_up)
        r->c->teardown(r->state);
    r->set_up = false;
}

static bool run_verify(case_run *r)
{
    std::string why;
    if (r->c->verify(r->state, &why))
        return true;
    fprintf(stderr, "mtval: %s: verify failed: %s\n", r->c->name, why.c_str());
    return false;
}

static void print_list_header(void)
{
    printf("name\tgroup\tkernel\tgrid_x\tgrid_y\tgrid_z\tblock_x\tblock_y\tblock_z\t"
           "dyn_smem_bytes\tcarveout_pct\tfootprint_bytes\tdescription\n");
}

static void print_list_row(const case_run *r)
{
    const mtv_config &g = r->cfg;
    printf("%s\t%s\t%s\t%u\t%u\t%u\t%u\t%u\t%u\t%zu\t%d\t%zu\t%s\n", r->c->name, r->c->group,
           r->c->kernel, g.grid.x, g.grid.y, g.grid.z, g.block.x, g.block.y, g.block.z, g.dyn_smem,
           g.carveout_pct, g.footprint_bytes, r->c->description);
}

static void print_time_header(void)
{
    printf("name\truns\tmedian_ms\tmin_ms\tmax_ms\tsm_clock_mhz\tmem_clock_mhz\tverify\t"
           "sm_clock_start_mhz\n");
}

/* One warm-up launch (not timed), then `runs` launches each after an L2
 * flush, each timed by events around the launch alone; clocks read from
 * NVML just before the first and just after the last timed run. */
static bool time_case(case_run *r, const options &o, mtv_flush *flush, mtv_nvml *nvml,
                      cudaStream_t s)
{
    cudaEvent_t start, stop;
    MTV_CHECK(cudaEventCreate(&start));
    MTV_CHECK(cudaEventCreate(&stop));
    std::vector<float> ms;
    mtv_clocks before = {-1, -1}, after = {-1, -1};
    try {
        r->c->launch(r->state, &r->cfg, s);
        MTV_CHECK(cudaStreamSynchronize(s));
        before = mtv_nvml_clocks(nvml);
        for (int i = 0; i < o.runs; i++) {
            mtv_flush_enqueue(flush, s);
            MTV_CHECK(cudaEventRecord(start, s));
            r->c->launch(r->state, &r->cfg, s);
            MTV_CHECK(cudaEventRecord(stop, s));
            MTV_CHECK(cudaEventSynchronize(stop));
            float t = 0;
            MTV_CHECK(cudaEventElapsedTime(&t, start, stop));
            ms.push_back(t);
        }
        after = mtv_nvml_clocks(nvml);
    } catch (...) {
        cudaEventDestroy(start);
        cudaEventDestroy(stop);
        throw;
    }
    MTV_CHECK(cudaEventDestroy(start));
    MTV_CHECK(cudaEventDestroy(stop));
    bool ok = run_verify(r); /* the last run's output: cases are idempotent */
    std::vector<float> sorted_ms = ms;
    std::sort(sorted_ms.begin(), sorted_ms.end());
    size_t n = sorted_ms.size();
    double median = n % 2 ? sorted_ms[n / 2] : 0.5 * (sorted_ms[n / 2 - 1] + sorted_ms[n / 2]);
    printf("%s\t%zu\t%.6f\t%.6f\t%.6f\t%d\t%d\t%s\t%d\n", r->c->name, n, median, sorted_ms[0],
           sorted_ms[n - 1], after.sm_mhz, after.mem_mhz, ok ? "ok" : "FAIL", before.sm_mhz);
    fflush(stdout);
    return ok;
}

static bool profile_case(case_run *r, cudaStream_t s)
{
    MTV_CHECK(cudaProfilerStart());
    r->c->launch(r->state, &r->cfg, s);
    MTV_CHECK(cudaStreamSynchronize(s));
    MTV_CHECK(cudaProfilerStop());
    bool ok = run_verify(r);
    fprintf(stderr, "mtval: profiled %s: %s\n", r->c->name, ok ? "ok" : "FAIL");
    return ok;
}

static bool verify_case(case_run *r, cudaStream_t s)
{
    r->c->launch(r->state, &r->cfg, s);
    MTV_CHECK(cudaStreamSynchronize(s));
    bool ok = run_verify(r);
    printf("%s\t%s\n", r->c->name, ok ? "ok" : "FAIL");
    fflush(stdout);
    return ok;
}

/* The row a case that could not run leaves in times.tsv: reported, and
 * excluded by anything that reads the file (verify=FAIL). */
static void print_failed_time_row(const mtv_case *c)
{
    printf("%s\t0\tNA\tNA\tNA\t-1\t-1\tFAIL\t-1\n", c->name);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    options o;
    if (!parse_args(argc, argv, &o)) {
        usage(stderr);
        return 2;
    }
    std::vector<const mtv_case *> cases;
    if (!select_cases(o, &cases))
        return 2;
    if (o.m == MODE_NAMES) {
        for (const mtv_case *c : cases)
            printf("%s\t%s\t%s\t%s\n", c->name, c->group, c->kernel, c->description);
        return 0;
    }
    mtv_device dev = {};
    cudaStream_t s = nullptr;
    mtv_flush flush = {};
    mtv_nvml *nvml = nullptr;
    try {
        query_device(&dev);
        MTV_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
        if (o.m == MODE_TIME) {
            mtv_flush_init(&flush, &dev);
            nvml = mtv_nvml_open(dev.pci_bus_id);
            if (!nvml)
                fprintf(stderr, "mtval: NVML not available: clocks reported as -1\n");
        }
    } catch (const mtv_error &e) {
        fprintf(stderr, "mtval: no usable GPU: %s\n", e.what());
        return 3;
    }
    if (o.m == MODE_LIST)
        print_list_header();
    if (o.m == MODE_TIME)
        print_time_header();
    int failed = 0;
    for (const mtv_case *c : cases) {
        case_run r;
        r.c = c;
        bool ok = false;
        try {
            run_setup(&r, &dev);
            if (o.m == MODE_LIST) {
                print_list_row(&r);
                ok = true;
            } else if (o.m == MODE_TIME) {
                ok = time_case(&r, o, &flush, nvml, s);
            } else if (o.m == MODE_PROFILE) {
                ok = profile_case(&r, s);
            } else {
                ok = verify_case(&r, s);
            }
            run_teardown(&r);
        } catch (const mtv_error &e) {
            fprintf(stderr, "mtval: %s: %s\n", c->name, e.what());
            run_teardown(&r);
            if (o.m == MODE_TIME)
                print_failed_time_row(c);
            if (e.sticky) {
                fprintf(stderr, "mtval: the CUDA context is lost: stopping\n");
                return 3;
            }
            /* in --list and --profile a case that cannot run would shift
             * the rows (ncu row k is case k): stop rather than mislead */
            if (o.m == MODE_LIST || o.m == MODE_PROFILE)
                return 1;
        }
        failed += !ok;
    }
    if (o.m == MODE_TIME)
        mtv_flush_free(&flush);
    mtv_nvml_close(nvml);
    if (failed)
        fprintf(stderr, "mtval: %d of %zu cases failed\n", failed, cases.size());
    return failed ? 1 : 0;
}

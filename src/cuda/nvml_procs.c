/* Other processes on the GPU through NVML, loaded at run time (nvml_procs.h).
 *
 * Only the few entry points below are used, declared here with the types
 * of NVML's documented ABI, so the build needs neither nvml.h nor the
 * library.  The process lists use the original, unversioned functions,
 * whose element ({pid, used memory}) has not changed since NVML's first
 * release; the later _v2/_v3 elements differ between driver branches. */
#include "nvml_procs.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef int nvml_ret;      /* nvmlReturn_t: 0 = NVML_SUCCESS */
typedef void *nvml_device; /* nvmlDevice_t: an opaque handle */

typedef struct { /* nvmlProcessInfo_v1_t */
    unsigned int pid;
    unsigned long long used_memory;
} nvml_proc;

typedef struct { /* nvmlProcessUtilizationSample_t */
    unsigned int pid;
    unsigned long long time_stamp; /* microseconds */
    unsigned int sm_util, mem_util, enc_util, dec_util;
} nvml_util;

#define NVML_OK 0
#define NVML_MAX_PROCS 64 /* more neighbours than this: the count is still right up to it */
#define NVML_NAME_LEN 64
/* Utilization samples from the last this many microseconds count as
 * "busy now": NVML samples every 1/6 s to 1 s depending on the GPU. */
#define NVML_RECENT_US 2000000ull

struct mtc_nvml {
    void *lib;
    nvml_device dev;
    nvml_ret (*shutdown)(void);
    nvml_ret (*by_pci)(const char *, nvml_device *);
    nvml_ret (*compute)(nvml_device, unsigned int *, nvml_proc *);
    nvml_ret (*graphics)(nvml_device, unsigned int *, nvml_proc *);
    nvml_ret (*name)(unsigned int, char *, unsigned int);
    nvml_ret (*util)(nvml_device, nvml_util *, unsigned int *, unsigned long long);
};

/* Loads the library and starts NVML: NULL when it is absent or fails. */
static mtc_nvml *nvml_init(void)
{
    void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        return NULL;
    mtc_nvml *n = calloc(1, sizeof *n);
    nvml_ret (*init)(void) = (nvml_ret(*)(void))dlsym(lib, "nvmlInit_v2");
    if (n) {
        n->lib = lib;
        n->shutdown = (nvml_ret(*)(void))dlsym(lib, "nvmlShutdown");
        n->by_pci = (nvml_ret(*)(const char *, nvml_device *))dlsym(
            lib, "nvmlDeviceGetHandleByPciBusId_v2");
        n->compute = (nvml_ret(*)(nvml_device, unsigned int *, nvml_proc *))dlsym(
            lib, "nvmlDeviceGetComputeRunningProcesses");
        n->graphics = (nvml_ret(*)(nvml_device, unsigned int *, nvml_proc *))dlsym(
            lib, "nvmlDeviceGetGraphicsRunningProcesses");
        n->name = (nvml_ret(*)(unsigned int, char *, unsigned int))dlsym(
            lib, "nvmlSystemGetProcessName");
        n->util = (nvml_ret(*)(nvml_device, nvml_util *, unsigned int *, unsigned long long))dlsym(
            lib, "nvmlDeviceGetProcessUtilization");
    }
    if (!n || !init || !n->by_pci || !n->shutdown || !n->compute || init() != NVML_OK) {
        free(n);
        dlclose(lib);
        return NULL;
    }
    return n;
}

/* Picks the device of a started NVML; closes it and returns NULL when
 * NVML does not know the device. */
static mtc_nvml *nvml_pick(mtc_nvml *n, const char *pci_bus_id)
{
    if (n && (!pci_bus_id || n->by_pci(pci_bus_id, &n->dev) != NVML_OK)) {
        mtc_nvml_close(n);
        return NULL;
    }
    return n;
}

mtc_nvml *mtc_nvml_open(const char *pci_bus_id)
{
    return nvml_pick(nvml_init(), pci_bus_id);
}

struct mtc_nvml_start {
    pthread_t thread;
    mtc_nvml *nvml;
};

static void *init_thread(void *arg)
{
    ((mtc_nvml_start *)arg)->nvml = nvml_init();
    return NULL;
}

mtc_nvml_start *mtc_nvml_start_init(void)
{
    mtc_nvml_start *s = calloc(1, sizeof *s);
    if (s && pthread_create(&s->thread, NULL, init_thread, s) != 0) {
        free(s);
        return NULL;
    }
    return s;
}

mtc_nvml *mtc_nvml_finish(mtc_nvml_start *s, const char *pci_bus_id)
{
    if (!s)
        return NULL;
    pthread_join(s->thread, NULL);
    mtc_nvml *n = nvml_pick(s->nvml, pci_bus_id);
    free(s);
    return n;
}

void mtc_nvml_close(mtc_nvml *n)
{
    if (!n)
        return;
    n->shutdown();
    dlclose(n->lib);
    free(n);
}

/* Appends the pids of one list (compute or graphics) that are not ours and
 * not listed yet; -1 when the call fails. */
static int collect(nvml_ret (*fn)(nvml_device, unsigned int *, nvml_proc *), nvml_device dev,
                   unsigned int *pids, int n)
{
    if (!fn)
        return n;
    nvml_proc procs[NVML_MAX_PROCS];
    unsigned int count = NVML_MAX_PROCS;
    if (fn(dev, &count, procs) != NVML_OK)
        return -1;
    unsigned int self = (unsigned int)getpid();
    for (unsigned int i = 0; i < count && i < NVML_MAX_PROCS && n < NVML_MAX_PROCS; i++) {
        int seen = procs[i].pid == self;
        for (int k = 0; k < n && !seen; k++)
            seen = pids[k] == procs[i].pid;
        if (!seen)
            pids[n++] = procs[i].pid;
    }
    return n;
}

/* How many of pids used the SMs or memory in NVML's recent samples; -1
 * when the GPU or driver keeps no per-process samples. */
static int count_busy(mtc_nvml *n, const unsigned int *pids, int np)
{
    if (!n->util)
        return -1;
    nvml_util s[NVML_MAX_PROCS * 4];
    unsigned int count = sizeof s / sizeof s[0];
    /* The newest sample's time stamp first (a call with count 0 sizes). */
    if (n->util(n->dev, s, &count, 0) != NVML_OK)
        return -1;
    unsigned long long newest = 0;
    for (unsigned int i = 0; i < count; i++)
        newest = s[i].time_stamp > newest ? s[i].time_stamp : newest;
    int busy = 0;
    for (int k = 0; k < np; k++) {
        int b = 0;
        for (unsigned int i = 0; i < count && !b; i++)
            b = s[i].pid == pids[k] && s[i].time_stamp + NVML_RECENT_US >= newest &&
                (s[i].sm_util > 0 || s[i].mem_util > 0);
        busy += b;
    }
    return busy;
}

void mtc_nvml_query(mtc_nvml *n, mt_device_info *d)
{
    d->other_processes = -1;
    d->other_busy = -1;
    d->other_process_list[0] = '\0';
    if (!n)
        return;
    unsigned int pids[NVML_MAX_PROCS];
    int np = collect(n->compute, n->dev, pids, 0);
    if (np >= 0)
        np = collect(n->graphics, n->dev, pids, np);
    if (np < 0)
        return;
    d->other_processes = np;
    d->other_busy = np ? count_busy(n, pids, np) : 0;
    size_t len = 0, cap = sizeof d->other_process_list;
    for (int k = 0; k < np && len + 1 < cap; k++) {
        char name[NVML_NAME_LEN] = "?";
        if (n->name && n->name(pids[k], name, sizeof name) != NVML_OK)
            snprintf(name, sizeof name, "?");
        const char *base = strrchr(name, '/'); /* the program, not its path */
        len += (size_t)snprintf(d->other_process_list + len, cap - len, "%s%u %s", k ? ", " : "",
                                pids[k], base ? base + 1 : name);
    }
}

/* Current clocks through NVML (clocks.h).  The three entry points are
 * declared with the types of NVML's documented ABI, so neither nvml.h nor
 * the library is needed to build. */
#include "clocks.h"

#include <dlfcn.h>
#include <cstdlib>

typedef int nvml_ret;      /* nvmlReturn_t: 0 = success */
typedef void *nvml_device; /* nvmlDevice_t */
#define NVML_OK 0
/* nvmlClockType_t */
#define NVML_CLOCK_SM 1
#define NVML_CLOCK_MEM 2

struct mtv_nvml {
    void *lib;
    nvml_device dev;
    nvml_ret (*clock)(nvml_device, int, unsigned int *);
    nvml_ret (*shutdown)(void);
};

mtv_nvml *mtv_nvml_open(const char *pci_bus_id)
{
    void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        return nullptr;
    auto init = (nvml_ret(*)(void))dlsym(lib, "nvmlInit_v2");
    auto by_pci = (nvml_ret(*)(const char *, nvml_device *))dlsym(
        lib, "nvmlDeviceGetHandleByPciBusId_v2");
    auto clock = (nvml_ret(*)(nvml_device, int, unsigned int *))dlsym(lib, "nvmlDeviceGetClockInfo");
    auto shutdown = (nvml_ret(*)(void))dlsym(lib, "nvmlShutdown");
    if (!init || !by_pci || !clock || !shutdown || init() != NVML_OK) {
        dlclose(lib);
        return nullptr;
    }
    nvml_device dev = nullptr;
    if (by_pci(pci_bus_id, &dev) != NVML_OK) {
        shutdown();
        dlclose(lib);
        return nullptr;
    }
    mtv_nvml *n = (mtv_nvml *)calloc(1, sizeof *n);
    if (!n) {
        shutdown();
        dlclose(lib);
        return nullptr;
    }
    n->lib = lib;
    n->dev = dev;
    n->clock = clock;
    n->shutdown = shutdown;
    return n;
}

mtv_clocks mtv_nvml_clocks(mtv_nvml *n)
{
    mtv_clocks c = {-1, -1};
    unsigned int mhz = 0;
    if (n && n->clock(n->dev, NVML_CLOCK_SM, &mhz) == NVML_OK)
        c.sm_mhz = (int)mhz;
    if (n && n->clock(n->dev, NVML_CLOCK_MEM, &mhz) == NVML_OK)
        c.mem_mhz = (int)mhz;
    return c;
}

void mtv_nvml_close(mtv_nvml *n)
{
    if (!n)
        return;
    n->shutdown();
    dlclose(n->lib);
    free(n);
}

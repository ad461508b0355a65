/* NVML's view of a GPU's links (nvml_links.h), loaded at run time.
 *
 * Declared here with the types of NVML's documented ABI (as in
 * nvml_procs.c), so the build needs neither nvml.h nor the library. */
#include "nvml_links.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "../backend/backend.h"

typedef int nvml_ret;      /* nvmlReturn_t: 0 = NVML_SUCCESS */
typedef void *nvml_device; /* nvmlDevice_t */
typedef struct {           /* nvmlPciInfo_t */
    char bus_id_legacy[16];
    unsigned int domain, bus, device, pci_device_id, pci_subsystem_id;
    char bus_id[32];
} nvml_pci;

#define NVML_OK 0
#define NVML_NVLINK_MAX_LINKS 18 /* NVML_NVLINK_MAX_LINKS of nvml.h */
#define NVML_FEATURE_ENABLED 1

/* nvmlDeviceGetNvLinkVersion answers an nvmlNvlinkVersion_t, not the
 * NVLink generation: 1 = 1.0, 2 = 2.0, 3 = 2.2, 4 = 3.0, 5 = 3.1,
 * 6 = 4.0, 7 = 5.0, 8 = 6.0 (nvml.h).  The H200s of nvidia-h200-x2
 * answer 6, NVLink 4 (reported as "NVLink 6" before this table).  The
 * generation (the major version) is what the backend passes on: the
 * per-link rate follows it (NVLink 2.0 and 2.2 alike carry 25 GB/s per
 * direction). */
uint32_t mtc_nvml_nvlink_generation(unsigned int nvml_enum)
{
    static const uint32_t major[] = {0, 1, 2, 2, 3, 3, 4, 5, 6};
    if (nvml_enum == 0 || nvml_enum >= sizeof major / sizeof major[0])
        return MT_LINK_NOT_AVAILABLE; /* invalid, or newer than this table */
    return major[nvml_enum];
}

typedef struct {
    nvml_ret (*init)(void);
    nvml_ret (*shutdown)(void);
    nvml_ret (*by_pci)(const char *, nvml_device *);
    nvml_ret (*gen)(nvml_device, unsigned int *);
    nvml_ret (*width)(nvml_device, unsigned int *);
    nvml_ret (*state)(nvml_device, unsigned int, int *);
    nvml_ret (*version)(nvml_device, unsigned int, unsigned int *);
    nvml_ret (*remote)(nvml_device, unsigned int, nvml_pci *);
} nvml_fns;

static int load(void *lib, nvml_fns *f)
{
    f->init = (nvml_ret(*)(void))dlsym(lib, "nvmlInit_v2");
    f->shutdown = (nvml_ret(*)(void))dlsym(lib, "nvmlShutdown");
    f->by_pci = (nvml_ret(*)(const char *, nvml_device *))dlsym(
        lib, "nvmlDeviceGetHandleByPciBusId_v2");
    f->gen = (nvml_ret(*)(nvml_device, unsigned int *))dlsym(lib,
                                                              "nvmlDeviceGetCurrPcieLinkGeneration");
    f->width = (nvml_ret(*)(nvml_device, unsigned int *))dlsym(lib,
                                                                "nvmlDeviceGetCurrPcieLinkWidth");
    f->state = (nvml_ret(*)(nvml_device, unsigned int, int *))dlsym(lib, "nvmlDeviceGetNvLinkState");
    f->version = (nvml_ret(*)(nvml_device, unsigned int, unsigned int *))dlsym(
        lib, "nvmlDeviceGetNvLinkVersion");
    f->remote = (nvml_ret(*)(nvml_device, unsigned int, nvml_pci *))dlsym(
        lib, "nvmlDeviceGetNvLinkRemotePciInfo_v2");
    return f->init && f->shutdown && f->by_pci;
}

void mtc_nvml_link_query(const mtc_pci_addr *self, const mtc_pci_addr *peer, mtc_nvml_links *out)
{
    out->pcie_gen = out->pcie_width = MT_LINK_NOT_AVAILABLE;
    out->nvlinks_active = out->nvlinks_to_peer = out->nvlink_version = MT_LINK_NOT_AVAILABLE;
    void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        return;
    nvml_fns f;
    if (!load(lib, &f) || f.init() != NVML_OK) {
        dlclose(lib);
        return;
    }
    char bus_id[32];
    snprintf(bus_id, sizeof bus_id, "%08x:%02x:%02x.0", self->domain, self->bus, self->device);
    nvml_device dev;
    if (f.by_pci(bus_id, &dev) == NVML_OK) {
        unsigned int v;
        if (f.gen && f.gen(dev, &v) == NVML_OK)
            out->pcie_gen = v;
        if (f.width && f.width(dev, &v) == NVML_OK)
            out->pcie_width = v;
        if (f.state) {
            /* Every active NVLink, and those whose far end is the peer's
             * PCI address (through an NVSwitch the far end is the switch,
             * which names no GPU). */
            uint32_t active = 0, count = 0, version = MT_LINK_NOT_AVAILABLE;
            int answered = 0;
            for (unsigned int l = 0; l < NVML_NVLINK_MAX_LINKS; l++) {
                int on = 0;
                nvml_pci far;
                if (f.state(dev, l, &on) != NVML_OK)
                    continue;
                answered = 1;
                if (on != NVML_FEATURE_ENABLED)
                    continue;
                active++;
                if (f.version && f.version(dev, l, &v) == NVML_OK)
                    version = mtc_nvml_nvlink_generation(v);
                memset(&far, 0, sizeof far);
                if (peer && f.remote && f.remote(dev, l, &far) == NVML_OK &&
                    far.domain == peer->domain && far.bus == peer->bus &&
                    far.device == peer->device)
                    count++;
            }
            if (answered) {
                out->nvlinks_active = active;
                out->nvlinks_to_peer = peer && f.remote ? count : MT_LINK_NOT_AVAILABLE;
                out->nvlink_version = active ? version : MT_LINK_NOT_AVAILABLE;
            }
        }
    }
    f.shutdown();
    dlclose(lib);
}

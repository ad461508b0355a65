/* The GPU's current SM and memory clocks from NVML, loaded at run time
 * (dlopen, as src/cuda/nvml_procs.c does): no build dependency, and a
 * machine without NVML reports -1 ("not known"), never a guess. */
#ifndef MTV_CLOCKS_H
#define MTV_CLOCKS_H

struct mtv_clocks {
    int sm_mhz, mem_mhz; /* -1: NVML could not tell */
};
struct mtv_nvml;
/* NULL when NVML is absent or does not know the device. */
mtv_nvml *mtv_nvml_open(const char *pci_bus_id);
mtv_clocks mtv_nvml_clocks(mtv_nvml *n); /* n may be NULL */
void mtv_nvml_close(mtv_nvml *n);

#endif

/* Other processes on the GPU, from NVML loaded at run time (issue 7).
 * dlopen("libnvidia-ml.so.1"): no build dependency, and a machine without
 * NVML (or a container that hides it) just reports "unknown" (-1). */
#ifndef MT_CUDA_NVML_PROCS_H
#define MT_CUDA_NVML_PROCS_H

#include "../backend/device.h"

typedef struct mtc_nvml mtc_nvml;

/* NVML for the CUDA device with this PCI bus id ("0000:3B:00.0"); NULL
 * when NVML is absent or does not know the device (silently: it is only
 * a source of doubt, never needed to measure). */
mtc_nvml *mtc_nvml_open(const char *pci_bus_id);
/* The same in two steps, so that NVML's start (library load and
 * nvmlInit, ~14 ms on the H100 machine) overlaps the CUDA context's
 * creation (~100 ms): mtc_nvml_start begins it on a thread of its own
 * (NULL when no thread could be started: then call mtc_nvml_open);
 * mtc_nvml_finish waits for it and picks the device, with mtc_nvml_open's
 * result, and frees `s` (also when pci_bus_id is NULL: then it returns
 * NULL, after closing what was started). */
typedef struct mtc_nvml_start mtc_nvml_start;
mtc_nvml_start *mtc_nvml_start_init(void);
mtc_nvml *mtc_nvml_finish(mtc_nvml_start *s, const char *pci_bus_id);
/* Fills d's other_processes, other_process_list and other_busy (all
 * "unknown" when n is NULL or NVML fails). */
void mtc_nvml_query(mtc_nvml *n, mt_device_info *d);
void mtc_nvml_close(mtc_nvml *n);

#endif

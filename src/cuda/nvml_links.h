/* What NVML says of a GPU's links (nvml_links.c), loaded at run time like
 * nvml_procs.c: a machine without NVML answers "not available". */
#ifndef MT_CUDA_NVML_LINKS_H
#define MT_CUDA_NVML_LINKS_H

#include <stdint.h>

/* For the GPU at PCI address self (domain, bus, device): its current PCIe
 * generation and width, its active NVLinks (to anything: a GPU or an
 * NVSwitch), those of them whose far end is the GPU at peer (NULL: none
 * asked) and their generation (NVLink 4 for NVML's 4.0).  Each output is MT_LINK_NOT_AVAILABLE
 * (backend.h) when NVML cannot tell; 0 NVLinks when NVML answers and none
 * is active (reaches the peer). */
typedef struct {
    unsigned domain, bus, device;
} mtc_pci_addr;
typedef struct {
    uint32_t pcie_gen, pcie_width;
    uint32_t nvlinks_active, nvlinks_to_peer, nvlink_version;
} mtc_nvml_links;
/* The NVLink generation (1..6) of nvmlDeviceGetNvLinkVersion's answer,
 * an nvmlNvlinkVersion_t (6 is NVLink 4.0); MT_LINK_NOT_AVAILABLE for 0
 * (invalid) or a value newer than the table. */
uint32_t mtc_nvml_nvlink_generation(unsigned int nvml_enum);
void mtc_nvml_link_query(const mtc_pci_addr *self, const mtc_pci_addr *peer, mtc_nvml_links *out);

#endif

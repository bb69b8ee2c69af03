/* The hardware the host discovered once at start (hwloc: cores, caches, PCI devices), handed
 * to device plugins through zen_host_api.get_api("hardware") instead of each plugin probing it
 * again (ONNX Runtime hands its execution providers the devices it found the same way). A host
 * without hwloc answers NULL for the table: a plugin then falls back to what the OS tells it
 * (sched_getaffinity, its own API's device names). ABI 1.4. */
#ifndef ZEN_HARDWARE_H
#define ZEN_HARDWARE_H

#include <zen/abi.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct zen_hardware_api {
  zen_hdr h;
  /* Physical cores among the CPUs this process may use; 0 when unknown. */
  uint32_t (*physical_cores)(void);
  /* OS CPU numbers to pin n worker threads to, one per thread, written to cpus[0 .. n): the
   * first hardware thread of every usable core (package 0's cores first), then the second, and
   * so on, wrapping when n exceeds the usable CPUs. Returns n, or 0 when there is no plan. */
  uint32_t (*pinning_plan)(uint32_t n, uint32_t* cpus);
  /* What the PCI device at bus_id ("0000:01:00.0") is ("NVIDIA H100 80GB HBM3", else its class
   * name), or NULL when the host does not know it. The text lives as long as the host. */
  const char* (*pci_device_name)(const char* bus_id);
} zen_hardware_api;
#define ZEN_HARDWARE_API_NAME "hardware"

#ifdef __cplusplus
}
#endif

#endif /* ZEN_HARDWARE_H */

#include "hw/hardware_api.h"

#include <cstring>
#include <mutex>
#include <optional>

#include "hw/topology.h"

namespace zen::hw {
namespace {

// The machine as hwloc saw it at the first question; nullopt when hwloc failed.
const std::optional<Topology>& topology() {
  static std::once_flag once;
  static std::optional<Topology> topo;
  std::call_once(once, [] {
    try {
      topo = detect_topology({/*io=*/true, /*all_pci_devices=*/false});
    } catch (...) {  // no topology: every answer says "unknown"
    }
  });
  return topo;
}

uint32_t physical_cores() {
  const auto& t = topology();
  return t ? usable_physical_cores(*t) : 0;
}

uint32_t plan(uint32_t n, uint32_t* cpus) {
  const auto& t = topology();
  if (!t || !cpus || n == 0) return 0;
  const std::vector<unsigned> p = pinning_plan(*t, n);
  if (p.size() != n) return 0;
  for (uint32_t i = 0; i < n; ++i) cpus[i] = p[i];
  return n;
}

const char* pci_device_name(const char* bus_id) {
  const auto& t = topology();
  if (!t || !bus_id) return nullptr;
  for (const PciDevice& d : t->pci_devices)
    if (d.bus_id == bus_id) return d.name.empty() ? d.class_name.c_str() : d.name.c_str();
  return nullptr;
}

constexpr zen_hardware_api kApi = {ZEN_HDR_INIT(zen_hardware_api), physical_cores, plan,
                                   pci_device_name};

}  // namespace

const zen_hardware_api* hardware_api() { return &kApi; }

}  // namespace zen::hw

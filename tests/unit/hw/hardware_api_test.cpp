// The "hardware" service (zen/hardware.h) answers what hwloc's topology says, detected once:
// the same core count and pinning plan a plugin used to compute itself.
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "hw/hardware_api.h"
#include "hw/topology.h"

namespace zen::hw {
namespace {

TEST(HardwareApi, AnswersWhatTheTopologySays) {
  const zen_hardware_api* api = hardware_api();
  ASSERT_NE(api, nullptr);
  EXPECT_EQ(api->h.struct_size, sizeof(zen_hardware_api));
  const Topology topo = detect_topology({true, false});
  EXPECT_EQ(api->physical_cores(), usable_physical_cores(topo));
  ASSERT_GT(api->physical_cores(), 0u);

  for (uint32_t n : {1u, 3u, 2 * api->physical_cores() + 1}) {
    std::vector<uint32_t> cpus(n, 9999);
    ASSERT_EQ(api->pinning_plan(n, cpus.data()), n);
    const std::vector<unsigned> want = pinning_plan(topo, n);
    EXPECT_EQ(std::vector<unsigned>(cpus.begin(), cpus.end()), want) << n << " threads";
  }
  EXPECT_EQ(api->pinning_plan(0, nullptr), 0u);

  for (const PciDevice& d : topo.pci_devices)
    EXPECT_STREQ(api->pci_device_name(d.bus_id.c_str()),
                 d.name.empty() ? d.class_name.c_str() : d.name.c_str());
  EXPECT_EQ(api->pci_device_name("ffff:ff:1f.7"), nullptr);
  EXPECT_EQ(api->pci_device_name(nullptr), nullptr);
}

}  // namespace
}  // namespace zen::hw

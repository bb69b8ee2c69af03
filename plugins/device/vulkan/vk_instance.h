// The Vulkan instance (API 1.2) and the physical devices the plugin exposes: every device with
// a compute queue and Vulkan 1.2. Created on first use and shared by everything opened from
// it; no driver or ICD at all means zero devices, never an error.
#pragma once

#include <vulkan/vulkan.h>

#include <memory>
#include <string>
#include <vector>

#include <zen/device.h>

namespace zen_vk {

struct PhysicalDevice {
  VkPhysicalDevice handle = VK_NULL_HANDLE;
  VkPhysicalDeviceProperties props{};
  VkPhysicalDeviceDriverProperties driver{};
  uint32_t compute_family = 0;
  uint64_t local_heap_bytes = 0;  // the largest device-local heap
  bool has_pci = false;           // VK_EXT_pci_bus_info
  char pci_bus_id[32] = {};       // "0000:01:00.0" or ""
  bool float64 = false;           // shaderFloat64 (rope reduces its angles in double)
  // Subgroups in compute shaders: their size, and whether arithmetic (subgroupAdd) and
  // shuffles work there (the matrix-vector kernel's reductions need both).
  uint32_t subgroup_size = 0;
  bool subgroup_reduce = false;
  // Streaming multiprocessors where the driver tells (VK_NV_shader_sm_builtins), else 0:
  // split-K attention sizes its parts by it (vk_ops.cpp, attention_parts()).
  uint32_t sm_count = 0;
};

class Instance {
 public:
  ~Instance();
  // The shared instance, or nullptr when Vulkan is unavailable here (no loader ICD, no 1.2).
  static std::shared_ptr<Instance> get();
  // Drops the plugin's reference (devices still open keep the instance alive).
  static void release();

  VkInstance handle() const { return instance_; }
  const std::vector<PhysicalDevice>& devices() const { return devices_; }

 private:
  VkInstance instance_ = VK_NULL_HANDLE;
  std::vector<PhysicalDevice> devices_;
};

// The zen_device_props of physical device `pd` (PCI description from hwloc when it has one).
void fill_props(const PhysicalDevice& pd, zen_device_props& out);

}  // namespace zen_vk

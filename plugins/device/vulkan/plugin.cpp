// The Vulkan device plugin's entry points. Nothing touches Vulkan at load time: the instance
// is created on the first device_count/props/open call, and a machine without a driver or
// ICD simply has zero Vulkan devices.
#include <zen/device.hpp>
#include <zen/plugin.hpp>

#include "vk_device.h"
#include "vk_instance.h"

namespace zen_vk {
namespace {

const PhysicalDevice& physical(const std::shared_ptr<Instance>& inst, uint32_t index) {
  if (!inst || index >= inst->devices().size())
    throw zen::Error(ZEN_ERR_NOT_FOUND, "vulkan: no device " + std::to_string(index) + " (" +
                                            std::to_string(inst ? inst->devices().size() : 0) +
                                            " found)");
  return inst->devices()[index];
}

struct Provider {
  static uint32_t count() {
    const auto inst = Instance::get();
    return inst ? static_cast<uint32_t>(inst->devices().size()) : 0;
  }
  static void props(uint32_t index, zen_device_props& out) {
    fill_props(physical(Instance::get(), index), out);
  }
  static zen::Device* open(uint32_t index) {
    auto inst = Instance::get();
    return new VulkanDevice(inst, physical(inst, index));
  }
};

const zen_device_v1* table() {
  static const zen_device_v1 t = zen::device_table<Provider>();
  return &t;
}

}  // namespace
}  // namespace zen_vk

// Loading the plugin already proved the Vulkan loader is here; whether any device is, is
// device_count's answer (0 without a driver), so the probe never refuses.
ZEN_PLUGIN_PROBE(reason, reason_len) {
  zen::write_reason(reason, reason_len, "usable: Vulkan loader present (devices counted at init)");
  return 1;
}

ZEN_PLUGIN_IDENTIFY(out) {
  return zen::write_desc(out, ZEN_KIND_DEVICE, "vulkan", "0.1.0", "spirv", nullptr);
}

ZEN_PLUGIN_INIT(host, out) {
  return zen::fill_desc(host, out, ZEN_KIND_DEVICE, "vulkan", "0.1.0", "spirv", zen_vk::table());
}

ZEN_PLUGIN_SHUTDOWN() { zen_vk::Instance::release(); }

ZEN_DEFINE_PLUGIN_LAST_ERROR()

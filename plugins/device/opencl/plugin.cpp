// The OpenCL device plugin's entry points. Nothing runs at load time: the ICD loader is asked
// for platforms on the first device_count(); no ICD or no driver is 0 devices.
#include <zen/device.hpp>
#include <zen/plugin.hpp>

#include "opencl_device.h"
#include "platforms.h"

namespace zen_opencl {
namespace {

const DeviceEntry& entry(uint32_t index) {
  const auto& list = devices();
  if (index >= list.size())
    throw zen::Error(ZEN_ERR_NOT_FOUND, "opencl: no device " + std::to_string(index) + " (" +
                                            std::to_string(list.size()) + " found)");
  return list[index];
}

struct Provider {
  static uint32_t count() { return static_cast<uint32_t>(devices().size()); }
  static void props(uint32_t index, zen_device_props& out) { fill_props(entry(index), out); }
  static zen::Device* open(uint32_t index) { return new OpenClDevice(entry(index)); }
};

const zen_device_v1* table() {
  static const zen_device_v1 t = zen::device_table<Provider>();
  return &t;
}

}  // namespace
}  // namespace zen_opencl

ZEN_DEFINE_PLUGIN(ZEN_KIND_DEVICE, "opencl", "0.1.0", "", zen_opencl::table(), 1u, (void)0)

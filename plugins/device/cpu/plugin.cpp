// The CPU device plugin's entry points (the probe lives in probe.cpp, compiled without ISA
// flags). Nothing here runs at load time: the table is built on first init, after the host has
// seen the probe say this CPU can execute the variant.
#include <zen/device.hpp>
#include <zen/plugin.hpp>

#include "cpu_device.h"

namespace ZEN_CPU_NS {
namespace {

struct Provider {
  static uint32_t count() { return 1; }
  static void props(uint32_t index, zen_device_props& out) {
    if (index != 0) throw zen::Error(ZEN_ERR_NOT_FOUND, "cpu: there is one CPU device (0)");
    CpuDevice::fill_props(out);
  }
  static zen::Device* open(uint32_t index) {
    if (index != 0) throw zen::Error(ZEN_ERR_NOT_FOUND, "cpu: there is one CPU device (0)");
    return new CpuDevice();
  }
};

const zen_device_v1* table() {
  static const zen_device_v1 t = zen::device_table<Provider>();
  return &t;
}

}  // namespace
}  // namespace ZEN_CPU_NS

ZEN_PLUGIN_INIT(host, out) {
  return zen::fill_desc(host, out, ZEN_KIND_DEVICE, "cpu", "0.1.0", ZEN_CPU_VARIANT,
                        ZEN_CPU_NS::table());
}

ZEN_PLUGIN_SHUTDOWN() {}

ZEN_DEFINE_PLUGIN_LAST_ERROR()

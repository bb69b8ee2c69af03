// Which devices a deployment uses: every device the loaded device plugins expose, matched
// against the config's "devices" list (in the config's order of preference), or chosen by
// priority when the config names none. Software implementations of GPU APIs are only used
// when named.
#pragma once

#include <string>
#include <vector>

#include <zen/device.h>

#include "config.h"
#include "plugin_registry.h"

namespace zen::host {

struct DeviceCandidate {
  std::string id;  // "cpu", "vulkan:0"
  const PluginRecord* plugin = nullptr;
  const zen_device_v1* table = nullptr;
  uint32_t index = 0;  // index within its plugin
  zen_device_props props{};
  bool chosen = false;
  int rank = -1;    // position in the preference order when chosen
  std::string why;  // one line: why chosen or not
};

// Enumerate and choose. Throws ConfigError naming the entry when the config asks for a device
// that does not exist here.
std::vector<DeviceCandidate> select_devices(const PluginRegistry& plugins, const Config& config);

// The choice itself, over enumerated candidates (sets chosen, rank and why): the config's list
// in its order, else every non-software device by priority, where a GPU that another chosen
// candidate already reaches through another API is left out and says which.
void choose_devices(std::vector<DeviceCandidate>& all, const Config& config);

// How a and b are one physical device ("PCI 0000:01:00.0", or "vendor 10de:2330, 81559 MiB"
// where a bus id is missing), or "" when they are not (CPU and software devices never are).
std::string same_hardware(const zen_device_props& a, const zen_device_props& b);

const char* device_type_name(zen_device_type type);

}  // namespace zen::host

// An opened device as the graph scheduler sees it: the plugin's table, the opened handle and
// its properties. The plugin loader produces these and owns the handles; the scheduler only
// borrows them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <zen/device.h>
#include <zen/device_counters.h>

namespace zen::graph {

struct DeviceRef {
  std::string id;  // "cpu", "testdev:0", "vulkan:1": what configs and errors call it
  const zen_device_v1* table = nullptr;
  zen_device* dev = nullptr;
  zen_device_props props{};
  uint64_t alignment = 64;  // intermediates are placed at multiples of this
  // The plugin's zen_plugin_last_error (ABI 1.4), or null: then the table's last_error.
  zen_plugin_last_error_fn plugin_error = nullptr;

  bool host_visible() const { return props.host_visible != 0; }
  // Optional members, checked by struct_size and NULL as the ABI requires.
  bool can_wrap_host() const;
  // The message of this thread's last failed call into the device's plugin, or "" when it has
  // none to give.
  std::string error() const;
  // Throws zen::Error "<id>: <what>: <device's last error>" unless st is ZEN_OK.
  void check(zen_status st, std::string_view what) const;

  // The device's "zen_device_counters" (zen/device_counters.h), or false when it keeps none.
  bool counters(zen_device_counters& out) const;

  // Host address of a buffer (plus offset), or nullptr when the buffer is not host-visible.
  void* host_ptr(zen_buffer* buf, uint64_t offset) const;

  // Opens device `index` of a plugin table and reads its props; `close` undoes it. For loaders
  // and tests; the scheduler never opens or closes devices.
  static DeviceRef open(const zen_device_v1* table, uint32_t index, std::string id,
                        zen_plugin_last_error_fn plugin_error = nullptr);
  void close();
};

}  // namespace zen::graph

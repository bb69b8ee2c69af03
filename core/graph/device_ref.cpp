#include "graph/device_ref.h"

#include <zen/plugin.hpp>

namespace zen::graph {

bool DeviceRef::can_wrap_host() const {
  return ZEN_HAS_MEMBER(table, zen_device_v1, buffer_wrap_host) && table->buffer_wrap_host;
}

std::string DeviceRef::error() const {
  const char* e = nullptr;
  if (plugin_error)
    e = plugin_error();
  else if (dev && ZEN_HAS_MEMBER(table, zen_device_v1, last_error) && table->last_error)
    e = table->last_error(dev);
  return e ? e : "";
}

void DeviceRef::check(zen_status st, std::string_view what) const {
  if (st == ZEN_OK) return;
  std::string msg = id + ": " + std::string(what) + " failed";
  std::string why = error();
  throw Error(st, why.empty() ? msg + " (status " + std::to_string(st) + ")" : msg + ": " + why);
}

bool DeviceRef::counters(zen_device_counters& out) const {
  if (!dev || !ZEN_HAS_MEMBER(table, zen_device_v1, get_proc) || !table->get_proc) return false;
  auto fn =
      reinterpret_cast<zen_device_counters_fn>(table->get_proc(dev, ZEN_DEVICE_COUNTERS_PROC));
  out = zen_device_counters{};
  out.h = ZEN_HDR_INIT(zen_device_counters);
  return fn && fn(dev, &out) == ZEN_OK;
}

void* DeviceRef::host_ptr(zen_buffer* buf, uint64_t offset) const {
  if (!buf || !host_visible()) return nullptr;
  void* p = table->buffer_host_ptr(dev, buf);
  return p ? static_cast<char*>(p) + offset : nullptr;
}

DeviceRef DeviceRef::open(const zen_device_v1* table, uint32_t index, std::string id,
                          zen_plugin_last_error_fn plugin_error) {
  if (!table || table->h.abi_major != ZEN_ABI_MAJOR)
    throw Error(ZEN_ERR_ABI, id + ": device table missing or of another ABI major");
  DeviceRef d;
  d.id = std::move(id);
  d.table = table;
  d.plugin_error = plugin_error;
  d.props.h = ZEN_HDR_INIT(zen_device_props);
  d.check(table->device_props(index, &d.props), "reading the properties");
  d.check(table->device_open(index, &d.dev), "open");
  return d;
}

void DeviceRef::close() {
  if (table && dev) table->device_close(dev);
  dev = nullptr;
}

}  // namespace zen::graph

#include "device_selection.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace zen::host {

const char* device_type_name(zen_device_type type) {
  switch (type) {
    case ZEN_DEVICE_CPU:
      return "cpu";
    case ZEN_DEVICE_GPU:
      return "gpu";
    case ZEN_DEVICE_IGPU:
      return "igpu";
    case ZEN_DEVICE_ACCEL:
      return "accelerator";
    case ZEN_DEVICE_SOFTWARE:
      return "software";
  }
  return "unknown";
}

namespace {

std::vector<DeviceCandidate> enumerate(const PluginRegistry& plugins) {
  std::vector<DeviceCandidate> out;
  for (const PluginRecord* rec : plugins.loaded(ZEN_KIND_DEVICE)) {
    const auto* table = static_cast<const zen_device_v1*>(rec->vtable);
    uint32_t n = table->device_count();
    for (uint32_t i = 0; i < n; ++i) {
      DeviceCandidate c;
      c.plugin = rec;
      c.table = table;
      c.index = i;
      c.id = rec->name + ":" + std::to_string(i);
      c.props.h = ZEN_HDR_INIT(zen_device_props);
      if (table->device_props(i, &c.props) != ZEN_OK) {
        c.why = "not chosen: device_props failed" + PluginRecord::failure_suffix(rec->last_error);
        out.push_back(c);
        continue;
      }
      c.props.name[sizeof c.props.name - 1] = '\0';
      c.props.description[sizeof c.props.description - 1] = '\0';
      c.props.pci_bus_id[sizeof c.props.pci_bus_id - 1] = '\0';
      out.push_back(c);
    }
  }
  return out;
}

// "cpu" names cpu:0; "vulkan:1" names exactly that device.
bool matches(const DeviceCandidate& c, const std::string& want) {
  return c.id == want || (want.find(':') == std::string::npos && c.id == want + ":0");
}

std::string hex(uint32_t v) {
  char s[16];
  std::snprintf(s, sizeof s, "%04x", v);
  return s;
}

}  // namespace

std::string same_hardware(const zen_device_props& a, const zen_device_props& b) {
  if (a.type == ZEN_DEVICE_CPU || b.type == ZEN_DEVICE_CPU || a.type == ZEN_DEVICE_SOFTWARE ||
      b.type == ZEN_DEVICE_SOFTWARE)
    return "";
  if (a.pci_bus_id[0] && b.pci_bus_id[0])
    return std::strcmp(a.pci_bus_id, b.pci_bus_id) == 0 ? "PCI " + std::string(a.pci_bus_id) : "";
  // Without a bus id on both sides: the same vendor, the same device id where both know it,
  // and the same memory.
  if (a.vendor_id == 0 || a.vendor_id != b.vendor_id || a.memory_total == 0 ||
      a.memory_total != b.memory_total)
    return "";
  if (a.device_id && b.device_id && a.device_id != b.device_id) return "";
  return "vendor " + hex(a.vendor_id) + (a.device_id ? ":" + hex(a.device_id) : "") + ", " +
         std::to_string(a.memory_total >> 20) + " MiB";
}

void choose_devices(std::vector<DeviceCandidate>& all, const Config& config) {
  int rank = 0;
  if (!config.devices.empty()) {
    for (size_t k = 0; k < config.devices.size(); ++k) {
      const std::string& want = config.devices[k];
      auto it = std::find_if(all.begin(), all.end(),
                             [&](const DeviceCandidate& c) { return matches(c, want); });
      if (it == all.end() || !it->why.empty()) {
        std::string have;
        for (const auto& c : all) have += (have.empty() ? "" : ", ") + c.id;
        throw ConfigError("devices[" + std::to_string(k) + "]: '" + want +
                          "' is not available here (available: " + (have.empty() ? "none" : have) +
                          ")");
      }
      if (it->chosen) continue;
      it->chosen = true;
      it->rank = rank++;
      it->why = "chosen: listed in config devices at position " + std::to_string(k);
      // Honoured, but said: two APIs on one GPU compete for it.
      for (const auto& c : all)
        if (c.chosen && &c != &*it)
          if (std::string same = same_hardware(c.props, it->props); !same.empty())
            it->why += " (the same GPU as " + c.id + ", " + same + ")";
    }
    for (auto& c : all)
      if (!c.chosen && c.why.empty()) c.why = "not chosen: not listed in config devices";
    return;
  }
  // No config: every non-software device, highest priority first.
  std::vector<DeviceCandidate*> order;
  for (auto& c : all) {
    if (!c.why.empty()) continue;
    if (c.props.type == ZEN_DEVICE_SOFTWARE) {
      c.why =
          "not chosen: software implementation on the CPU (name it in config devices to use it)";
      continue;
    }
    order.push_back(&c);
  }
  std::stable_sort(order.begin(), order.end(),
                   [](auto* a, auto* b) { return a->props.priority > b->props.priority; });
  std::vector<const DeviceCandidate*> chosen;
  for (auto* c : order) {
    // One GPU reached through several APIs is used once, through the API that ranks it higher.
    auto twin = std::find_if(chosen.begin(), chosen.end(), [&](const DeviceCandidate* d) {
      return !same_hardware(d->props, c->props).empty();
    });
    if (twin != chosen.end()) {
      c->why = "not chosen: same GPU as " + (*twin)->id + " (" +
               same_hardware((*twin)->props, c->props) + "), which ranks higher (priority " +
               std::to_string((*twin)->props.priority) + " vs " +
               std::to_string(c->props.priority) + "; name both in config devices to use both)";
      continue;
    }
    chosen.push_back(c);
    c->chosen = true;
    c->rank = rank++;
    c->why = "chosen: priority " + std::to_string(c->props.priority) +
             (c->rank == 0 ? " (first choice)" : " (runs what the devices before it cannot)");
  }
}

std::vector<DeviceCandidate> select_devices(const PluginRegistry& plugins, const Config& config) {
  std::vector<DeviceCandidate> all = enumerate(plugins);
  choose_devices(all, config);
  return all;
}

}  // namespace zen::host

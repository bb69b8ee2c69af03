#include "plugin_report.h"

#include <filesystem>
#include <iomanip>

namespace zen::cli {

using nlohmann::json;

namespace {

// A refused plugin may never have told us its name: fall back to the file's.
std::string shown_name(const host::PluginRecord& r) {
  if (!r.name.empty()) return r.display_name();
  std::string stem = std::filesystem::path(r.path).stem().string();
  if (stem.rfind("static:", 0) == 0) stem = stem.substr(7);
  return stem.rfind("zen-", 0) == 0 ? stem.substr(4) : stem;
}

std::string shown_kind(const host::PluginRecord& r) {
  return r.name.empty() ? "-" : host::kind_name(r.kind);
}

}  // namespace

json plugins_json(const host::PluginRegistry& registry) {
  json out = {{"search_dirs", registry.search_dirs()}, {"plugins", json::array()}};
  for (const auto& r : registry.records()) {
    json p = {{"path", r.path},          {"state", host::state_name(r.state)},
              {"reason", r.reason},      {"score", r.score},
              {"probe", r.probe_reason}, {"name", shown_name(r)},
              {"kind", shown_kind(r)}};
    if (!r.name.empty()) {
      p["plugin_name"] = r.name;
      p["version"] = r.version;
      p["variant"] = r.variant;
      p["abi"] = std::to_string(r.abi_major) + "." + std::to_string(r.abi_minor);
    }
    out["plugins"].push_back(p);
  }
  return out;
}

void print_plugins(const host::PluginRegistry& registry, std::ostream& out) {
  out << "plugin dirs:";
  for (const auto& d : registry.search_dirs()) out << " " << d;
  out << "\n";
  out << std::left << std::setw(8) << "STATE"
      << " " << std::setw(8) << "KIND"
      << " " << std::setw(18) << "NAME"
      << " " << std::setw(8) << "VERSION"
      << " " << std::setw(5) << "SCORE"
      << " PATH\n";
  for (const auto& r : registry.records()) {
    out << std::left << std::setw(8) << host::state_name(r.state) << " " << std::setw(8)
        << shown_kind(r) << " " << std::setw(18) << shown_name(r) << " " << std::setw(8)
        << (r.version.empty() ? "-" : r.version) << " " << std::setw(5) << r.score << " " << r.path
        << "\n";
    if (!r.reason.empty()) out << "         " << r.reason << "\n";
  }
}

json devices_json(const std::vector<host::DeviceCandidate>& devices) {
  json out = json::array();
  for (const auto& d : devices) {
    out.push_back({{"id", d.id},
                   {"plugin", d.plugin ? d.plugin->display_name() : ""},
                   {"name", d.props.name},
                   {"description", d.props.description},
                   {"type", host::device_type_name(d.props.type)},
                   {"memory_total", d.props.memory_total},
                   {"priority", d.props.priority},
                   {"host_visible", d.props.host_visible != 0},
                   {"compute_units", d.props.compute_units},
                   {"pci_bus_id", d.props.pci_bus_id},
                   {"vendor_id", d.props.vendor_id},
                   {"device_id", d.props.device_id},
                   {"chosen", d.chosen},
                   {"rank", d.rank},
                   {"why", d.why}});
  }
  return out;
}

void print_devices(const std::vector<host::DeviceCandidate>& devices, std::ostream& out) {
  if (devices.empty()) out << "  (no device plugin loaded)\n";
  for (const auto& d : devices) {
    out << "  " << (d.chosen ? "* " : "  ") << std::left << std::setw(10) << d.id << " "
        << host::device_type_name(d.props.type) << ", " << d.props.name << " - "
        << d.props.description;
    if (d.props.memory_total) out << ", " << (d.props.memory_total >> 20) << " MiB";
    if (d.props.pci_bus_id[0]) out << ", pci " << d.props.pci_bus_id;
    out << "\n      " << d.why << "\n";
  }
}

}  // namespace zen::cli

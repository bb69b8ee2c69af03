// Rendering of the plugin registry for `plugins` and `probe`.
#pragma once

#include <ostream>

#include <nlohmann/json.hpp>

#include "device_selection.h"
#include "plugin_registry.h"

namespace zen::cli {

nlohmann::json plugins_json(const host::PluginRegistry& registry);
void print_plugins(const host::PluginRegistry& registry, std::ostream& out);

nlohmann::json devices_json(const std::vector<host::DeviceCandidate>& devices);
void print_devices(const std::vector<host::DeviceCandidate>& devices, std::ostream& out);

}  // namespace zen::cli

// The deployment config: one JSON file choosing devices, the CPU variant, threads and plugin
// directories. Every key is known and type-checked; an unknown key or a bad value is an error
// naming the key. Later features add their keys to the schema in config.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace zen::host {

struct ConfigError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class Pinning { none, cores };

struct Config {
  std::string source;                     // file it came from, or "" for defaults
  std::vector<std::string> plugin_paths;  // plugins.paths
  std::vector<std::string> devices;       // "vulkan:0", "cpu"; empty = every device found
  std::string cpu_variant;                // "" = best that runs here
  unsigned cpu_threads = 0;               // 0 = one per physical core
  Pinning cpu_pinning = Pinning::cores;
  std::string log_level = "info";
  nlohmann::json raw = nlohmann::json::object();  // as validated, for plugin config_get

  // Value at a dotted key as text: strings unquoted, other JSON serialized; nullopt if unset.
  std::optional<std::string> lookup(const std::string& dotted_key) const;
};

// Parse and validate config text; `source` names it in error messages.
Config parse_config(const std::string& text, const std::string& source);

// Find and load the config: explicit path (must exist), else $ZEN_CONFIG (must exist), else
// the user config dir's zen-engine/config.json if present, else defaults. Environment
// overrides (ZEN_CPU_VARIANT) are applied last.
Config load_config(const std::optional<std::string>& explicit_path);

// Where load_config looks when nothing is given: $XDG_CONFIG_HOME or ~/.config.
std::string user_config_path();

}  // namespace zen::host

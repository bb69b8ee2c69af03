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

// `zen-engine serve`: how models are scheduled, and which frontend plugins start. Each
// frontend's own settings ("frontend": {"http": {...}}) stay in Config::raw and reach the
// plugin as its config JSON.
// serve.parallel 0 ("auto"): admission follows the KV cache's free blocks alone, up to this.
inline constexpr unsigned kAutoParallel = 256;

struct ServeConfig {
  unsigned parallel = 0;                 // sequences decoding together per model; 0: as many as the
                                         // KV cache holds (at most kAutoParallel)
  unsigned queue = 64;                   // requests waiting per model before 429
  unsigned ctx = 8192;                   // KV cache cells per model, shared by its sequences
  unsigned prefill_chunk = 256;          // prompt tokens per sequence per step
  unsigned max_batch_tokens = 512;       // tokens per step
  unsigned prefill_while_decoding = 64;  // prompt tokens per step while others generate
  bool deterministic = false;            // seeded output independent of concurrent requests
  std::vector<std::string> frontends = {"http"};
  std::string mcp_config;  // MCP servers whose tools the models may call (docs/MCP-CLIENT.md)
};

struct Config {
  std::string source;                     // file it came from, or "" for defaults
  std::vector<std::string> plugin_paths;  // plugins.paths
  std::vector<std::string> devices;       // "vulkan:0", "cpu"; empty = every device found
  std::string cpu_variant;                // "" = best that runs here
  unsigned cpu_threads = 0;               // 0 = one per physical core
  std::string isq;  // --isq: weights quantized to this type as they load ("" = as published)
  std::vector<std::pair<std::string, float>> lora;  // --lora FILE, --lora-scale S (docs/LORA.md)
  Pinning cpu_pinning = Pinning::cores;
  std::string log_level = "info";
  ServeConfig serve;
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

// `--device` flags (each "name" or "name:index", commas allowed) replace the config's devices;
// "cpu" is appended when not named, so the ops those devices refuse still have a device.
// Throws ConfigError for a malformed id.
void set_devices_from_cli(Config& c, const std::vector<std::string>& flags);

}  // namespace zen::host

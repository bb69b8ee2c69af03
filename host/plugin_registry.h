// Plugin discovery, checking, scoring and loading. Every candidate ends up in a record that
// says what happened to it in one line; a bad plugin never stops the host.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <zen/abi.h>

#include "config.h"

namespace zen::host {

// The entry points, whether they come from dlsym or a static registration table.
struct EntryPoints {
  zen_plugin_probe_fn probe = nullptr;
  zen_plugin_init_fn init = nullptr;
  zen_plugin_shutdown_fn shutdown = nullptr;
  zen_plugin_last_error_fn last_error = nullptr;  // optional (ABI 1.4)
  zen_plugin_identify_fn identify = nullptr;      // optional (ABI 1.4)
};

// A plugin linked into the binary (ZEN_STATIC_PLUGINS=ON), from the generated table.
struct StaticPlugin {
  const char* id;  // build target, e.g. "cpu-avx2"
  EntryPoints entry;
};
const std::vector<StaticPlugin>& static_plugins();

enum class PluginState {
  loaded,   // initialised and selected: its tables are in use
  standby,  // runs here but another plugin of the same name was preferred; shut down
  refused   // cannot be used; `reason` says why
};

struct PluginRecord {
  std::string path;  // file path, or "static:<id>"
  PluginState state = PluginState::refused;
  std::string reason;        // one line: why refused / standby, or notes on acceptance
  uint32_t score = 0;        // probe score (0 = cannot run here)
  std::string probe_reason;  // what the probe said
  zen_kind kind{};
  std::string name, version, variant;
  uint16_t abi_major = 0, abi_minor = 0;
  const void* vtable = nullptr;  // valid while state == loaded
  // The plugin's message for this thread's last failed call (zen/abi.h), or null when the
  // plugin has no zen_plugin_last_error; valid while state == loaded.
  zen_plugin_last_error_fn last_error = nullptr;

  std::string display_name() const { return variant.empty() ? name : name + "-" + variant; }
  // ": <the plugin's message for this thread's last failure>", or "" when it gives none.
  static std::string failure_suffix(zen_plugin_last_error_fn fn) {
    const char* why = fn ? fn() : nullptr;
    return why && *why ? std::string(": ") + why : std::string();
  }
};

const char* kind_name(zen_kind kind);
const char* state_name(PluginState state);

class PluginRegistry {
 public:
  // Discover, probe, initialise and select. Never throws for a bad plugin; throws ConfigError
  // when the config asks for something impossible (a CPU variant that cannot run here).
  PluginRegistry(const Config& config, const zen_host_api* host_api);
  ~PluginRegistry();  // shuts down loaded plugins; libraries unload only after that
  PluginRegistry(const PluginRegistry&) = delete;
  PluginRegistry& operator=(const PluginRegistry&) = delete;

  const std::vector<PluginRecord>& records() const { return records_; }
  // The loaded plugin of this kind and name, or nullptr.
  const PluginRecord* find(zen_kind kind, const std::string& name) const;
  std::vector<const PluginRecord*> loaded(zen_kind kind) const;
  // Directories searched, in order, for `zen-engine plugins` to show.
  const std::vector<std::string>& search_dirs() const { return dirs_; }

 private:
  struct Library;  // keeps a dlopen'd file mapped for as long as the registry lives
  // Probes; then identifies (standby until select() picks it) or initialises.
  void consider(PluginRecord rec, const EntryPoints& entry, std::shared_ptr<Library> lib);
  void initialise(size_t i);  // records_[i]: loaded, or refused saying why
  // The preferred of records sharing (kind, name): the configured CPU variant (`forced`), else
  // the best score, the first found on a tie. Throws ConfigError for a CPU variant not there.
  size_t pick(const std::vector<size_t>& members, const Config& config, bool& forced) const;
  // Throws ConfigError: the configured CPU variant cannot be used, with the refusals' reasons.
  [[noreturn]] void no_cpu_variant(const Config& config) const;
  void consider_file(const std::string& path);
  void select(const Config& config);

  const zen_host_api* host_;
  std::vector<std::string> dirs_;
  std::vector<PluginRecord> records_;
  std::vector<EntryPoints> entries_;            // parallel to records_
  std::vector<std::shared_ptr<Library>> libs_;  // parallel to records_ (null for static)
};

// Default plugin directories: $ZEN_PLUGIN_PATH entries, then the install dir next to the binary.
std::vector<std::string> plugin_search_dirs(const Config& config);

}  // namespace zen::host

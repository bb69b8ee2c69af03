// The real host for C++ tests that run models: the build's plugin directory, 2 CPU threads,
// the core services registered once per test binary. Models load through host::LoadedModel,
// exactly as `zen-engine run` and `serve` load them.
#pragma once

#include <memory>
#include <string>

#include "host_api.h"
#include "loaded_model.h"
#include "plugin_registry.h"
#include "services.h"

namespace zen::test {

// The committed tiny random models of every architecture (docs/TINY-MODELS.md).
inline const std::string kTinyModelsDir = std::string(ZEN_TEST_DATA_DIR) + "/models/tiny/";

struct Host {
  host::Config config;
  std::unique_ptr<host::PluginRegistry> registry;
  Host() {
    config.plugin_paths = {ZEN_BUILD_PLUGIN_DIR};
    config.cpu_threads = 2;
    host::register_core_services();
    registry = std::make_unique<host::PluginRegistry>(config, host::host_api(config));
  }
};

inline Host& host_once() {
  static Host h;
  return h;
}

inline std::unique_ptr<host::LoadedModel> load_model(const std::string& path,
                                                     model::ContextParams params) {
  return std::make_unique<host::LoadedModel>(*host_once().registry, host_once().config, path,
                                             params);
}

}  // namespace zen::test

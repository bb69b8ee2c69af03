// The frontend plugins `serve` runs (kind ZEN_KIND_FRONTEND: "http", later "mcp"), each
// started with its own config JSON and the engine API, and stopped in reverse order.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <zen/frontend.h>
#include <nlohmann/json.hpp>

#include "plugin_registry.h"

namespace zen::serving {

struct FrontendConfig {
  std::string name;                                  // plugin name ("http")
  nlohmann::json config = nlohmann::json::object();  // handed to its start()
};

class Frontends {
 public:
  // Starts each in order. Throws zen::Error naming a frontend that is not loaded or fails to
  // start (those already started are stopped first).
  Frontends(const host::PluginRegistry& plugins, const std::vector<FrontendConfig>& configs,
            const zen_engine_api* api, zen_engine* engine);
  ~Frontends();  // stop()
  Frontends(const Frontends&) = delete;
  Frontends& operator=(const Frontends&) = delete;

  // Stops them, last started first: listeners close, in-flight requests are cancelled.
  void stop();
  // Where clients reach each running frontend that says ("http://127.0.0.1:3690"), in start
  // order: the bound address, so a configured port 0 shows the real port.
  std::vector<std::string> addresses() const;

 private:
  struct Running {
    std::string name;
    const zen_frontend_v1* table;
    zen_frontend* handle;
  };
  std::vector<Running> running_;
};

}  // namespace zen::serving
